/**
 * What falls due on a test clock's time (docs/decisions.md, Test clocks): each kind of due item says
 * when its next one is due and processes the ones due at an instant, with that instant as "now".
 * The advance walks these in time order (service.ts `walkClock`). Renewals, trial ends, dunning
 * retries and period-end cancels join this list with the subscriptions and renewals modules.
 */
import type { RowScope } from '../../core/resource.ts';
import { markPastDueInvoices, nextPastDue } from '../invoices/sweep.ts';

export interface ClockWork {
  name: string;
  /** The earliest instant <= `upTo` at which one of the clock's items is due, or null. */
  nextDue(scope: RowScope, testClockId: string, upTo: Date): Promise<Date | null>;
  /** Processes every item of the clock due at or before `at`, with `at` as now; returns how many. */
  runDue(scope: RowScope, testClockId: string, at: Date): Promise<number>;
}

const BATCH = 500;

/** Repeats a batch step until it moves nothing (each step commits its own transactions). */
const drain = async (step: () => Promise<number>) => {
  let total = 0;
  for (let n = await step(); n > 0; n = await step()) total += n;
  return total;
};

export const clockWork: ClockWork[] = [
  {
    name: 'invoice past due',
    nextDue: nextPastDue,
    runDue: (scope, testClockId, at) => drain(() => markPastDueInvoices(BATCH, { ...scope, testClockId, at })),
  },
];
