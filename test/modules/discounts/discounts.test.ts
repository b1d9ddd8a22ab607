/**
 * Discounts over real HTTP (docs/coupons.md, Discounts): `couponId` on subscriptions and invoices,
 * the discount before tax on the invoices they bill, durations on a test clock, bad input and
 * concurrent redemptions through subscription creates.
 */
import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { db, useServer, type Workspace } from '../../helpers/server.ts';
import { until } from '../../helpers/receiver.ts';
import { planBody, postPlan } from '../../helpers/plans.ts';
import { unthrottled } from '../../helpers/payments.ts';
import { clock } from '../../../src/core/clock.ts';

const server = useServer({ background: 'worker' });

type Res = { status: number; json: any };
const key = () => ({ 'idempotency-key': randomUUID() });
function expectError(res: Res, status: number, code: string, field?: string) {
  expect({ status: res.status, code: res.json?.error?.code, field: res.json?.error?.field }).toEqual({
    status,
    code,
    field: field ?? res.json?.error?.field,
  });
}
const coupon = async (ws: Workspace, body: Record<string, unknown>) => {
  const res = await ws.client.post('/v1/coupons', { name: 'Promo', duration: 'forever', ...body }, key());
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.data;
};
async function plan(ws: Workspace, unitAmount = 150000, name = 'Pro') {
  const res = await postPlan(ws, planBody({ name, prices: [{ currency: 'IDR', model: 'flat', unitAmount }] }));
  expect(res.status).toBe(201);
  return { planId: res.json.data.id as string, priceId: res.json.data.prices[0].id as string };
}
const customer = async (ws: Workspace, testClockId?: string) =>
  (await ws.client.post('/v1/customers', { name: 'Budi', email: 'budi@example.com', testClockId })).json.data
    .id as string;
/** Tax on: the workspace's default invoice template shows PPN at 11 % (docs/billing.md, Tax). */
const taxOn = async (ws: Workspace) =>
  expect(
    (await ws.client.post('/v1/templates', { kind: 'invoice', name: 'PPN', showTax: true, isDefault: true })).status,
  ).toBe(201);
const subscribe = (ws: Workspace, body: Record<string, unknown>) =>
  ws.client.post('/v1/subscriptions', { paymentMethod: 'pm_test_success', ...body }, key());
const invoice = async (ws: Workspace, id: string) => (await ws.client.get(`/v1/invoices/${id}`)).json.data;
const half = (n: number) => Math.floor(n + 0.5);

describe('subscription discounts', () => {
  it('a percent coupon discounts the first invoice before tax; the subscription shows the discount', async () => {
    const ws = await server.workspace();
    await taxOn(ws);
    const { priceId } = await plan(ws);
    const c = await coupon(ws, { name: 'Launch 12.5%', percentOff: 12.5 });
    const res = await subscribe(ws, { customerId: await customer(ws), priceId, couponId: c.id });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const sub = res.json.data;
    expect(sub.discount).toMatchObject({
      couponId: c.id,
      coupon: { name: 'Launch 12.5%', percentOff: 12.5, amountOff: null, duration: 'forever', durationInMonths: null },
      customerId: sub.customerId,
      subscriptionId: sub.id,
      invoiceId: null,
      end: null,
      status: 'active',
    });
    expect(sub.discount.id).toMatch(/^di_[0-9A-HJKMNP-TV-Z]{26}$/);
    const inv = await invoice(ws, sub.latestInvoiceId);
    const discount = half((150000 * 12.5) / 100);
    const tax = half((150000 - discount) * 0.11);
    expect(inv).toMatchObject({
      subtotal: 150000,
      discount,
      discounts: [{ couponId: c.id, discountId: sub.discount.id, name: 'Launch 12.5%', amount: discount }],
      tax,
      total: 150000 - discount + tax,
      status: 'paid',
      amountPaid: 150000 - discount + tax,
    });
    expect((await ws.client.get(`/v1/coupons/${c.id}`)).json.data.timesRedeemed).toBe(1);
    // The event carries the REST shape, discount included.
    const events = (await ws.client.get(`/v1/events?objectId=${sub.id}&order=asc`)).json.data;
    expect(events[0].type).toBe('subscription.created');
    expect(events[0].data.object.discount.id).toBe(sub.discount.id);
  });

  it('an amount coupon takes min(amountOff, base); appliesTo limits it to the plans named', async () => {
    const ws = await server.workspace();
    const pro = await plan(ws, 40000, 'Pro');
    const basic = await plan(ws, 60000, 'Basic');
    const big = await coupon(ws, { name: 'Rp 50.000', amountOff: { IDR: 50000 } });
    const res = await subscribe(ws, { customerId: await customer(ws), priceId: pro.priceId, couponId: big.id });
    expect(res.status).toBe(201);
    const inv = await invoice(ws, res.json.data.latestInvoiceId);
    // Never above the base: the whole 40,000 and no more; a zero total is paid at once.
    expect(inv).toMatchObject({ subtotal: 40000, discount: 40000, total: 0, status: 'paid', amountPaid: 0 });
    const onlyPro = await coupon(ws, {
      name: 'Pro only',
      amountOff: { IDR: 5000 },
      appliesTo: { planIds: [pro.planId] },
    });
    expectError(
      await subscribe(ws, { customerId: await customer(ws), priceId: basic.priceId, couponId: onlyPro.id }),
      400,
      'validation_error',
      'couponId',
    );
    const ok = await subscribe(ws, { customerId: await customer(ws), priceId: pro.priceId, couponId: onlyPro.id });
    expect((await invoice(ws, ok.json.data.latestInvoiceId)).discount).toBe(5000);
    // The refused application redeemed nothing.
    expect((await ws.client.get(`/v1/coupons/${onlyPro.id}`)).json.data.timesRedeemed).toBe(1);
  });

  it('PATCH replaces (another id) and removes (null) the discount: subscription.updated with previousAttributes.discount', async () => {
    const ws = await server.workspace();
    const { priceId } = await plan(ws);
    const a = await coupon(ws, { name: 'A', percentOff: 10 });
    const b = await coupon(ws, { name: 'B', amountOff: { IDR: 1000 } });
    const sub = (await subscribe(ws, { customerId: await customer(ws), priceId, couponId: a.id })).json.data;
    const first = sub.discount;
    const replaced = await ws.client.patch(`/v1/subscriptions/${sub.id}`, { couponId: b.id }, key());
    expect(replaced.status, JSON.stringify(replaced.json)).toBe(200);
    expect(replaced.json.data.discount).toMatchObject({ couponId: b.id, status: 'active', coupon: { name: 'B' } });
    expect(replaced.json.data.discount.id).not.toBe(first.id);
    const removed = await ws.client.patch(`/v1/subscriptions/${sub.id}`, { couponId: null }, key());
    expect(removed.status).toBe(200);
    expect(removed.json.data.discount).toBeNull();
    const updates = (await ws.client.get(`/v1/events?objectId=${sub.id}&order=asc`)).json.data.filter(
      (e: any) => e.type === 'subscription.updated' && e.data.previousAttributes?.discount !== undefined,
    );
    expect(updates.map((e: any) => e.data.previousAttributes.discount?.couponId ?? null)).toEqual([a.id, b.id]);
    expect(updates.at(-1).data.object.discount).toBeNull();
    // GraphQL reads the same discount through its typed edge.
    const again = await ws.client.patch(`/v1/subscriptions/${sub.id}`, { couponId: a.id }, key());
    const gql = await ws.client.graphql(
      `query($id: ID!) { subscription(id: $id) { discount { id couponId status coupon { name percentOff } } } }`,
      { id: sub.id },
    );
    expect(gql.json.data.subscription.discount).toEqual({
      id: again.json.data.discount.id,
      couponId: a.id,
      status: 'active',
      coupon: { name: 'A', percentOff: 10 },
    });
  });

  it('bad input: unknown or foreign coupon 404 not_found; archived, expired, used-up, uncovered currency 400 couponId', async () => {
    const ws = await server.workspace();
    const { priceId } = await plan(ws);
    const cus = await customer(ws);
    expectError(await subscribe(ws, { customerId: cus, priceId, couponId: 'cpn_nope' }), 404, 'not_found');
    const other = await server.workspace();
    const foreign = await coupon(other, { percentOff: 10 });
    expectError(await subscribe(ws, { customerId: cus, priceId, couponId: foreign.id }), 404, 'not_found');
    const archived = await coupon(ws, { percentOff: 10 });
    await ws.client.post(`/v1/coupons/${archived.id}/archive`, {}, key());
    const expired = await coupon(ws, { percentOff: 10, redeemBy: new Date(Date.now() + 2000).toISOString() });
    const usedUp = await coupon(ws, { percentOff: 10, maxRedemptions: 1 });
    expect((await subscribe(ws, { customerId: cus, priceId, couponId: usedUp.id })).status).toBe(201);
    const usd = await coupon(ws, { amountOff: { USD: 500 } });
    // Past `expired`'s redeemBy on the injected clock (business time), not by sleeping.
    clock.advance(2100);
    try {
      for (const c of [archived, expired, usedUp, usd])
        expectError(
          await subscribe(ws, { customerId: cus, priceId, couponId: c.id }),
          400,
          'validation_error',
          'couponId',
        );
    } finally {
      clock.reset();
    }
    // Nothing was written for the refused creates.
    const subs = (await ws.client.get(`/v1/subscriptions?customerId=${cus}`)).json.data;
    expect(subs).toHaveLength(1);
  });

  it('100 concurrent subscription creates with a coupon limited to 10: exactly 10 succeed, timesRedeemed 10', async () => {
    const ws = await server.workspace();
    const { priceId } = await plan(ws);
    const c = await coupon(ws, { percentOff: 50, maxRedemptions: 10 });
    const cus = await customer(ws);
    const results = await unthrottled(() =>
      Promise.all(Array.from({ length: 100 }, () => subscribe(ws, { customerId: cus, priceId, couponId: c.id }))),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    for (const r of results.filter((x) => x.status !== 201)) expectError(r, 400, 'validation_error', 'couponId');
    expect((await ws.client.get(`/v1/coupons/${c.id}`)).json.data.timesRedeemed).toBe(10);
  });
});

describe('invoice discounts', () => {
  it('couponId on create and on draft PATCH (replace, remove); the flat discount stays an entry of its own', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const pct = await coupon(ws, { name: 'Ten', percentOff: 10 });
    const amt = await coupon(ws, { name: 'Rp 3.000', amountOff: { IDR: 3000 } });
    const created = await ws.client.post(
      '/v1/invoices',
      {
        customerId: cus,
        currency: 'IDR',
        couponId: pct.id,
        discount: 1000,
        tax: 0,
        lines: [{ description: 'Setup', quantity: 2, unitAmount: 25000 }],
      },
      key(),
    );
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const inv = created.json.data;
    expect(inv).toMatchObject({
      subtotal: 50000,
      // The coupon takes its percent of what the flat discount leaves: 10 % of 49,000.
      discount: 5900,
      total: 44100,
      discounts: [
        { couponId: null, discountId: null, name: 'Diskon / Discount', amount: 1000 },
        { couponId: pct.id, name: 'Ten', amount: 4900 },
      ],
    });
    expect(inv.discounts[1].discountId).toMatch(/^di_/);
    const replaced = await ws.client.patch(`/v1/invoices/${inv.id}`, { couponId: amt.id, discount: 0 }, key());
    expect(replaced.status, JSON.stringify(replaced.json)).toBe(200);
    expect(replaced.json.data).toMatchObject({
      discount: 3000,
      total: 47000,
      discounts: [{ couponId: amt.id, name: 'Rp 3.000', amount: 3000 }],
    });
    // Lines edited: the coupon's amount is recomputed on them.
    const relined = await ws.client.patch(
      `/v1/invoices/${inv.id}`,
      { couponId: pct.id, lines: [{ description: 'Setup', quantity: 1, unitAmount: 12345 }] },
      key(),
    );
    expect(relined.json.data).toMatchObject({ subtotal: 12345, discount: 1235, total: 11110 });
    const removed = await ws.client.patch(`/v1/invoices/${inv.id}`, { couponId: null }, key());
    expect(removed.json.data).toMatchObject({ discount: 0, discounts: [], total: 12345 });
    const withAgain = await ws.client.patch(`/v1/invoices/${inv.id}`, { couponId: amt.id }, key());
    const fin = await ws.client.post(`/v1/invoices/${inv.id}/finalize`, {}, key());
    expect(fin.status).toBe(200);
    expect(fin.json.data).toMatchObject({ status: 'open', discount: 3000, discounts: withAgain.json.data.discounts });
    // Once the invoice left draft its coupon cannot change.
    expectError(await ws.client.patch(`/v1/invoices/${inv.id}`, { couponId: null }, key()), 409, 'conflict');
    // Redemptions count applications: pct twice, amt twice.
    expect((await ws.client.get(`/v1/coupons/${pct.id}`)).json.data.timesRedeemed).toBe(2);
    expect((await ws.client.get(`/v1/coupons/${amt.id}`)).json.data.timesRedeemed).toBe(2);
    // The discount rows: removed on replace and remove, ended with the finalization; a voided draft's removed.
    const rows = async (id: string) =>
      (
        await db().system.query(
          `SELECT "couponId", status, "end" IS NOT NULL AS ended FROM discounts WHERE "invoiceId" = $1 ORDER BY "createdAt", id`,
          [id],
        )
      ).rows;
    expect(await rows(inv.id)).toEqual([
      { couponId: pct.id, status: 'removed', ended: true },
      { couponId: amt.id, status: 'removed', ended: true },
      { couponId: pct.id, status: 'removed', ended: true },
      { couponId: amt.id, status: 'ended', ended: true },
    ]);
    const draft = (
      await ws.client.post(
        '/v1/invoices',
        {
          customerId: cus,
          currency: 'IDR',
          couponId: pct.id,
          lines: [{ description: 'x', quantity: 1, unitAmount: 1000 }],
        },
        key(),
      )
    ).json.data;
    expect((await ws.client.post(`/v1/invoices/${draft.id}/void`, {}, key())).status).toBe(200);
    expect(await rows(draft.id)).toEqual([{ couponId: pct.id, status: 'removed', ended: true }]);
  });

  it('bad input on invoices: 404 not_found for unknown or foreign coupons, 400 VALIDATION_ERROR couponId otherwise', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const body = (couponId: string) => ({
      customerId: cus,
      currency: 'IDR',
      couponId,
      lines: [{ description: 'x', quantity: 1, unitAmount: 1000 }],
    });
    expectError(await ws.client.post('/v1/invoices', body('cpn_nope'), key()), 404, 'not_found');
    const foreign = await coupon(await server.workspace(), { percentOff: 5 });
    expectError(await ws.client.post('/v1/invoices', body(foreign.id), key()), 404, 'not_found');
    const usd = await coupon(ws, { amountOff: { USD: 100 } });
    expectError(await ws.client.post('/v1/invoices', body(usd.id), key()), 400, 'VALIDATION_ERROR', 'couponId');
    const { planId } = await plan(ws);
    const limited = await coupon(ws, { percentOff: 5, appliesTo: { planIds: [planId] } });
    expectError(await ws.client.post('/v1/invoices', body(limited.id), key()), 400, 'VALIDATION_ERROR', 'couponId');
    expect((await ws.client.get(`/v1/invoices?customerId=${cus}`)).json.data).toHaveLength(0);
  });
});

describe('durations on a test clock', () => {
  const start = '2025-01-31T00:00:00.000Z';

  async function twelveCycles(duration: Record<string, unknown>) {
    const ws = await server.workspace();
    const { priceId } = await plan(ws, 100000);
    const c = await coupon(ws, { name: 'Clocked', percentOff: 20, ...duration });
    const clk = (await ws.client.post('/v1/test-clocks', { frozenTime: start })).json.data;
    const made = await subscribe(ws, { customerId: await customer(ws, clk.id), priceId, couponId: c.id });
    expect(made.status, JSON.stringify(made.json)).toBe(201);
    const sub = made.json.data;
    expect(sub.discount?.start ?? null).toBe(duration.duration === 'once' ? null : start);
    const target = '2026-01-31T00:00:00.000Z';
    const adv = await ws.client.post(`/v1/test-clocks/${clk.id}/advance`, { frozenTime: target }, key());
    expect(adv.status, JSON.stringify(adv.json)).toBe(200);
    await until(
      async () => (await ws.client.get(`/v1/test-clocks/${clk.id}`)).json.data.status === 'ready',
      'the clock to be ready',
      90_000,
    );
    const invoices = (await ws.client.get(`/v1/invoices?subscriptionId=${sub.id}&limit=100`)).json.data as any[];
    const byStart = invoices.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    expect(byStart).toHaveLength(13);
    const after = (await ws.client.get(`/v1/subscriptions/${sub.id}`)).json.data;
    return { discounted: byStart.map((i) => i.discount > 0), after };
  }

  it('repeating 3 months: of 13 invoices (create + 12 cycles), exactly the first 3 are discounted', async () => {
    const { discounted, after } = await twelveCycles({ duration: 'repeating', durationInMonths: 3 });
    expect(discounted).toEqual([true, true, true, ...Array(10).fill(false)]);
    expect(after.discount).toBeNull();
  }, 180_000);

  it('once: exactly the first invoice is discounted and the discount ends at its finalization', async () => {
    const { discounted, after } = await twelveCycles({ duration: 'once' });
    expect(discounted).toEqual([true, ...Array(12).fill(false)]);
    expect(after.discount).toBeNull();
  }, 180_000);
});

describe('renderings', () => {
  /** A signed GET answered as bytes. */
  async function signedBytes(ws: Workspace, target: string) {
    const { signRequest } = await import('../../../src/core/auth/signing.ts');
    const res = await fetch(server.url + target, {
      headers: signRequest({ keyId: ws.keyId, secret: ws.secret, method: 'GET', target }),
      redirect: 'manual',
    });
    return Buffer.from(await res.arrayBuffer());
  }

  it("every rendering shows the discount row with the coupon's name: PDF, HTML, ESC/POS, hosted page, portal", async () => {
    const ws = await server.workspace();
    await taxOn(ws);
    const { priceId } = await plan(ws);
    const c = await coupon(ws, { name: 'Ramadan Hemat', percentOff: 20, duration: 'repeating', durationInMonths: 2 });
    const cus = await customer(ws);
    const sub = (await subscribe(ws, { customerId: cus, priceId, couponId: c.id })).json.data;
    const inv = await invoice(ws, sub.latestInvoiceId);
    expect(inv.discount).toBe(30000);
    const row = 'Diskon: Ramadan Hemat';
    const html = await ws.client.get(`/v1/invoices/${inv.id}/invoice.html`);
    expect(html.text).toContain(row);
    const { extractText } = await import('unpdf');
    const pdf = await signedBytes(ws, `/v1/invoices/${inv.id}/invoice.pdf`);
    const { text } = await extractText(new Uint8Array(pdf), { mergePages: true });
    expect(text.replace(/\s+/g, ' ')).toContain(row);
    const escpos = await signedBytes(ws, `/v1/invoices/${inv.id}/invoice.escpos?width=80`);
    expect(escpos.toString('latin1')).toContain('Ramadan Hemat');
    const hosted = await fetch(server.url + new URL(inv.hostedInvoiceUrl).pathname);
    expect(await hosted.text()).toContain('Ramadan Hemat');
    // The portal state: the subscription's discount and the invoice's discounts.
    const ps = (await ws.client.post('/v1/portal-sessions', { customerId: cus, returnUrl: 'https://shop.example' }))
      .json.data;
    const u = new URL(ps.url);
    const state = await (
      await fetch(`${server.url}/portal/${u.pathname.split('/')[2]}/api/state`, {
        headers: { 'x-portal-token': u.hash.slice('#t='.length) },
      })
    ).json();
    expect(state.data.subscriptions[0].discount).toEqual({ name: 'Ramadan Hemat', end: sub.discount.end });
    expect(state.data.invoices[0].discounts).toEqual([
      { name: 'Ramadan Hemat', amount: expect.stringContaining('30.000') },
    ]);
  });
});
