/**
 * The per-process bound on test clock walkers (docs/decisions.md, Test clocks; docs/security.md).
 * A walker holds one system-pool connection for its advisory lock and its own due queries, and its
 * `processDue` lanes borrow pooled connections as they go; with at most MAX_WALKERS walkers the
 * held connections stay far below the system pool (10 with the default SVC_DB_POOL of 20), so a
 * burst of advances can never leave every connection waiting for another one.
 */
export const MAX_WALKERS = 2;

let active = 0;
let stopping = false;
const waiting: ((ok: boolean) => void)[] = [];
const idle: (() => void)[] = [];

/** A walker slot now, or false when all are taken (a request then answers `advancing`) or the process is stopping. */
export function tryEnterWalk(): boolean {
  if (stopping || active >= MAX_WALKERS) return false;
  active++;
  return true;
}

/** A walker slot once one is free (a job waits here, holding no connection); false when stopping. */
export function enterWalk(): Promise<boolean> {
  if (tryEnterWalk()) return Promise.resolve(true);
  if (stopping) return Promise.resolve(false);
  return new Promise((resolve) => waiting.push(resolve));
}

export function leaveWalk() {
  const next = waiting.shift();
  if (next && !stopping) return next(true);
  active--;
  if (active === 0) for (const r of idle.splice(0)) r();
}

/**
 * Start: walkers may run again. A process that closed an app (or worker) and builds another (the
 * test runner shares one process between files) would otherwise refuse every walk from then on.
 */
export function resumeWalks() {
  stopping = false;
}

/** Whether walkers should stop at their next step (the process is shutting down). */
export const walksStopping = () => stopping;

/**
 * Shutdown: walkers stop at their next step (each step commits, so the clock stays `advancing` at the
 * time reached and the sweep resumes it), waiters give up; resolves when no walker is left or after
 * `ms`, whichever comes first: a walker never holds a shutdown.
 */
export function stopWalks(ms = 5000): Promise<void> {
  stopping = true;
  for (const w of waiting.splice(0)) w(false);
  if (active === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    idle.push(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
