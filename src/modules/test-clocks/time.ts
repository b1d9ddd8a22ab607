/**
 * Business time (docs/decisions.md, Test clocks): a customer created on a test clock lives on the
 * clock's `frozenTime`; everyone else on the real (injected) clock. Infrastructure time (events'
 * createdAt, idempotency expiry, cursors, webhook retries, rate limits) always stays on `clock.now()`.
 * This file imports no other module, so any module may ask it for a customer's time.
 */
import { clock } from '../../core/clock.ts';
import type { Tx } from '../../core/db/client.ts';
import type { RowScope } from '../../core/resource.ts';

/** The "now" of a customer: its clock's frozenTime (a clock is never deleted hard), or the real clock. */
export async function clockTimeFor(tx: Tx, customer: RowScope & { testClockId: string | null }): Promise<Date> {
  if (!customer.testClockId) return clock.now();
  const row = await tx.testClock.findFirst({
    where: { workspaceId: customer.workspaceId, mode: customer.mode, id: customer.testClockId },
    select: { frozenTime: true },
  });
  return row?.frozenTime ?? clock.now();
}

/** The "now" of a clock by id, or the real clock when there is none. */
export async function clockTime(tx: Tx, scope: RowScope, testClockId: string | null): Promise<Date> {
  return clockTimeFor(tx, { ...scope, testClockId });
}

/** docs/decisions.md, Test clocks: limits that keep one clock's advance bounded. */
export const clockLimits = {
  /** One advance moves a clock at most this far (5 simulated years). */
  maxSimulatedMs: 5 * 366 * 24 * 3600 * 1000,
  /** Customers (and, with subscriptions, their subscriptions) on one clock. */
  maxObjects: 10_000,
  /** An advance over at most this many objects runs before the answer; larger ones run in the background. */
  syncObjects: 10,
} as const;
