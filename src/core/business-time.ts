/**
 * Business time (docs/decisions.md, Test clocks): a customer created on a test clock lives on the
 * clock's `frozenTime`; everyone else on the real (injected) clock. Infrastructure time (events'
 * createdAt, idempotency expiry, cursors, webhook retries, rate limits) always stays on `clock.now()`.
 * This file imports no other module, so any module may ask it for a customer's time.
 */
import { clock } from './clock.ts';
import { sql as q, sqlOf, type AnyTx } from './db/sql.ts';
import type { RowScope } from './resource.ts';

/**
 * The "now" of a customer (or of a subscription or invoice, which carry their customer's clock):
 * its clock's frozenTime (a clock is never deleted hard), or the real clock. Either SQL path.
 */
export async function clockTimeFor(tx: AnyTx, row: RowScope & { testClockId: string | null }): Promise<Date> {
  if (!row.testClockId) return clock.now();
  const [c] = await sqlOf(tx).query<{ frozenTime: Date }>(
    q`SELECT "frozenTime" FROM test_clocks WHERE "workspaceId" = ${row.workspaceId} AND mode = ${row.mode}
      AND id = ${row.testClockId}`,
  );
  return c?.frozenTime ?? clock.now();
}

/** docs/decisions.md, Test clocks: limits that keep one clock's advance bounded. */
export const clockLimits = {
  /** One advance moves a clock at most this far (5 simulated years). */
  maxSimulatedMs: 5 * 366 * 24 * 3600 * 1000,
  /** Customers (and, with subscriptions, their subscriptions) on one clock. */
  maxObjects: 10_000,
  /** Live (not deleted) clocks per workspace: one workspace's simulations stay a bounded share of the queue. */
  maxClocks: 100,
  /** Renewal cycles one advance may bill, over all the clock's subscriptions (1,000 monthly x a year). */
  maxCyclesPerAdvance: 12_000,
  /** Renewal cycles one advance may bill for one subscription (a daily one for a year and a bit). */
  maxCyclesPerSubscription: 400,
  /** An advance over at most this many objects runs before the answer; larger ones run in the background. */
  syncObjects: 10,
  /** A walk in the request stops after this long (docs/decisions.md, Test clocks: ~10 s) and answers `advancing`; the job finishes it. */
  syncBudgetMs: 10_000,
} as const;

/** Refuses one more object on a full clock (docs/decisions.md, Test clocks: 10,000 per clock). */
export async function checkClockRoom(tx: AnyTx, scope: RowScope, testClockId: string, onFull: () => Error) {
  const [r] = await sqlOf(tx).query<{ n: number }>(
    q`SELECT (SELECT count(*) FROM customers WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
        AND "testClockId" = ${testClockId})
      + (SELECT count(*) FROM subscriptions WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
        AND "testClockId" = ${testClockId}) AS n`,
  );
  if (Number(r?.n ?? 0) >= clockLimits.maxObjects) throw onFull();
}
