/**
 * Money before mail, inside one worker process (docs/decisions.md, Renewal bursts): while a billing
 * drainer runs here (renewals, charges, reconciles), a receipt email job waits for it to finish, at
 * most `MAX_WAIT_MS`, then sends anyway. Rendering an email (MJML, the PDF, the MIME message) is
 * CPU on the same event loop as the burst's charges; a burst's receipts are sent when it ends, a
 * few seconds late, instead of slowing every tenant's charges while it runs. Bounded: a worker that
 * is never idle still sends every email within the wait.
 */
const MAX_WAIT_MS = 30_000;

let running = 0;
let idle: { promise: Promise<void>; resolve: () => void } | null = null;

/** Runs billing work; mail waiting on it resumes when the last one here ends. */
export async function billingWork<T>(fn: () => Promise<T>): Promise<T> {
  running++;
  try {
    return await fn();
  } finally {
    running--;
    if (running === 0 && idle) {
      idle.resolve();
      idle = null;
    }
  }
}

/** Resolves when no billing work runs in this process, or after `maxMs`. */
export async function afterBilling(maxMs = MAX_WAIT_MS): Promise<void> {
  if (running === 0) return;
  if (!idle) {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => {
      resolve = r;
    });
    idle = { promise, resolve };
  }
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([idle.promise, new Promise<void>((r) => (timer = setTimeout(r, maxMs)))]);
  clearTimeout(timer);
}
