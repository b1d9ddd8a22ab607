// Statistics after bulk writes (docs/decisions.md): a renewal burst analyzes the tables it grew, between
// batches, once per interval and by one worker at a time.
import { describe, expect, it } from 'vitest';
import { useServer, db, type Workspace } from '../../helpers/server.ts';
import { customer, plan, scopeOf } from '../../helpers/renewals.ts';
import { until } from '../../helpers/receiver.ts';
import { analyzeTables, grownTables, MIN_CHANGES } from '../../../src/core/db/analyze.ts';
import { processDue, RENEWAL_TABLES } from '../../../src/modules/subscriptions/renewals.ts';

const server = useServer();
const AT = new Date('2026-03-01T00:00:00.000Z');

/** `n` active monthly subscriptions due at AT, by one statement. */
async function seedDue(ws: Workspace, n: number, tag: string) {
  const { planId, priceId } = await plan(ws);
  await db().system.query(
    `INSERT INTO subscriptions (id, "workspaceId", mode, status, "customerId", "planId", "priceId", currency, quantity,
       "paymentMethod", "anchorAt", "periodIndex", "currentPeriodStart", "currentPeriodEnd", "createdAt", "updatedAt")
     SELECT 'sub_analyze' || $6 || lpad(g::text, 12, '0'), $1, 'test', 'active', $2, $3, $4, 'IDR', 1, 'pm_test_success',
       $5::timestamptz - interval '1 month', 0, $5::timestamptz - interval '1 month', $5::timestamptz,
       $5::timestamptz - interval '1 month', $5::timestamptz - interval '1 month'
     FROM generate_series(1, $7) g`,
    [ws.workspaceId, await customer(ws), planId, priceId, AT, tag, n],
  );
}

const lastAnalyze = async (table: string) =>
  (
    await db().system.query<{ at: Date | null }>(
      'SELECT last_analyze AS at FROM pg_stat_user_tables WHERE schemaname = current_schema() AND relname = $1',
      [table],
    )
  ).rows[0].at;

/** Waits until the cumulative statistics show `table` grown (backends report them when idle, within a second). */
const untilGrown = (table: string) =>
  until(async () => (await grownTables([table], { minIntervalS: 0 })).includes(table), `${table} grown`);

/** Where the planner looks up one invoice by id: the index condition of its plan (or a sequential scan). */
async function invoiceLookup(ws: Workspace, id: string): Promise<string> {
  const { rows } = await db().system.query(
    `EXPLAIN (FORMAT JSON) SELECT status FROM invoices WHERE "workspaceId" = $1 AND mode = 'test' AND id = $2`,
    [ws.workspaceId, id],
  );
  const top = rows[0]['QUERY PLAN'][0].Plan;
  return top['Index Cond'] ?? top['Node Type'];
}

describe('statistics after bulk writes', () => {
  it('a table analyzed while empty is analyzed again as soon as it grew, within the interval: lookups by id use its id', async () => {
    await db().system.query('ALTER TABLE invoices SET (autovacuum_enabled = false)');
    const ws = await server.workspace();
    await db().system.query('ANALYZE invoices');
    const cus = await customer(ws);
    await db().system.query(
      `INSERT INTO invoices (id, "workspaceId", mode, "customerId", status, currency, subtotal, total, "amountDue", number)
       SELECT 'inv_analyze' || lpad(g::text, 12, '0'), $1, 'test', $2, 'open', 'IDR', 100, 100, 100, 'ANL-' || g
       FROM generate_series(1, $3) g`,
      [ws.workspaceId, cus, 2 * MIN_CHANGES],
    );
    const id = `inv_analyze${String(MIN_CHANGES).padStart(12, '0')}`;
    // Statistics of an empty table: any index starting (workspaceId, mode) looks as good, and scans the workspace.
    expect(await invoiceLookup(ws, id)).not.toMatch(/\(id = /);
    await untilGrown('invoices');
    // Analyzed moments ago, but while empty: analyzed again now, not after the interval.
    expect(await analyzeTables(['invoices'])).toEqual(['invoices']);
    expect(await invoiceLookup(ws, id)).toMatch(/\(id = /);
  });

  it('a burst analyzes the tables it grew, not again within the interval, one worker at a time', async () => {
    // This file's database only: autovacuum's analyze arriving mid-test would (rightly) hold the step back.
    await db().system.query('ALTER TABLE subscriptions SET (autovacuum_enabled = false)');
    const ws = await server.workspace();
    await seedDue(ws, 2 * MIN_CHANGES, 'a');
    await untilGrown('subscriptions');
    const before = await lastAnalyze('subscriptions');

    // The tick's path: the check runs between batches once a process has written enough rows.
    const r = await processDue({ scope: scopeOf(ws), at: AT, testClockId: null });
    expect(r.renewed).toBe(2 * MIN_CHANGES);
    const after = await lastAnalyze('subscriptions');
    expect(after, 'subscriptions analyzed during the burst').not.toBeNull();
    expect(after!.getTime()).toBeGreaterThan(before?.getTime() ?? 0);

    // Grown again, but analyzed moments ago: not analyzed again within the interval.
    await seedDue(ws, 3 * MIN_CHANGES, 'b');
    await untilGrown('subscriptions');
    expect(await grownTables(RENEWAL_TABLES)).not.toContain('subscriptions');
    expect(await analyzeTables(RENEWAL_TABLES)).not.toContain('subscriptions');
    expect(await lastAnalyze('subscriptions')).toEqual(after);

    // Single flight: while another worker holds the lock, this one skips rather than waits.
    const other = await db().system.connect();
    try {
      await other.query("SELECT pg_advisory_lock(hashtextextended('analyze-grown', 0))");
      expect(await analyzeTables(RENEWAL_TABLES, { minIntervalS: 0 })).toEqual([]);
      expect(await lastAnalyze('subscriptions')).toEqual(after);
      await other.query("SELECT pg_advisory_unlock(hashtextextended('analyze-grown', 0))");
    } finally {
      other.release();
    }
    // Past the interval (0 here) it runs again.
    expect(await analyzeTables(RENEWAL_TABLES, { minIntervalS: 0 })).toContain('subscriptions');
    expect((await lastAnalyze('subscriptions'))!.getTime()).toBeGreaterThan(after!.getTime());
  });
});
