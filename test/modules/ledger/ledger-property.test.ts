/**
 * Property: after any sequence of payments, refunds (succeeding and failing), and payouts (paid,
 * failed, cancelled, left pending), the books hold: every txId balances; the payout balance is
 * payments - fees - succeeded refunds - paid payouts; available = ledgerBalance - locked; the
 * balances endpoint, the P&L and the cash flow agree with the entries.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { useServer, db, createClient, type Workspace } from '../../helpers/server.ts';
import { sandboxPayment, unbalancedTxIds, unthrottled } from '../../helpers/payments.ts';

const server = useServer();
const key = () => ({ 'idempotency-key': randomUUID() });

type Step =
  | { kind: 'pay'; amount: number; method: 'card' | 'qris' }
  | { kind: 'refund'; payment: number; share: number; outcome: 'success' | 'failure' }
  | { kind: 'payout'; share: number; outcome: 'paid' | 'failed' | 'cancelled' | 'pending' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('pay' as const),
    amount: fc.integer({ min: 1000, max: 500_000 }),
    method: fc.constantFrom('card' as const, 'qris' as const),
  }),
  fc.record({
    kind: fc.constant('refund' as const),
    payment: fc.nat(),
    share: fc.double({ min: 0.05, max: 1, noNaN: true }),
    outcome: fc.constantFrom('success' as const, 'failure' as const),
  }),
  fc.record({
    kind: fc.constant('payout' as const),
    share: fc.double({ min: 0.05, max: 1.2, noNaN: true }),
    outcome: fc.constantFrom('paid' as const, 'failed' as const, 'cancelled' as const, 'pending' as const),
  }),
);

interface Model {
  payments: { id: string; amount: number; refundable: number }[];
  gross: number;
  refunded: number;
  paidOut: number;
  locked: number;
}

async function merchant() {
  const partner = await server.workspace({ platformAdmin: true });
  const m = (await partner.client.post('/v1/workspaces', { name: 'Prop', businessEmail: 'p@example.com' }, key())).json
    .data;
  const client = createClient({
    baseUrl: server.url,
    keyId: partner.keyId,
    secret: partner.secret,
    onBehalfOf: m.accountId,
  });
  await client.post('/v1/templates', { kind: 'receipt', name: 'Taxed', showTax: true });
  await client.patch('/v1/payouts/bank-account', {
    bankName: 'BCA',
    bankAccountNumber: '42',
    bankAccountHolder: 'Prop',
  });
  return { client, workspaceId: m.id } as unknown as Workspace;
}

async function apply(ws: Workspace, model: Model, s: Step) {
  const c = ws.client;
  if (s.kind === 'pay') {
    const p = await sandboxPayment(server, ws, { amount: s.amount, method: s.method });
    model.payments.push({ id: p.id, amount: s.amount, refundable: s.amount });
    model.gross += s.amount;
    return;
  }
  if (s.kind === 'refund') {
    if (!model.payments.length) return;
    const p = model.payments[s.payment % model.payments.length];
    const amount = Math.max(1, Math.floor(p.refundable * s.share));
    const r = await c.post('/v1/refunds', { chargeId: p.id, amount }, key());
    if (p.refundable === 0) return void expect(r.status, r.text).toBe(422);
    expect(r.status, r.text).toBe(201);
    if (r.json.data.status === 'pending') {
      const done = await c.post(`/v1/refunds/${r.json.data.id}/simulate`, { outcome: s.outcome });
      expect(done.json.data.status).toBe(s.outcome === 'success' ? 'succeeded' : 'failed');
      if (s.outcome === 'failure') return;
    }
    p.refundable -= amount;
    model.refunded += amount;
    return;
  }
  const available = model.gross - model.refunded - model.paidOut - model.locked;
  const amount = Math.floor(Math.max(available, 0) * s.share);
  if (amount <= 0) return;
  const po = await c.post('/v1/payouts', { amount, currency: 'IDR' }, key());
  if (amount > available) return void expect(po.json?.error?.code, po.text).toBe('insufficient_balance');
  expect(po.status, po.text).toBe(201);
  const id = po.json.data.id;
  if (s.outcome === 'pending') return void (model.locked += amount);
  if (s.outcome === 'cancelled')
    return void expect((await c.post(`/v1/payouts/${id}/cancel`, {}, key())).status).toBe(200);
  expect((await c.post(`/v1/payouts/${id}/mark-in-transit`, {})).status).toBe(200);
  if (s.outcome === 'failed')
    return void expect((await c.post(`/v1/payouts/${id}/mark-failed`, { failureReason: 'rejected' })).status).toBe(200);
  expect((await c.post(`/v1/payouts/${id}/mark-paid`, {})).status).toBe(200);
  model.paidOut += amount;
}

async function checkBooks(ws: Workspace, model: Model) {
  expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
  const { rows } = await db().system.query(
    `SELECT code, sum(CASE direction WHEN 'debit' THEN amount ELSE 0 END)::bigint::int AS debits, sum(CASE direction WHEN 'credit' THEN amount ELSE 0 END)::bigint::int AS credits
       FROM ledger_entries WHERE "workspaceId" = $1 GROUP BY code ORDER BY code`,
    [ws.workspaceId],
  );
  const fees = Number(
    (
      await db().system.query(`SELECT coalesce(sum(fee), 0)::int AS f FROM payments WHERE "workspaceId" = $1`, [
        ws.workspaceId,
      ])
    ).rows[0].f,
  );
  const bal = (await ws.client.get('/v1/payouts/balance')).json.data;
  expect(bal.ledgerBalance).toBe(model.gross - fees - model.refunded - model.paidOut);
  expect(bal.locked).toBe(model.locked);
  expect(bal.available).toBe(bal.ledgerBalance - bal.locked);
  const balances = (await ws.client.get('/v1/ledger/balances')).json.data;
  expect(balances).toEqual(rows.map((r) => ({ ...r, currency: 'IDR', balance: r.credits - r.debits })));
  const code = (c: string) => rows.find((r) => r.code === c) ?? { debits: 0, credits: 0 };
  const pnl = (await ws.client.get('/v1/reports/pnl?from=2000-01-01&to=2100-01-01')).json.data;
  const revenue = code('payments').credits - code('payments').debits;
  expect(pnl).toMatchObject({
    totalRevenue: revenue,
    refunds: model.refunded,
    fees,
    tax: code('tax:ppn').credits,
    netIncome: revenue - model.refunded - fees,
  });
  expect(revenue + pnl.tax).toBe(model.gross);
  const today = new Date().toISOString().slice(0, 10);
  const cf = (await ws.client.get(`/v1/reports/cash-flow?from=${today}&to=${today}`)).json.data;
  expect(cf.closingBalance).toBe(bal.ledgerBalance);
  expect(cf.openingBalance + cf.inflows - cf.outflows).toBe(cf.closingBalance);
}

describe('ledger invariants (fast-check)', () => {
  const runs = Number(process.env.PROPERTY_RUNS ?? 12);
  it(`hold after every step of random histories (${runs} runs)`, async () => {
    await unthrottled(() =>
      fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), async (steps) => {
          const ws = await merchant();
          const model: Model = { payments: [], gross: 0, refunded: 0, paidOut: 0, locked: 0 };
          for (const s of steps) {
            await apply(ws, model, s);
            await checkBooks(ws, model);
          }
        }),
        { numRuns: runs, seed: Number(process.env.PROPERTY_SEED ?? 20261123), endOnFailure: true },
      ),
    );
  }, 300_000);
});
