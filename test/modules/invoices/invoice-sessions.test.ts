// One live checkout session per invoice (src/modules/checkout-sessions/invoice-sessions.ts): the
// invoice's session closes in the transaction that pays it another way or voids it; and money a
// provider captures for an invoice already paid is accepted and refunded through the refund path
// (late-invoice-payment.ts; docs/decisions.md, Money for an invoice already paid).
import { randomBytes, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { hosted, unbalancedTxIds, unthrottled } from '../../helpers/payments.ts';
import { customer, dunningPolicy, pastDueWithPayingRetry, plan, scopeOf } from '../../helpers/renewals.ts';
import { db, useServer, type Workspace } from '../../helpers/server.ts';
import { useSimulators } from '../../helpers/simulators.ts';
import { ProviderASim } from '../../simulators/provider_a.ts';
import { ProviderBSim } from '../../simulators/provider_b.ts';
import { attemptDueInvoices } from '../../../src/modules/collection/dunning.ts';

const server = useServer();
const simulators = useSimulators(server);
const key = () => ({ 'idempotency-key': randomUUID() });
const rand = (n: number) => randomBytes(n).toString('hex').slice(0, n);
const utc = (s: string) => new Date(`${s}T10:00:00.000Z`);

async function openInvoice(ws: Workspace, total = 126_000) {
  const cus = (await ws.client.post('/v1/customers', { name: 'Budi', email: 'budi@example.com' })).json.data.id;
  const res = await ws.client.post('/v1/invoices', {
    customerId: cus,
    currency: 'IDR',
    status: 'open',
    lines: [{ description: 'Sewa alat', quantity: 1, unitAmount: total }],
  });
  expect(res.status, res.text).toBe(201);
  return res.json.data as { id: string; hostedInvoiceUrl: string };
}

/** The hosted page's Pay button: the invoice's checkout session id. */
async function openSession(invoiceId: string) {
  const { rows } = await db().system.query(`SELECT "hostedSecret" FROM invoices WHERE id = $1`, [invoiceId]);
  const res = await fetch(`${server.url}/i/${invoiceId}_${rows[0].hostedSecret}/pay`, {
    method: 'POST',
    redirect: 'manual',
  });
  expect(res.status).toBe(303);
  return /\/c\/(cs_[0-9A-Z]+)_/.exec(res.headers.get('location')!)![1];
}

const sessionRow = async (id: string) =>
  (await db().system.query(`SELECT status, "expiredAt" FROM checkout_sessions WHERE id = $1`, [id])).rows[0];
const attemptStatuses = async (sessionId: string) =>
  (
    await db().system.query(`SELECT status FROM checkout_attempts WHERE "checkoutSessionId" = $1 ORDER BY number`, [
      sessionId,
    ])
  ).rows.map((r) => r.status);
const eventTypes = async (objectId: string) =>
  (
    await db().system.query(`SELECT type FROM events WHERE "objectId" = $1 ORDER BY "createdAt", sequence`, [objectId])
  ).rows.map((r) => r.type);

describe('the invoice closes its live checkout session', () => {
  it('POST /v1/invoices/:id/pay expires the pending session (event, attempts superseded); the page can no longer charge', async () => {
    const ws = await server.workspace();
    const inv = await openInvoice(ws);
    const cs = await openSession(inv.id);
    expect((await hosted(server, cs, '/attempt', { method: 'card' })).status).toBe(200);
    expect((await sessionRow(cs)).status).toBe('pending');

    expect((await ws.client.post(`/v1/invoices/${inv.id}/pay`, {}, key())).status).toBe(201);
    // Committed with the pay: no sweep ran.
    expect(await sessionRow(cs)).toMatchObject({ status: 'expired', expiredAt: expect.any(Date) });
    expect(await attemptStatuses(cs)).toEqual(['superseded']);
    expect(await eventTypes(cs)).toEqual(['svc.checkout_session.expired.v1']);
    const late = await hosted(server, cs, '/simulate', { outcome: 'success' });
    expect(late.status).toBe(409);
    expect(late.json.error.code).toBe('conflict');
    const { rows } = await db().system.query(`SELECT count(*)::int AS n FROM payments WHERE "invoiceId" = $1`, [
      inv.id,
    ]);
    expect(rows[0].n).toBe(1);
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
  });

  it('voiding the invoice expires its open session', async () => {
    const ws = await server.workspace();
    const inv = await openInvoice(ws);
    const cs = await openSession(inv.id);
    expect((await ws.client.post(`/v1/invoices/${inv.id}/void`, {}, key())).status).toBe(200);
    expect((await sessionRow(cs)).status).toBe('expired');
    expect(await eventTypes(cs)).toEqual(['svc.checkout_session.expired.v1']);
  });

  it('a dunning retry that collects the invoice expires the session the customer opened', async () => {
    const ws = await server.workspace();
    const { planId, priceId } = await plan(ws, { dunningPolicyId: await dunningPolicy(ws, [1], 'void') });
    const { inv } = await pastDueWithPayingRetry(ws, { customerId: await customer(ws), planId, priceId });
    const scope = scopeOf(ws);
    expect(inv.status).toBe('past_due');
    const cs = await openSession(inv.id);
    expect((await sessionRow(cs)).status).toBe('open');
    expect((await attemptDueInvoices({ scope, at: utc('2026-02-11'), testClockId: null })).attempted).toBe(1);
    expect((await db().system.query(`SELECT status FROM invoices WHERE id = $1`, [inv.id])).rows[0].status).toBe(
      'paid',
    );
    expect((await sessionRow(cs)).status).toBe('expired');
  });

  it('race: the page paying while POST /pay runs never deadlocks: one payment, the loser 409', async () => {
    const ws = await server.workspace();
    await unthrottled(async () => {
      for (let round = 0; round < 6; round++) {
        const inv = await openInvoice(ws);
        const cs = await openSession(inv.id);
        expect((await hosted(server, cs, '/attempt', { method: 'qris' })).status).toBe(200);
        const [page, api] = await Promise.all([
          hosted(server, cs, '/simulate', { outcome: 'success' }),
          ws.client.post(`/v1/invoices/${inv.id}/pay`, {}, key()),
        ]);
        expect([page.status, api.status].sort(), `${page.text} ${api.text}`).toSatisfy(
          (s: number[]) => JSON.stringify(s) === '[200,409]' || JSON.stringify(s) === '[201,409]',
        );
        const { rows } = await db().system.query(`SELECT count(*)::int AS n FROM payments WHERE "invoiceId" = $1`, [
          inv.id,
        ]);
        expect(rows[0].n).toBe(1);
        expect(['completed', 'expired']).toContain((await sessionRow(cs)).status);
      }
    });
  });
});

/** An invoice whose session shows the provider's charge for `method`: the reference the provider will pay. */
async function chargeShown(ws: Workspace, method: string) {
  const inv = await openInvoice(ws, 99_000);
  const cs = await openSession(inv.id);
  const a = await hosted(server, cs, '/attempt', { method });
  expect(a.status, a.text).toBe(200);
  const { rows } = await db().system.query(
    `SELECT "providerReference", id FROM checkout_attempts WHERE "checkoutSessionId" = $1`,
    [cs],
  );
  return { inv, cs, ref: rows[0].providerReference as string, attemptId: rows[0].id as string };
}

/** The payment the late money left for the invoice, its one refund, and the refund's provider id. */
async function lateMoney(ws: Workspace, invoiceId: string, adapter: string) {
  const pays = (
    await db().system.query(
      `SELECT id, adapter, amount::int, "checkoutSessionId", "invoiceId", status, metadata FROM payments
       WHERE "invoiceId" = $1 OR metadata->>'invoiceId' = $1`,
      [invoiceId],
    )
  ).rows;
  const payment = pays.find((p) => p.adapter === adapter)!;
  // Not the invoice's payment (one per paid invoice): the invoice is named in its metadata.
  expect(payment).toMatchObject({ invoiceId: null, metadata: { invoiceId } });
  const refunds = (await ws.client.get(`/v1/refunds?chargeId=${payment.id}`)).json.data;
  expect(refunds).toHaveLength(1);
  const { rows } = await db().system.query(`SELECT "providerRefundId", "submittedAt" FROM refunds WHERE id = $1`, [
    refunds[0].id,
  ]);
  return { pays, payment, refund: refunds[0], providerRefundId: rows[0].providerRefundId as string, row: rows[0] };
}

const settlementNet = async (workspaceId: string, code: string) =>
  (
    await db().system.query(
      `SELECT coalesce(sum(CASE direction WHEN 'debit' THEN amount ELSE -amount END), 0)::int AS n
       FROM ledger_entries WHERE "workspaceId" = $1 AND code = $2`,
      [workspaceId, code],
    )
  ).rows[0].n;

describe('money captured for an invoice already paid or voided: accepted and refunded', () => {
  const bCreds = { serverKey: `SB-Mid-server-${rand(12)}`, clientKey: `SB-Mid-client-${rand(8)}`, merchantId: 'G1' };
  const b = simulators.track(new ProviderBSim({ serverKey: bCreds.serverKey, merchantId: bCreds.merchantId }));
  const aCreds = { secretKey: `xnd_development_${rand(20)}`, callbackToken: rand(24) };
  const a = simulators.track(new ProviderASim(aCreds));
  beforeAll(async () => {
    await b.start();
    process.env.PROVIDER_B_BASE_URL = b.url;
    await a.start();
    process.env.PROVIDER_A_BASE_URL = a.url;
    a.callbackUrl = `${server.url}/v1/callbacks/provider_a`;
  });

  it('paid by POST /pay, then the QRIS payment lands (provider_b): 200, payment recorded, refunded, ledger balanced', async () => {
    const ws = await server.workspace();
    expect((await ws.client.put('/v1/adapters/provider_b', bCreds, key())).status).toBe(200);
    const { inv, cs, ref, attemptId } = await chargeShown(ws, 'qris');
    expect((await ws.client.post(`/v1/invoices/${inv.id}/pay`, {}, key())).status).toBe(201);

    const deliveries = await b.pay(ref, { duplicates: 1 });
    expect(deliveries.map((d) => d.status)).toEqual([200, 200]);
    expect(JSON.parse(deliveries[0].body).data.outcome).toBe('refunded');

    const late = await lateMoney(ws, inv.id, 'provider_b');
    expect(late.pays).toHaveLength(2);
    expect(late.payment).toMatchObject({ amount: 99_000, checkoutSessionId: cs });
    // provider_b refunds QRIS at once: settled in phase 3.
    expect(late.refund).toMatchObject({ amount: 99_000, status: 'succeeded', reason: 'duplicate' });
    expect(late.row.submittedAt).not.toBeNull();
    expect((await ws.client.get(`/v1/payments/${late.payment.id}`)).json.data).toMatchObject({
      status: 'refunded',
      amountRefunded: 99_000,
    });
    expect(await attemptStatuses(cs)).toEqual(['paid_unapplied']);
    expect(await settlementNet(ws.workspaceId, 'settlement:provider_b')).toBe(0);
    expect(await eventTypes(late.payment.id)).toEqual(['payment.succeeded', 'payment.refunded']);
    expect(await eventTypes(late.refund.id)).toEqual(['refund.created', 'refund.succeeded']);
    // No receipt for money that bought nothing; the invoice is untouched.
    const receipts = await db().system.query(`SELECT count(*)::int AS n FROM receipts WHERE "paymentId" = $1`, [
      late.payment.id,
    ]);
    expect(receipts.rows[0].n).toBe(0);
    expect((await ws.client.get(`/v1/invoices/${inv.id}`)).json.data).toMatchObject({
      status: 'paid',
      amountPaid: 99_000,
    });
    expect(
      (await db().system.query(`SELECT count(*)::int AS n FROM ledger_entries WHERE "txId" = $1`, [attemptId])).rows[0]
        .n,
    ).toBe(0);
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
  });

  it('voided, then a card payment lands (provider_a): refund pending at the provider, settled by its callback', async () => {
    const ws = await server.workspace();
    expect((await ws.client.put('/v1/adapters/provider_a', aCreds, key())).status).toBe(200);
    const { inv, ref } = await chargeShown(ws, 'card');
    expect((await ws.client.post(`/v1/invoices/${inv.id}/void`, {}, key())).status).toBe(200);
    expect((await a.pay(ref)).map((d) => d.status)).toEqual([200]);
    const late = await lateMoney(ws, inv.id, 'provider_a');
    expect(late.pays).toHaveLength(1);
    expect(late.refund).toMatchObject({ amount: 99_000, status: 'pending' });
    expect(a.refunds.get(late.providerRefundId)).toMatchObject({ amount: 99_000 });
    await a.settleRefund(late.providerRefundId, 'SUCCEEDED');
    expect((await ws.client.get(`/v1/payments/${late.payment.id}`)).json.data.status).toBe('refunded');
    expect(await settlementNet(ws.workspaceId, 'settlement:provider_a')).toBe(0);
    expect((await ws.client.get(`/v1/invoices/${inv.id}`)).json.data.status).toBe('void');
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
  });

  it('a provider that cannot refund the method (provider_a QRIS): the callback is still 200, the refund failed, the money on record', async () => {
    const ws = await server.workspace();
    expect((await ws.client.put('/v1/adapters/provider_a', aCreds, key())).status).toBe(200);
    const { inv, ref } = await chargeShown(ws, 'qris');
    expect((await ws.client.post(`/v1/invoices/${inv.id}/pay`, {}, key())).status).toBe(201);
    expect((await a.pay(ref)).map((d) => d.status)).toEqual([200]);
    const late = await lateMoney(ws, inv.id, 'provider_a');
    expect(late.refund).toMatchObject({ status: 'failed', failureCode: 'provider_rejected' });
    expect(late.payment.status).toBe('succeeded');
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
  });
});
