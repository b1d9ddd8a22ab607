// Benchmark C6 (docs/coupons.md, Computation and durations): a renewal batch with discounted subscriptions and customers holding credit stays
// set-based: a batch of 1 and a full batch send the same statements (docs/coupons.md, Computation),
// and every discount and balance is applied.
import { describe, expect, it } from 'vitest';
import { useServer, db, type Workspace } from '../../helpers/server.ts';
import { unbalancedTxIds } from '../../helpers/payments.ts';
import { plan, scopeOf } from '../../helpers/renewals.ts';
import { countStatements, withStatementCounter } from '../../../src/core/db/statements.ts';
import { processDue, RENEWAL_BATCH } from '../../../src/modules/subscriptions/renewals.ts';

countStatements(true);
const server = useServer();
const AT = new Date('2026-03-01T00:00:00.000Z');
const START = new Date('2026-02-01T00:00:00.000Z');

/**
 * `n` active monthly subscriptions due at AT, one customer each, by statements: even ones (and a
 * batch of one) carry an active 20 % forever discount applied at START; the customers of the first
 * three of every ten (and a batch of one's) hold 50,000 IDR of credit, posted through the API.
 */
async function seedDue(ws: Workspace, n: number) {
  const { planId, priceId } = await plan(ws);
  const coupon = (
    await ws.client.post(
      '/v1/coupons',
      { name: 'Twenty', percentOff: 20, duration: 'forever' },
      { 'idempotency-key': crypto.randomUUID() },
    )
  ).json.data.id as string;
  const tag = ws.workspaceId.slice(-8);
  await db().system.query(
    `WITH c AS (INSERT INTO customers (id, "workspaceId", mode, name)
        SELECT 'cus_b' || $5 || lpad(g::text, 6, '0'), $1, 'test', 'Batch' FROM generate_series(1, $6::int) g RETURNING id)
     INSERT INTO subscriptions (id, "workspaceId", mode, status, "customerId", "planId", "priceId", currency, quantity,
       "paymentMethod", "anchorAt", "periodIndex", "currentPeriodStart", "currentPeriodEnd", "createdAt", "updatedAt")
     SELECT 'sub_b' || $5 || lpad(g::text, 6, '0'), $1, 'test', 'active', 'cus_b' || $5 || lpad(g::text, 6, '0'), $2, $3,
       'IDR', 1, 'pm_test_success', $4::timestamptz - interval '1 month', 0, $4::timestamptz - interval '1 month',
       $4::timestamptz, $4::timestamptz - interval '1 month', $4::timestamptz - interval '1 month'
     FROM generate_series(1, $6::int) g WHERE (SELECT count(*) FROM c) > 0`,
    [ws.workspaceId, planId, priceId, AT, tag, n],
  );
  await db().system.query(
    `WITH d AS (INSERT INTO discounts (id, "workspaceId", mode, "couponId", "customerId", "subscriptionId", start, status)
        SELECT 'di_b' || substr(s.id, 6), s."workspaceId", s.mode, $2, s."customerId", s.id, $3, 'active'
          FROM subscriptions s WHERE s."workspaceId" = $1 AND (right(s.id, 1)::int % 2 = 0 OR $4::int = 1)
        RETURNING id, "subscriptionId", "customerId")
     UPDATE subscriptions s SET discount = jsonb_build_object('id', d.id, 'couponId', $2::text,
         'coupon', jsonb_build_object('name', 'Twenty', 'percentOff', 20, 'amountOff', NULL, 'duration', 'forever',
           'durationInMonths', NULL),
         'customerId', d."customerId", 'subscriptionId', s.id, 'invoiceId', NULL, 'start', '2026-02-01T00:00:00.000Z',
         'end', NULL, 'status', 'active')
       FROM d WHERE s."workspaceId" = $1 AND s.id = d."subscriptionId"`,
    [ws.workspaceId, coupon, START, n],
  );
  const { rows } = await db().system.query<{ id: string }>(
    `SELECT id FROM customers WHERE "workspaceId" = $1 AND (right(id, 1)::int < 3 OR $2::int = 1) ORDER BY id`,
    [ws.workspaceId, n],
  );
  for (const { id } of rows) {
    const res = await ws.client.post(
      `/v1/customers/${id}/balance-transactions`,
      { amount: 50000, currency: 'IDR' },
      { 'idempotency-key': crypto.randomUUID() },
    );
    expect(res.status, JSON.stringify(res.json)).toBe(201);
  }
  return rows.length;
}

async function counted(ws: Workspace) {
  const counter = { count: 0 };
  const r = await withStatementCounter(counter, () => processDue({ scope: scopeOf(ws), at: AT, testClockId: null }));
  return { ...r, statements: counter.count };
}

describe('renewal batches with discounts and balances', () => {
  it('a batch of 1 and a full batch send the same statements; every discount before tax and every balance applied', async () => {
    const small = await server.workspace();
    const full = await server.workspace();
    await seedDue(small, 1);
    const holders = await seedDue(full, RENEWAL_BATCH);
    const a = await counted(small);
    const b = await counted(full);
    expect(a).toMatchObject({ renewed: 1, attempted: 1 });
    expect(b).toMatchObject({ renewed: RENEWAL_BATCH, attempted: RENEWAL_BATCH });
    console.log(`statements with discounts and balances: 1 -> ${a.statements}, ${RENEWAL_BATCH} -> ${b.statements}`);
    expect(b.statements, `1: ${a.statements}, ${RENEWAL_BATCH}: ${b.statements}`).toBe(a.statements);
    const { rows } = await db().system.query(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'paid')::int AS paid,
          count(*) FILTER (WHERE discount = 30000 AND discounts -> 0 ->> 'name' = 'Twenty')::int AS discounted,
          count(*) FILTER (WHERE discount = 0 AND discounts = '[]'::jsonb)::int AS undiscounted,
          count(*) FILTER (WHERE "balanceApplied" = 50000)::int AS credited
       FROM invoices WHERE "workspaceId" = $1`,
      [full.workspaceId],
    );
    expect(rows[0]).toEqual({
      n: RENEWAL_BATCH,
      paid: RENEWAL_BATCH,
      discounted: RENEWAL_BATCH / 2,
      undiscounted: RENEWAL_BATCH / 2,
      credited: holders,
    });
    expect(await unbalancedTxIds(full.workspaceId)).toEqual([]);
    // The forever discounts stay active on their subscriptions.
    const { rows: subs } = await db().system.query(
      `SELECT count(*) FILTER (WHERE discount ->> 'status' = 'active')::int AS n FROM subscriptions WHERE "workspaceId" = $1`,
      [full.workspaceId],
    );
    expect(subs[0].n).toBe(RENEWAL_BATCH / 2);
  });
});
