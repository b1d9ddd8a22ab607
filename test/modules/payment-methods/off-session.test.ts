/**
 * Off-session charges of saved sandbox methods in test mode (docs/guides/payment-methods.md, Test
 * scenarios): the first invoice at subscription create and the renewal batch (processDue) charge the
 * subscription's `pm_` in process; each scenario's answer, the payment's `paymentMethodId`, and the
 * method moves a charge answer makes (expired_card, payment_method_revoked).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { processDue } from '../../../src/modules/subscriptions/renewals.ts';
import { customer, invoicesOf, plan, scopeOf, seedSubscription, subscriptionRow } from '../../helpers/renewals.ts';
import { db, useServer, type Workspace } from '../../helpers/server.ts';

const server = useServer();
const key = () => ({ 'idempotency-key': randomUUID() });
const utc = (d: string) => new Date(`${d}T00:00:00.000Z`);

async function method(ws: Workspace, customerId: string, scenario: string, extra: Record<string, unknown> = {}) {
  const res = await ws.client.post('/v1/payment-methods', { customerId, scenario, ...extra }, key());
  expect(res.status, res.text).toBe(201);
  return res.json.data as { id: string; status: string };
}
async function subscribe(ws: Workspace, scenario: string, unitAmount = 100_000, extra: Record<string, unknown> = {}) {
  const { priceId } = await plan(ws, { prices: [{ currency: 'IDR', model: 'flat', unitAmount }] });
  const cus = await customer(ws);
  const pm = await method(ws, cus, scenario, extra);
  const res = await ws.client.post('/v1/subscriptions', { customerId: cus, priceId, paymentMethod: pm.id }, key());
  expect(res.status, res.text).toBe(201);
  return { cus, pm, sub: res.json.data };
}
const paymentsOf = async (ws: Workspace, invoiceId: string) =>
  (
    await db().system.query(
      `SELECT * FROM payments WHERE "workspaceId" = $1 AND "invoiceId" = $2 ORDER BY "createdAt"`,
      [ws.workspaceId, invoiceId],
    )
  ).rows;
const typesOf = async (ws: Workspace, objectId: string) =>
  ((await ws.client.get(`/v1/events?objectId=${objectId}&order=asc&limit=100`)).json.data as any[]).map((e) => e.type);

describe('first charge at subscription create', () => {
  it('success: the invoice is paid from the saved method (adapter provider_a_platform, method card, paymentMethodId)', async () => {
    const ws = await server.workspace();
    const { pm, sub } = await subscribe(ws, 'success');
    expect(sub.status).toBe('active');
    const [inv] = await invoicesOf(sub.id);
    expect(inv.status).toBe('paid');
    const [p] = await paymentsOf(ws, inv.id);
    expect(p).toMatchObject({
      status: 'succeeded',
      paymentMethodId: pm.id,
      adapter: 'provider_a_platform',
      method: 'card',
      providerReference: `ch_sbx_${p.id}`,
    });
    const wire = (await ws.client.get(`/v1/payments/${p.id}`)).json.data;
    expect(wire).toMatchObject({ paymentMethodId: pm.id, failureCode: null, status: 'succeeded' });
    // The ledger posts it as any invoice payment, on the sandbox's settlement account.
    const { rows } = await db().system.query(
      `SELECT code, direction, amount FROM ledger_entries WHERE "txId" = $1 ORDER BY code, direction`,
      [p.id],
    );
    expect(rows.map((r) => `${r.direction} ${r.code} ${r.amount}`)).toContain(
      'debit settlement:provider_a_platform 100000',
    );
  });

  const declines: [string, Record<string, unknown>, string, number][] = [
    ['charge_declined', {}, 'card_declined', 100_000],
    ['charge_declined', { type: 'ewallet', ewalletProvider: 'dana' }, 'payment_declined', 100_000],
    ['insufficient_funds', {}, 'insufficient_funds', 100_000],
    ['success', {}, 'insufficient_funds', 11_002],
    ['success', {}, 'limit_exceeded', 11_001],
  ];
  it.each(declines)(
    '%s %j: the charge fails %s; the invoice stays open, payment_failed carries the code',
    async (scenario, extra, code, amount) => {
      const ws = await server.workspace();
      const { pm, sub } = await subscribe(ws, scenario, amount, extra);
      expect(sub.status).toBe('incomplete');
      const [inv] = await invoicesOf(sub.id);
      expect(inv.status).toBe('open');
      const [p] = await paymentsOf(ws, inv.id);
      expect(p).toMatchObject({ status: 'failed', failureCode: code, paymentMethodId: pm.id });
      const events = (await ws.client.get(`/v1/events?objectId=${inv.id}&order=asc&limit=100`)).json.data as any[];
      const failed = events.find((e) => e.type === 'svc.invoice.payment_failed.v1');
      expect(failed.data.metadata).toMatchObject({ failureCode: code });
      // The method stays active: a decline is not the method's fault.
      expect((await ws.client.get(`/v1/payment-methods/${pm.id}`)).json.data.status).toBe('active');
    },
  );

  it.each([
    ['expired_card', 'expired', 'payment_method.expired'],
    ['revoked', 'revoked', 'payment_method.revoked'],
  ] as const)(
    '%s: the charge fails and the method becomes %s, cleared from the customer and the subscription',
    async (scenario, status, event) => {
      const ws = await server.workspace();
      const { cus, pm, sub } = await subscribe(ws, scenario);
      const [inv] = await invoicesOf(sub.id);
      const [p] = await paymentsOf(ws, inv.id);
      expect(p).toMatchObject({
        status: 'failed',
        failureCode: scenario === 'revoked' ? 'payment_method_revoked' : 'expired_card',
      });
      const after = (await ws.client.get(`/v1/payment-methods/${pm.id}`)).json.data;
      expect(after).toMatchObject({ status, isDefault: false });
      expect(await typesOf(ws, pm.id)).toEqual(['payment_method.attached', event]);
      expect((await ws.client.get(`/v1/customers/${cus}`)).json.data.defaultPaymentMethodId).toBeNull();
      expect((await subscriptionRow(sub.id)).paymentMethod).toBeNull();
    },
  );
});

describe('renewals charge saved methods in their batch', () => {
  it('one batch renews subscriptions of succeeding and declining methods; a detached method is never charged', async () => {
    const ws = await server.workspace();
    const { planId, priceId } = await plan(ws, { prices: [{ currency: 'IDR', model: 'flat', unitAmount: 50_000 }] });
    const anchorAt = utc('2026-01-10');
    const seeded: Record<string, { sub: string; pm: string }> = {};
    for (const scenario of ['success', 'charge_declined', 'detached']) {
      const cus = await customer(ws);
      const pm = await method(ws, cus, scenario === 'detached' ? 'success' : scenario);
      const sub = await seedSubscription(ws, { customerId: cus, planId, priceId, anchorAt, paymentMethod: pm.id });
      seeded[scenario] = { sub, pm: pm.id };
    }
    const d = await ws.client.post(`/v1/payment-methods/${seeded.detached.pm}/detach`, {}, key());
    expect(d.status, d.text).toBe(200);
    expect((await subscriptionRow(seeded.detached.sub)).paymentMethod).toBeNull();
    const r = await processDue({ scope: scopeOf(ws), at: utc('2026-02-10'), testClockId: null });
    expect(r.renewed).toBe(3);
    const [ok] = await invoicesOf(seeded.success.sub);
    expect(ok.status).toBe('paid');
    expect((await paymentsOf(ws, ok.id))[0]).toMatchObject({ status: 'succeeded', paymentMethodId: seeded.success.pm });
    const [declined] = await invoicesOf(seeded.charge_declined.sub);
    expect(declined.status).toBe('past_due');
    expect((await subscriptionRow(seeded.charge_declined.sub)).status).toBe('past_due');
    expect((await paymentsOf(ws, declined.id))[0]).toMatchObject({ status: 'failed', failureCode: 'card_declined' });
    const [waiting] = await invoicesOf(seeded.detached.sub);
    expect(waiting.status).toBe('open');
    expect(await paymentsOf(ws, waiting.id)).toEqual([]);
    const { rows } = await db().system.query(`SELECT count(*)::int AS n FROM payments WHERE "paymentMethodId" = $1`, [
      seeded.detached.pm,
    ]);
    expect(rows[0].n).toBe(0);
  });
});

describe("the customer's default pays when the subscription names no method", () => {
  it('first invoice and renewal are charged from the default; without one nothing is attempted', async () => {
    const ws = await server.workspace();
    const { planId, priceId } = await plan(ws, { prices: [{ currency: 'IDR', model: 'flat', unitAmount: 70_000 }] });
    const cus = await customer(ws);
    const pm = await method(ws, cus, 'success');
    const res = await ws.client.post('/v1/subscriptions', { customerId: cus, priceId }, key());
    expect(res.status, res.text).toBe(201);
    expect(res.json.data).toMatchObject({ status: 'active', paymentMethod: null });
    const [first] = await invoicesOf(res.json.data.id);
    expect(first.status).toBe('paid');
    expect((await paymentsOf(ws, first.id))[0]).toMatchObject({ status: 'succeeded', paymentMethodId: pm.id });

    const bare = await customer(ws);
    const none = await ws.client.post('/v1/subscriptions', { customerId: bare, priceId }, key());
    expect(none.json.data.status).toBe('incomplete');
    const [waiting] = await invoicesOf(none.json.data.id);
    expect(waiting).toMatchObject({ status: 'open', nextAttemptAt: null });
    expect(await paymentsOf(ws, waiting.id)).toEqual([]);

    // A renewal: the seeded subscription names nothing; its customer's default pays in the batch.
    const renewing = await customer(ws);
    const def = await method(ws, renewing, 'success');
    const sub = await seedSubscription(ws, {
      customerId: renewing,
      planId,
      priceId,
      anchorAt: utc('2026-01-10'),
      paymentMethod: null,
    });
    expect((await processDue({ scope: scopeOf(ws), at: utc('2026-02-10'), testClockId: null })).renewed).toBe(1);
    const [renewal] = await invoicesOf(sub);
    expect(renewal.status).toBe('paid');
    expect((await paymentsOf(ws, renewal.id))[0]).toMatchObject({ paymentMethodId: def.id });
  });
});

describe('detach racing a renewal', () => {
  it('never deadlocks nor charges a method the renewal found detached (10 rounds)', async () => {
    const ws = await server.workspace();
    const { planId, priceId } = await plan(ws, { prices: [{ currency: 'IDR', model: 'flat', unitAmount: 50_000 }] });
    for (let round = 0; round < 10; round++) {
      const cus = await customer(ws);
      const pm = await method(ws, cus, 'success');
      const sub = await seedSubscription(ws, {
        customerId: cus,
        planId,
        priceId,
        anchorAt: utc('2026-01-10'),
        paymentMethod: pm.id,
      });
      const [d] = await Promise.all([
        ws.client.post(`/v1/payment-methods/${pm.id}/detach`, {}, key()),
        processDue({ scope: scopeOf(ws), at: utc('2026-02-10'), testClockId: null }),
      ]);
      expect(d.status, d.text).toBe(200);
      // A renewal skips a subscription the detach holds (SKIP LOCKED): the next pass renews it.
      await processDue({ scope: scopeOf(ws), at: utc('2026-02-10'), testClockId: null });
      const [inv] = await invoicesOf(sub);
      const payments = await paymentsOf(ws, inv.id);
      // Either the renewal charged first (paid by the method), or the detach cleared it first (nothing charged).
      if (payments.length) expect(payments.map((p) => p.paymentMethodId)).toEqual([pm.id]);
      else expect(inv.status).toBe('open');
    }
    const { rows } = await db().system.query(
      `SELECT count(*)::int AS n FROM sweep_quarantine WHERE "workspaceId" = $1`,
      [ws.workspaceId],
    );
    expect(rows[0].n).toBe(0);
  });
});
