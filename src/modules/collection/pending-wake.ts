/**
 * The sandbox's `async` delay kept to the charge (docs/decisions.md, Off-session outcomes): a process
 * that left a sandbox charge pending until a time asks the pending sweep to run then, instead of
 * waiting for its minute. One timer per process for the earliest time asked (later times are taken
 * by the sweep that runs at it, or asked again by the charge's next lease), so a burst of async
 * charges costs one timer. It is unref'd (never holds a shutdown); a crash loses nothing: the
 * `pending-sweep` job still runs every minute.
 */
import { clock } from '../../core/clock.ts';
import { logger } from '../../core/logger.ts';

/** Past the lease, so the sandbox answers `succeeded` (its lease passed) when the sweep asks. */
const MARGIN_MS = 50;

/** The sweep to run (waiting.ts registers `sweepPendingCharges` when it loads: no import back from here). */
let sweep: (() => Promise<unknown>) | null = null;
export function registerPendingSweep(run: () => Promise<unknown>) {
  sweep = run;
}

let timer: NodeJS.Timeout | null = null;
let dueAt = Number.POSITIVE_INFINITY;
let sweeping: Promise<unknown> | null = null;
let again = false;

/** Runs the pending sweep at `at` (or sooner, when an earlier one was asked). */
export function wakePendingSweepAt(at: Date) {
  const when = at.getTime() + MARGIN_MS;
  if (timer && when >= dueAt) return;
  if (timer) clearTimeout(timer);
  dueAt = when;
  timer = setTimeout(run, Math.max(0, when - clock.now().getTime()));
  timer.unref();
}

function run() {
  timer = null;
  dueAt = Number.POSITIVE_INFINITY;
  if (sweeping) {
    again = true;
    return;
  }
  if (!sweep) return;
  sweeping = sweep()
    .catch((e) => logger.warn({ err: e }, 'pending sweep on the sandbox delay failed; the minute sweep will retry'))
    .finally(() => {
      sweeping = null;
      if (again) {
        again = false;
        run();
      }
    });
}
