/**
 * Subscriptions over real HTTP (src/modules/subscriptions): create (charged during the call, trial,
 * usage, no method), retrieve, list, PATCH (proration), cancel, pause, resume, every error, the
 * state moves and their events, collection (collect.ts) and the paid-invoice -> active move.
 */
import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useServer, db, createClient, type Workspace } from '../../helpers/server.ts';
import { mintKey, mintLiveKey } from '../../helpers/keys.ts';
import { unbalancedTxIds } from '../../helpers/payments.ts';
import { clock } from '../../../src/core/clock.ts';
import { prorate } from '../../../src/core/periods.ts';
import { collectInvoice } from '../../../src/modules/collection/collect.ts';
import { clockedSender } from '../../helpers/clocked.ts';
import { planBody, postPlan } from '../../helpers/plans.ts';
import { plan as renewalPlan, scopeOf as renewalScope, seedSubscription } from '../../helpers/renewals.ts';
import { processDue } from '../../../src/modules/subscriptions/renewals.ts';

const server = useServer();
const send = clockedSender(server);

type Res = { status: number; json: any };
function expectError(res: Res, status: number, code: string, field?: string) {
  expect({ status: res.status, code: res.json?.error?.code, field: res.json?.error?.field }).toEqual({
    status,
    code,
    field: field ?? res.json?.error?.field,
  });
}
const key = () => ({ 'idempotency-key': randomUUID() });
const DAY = 86_400_000;
async function customer(ws: Workspace) {
  return (await ws.client.post('/v1/customers', { name: 'Budi', email: 'budi@example.com' })).json.data.id as string;
}
async function plan(ws: Workspace, extra: Record<string, unknown> = {}, prices?: unknown[]) {
  const res = await postPlan(
    ws,
    planBody({ prices: prices ?? [{ currency: 'IDR', model: 'flat', unitAmount: 100000 }], ...extra }),
  );
  expect(res.status).toBe(201);
  return res.json.data as { id: string; prices: { id: string }[] };
}
async function setup(ws: Workspace, planExtra: Record<string, unknown> = {}, prices?: unknown[]) {
  const p = await plan(ws, planExtra, prices);
  return { cus: await customer(ws), planId: p.id, priceId: p.prices[0].id };
}
const subscribe = (ws: Workspace, body: Record<string, unknown>) => ws.client.post('/v1/subscriptions', body, key());
const eventsOf = async (ws: Workspace, id: string) =>
  ((await ws.client.get(`/v1/events?objectId=${id}&order=asc&limit=100`)).json.data as any[]).map((e) => ({
    type: e.type,
    data: e.data,
  }));

describe('POST /v1/subscriptions', () => {
  it('charges the first invoice during the call: 201 active, invoice paid, receipt, ledger', async () => {
    const ws = await server.workspace();
    const { cus, planId, priceId } = await setup(ws);
    const res = await subscribe(ws, {
      customerId: cus,
      priceId,
      paymentMethod: 'pm_test_success',
      metadata: { a: '1' },
    });
    expect(res.status).toBe(201);
    const sub = res.json.data;
    expect(sub).toMatchObject({
      customerId: cus,
      planId,
      priceId,
      status: 'active',
      currency: 'IDR',
      quantity: 1,
      paymentMethod: 'pm_test_success',
      trialEnd: null,
      cancelAtPeriodEnd: false,
      canceledAt: null,
      metadata: { a: '1' },
    });
    expect(sub.id).toMatch(/^sub_/);
    const start = new Date(sub.currentPeriodStart);
    const end = new Date(sub.currentPeriodEnd);
    const expectedEnd = new Date(start);
    expectedEnd.setUTCMonth(start.getUTCMonth() + 1);
    if (expectedEnd.getUTCDate() !== start.getUTCDate()) expectedEnd.setUTCDate(0); // month-end rule
    expect(end.toISOString()).toBe(expectedEnd.toISOString());
    const inv = (await ws.client.get(`/v1/invoices/${sub.latestInvoiceId}`)).json.data;
    expect(inv).toMatchObject({ status: 'paid', subscriptionId: sub.id, total: 100000, amountDue: 0 });
    expect(inv.collectionAttempts).toBe(1);
    expect(inv.number).toMatch(/^SVC-\d{4}-\d\d-\d{4,}$/);
    expect(inv.lines).toHaveLength(1);
    expect(inv.lines[0]).toMatchObject({ quantity: 1, unitAmount: 100000, amount: 100000, priceId });
    // Events: created (incomplete, written before the charge), then updated to active on payment.
    const subEvents = await eventsOf(ws, sub.id);
    expect(subEvents.map((e) => e.type)).toEqual(['subscription.created', 'subscription.updated']);
    expect(subEvents[0].data.object.status).toBe('incomplete');
    expect(subEvents[1].data.previousAttributes).toMatchObject({ status: 'incomplete' });
    expect((await eventsOf(ws, inv.id)).map((e) => e.type)).toEqual([
      'svc.invoice.created.v1',
      'svc.invoice.finalized.v1',
      'svc.invoice.paid.v1',
    ]);
    const payments = (await ws.client.get(`/v1/payments?customerId=${cus}`)).json.data;
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({ status: 'succeeded', amount: 100000 });
    const receipts = await db().system.query(`SELECT 1 FROM receipts WHERE "sourceId" = $1`, [inv.id]);
    expect(receipts.rowCount).toBe(1);
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
  });

  it('a declined first charge leaves it incomplete with the invoice open (pay link); paying it activates', async () => {
    const ws = await server.workspace();
    const { cus, priceId } = await setup(ws);
    const res = await subscribe(ws, { customerId: cus, priceId, paymentMethod: 'pm_test_decline' });
    expect(res.status).toBe(201);
    const sub = res.json.data;
    expect(sub.status).toBe('incomplete');
    const inv = (await ws.client.get(`/v1/invoices/${sub.latestInvoiceId}`)).json.data;
    expect(inv).toMatchObject({ status: 'open', collectionAttempts: 1 });
    expect(inv.hostedInvoiceUrl).toMatch(/\/i\/inv_/);
    const failed = (await eventsOf(ws, inv.id)).find((e) => e.type === 'svc.invoice.payment_failed.v1');
    expect(failed?.data.metadata).toEqual({ failureCode: 'card_declined', failureMessage: 'Your card was declined.' });
    expect(failed?.data.object.id).toBe(inv.id);
    const pays = (await ws.client.get(`/v1/payments?customerId=${cus}`)).json.data;
    expect(pays.map((p: any) => p.status)).toEqual(['failed']);
    // The one place: settleInvoice (here POST /pay) moves incomplete -> active.
    expect((await ws.client.post(`/v1/invoices/${inv.id}/pay`, {}, key())).status).toBe(201);
    const after = (await ws.client.get(`/v1/subscriptions/${sub.id}`)).json.data;
    expect(after.status).toBe('active');
    expect((await eventsOf(ws, sub.id)).at(-1)?.data.previousAttributes).toMatchObject({ status: 'incomplete' });
  });

  it('without a payment method: incomplete, invoice open, nothing charged; no price change until paid', async () => {
    const ws = await server.workspace();
    const { cus, priceId } = await setup(ws);
    const sub = (await subscribe(ws, { customerId: cus, priceId })).json.data;
    expect(sub.status).toBe('incomplete');
    expectError(await ws.client.patch(`/v1/subscriptions/${sub.id}`, { quantity: 2 }), 409, 'conflict');
    expect((await ws.client.patch(`/v1/subscriptions/${sub.id}`, { metadata: { a: 'b' } })).status).toBe(200);
    const inv = (await ws.client.get(`/v1/invoices/${sub.latestInvoiceId}`)).json.data;
    expect(inv).toMatchObject({ status: 'open', collectionAttempts: 0 });
    expect((await ws.client.get(`/v1/payments?customerId=${cus}`)).json.data).toEqual([]);
  });

  it("trial from the plan's trialDays: trialing, [now, trialEnd), no invoice; trialDays 0 overrides", async () => {
    const ws = await server.workspace();
    const { cus, priceId } = await setup(ws, { trialDays: 14 });
    const t0 = clock.now().getTime();
    const sub = (await subscribe(ws, { customerId: cus, priceId, paymentMethod: 'pm_test_success' })).json.data;
    expect(sub.status).toBe('trialing');
    expect(sub.latestInvoiceId).toBeNull();
    const trialEnd = new Date(sub.trialEnd).getTime();
    expect(trialEnd - new Date(sub.currentPeriodStart).getTime()).toBe(14 * DAY);
    expect(trialEnd).toBeGreaterThanOrEqual(t0 + 14 * DAY);
    expect(sub.currentPeriodEnd).toBe(sub.trialEnd);
    expect((await ws.client.get(`/v1/invoices?subscriptionId=${sub.id}`)).json.data).toEqual([]);
    const noTrial = (await subscribe(ws, { customerId: cus, priceId, paymentMethod: 'pm_test_success', trialDays: 0 }))
      .json.data;
    expect(noTrial.status).toBe('active');
    const end = new Date(t0 + 3 * DAY).toISOString();
    const explicit = (await subscribe(ws, { customerId: cus, priceId, trialEnd: end })).json.data;
    expect(explicit).toMatchObject({ status: 'trialing', trialEnd: end, currentPeriodEnd: end });
  });

  it('a usage price starts active with nothing billed in advance', async () => {
    const ws = await server.workspace();
    const { cus, priceId } = await setup(ws, { usageAggregate: 'sum', meteredUnit: 'call' }, [
      { currency: 'IDR', model: 'usage', unitAmount: 10 },
    ]);
    const sub = (await subscribe(ws, { customerId: cus, priceId, paymentMethod: 'pm_test_success' })).json.data;
    expect(sub.status).toBe('active');
    expect(sub.latestInvoiceId).toBeNull();
    expect((await ws.client.get(`/v1/invoices?subscriptionId=${sub.id}`)).json.data).toEqual([]);
  });

  it('quantity x tiered price: lines per tier, tax from the default invoice template (exclusive)', async () => {
    const ws = await server.workspace();
    const tpl = await ws.client.post('/v1/templates', {
      kind: 'invoice',
      name: 'Inv',
      isDefault: true,
      showTax: true,
      taxRate: 0.11,
    });
    expect(tpl.status).toBe(201);
    const { cus, priceId } = await setup(ws, {}, [
      {
        currency: 'IDR',
        model: 'tiered',
        tiers: [
          { upTo: 10, unitAmount: 1000 },
          { upTo: 'inf', unitAmount: 500, flatAmount: 2000 },
        ],
      },
    ]);
    const sub = (await subscribe(ws, { customerId: cus, priceId, quantity: 15, paymentMethod: 'pm_test_success' })).json
      .data;
    const inv = (await ws.client.get(`/v1/invoices/${sub.latestInvoiceId}`)).json.data;
    expect(inv.lines.map((l: any) => [l.quantity, l.unitAmount])).toEqual([
      [10, 1000],
      [5, 500],
      [1, 2000],
    ]);
    expect(inv).toMatchObject({ subtotal: 14500, tax: 1595, total: 16095, status: 'paid' });
  });

  it('refuses bad input with the field named', async () => {
    const ws = await server.workspace();
    const { cus, priceId, planId } = await setup(ws);
    const other = await plan(ws);
    const elsewhere = await server.workspace();
    const foreign = await setup(elsewhere);
    expectError(await subscribe(ws, { priceId }), 400, 'validation_error', 'customerId');
    expectError(await subscribe(ws, { customerId: cus }), 400, 'validation_error', 'priceId');
    expectError(await subscribe(ws, { customerId: foreign.cus, priceId }), 404, 'not_found');
    expectError(await subscribe(ws, { customerId: cus, priceId: foreign.priceId }), 404, 'not_found');
    expectError(await subscribe(ws, { customerId: cus, priceId, planId: other.id }), 400, 'validation_error', 'planId');
    expectError(await subscribe(ws, { customerId: cus, priceId, quantity: 0 }), 400, 'validation_error', 'quantity');
    expectError(
      await subscribe(ws, { customerId: cus, priceId, trialDays: 731 }),
      400,
      'validation_error',
      'trialDays',
    );
    expectError(
      await subscribe(ws, {
        customerId: cus,
        priceId,
        trialDays: 1,
        trialEnd: new Date(Date.now() + DAY).toISOString(),
      }),
      400,
      'validation_error',
      'trialEnd',
    );
    expectError(
      await subscribe(ws, { customerId: cus, priceId, trialEnd: new Date(Date.now() - DAY).toISOString() }),
      400,
      'validation_error',
      'trialEnd',
    );
    expectError(
      await subscribe(ws, { customerId: cus, priceId, paymentMethod: 'pm_card_visa' }),
      400,
      'validation_error',
      'paymentMethod',
    );
    // spec Plan and price: inactive price / archived plan are rejected for new subscriptions.
    expect((await ws.client.patch(`/v1/prices/${priceId}`, { active: false })).status).toBe(200);
    expectError(await subscribe(ws, { customerId: cus, priceId }), 400, 'validation_error', 'priceId');
    expect((await ws.client.post(`/v1/plans/${other.id}/archive`, {}, key())).status).toBe(200);
    expectError(
      await subscribe(ws, { customerId: cus, priceId: other.prices[0].id }),
      400,
      'validation_error',
      'planId',
    );
    expect(planId).toMatch(/^pln_/);
  });
});

describe('GET /v1/subscriptions', () => {
  it('retrieves (404 for unknown or another workspace) and lists with filters', async () => {
    const ws = await server.workspace();
    const a = await setup(ws);
    const b = await setup(ws);
    const s1 = (await subscribe(ws, { customerId: a.cus, priceId: a.priceId, paymentMethod: 'pm_test_success' })).json
      .data;
    const s2 = (await subscribe(ws, { customerId: b.cus, priceId: b.priceId })).json.data;
    expect((await ws.client.get(`/v1/subscriptions/${s1.id}`)).json.data.id).toBe(s1.id);
    expectError(await ws.client.get('/v1/subscriptions/sub_nope'), 404, 'not_found');
    const other = await server.workspace();
    expectError(await other.client.get(`/v1/subscriptions/${s1.id}`), 404, 'not_found');
    const ids = async (q: string) =>
      ((await ws.client.get(`/v1/subscriptions${q}`)).json.data as any[]).map((s) => s.id).sort();
    expect(await ids('')).toEqual([s1.id, s2.id].sort());
    expect(await ids(`?customerId=${a.cus}`)).toEqual([s1.id]);
    expect(await ids(`?planId=${b.planId}`)).toEqual([s2.id]);
    expect(await ids(`?priceId=${a.priceId}`)).toEqual([s1.id]);
    expect(await ids('?status=incomplete')).toEqual([s2.id]);
    expect(await ids('?status=active')).toEqual([s1.id]);
    expectError(await ws.client.get('/v1/subscriptions?status=bogus'), 400, 'validation_error', 'status');
    expect((await ws.client.get('/v1/subscriptions')).json.meta.page).toMatchObject({ limit: 50, hasMore: false });
    const p1 = await ws.client.get('/v1/subscriptions?limit=1&order=asc');
    expect(p1.json.meta.page).toMatchObject({ limit: 1, hasMore: true });
    const p2 = await ws.client.get(`/v1/subscriptions?limit=1&order=asc&cursor=${p1.json.meta.page.nextCursor}`);
    expect([...p1.json.data, ...p2.json.data].map((s: any) => s.id)).toEqual([s1.id, s2.id]);
    expect(p2.json.meta.page.hasMore).toBe(false);
    expectError(await ws.client.get('/v1/subscriptions?limit=0'), 400, 'invalid_limit');
    expectError(await ws.client.get('/v1/subscriptions?cursor=bogus'), 400, 'invalid_cursor');
    expect((await other.client.get('/v1/subscriptions')).json.data).toEqual([]);
  });
});

describe('PATCH /v1/subscriptions/:id', () => {
  it('an upgrade applies now with a prorated invoice (unused credit + remaining charge, to the second)', async () => {
    const ws = await server.workspace();
    const { cus, priceId } = await setup(ws);
    const sub = (await subscribe(ws, { customerId: cus, priceId, paymentMethod: 'pm_test_success' })).json.data;
    clock.advance(10 * DAY);
    let res: Res;
    let t0: number;
    let t1: number;
    try {
      t0 = clock.now().getTime();
      res = await send(ws, 'PATCH', `/v1/subscriptions/${sub.id}`, { quantity: 3 });
      t1 = clock.now().getTime();
    } finally {
      clock.advance(-10 * DAY);
    }
    expect(res.status).toBe(200);
    const after = res.json.data;
    expect(after).toMatchObject({ quantity: 3, status: 'active', currentPeriodEnd: sub.currentPeriodEnd });
    expect(after.latestInvoiceId).not.toBe(sub.latestInvoiceId);
    const inv = (await ws.client.get(`/v1/invoices/${after.latestInvoiceId}`)).json.data;
    expect(inv.status).toBe('paid');
    const [credit, charge] = inv.lines;
    expect(credit.unitAmount).toBeLessThan(0);
    expect(charge.unitAmount).toBeGreaterThan(0);
    const period = { start: new Date(sub.currentPeriodStart), end: new Date(sub.currentPeriodEnd) };
    // Both lines come from one instant between t0 and t1 (second precision).
    const found: number[] = [];
    for (let t = Math.floor(t0 / 1000) * 1000; t <= t1 + 1000; t += 1000) {
      const at = new Date(t);
      if (prorate(100000, period, at) === -credit.unitAmount && prorate(300000, period, at) === charge.unitAmount)
        found.push(t);
    }
    expect(found.length).toBeGreaterThan(0);
    // About 2/3 of the period remained: a sanity bound on the amounts.
    expect(charge.unitAmount).toBeGreaterThan(150000);
    expect(inv.subtotal).toBe(charge.unitAmount + credit.unitAmount);
    expect(inv.total).toBe(inv.subtotal);
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
    const updated = (await eventsOf(ws, sub.id)).at(-1);
    expect(updated?.type).toBe('subscription.updated');
    expect(updated?.data.previousAttributes).toMatchObject({ quantity: 1 });
  });

  it('an interval change resets the period now: full new period less the unused time, anchor moved', async () => {
    const ws = await server.workspace();
    const { cus, priceId } = await setup(ws);
    const yearly = await plan(ws, { name: 'Yearly', interval: 'year' }, [
      { currency: 'IDR', model: 'flat', unitAmount: 1_000_000 },
    ]);
    const sub = (await subscribe(ws, { customerId: cus, priceId, paymentMethod: 'pm_test_success' })).json.data;
    clock.advance(10 * DAY);
    let res: Res;
    let t0: number;
    try {
      t0 = clock.now().getTime();
      res = await send(ws, 'PATCH', `/v1/subscriptions/${sub.id}`, { priceId: yearly.prices[0].id });
    } finally {
      clock.advance(-10 * DAY);
    }
    expect(res.status).toBe(200);
    const after = res.json.data;
    expect(after).toMatchObject({ priceId: yearly.prices[0].id, planId: yearly.id, status: 'active' });
    const start = new Date(after.currentPeriodStart);
    expect(start.getTime()).toBeGreaterThanOrEqual(t0);
    const end = new Date(start);
    end.setUTCFullYear(start.getUTCFullYear() + 1);
    if (end.getUTCMonth() !== start.getUTCMonth()) end.setUTCDate(0);
    expect(after.currentPeriodEnd).toBe(end.toISOString());
    const inv = (await ws.client.get(`/v1/invoices/${after.latestInvoiceId}`)).json.data;
    const [credit, full] = inv.lines;
    const period = { start: new Date(sub.currentPeriodStart), end: new Date(sub.currentPeriodEnd) };
    expect(-credit.unitAmount).toBe(prorate(100000, period, start));
    expect(full).toMatchObject({ quantity: 1, unitAmount: 1_000_000 });
    expect(inv).toMatchObject({ status: 'paid', subtotal: 1_000_000 + credit.unitAmount });
  });

  it('a downgrade waits for the period end (pending), prorationBehavior none skips the invoice', async () => {
    const ws = await server.workspace();
    const { cus, priceId } = await setup(ws);
    const sub = (await subscribe(ws, { customerId: cus, priceId, quantity: 4, paymentMethod: 'pm_test_success' })).json
      .data;
    const down = (await ws.client.patch(`/v1/subscriptions/${sub.id}`, { quantity: 2 })).json.data;
    expect(down).toMatchObject({ quantity: 4, pendingQuantity: 2, pendingPriceId: priceId });
    expect(down.latestInvoiceId).toBe(sub.latestInvoiceId);
    const up = (await ws.client.patch(`/v1/subscriptions/${sub.id}`, { quantity: 5, prorationBehavior: 'none' })).json
      .data;
    expect(up).toMatchObject({ quantity: 5, pendingQuantity: null, latestInvoiceId: sub.latestInvoiceId });
  });

  it('changes the price in a currency; refuses another currency, or an interval change at the period end', async () => {
    const ws = await server.workspace();
    const { cus, priceId } = await setup(ws);
    const bigger = await plan(ws, { name: 'Max' }, [{ currency: 'IDR', model: 'flat', unitAmount: 250000 }]);
    const usd = await plan(ws, { name: 'USD' }, [{ currency: 'USD', model: 'flat', unitAmount: 100 }]);
    const yearly = await plan(ws, { name: 'Y', interval: 'year' }, [{ currency: 'IDR', model: 'flat', unitAmount: 1 }]);
    const sub = (await subscribe(ws, { customerId: cus, priceId, paymentMethod: 'pm_test_success' })).json.data;
    const id = sub.id;
    const foreign = await setup(await server.workspace());
    expectError(
      await ws.client.patch(`/v1/subscriptions/${id}`, { priceId: usd.prices[0].id }),
      400,
      'validation_error',
      'priceId',
    );
    expectError(
      await ws.client.patch(`/v1/subscriptions/${id}`, { priceId: yearly.prices[0].id, applyAt: 'period_end' }),
      400,
      'validation_error',
      'applyAt',
    );
    expectError(await ws.client.patch(`/v1/subscriptions/${id}`, { priceId: foreign.priceId }), 404, 'not_found');
    expectError(
      await ws.client.patch(`/v1/subscriptions/${id}`, { quantity: -1 }),
      400,
      'validation_error',
      'quantity',
    );
    expectError(
      await ws.client.patch(`/v1/subscriptions/${id}`, { paymentMethod: 'x' }),
      400,
      'validation_error',
      'paymentMethod',
    );
    expectError(
      await ws.client.patch(`/v1/subscriptions/${id}`, { prorationBehavior: 'x' }),
      400,
      'validation_error',
      'prorationBehavior',
    );
    expectError(await ws.client.patch('/v1/subscriptions/sub_nope', { quantity: 2 }), 404, 'not_found');
    const res = await ws.client.patch(`/v1/subscriptions/${id}`, { priceId: bigger.prices[0].id });
    expect(res.json.data).toMatchObject({ priceId: bigger.prices[0].id, planId: bigger.id });
    const meta = await ws.client.patch(`/v1/subscriptions/${id}`, {
      metadata: { k: 'v' },
      paymentMethod: null,
      cancelAtPeriodEnd: true,
    });
    expect(meta.json.data).toMatchObject({ metadata: { k: 'v' }, paymentMethod: null, cancelAtPeriodEnd: true });
    expect((await ws.client.patch(`/v1/subscriptions/${id}`, { metadata: null })).json.data.metadata).toBeNull();
  });
});

describe('proration credits only a paid period (defect 4)', () => {
  /** A subscription whose renewal of about 10 days ago was invoiced; `method` decides whether it was charged. */
  async function renewed(ws: Workspace, method: string | null) {
    const p = await renewalPlan(ws);
    const id = await seedSubscription(ws, {
      customerId: await customer(ws),
      ...p,
      anchorAt: new Date(clock.now().getTime() - 40 * DAY),
      paymentMethod: method,
    });
    await processDue({ scope: renewalScope(ws), at: new Date(clock.now().getTime() - 9 * DAY), testClockId: null });
    return id;
  }
  const linesOf = async (ws: Workspace, subId: string) => {
    const sub = (await ws.client.get(`/v1/subscriptions/${subId}`)).json.data;
    return (await ws.client.get(`/v1/invoices/${sub.latestInvoiceId}`)).json.data.lines as any[];
  };

  it('a declined renewal (past_due), then an upgrade: refused until paid, so no credit for the unpaid period', async () => {
    const ws = await server.workspace();
    const sub = await renewed(ws, 'pm_test_decline');
    expect((await ws.client.get(`/v1/subscriptions/${sub}`)).json.data.status).toBe('past_due');
    const before = await linesOf(ws, sub);
    const res = await ws.client.patch(`/v1/subscriptions/${sub}`, { quantity: 2 });
    expect(res.status).toBe(409);
    expect(res.json.error.code).toBe('subscription_past_due');
    expect(await linesOf(ws, sub)).toEqual(before);
  });

  it('an invoiced period not yet paid (no stored method), then an upgrade: no credit either', async () => {
    const ws = await server.workspace();
    const sub = await renewed(ws, null);
    expect((await ws.client.get(`/v1/subscriptions/${sub}`)).json.data.status).toBe('active');
    await ws.client.patch(`/v1/subscriptions/${sub}`, { quantity: 2 });
    const lines = await linesOf(ws, sub);
    expect(lines.map((l) => l.description)).toEqual([expect.stringMatching(/^Remaining time on /)]);
  });

  it('a paid renewal, then an upgrade: the unused time is credited', async () => {
    const ws = await server.workspace();
    const sub = await renewed(ws, 'pm_test_success');
    await ws.client.patch(`/v1/subscriptions/${sub}`, { quantity: 2 });
    const [credit, charge] = await linesOf(ws, sub);
    expect(credit.description).toMatch(/^Unused time on /);
    expect(credit.unitAmount).toBeLessThan(0);
    expect(charge.unitAmount).toBeGreaterThan(-credit.unitAmount);
  });
});

describe('cancel, pause, resume', () => {
  it('walks the state table: pause -> resume -> cancel; conflicts are 409 conflict', async () => {
    const ws = await server.workspace();
    const { cus, priceId } = await setup(ws);
    const sub = (await subscribe(ws, { customerId: cus, priceId, paymentMethod: 'pm_test_success' })).json.data;
    const id = sub.id;
    const foreign = await setup(await server.workspace());
    expectError(await ws.client.post(`/v1/subscriptions/${id}/resume`, {}, key()), 409, 'conflict');
    const paused = (await ws.client.post(`/v1/subscriptions/${id}/pause`, {}, key())).json.data;
    expect(paused.status).toBe('paused');
    expect(paused.pausedAt).not.toBeNull();
    expectError(await ws.client.post(`/v1/subscriptions/${id}/pause`, {}, key()), 409, 'conflict');
    const resumed = (await ws.client.post(`/v1/subscriptions/${id}/resume`, {}, key())).json.data;
    expect(resumed).toMatchObject({ status: 'active', pausedAt: null, currentPeriodEnd: sub.currentPeriodEnd });
    const atEnd = (await ws.client.post(`/v1/subscriptions/${id}/cancel`, { atPeriodEnd: true }, key())).json.data;
    expect(atEnd).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });
    const canceled = (await ws.client.post(`/v1/subscriptions/${id}/cancel`, {}, key())).json.data;
    expect(canceled.status).toBe('canceled');
    expect(canceled.canceledAt).not.toBeNull();
    expectError(await ws.client.post(`/v1/subscriptions/${id}/cancel`, {}, key()), 409, 'conflict');
    expectError(await ws.client.patch(`/v1/subscriptions/${id}`, { quantity: 2 }), 409, 'conflict');
    expectError(await ws.client.post(`/v1/subscriptions/${id}/pause`, {}, key()), 409, 'conflict');
    expectError(await ws.client.post('/v1/subscriptions/sub_nope/cancel', {}, key()), 404, 'not_found');
    const types = (await eventsOf(ws, id)).map((e) => e.type);
    expect(types).toEqual([
      'subscription.created',
      'subscription.updated', // incomplete -> active (paid)
      'subscription.updated', // paused
      'subscription.updated', // resumed
      'subscription.updated', // cancelAtPeriodEnd
      'subscription.cancelled',
    ]);
    const ev = await eventsOf(ws, id);
    expect(ev[2].data.previousAttributes).toMatchObject({ status: 'active' });
    expect(ev[3].data.previousAttributes).toMatchObject({ status: 'paused' });
    expect(ev[5].data.object.status).toBe('canceled');
  });

  it('resume after the paid period ended starts a new period at the resume, with an invoice', async () => {
    const ws = await server.workspace();
    const { cus, priceId } = await setup(ws);
    const sub = (await subscribe(ws, { customerId: cus, priceId, paymentMethod: 'pm_test_success' })).json.data;
    await ws.client.post(`/v1/subscriptions/${sub.id}/pause`, {}, key());
    clock.advance(40 * DAY);
    let t0: number;
    let res: any;
    try {
      t0 = clock.now().getTime();
      res = (await send(ws, 'POST', `/v1/subscriptions/${sub.id}/resume`, {}, key())).json.data;
    } finally {
      clock.advance(-40 * DAY);
    }
    expect(res.status).toBe('active');
    expect(new Date(res.currentPeriodStart).getTime()).toBeGreaterThanOrEqual(t0);
    expect(res.latestInvoiceId).not.toBe(sub.latestInvoiceId);
    const inv = (await ws.client.get(`/v1/invoices/${res.latestInvoiceId}`)).json.data;
    expect(inv).toMatchObject({ status: 'paid', total: 100000 });
  });

  it('cancelling an incomplete subscription voids its unpaid first invoice', async () => {
    const ws = await server.workspace();
    const { cus, priceId } = await setup(ws);
    const sub = (await subscribe(ws, { customerId: cus, priceId, paymentMethod: 'pm_test_decline' })).json.data;
    const res = (await ws.client.post(`/v1/subscriptions/${sub.id}/cancel`, {}, key())).json.data;
    expect(res.status).toBe('canceled');
    expect((await ws.client.get(`/v1/invoices/${sub.latestInvoiceId}`)).json.data.status).toBe('void');
  });
});

describe('collection (collect.ts)', () => {
  it('a failed charge moves invoice and subscription to past_due; a later success reactivates', async () => {
    const ws = await server.workspace();
    const { cus, priceId } = await setup(ws);
    const sub = (await subscribe(ws, { customerId: cus, priceId, paymentMethod: 'pm_test_success' })).json.data;
    // An extra open invoice of the active subscription (as a renewal writes one), charged with a declining method.
    await ws.client.patch(`/v1/subscriptions/${sub.id}`, { paymentMethod: 'pm_test_decline' });
    const upgraded = (await ws.client.patch(`/v1/subscriptions/${sub.id}`, { quantity: 2 })).json.data;
    expect(upgraded.status).toBe('past_due');
    const inv = (await ws.client.get(`/v1/invoices/${upgraded.latestInvoiceId}`)).json.data;
    expect(inv).toMatchObject({ status: 'past_due', collectionAttempts: 1 });
    const scope = { workspaceId: ws.workspaceId, mode: 'test' as const, accountId: ws.accountId };
    // Collecting again with the method fixed pays it; the subscription is active again.
    await ws.client.patch(`/v1/subscriptions/${sub.id}`, { paymentMethod: 'pm_test_success' });
    const out = await collectInvoice(scope, inv.id);
    expect(out.outcome).toBe('paid');
    expect((await ws.client.get(`/v1/subscriptions/${sub.id}`)).json.data.status).toBe('active');
    const paid = (await ws.client.get(`/v1/invoices/${inv.id}`)).json.data;
    expect(paid).toMatchObject({ status: 'paid', collectionAttempts: 2 });
    // A paid invoice is not collectible again: nothing is charged.
    expect((await collectInvoice(scope, inv.id)).outcome).toBe('skipped');
    const pays = (await ws.client.get(`/v1/payments?customerId=${cus}`)).json.data.map((p: any) => p.status).sort();
    expect(pays).toEqual(['failed', 'succeeded', 'succeeded']);
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
  });
});

describe('GraphQL and scopes', () => {
  it('BillingSubscription edges: customer, plan, price, latestInvoice (with lines), invoices', async () => {
    const ws = await server.workspace();
    const { cus, planId, priceId } = await setup(ws);
    const m = `mutation($input: CreateSubscriptionInput!, $k: String) {
      createSubscription(input: $input, idempotencyKey: $k) { id status }
    }`;
    const created = await ws.client.graphql(m, {
      input: { customerId: cus, priceId, paymentMethod: 'pm_test_success' },
      k: randomUUID(),
    });
    expect(created.json.errors).toBeUndefined();
    const id = created.json.data.createSubscription.id;
    expect(created.json.data.createSubscription.status).toBe('active');
    const q = await ws.client.graphql(
      `query($id: ID!) {
        subscription(id: $id) {
          id customer { id } plan { id prices { id } } price { id unitAmount }
          latestInvoice { id status lines { amount } }
          invoices(first: 5) { edges { node { id subscriptionId } } }
        }
        subscriptions(first: 5, status: "active") { edges { node { id customer { id } price { id } } } }
      }`,
      { id },
    );
    expect(q.json.errors).toBeUndefined();
    const s = q.json.data.subscription;
    expect(s).toMatchObject({
      id,
      customer: { id: cus },
      plan: { id: planId, prices: [{ id: priceId }] },
      price: { id: priceId, unitAmount: 100000 },
      latestInvoice: { status: 'paid', lines: [{ amount: 100000 }] },
    });
    expect(s.invoices.edges.map((e: any) => e.node)).toEqual([{ id: s.latestInvoice.id, subscriptionId: id }]);
    expect(q.json.data.subscriptions.edges).toEqual([{ node: { id, customer: { id: cus }, price: { id: priceId } } }]);
  });

  it('svc:subscription:read reads, svc:subscription:write writes (403 insufficient_scope otherwise)', async () => {
    const ws = await server.workspace();
    const { cus, priceId } = await setup(ws);
    const sub = (await subscribe(ws, { customerId: cus, priceId })).json.data;
    const ro = await mintKey(ws.workspaceId, 'test', { role: 'read_only' });
    const c = createClient({ baseUrl: server.url, keyId: ro.keyId, secret: ro.secret });
    expect((await c.get(`/v1/subscriptions/${sub.id}`)).status).toBe(200);
    expect((await c.get('/v1/subscriptions')).status).toBe(200);
    expectError(await c.post('/v1/subscriptions', { customerId: cus, priceId }, key()), 403, 'insufficient_scope');
    expectError(await c.patch(`/v1/subscriptions/${sub.id}`, { quantity: 2 }), 403, 'insufficient_scope');
    expectError(await c.post(`/v1/subscriptions/${sub.id}/cancel`, {}, key()), 403, 'insufficient_scope');
    const none = await mintKey(ws.workspaceId, 'test', { role: 'restricted', scopes: ['svc:customer:read'] });
    const n = createClient({ baseUrl: server.url, keyId: none.keyId, secret: none.secret });
    expectError(await n.get(`/v1/subscriptions/${sub.id}`), 403, 'insufficient_scope');
  });

  it('live mode refuses test payment methods (no off-session charge yet: hosted page only)', async () => {
    const ws = await server.workspace();
    const live = await mintLiveKey(ws.workspaceId);
    const c = createClient({ baseUrl: server.url, keyId: live.keyId, secret: live.secret });
    const res = await c.post(
      '/v1/subscriptions',
      {
        customerId: 'cus_01JAAAAAAAAAAAAAAAAAAAAAAA',
        priceId: 'pr_01JAAAAAAAAAAAAAAAAAAAAAAA',
        paymentMethod: 'pm_test_success',
      },
      key(),
    );
    expectError(res, 400, 'validation_error', 'paymentMethod');
  });
});

describe('the hosted invoice page pays the first invoice', () => {
  it('incomplete -> active when the customer pays on the pay link (checkout sandbox), one payment', async () => {
    const ws = await server.workspace();
    const { cus, priceId } = await setup(ws);
    const sub = (await subscribe(ws, { customerId: cus, priceId })).json.data;
    const inv = (await ws.client.get(`/v1/invoices/${sub.latestInvoiceId}`)).json.data;
    const path = new URL(inv.hostedInvoiceUrl).pathname;
    const cs = (await fetch(`${server.url}${path}/pay`, { method: 'POST', redirect: 'manual' })).headers.get(
      'location',
    );
    expect(cs).toMatch(/^\/c\//);
    const call = (p: string, body: unknown) =>
      fetch(`${server.url}${cs}${p}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await call('/attempt', { method: 'qris' })).status).toBe(200);
    expect((await call('/simulate', { outcome: 'success' })).status).toBe(200);
    expect((await ws.client.get(`/v1/subscriptions/${sub.id}`)).json.data.status).toBe('active');
    expect((await ws.client.get(`/v1/invoices/${inv.id}`)).json.data.status).toBe('paid');
    const pays = (await ws.client.get(`/v1/payments?customerId=${cus}`)).json.data;
    expect(pays).toHaveLength(1);
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
  });
});
