// A renewal batch is set-based: a batch of due subscriptions is invoiced, finalized,
// charged (test-mode stored methods are charged in process), receipted, posted and its events written in
// one transaction whose statement count does not grow with the batch; the numbers it gives stay gapless.
import { describe, expect, it } from 'vitest';
import { useServer, db, type Workspace } from '../../helpers/server.ts';
import { unbalancedTxIds } from '../../helpers/payments.ts';
import { customer, plan, scopeOf } from '../../helpers/renewals.ts';
import { countStatements, withStatementCounter } from '../../../src/core/db/statements.ts';
import { processDue, RENEWAL_BATCH } from '../../../src/modules/subscriptions/renewals.ts';

countStatements(true);
const server = useServer();
const AT = new Date('2026-03-01T00:00:00.000Z');

/** `n` active monthly subscriptions due at AT, paying with `method`, by one statement. */
async function seedDue(ws: Workspace, n: number, method: string, tag = 'a') {
  const { planId, priceId } = await plan(ws);
  await db().system.query(
    `INSERT INTO subscriptions (id, "workspaceId", mode, status, "customerId", "planId", "priceId", currency, quantity,
       "paymentMethod", "anchorAt", "periodIndex", "currentPeriodStart", "currentPeriodEnd", "createdAt", "updatedAt")
     SELECT 'sub_batch' || $6 || lpad(g::text, 12, '0'), $1, 'test', 'active', $2, $3, $4, 'IDR', 1, $7,
       $5::timestamptz - interval '1 month', 0, $5::timestamptz - interval '1 month', $5::timestamptz,
       $5::timestamptz - interval '1 month', $5::timestamptz - interval '1 month'
     FROM generate_series(1, $8) g`,
    [ws.workspaceId, await customer(ws), planId, priceId, AT, ws.workspaceId.slice(-8) + tag, method, n],
  );
}

/** processDue for one workspace, with the statements it sent. */
async function counted(ws: Workspace) {
  const counter = { count: 0 };
  const r = await withStatementCounter(counter, () => processDue({ scope: scopeOf(ws), at: AT, testClockId: null }));
  return { ...r, statements: counter.count };
}

const one = async (text: string, params: unknown[]) => (await db().system.query(text, params)).rows[0];

describe('renewal batches', () => {
  it('a batch of 1 and a full batch send the same statements: paid, receipted, posted, gapless', async () => {
    const small = await server.workspace();
    const full = await server.workspace();
    await seedDue(small, 1, 'pm_test_success');
    await seedDue(full, RENEWAL_BATCH, 'pm_test_success');
    const a = await counted(small);
    const b = await counted(full);
    expect(a).toMatchObject({ renewed: 1, attempted: 1 });
    expect(b).toMatchObject({ renewed: RENEWAL_BATCH, attempted: RENEWAL_BATCH });
    console.log(`statements: 1 -> ${a.statements}, ${RENEWAL_BATCH} -> ${b.statements}`);
    expect(b.statements, `1: ${a.statements}, ${RENEWAL_BATCH}: ${b.statements}`).toBe(a.statements);
    const w = [full.workspaceId];
    const inv = await one(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'paid' AND "collectionAttempts" = 1
         AND "nextAttemptAt" IS NULL)::int AS paid, max(split_part(number, '-', 4)::int) AS max
       FROM invoices WHERE "workspaceId" = $1`,
      w,
    );
    expect(inv).toEqual({ n: RENEWAL_BATCH, paid: RENEWAL_BATCH, max: RENEWAL_BATCH });
    const rc = await one(
      `SELECT count(*)::int AS n, count(DISTINCT number)::int AS distinct, max(split_part(number, '-', 5)::int) AS max
       FROM receipts WHERE "workspaceId" = $1 AND "sourceType" = 'invoice'`,
      w,
    );
    expect(rc).toEqual({ n: RENEWAL_BATCH, distinct: RENEWAL_BATCH, max: RENEWAL_BATCH });
    const pay = await one(
      `SELECT count(*)::int AS n, count(DISTINCT "invoiceId")::int AS invoices FROM payments
       WHERE "workspaceId" = $1 AND status = 'succeeded' AND "providerReference" = 'ch_test_' || id`,
      w,
    );
    expect(pay).toEqual({ n: RENEWAL_BATCH, invoices: RENEWAL_BATCH });
    expect(await unbalancedTxIds(full.workspaceId)).toEqual([]);
    const ledger = await one(
      `SELECT count(DISTINCT "txId")::int AS n FROM ledger_entries WHERE "workspaceId" = $1 AND "sourceType" = 'invoice'`,
      w,
    );
    expect(ledger.n).toBe(RENEWAL_BATCH);
    // Each invoice's events in order; each payment's and subscription's.
    const { rows } = await db().system.query(
      `SELECT i.id, array_agg(e.type ORDER BY e.sequence) AS types FROM invoices i
         JOIN events e ON e."workspaceId" = i."workspaceId" AND e."objectId" = i.id
       WHERE i."workspaceId" = $1 GROUP BY i.id`,
      w,
    );
    expect(rows).toHaveLength(RENEWAL_BATCH);
    for (const r of rows)
      expect(r.types).toEqual(['svc.invoice.created.v1', 'svc.invoice.finalized.v1', 'svc.invoice.paid.v1']);
    const counts = await one(
      `SELECT count(*) FILTER (WHERE type = 'payment.succeeded')::int AS payments,
         count(*) FILTER (WHERE type = 'subscription.updated')::int AS subscriptions
       FROM events WHERE "workspaceId" = $1`,
      w,
    );
    expect(counts).toEqual({ payments: RENEWAL_BATCH, subscriptions: RENEWAL_BATCH });
  });

  it('declines in a batch: each fails on its own (past_due, payment_failed), the rest are paid', async () => {
    const ws = await server.workspace();
    await seedDue(ws, 3, 'pm_test_success');
    await seedDue(ws, 2, 'pm_test_decline', 'b');
    expect(await processDue({ scope: scopeOf(ws), at: AT, testClockId: null })).toMatchObject({
      renewed: 5,
      attempted: 5,
    });
    const { rows } = await db().system.query(
      `SELECT s."paymentMethod" AS method, s.status AS sub, i.status AS inv, i."collectionAttempts" AS attempts,
         (SELECT count(*)::int FROM payments p WHERE p."invoiceId" = i.id) AS payments,
         (SELECT count(*)::int FROM events e WHERE e."objectId" = i.id AND e.type = 'svc.invoice.payment_failed.v1') AS failed
       FROM subscriptions s JOIN invoices i ON i."workspaceId" = s."workspaceId" AND i."subscriptionId" = s.id
       WHERE s."workspaceId" = $1 ORDER BY s."paymentMethod"`,
      [ws.workspaceId],
    );
    expect(rows).toEqual([
      { method: 'pm_test_decline', sub: 'past_due', inv: 'past_due', attempts: 1, payments: 1, failed: 1 },
      { method: 'pm_test_decline', sub: 'past_due', inv: 'past_due', attempts: 1, payments: 1, failed: 1 },
      { method: 'pm_test_success', sub: 'active', inv: 'paid', attempts: 1, payments: 1, failed: 0 },
      { method: 'pm_test_success', sub: 'active', inv: 'paid', attempts: 1, payments: 1, failed: 0 },
      { method: 'pm_test_success', sub: 'active', inv: 'paid', attempts: 1, payments: 1, failed: 0 },
    ]);
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
  });
});
