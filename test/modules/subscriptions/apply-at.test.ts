/**
 * PATCH /v1/subscriptions/:id `applyAt` over real HTTP (docs/billing.md, Proration; docs/credit-notes.md,
 * Order changes): a change applied now in a paid period whose unused time exceeds what the target bills
 * issues `order_change` credit notes credited to the customer balance, which pays the target's invoice.
 */
import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useServer, type Workspace } from '../../helpers/server.ts';
import { unbalancedTxIds } from '../../helpers/payments.ts';
import { clock } from '../../../src/core/clock.ts';
import { prorate } from '../../../src/core/periods.ts';
import { clockedSender } from '../../helpers/clocked.ts';
import { planBody, postPlan } from '../../helpers/plans.ts';
import { plan as renewalPlan, scopeOf as renewalScope, seedSubscription } from '../../helpers/renewals.ts';
import { processDue } from '../../../src/modules/subscriptions/renewals.ts';

const server = useServer();
const send = clockedSender(server);
const DAY = 86_400_000;
const key = () => ({ 'idempotency-key': randomUUID() });

async function customer(ws: Workspace) {
  return (await ws.client.post('/v1/customers', { name: 'Budi', email: 'budi@example.com' })).json.data.id as string;
}
async function plan(ws: Workspace, extra: Record<string, unknown>, unitAmount: number) {
  const res = await postPlan(ws, planBody({ prices: [{ currency: 'IDR', model: 'flat', unitAmount }], ...extra }));
  expect(res.status).toBe(201);
  return { planId: res.json.data.id as string, priceId: res.json.data.prices[0].id as string };
}
const balanceOf = async (ws: Workspace, cus: string) =>
  (
    (await ws.client.get(`/v1/customers/${cus}/balance`)).json.data.balances as { currency: string; amount: number }[]
  ).find((b) => b.currency === 'IDR')?.amount ?? 0;
const notesOf = async (ws: Workspace, invoiceId: string) =>
  (await ws.client.get(`/v1/credit-notes?invoiceId=${invoiceId}`)).json.data as any[];

/** PATCH ten days into the period (the customer's business time), back to now afterwards. */
async function patchLater(ws: Workspace, id: string, body: Record<string, unknown>) {
  clock.advance(10 * DAY);
  try {
    const at = clock.now();
    return { res: await send(ws, 'PATCH', `/v1/subscriptions/${id}`, body), at };
  } finally {
    clock.advance(-10 * DAY);
  }
}

describe('applyAt', () => {
  it('a downgrade applied now in a paid period: order_change note to the balance, which pays the rest and the next invoice', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const { priceId } = await plan(ws, { name: 'Team' }, 100000);
    const sub = (
      await ws.client.post(
        '/v1/subscriptions',
        { customerId: cus, priceId, quantity: 4, paymentMethod: 'pm_test_success' },
        key(),
      )
    ).json.data;
    const first = sub.latestInvoiceId as string;
    const { res, at } = await patchLater(ws, sub.id, { quantity: 2, applyAt: 'now' });
    expect(res.status).toBe(200);
    const down = res.json.data;
    expect(down).toMatchObject({ quantity: 2, pendingQuantity: null, pendingPriceId: null, status: 'active' });
    const period = { start: new Date(sub.currentPeriodStart), end: new Date(sub.currentPeriodEnd) };
    const unused = prorate(400000, period, at);
    const remaining = prorate(200000, period, at);
    const [note] = await notesOf(ws, first);
    expect(note).toMatchObject({
      reason: 'order_change',
      status: 'issued',
      total: unused,
      creditAmount: unused,
      refundAmount: 0,
      prePaymentAmount: 0,
    });
    expect(note.lines).toEqual([expect.objectContaining({ type: 'invoice_line', amount: unused })]);
    const inv = (await ws.client.get(`/v1/invoices/${down.latestInvoiceId}`)).json.data;
    expect(inv.lines.map((l: any) => [l.description, l.unitAmount])).toEqual([
      [expect.stringMatching(/^Remaining time on /), remaining],
    ]);
    expect(inv).toMatchObject({
      status: 'paid',
      balanceApplied: remaining,
      amountDue: 0,
    });
    expect(await balanceOf(ws, cus)).toBe(unused - remaining);
    const txns = (await ws.client.get(`/v1/customers/${cus}/balance-transactions?limit=10`)).json.data as any[];
    expect(txns.map((t) => [t.type, t.amount]).sort()).toEqual(
      [
        ['applied_to_invoice', -remaining],
        ['credit_note', unused],
      ].sort(),
    );
    const issued = (await ws.client.get(`/v1/events?objectId=${note.id}&limit=10`)).json.data as any[];
    expect(issued.map((e) => e.type)).toEqual(['svc.credit_note.issued.v1']);

    // The next invoice (an upgrade now) consumes what is left first.
    const up = (await patchLater(ws, sub.id, { quantity: 3 })).res.json.data;
    const next = (await ws.client.get(`/v1/invoices/${up.latestInvoiceId}`)).json.data;
    expect(next.balanceApplied).toBeGreaterThan(0);
    expect(next.balanceApplied).toBe(Math.min(next.total, unused - remaining));
    expect(await balanceOf(ws, cus)).toBe(unused - remaining - next.balanceApplied);
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
  });

  it('a downgrade now on a taxed invoice: the note credits the unused time and its tax, in proportion', async () => {
    const ws = await server.workspace();
    const tpl = await ws.client.post('/v1/templates', {
      kind: 'invoice',
      name: 'Inv',
      isDefault: true,
      showTax: true,
      taxRate: 0.11,
    });
    expect(tpl.status, tpl.text).toBe(201);
    const cus = await customer(ws);
    const { priceId } = await plan(ws, { name: 'Team' }, 100000);
    const sub = (
      await ws.client.post(
        '/v1/subscriptions',
        { customerId: cus, priceId, quantity: 4, paymentMethod: 'pm_test_success' },
        key(),
      )
    ).json.data;
    const first = (await ws.client.get(`/v1/invoices/${sub.latestInvoiceId}`)).json.data;
    expect(first).toMatchObject({ status: 'paid', subtotal: 400000, tax: 44000, total: 444000 });
    const { res, at } = await patchLater(ws, sub.id, { quantity: 2, applyAt: 'now' });
    expect(res.status, res.text).toBe(200);
    const period = { start: new Date(sub.currentPeriodStart), end: new Date(sub.currentPeriodEnd) };
    const unused = prorate(400000, period, at);
    const [note] = await notesOf(ws, first.id);
    // The unused time is a part of the paid line; the note reverses that part's tax as well.
    expect(note).toMatchObject({ reason: 'order_change', status: 'issued', subtotal: unused, refundAmount: 0 });
    expect(note.tax).toBe(Math.round((unused * 44000) / 400000));
    expect(note.total).toBe(unused + note.tax);
    expect(note.creditAmount).toBe(note.total);
    expect(note.tax).toBeLessThanOrEqual(first.tax);
    const down = res.json.data;
    const inv = (await ws.client.get(`/v1/invoices/${down.latestInvoiceId}`)).json.data;
    // The remaining time is billed with its own tax and paid from the balance the note made.
    expect(inv.status).toBe('paid');
    expect(inv.tax).toBe(Math.round(inv.subtotal * 0.11));
    expect(inv.balanceApplied).toBe(inv.total);
    expect(await balanceOf(ws, cus)).toBe(note.total - inv.total);
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
  });

  it('an interval change whose unused time exceeds the new period: the note credits it, the balance pays the period', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const { priceId } = await plan(ws, { name: 'Monthly' }, 100000);
    const yearly = await plan(ws, { name: 'Yearly', interval: 'year' }, 1000);
    const sub = (
      await ws.client.post('/v1/subscriptions', { customerId: cus, priceId, paymentMethod: 'pm_test_success' }, key())
    ).json.data;
    const { res, at } = await patchLater(ws, sub.id, { priceId: yearly.priceId });
    expect(res.status).toBe(200);
    const after = res.json.data;
    expect(after).toMatchObject({ priceId: yearly.priceId, planId: yearly.planId, status: 'active' });
    expect(new Date(after.currentPeriodStart).getTime()).toBeGreaterThanOrEqual(at.getTime());
    const unused = prorate(
      100000,
      { start: new Date(sub.currentPeriodStart), end: new Date(sub.currentPeriodEnd) },
      at,
    );
    const [note] = await notesOf(ws, sub.latestInvoiceId);
    expect(note).toMatchObject({ reason: 'order_change', total: unused, creditAmount: unused });
    const inv = (await ws.client.get(`/v1/invoices/${after.latestInvoiceId}`)).json.data;
    expect(inv).toMatchObject({ status: 'paid', total: 1000, balanceApplied: 1000, amountDue: 0 });
    expect(inv.lines).toHaveLength(1);
    expect(await balanceOf(ws, cus)).toBe(unused - 1000);
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
  });

  it('an unpaid period is never credited: a downgrade now issues no note', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const p = await renewalPlan(ws);
    const cheaper = await plan(ws, { name: 'Cheaper' }, 1000);
    const sub = await seedSubscription(ws, {
      customerId: cus,
      ...p,
      anchorAt: new Date(clock.now().getTime() - 40 * DAY),
      paymentMethod: null,
    });
    await processDue({ scope: renewalScope(ws), at: new Date(clock.now().getTime() - 9 * DAY), testClockId: null });
    const before = (await ws.client.get(`/v1/subscriptions/${sub}`)).json.data;
    expect(before.status).toBe('active');
    const res = await ws.client.patch(`/v1/subscriptions/${sub}`, { priceId: cheaper.priceId, applyAt: 'now' });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ priceId: cheaper.priceId, pendingPriceId: null });
    expect((await ws.client.get('/v1/credit-notes')).json.data).toEqual([]);
    expect(await balanceOf(ws, cus)).toBe(0);
    const inv = (await ws.client.get(`/v1/invoices/${res.json.data.latestInvoiceId}`)).json.data;
    expect(inv.lines.map((l: any) => l.description)).toEqual([expect.stringMatching(/^Remaining time on /)]);
  });

  it('period_end keeps the pending change (also for an increase); a bad applyAt is 400 naming it', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const { priceId } = await plan(ws, { name: 'Team' }, 100000);
    const sub = (
      await ws.client.post(
        '/v1/subscriptions',
        { customerId: cus, priceId, quantity: 4, paymentMethod: 'pm_test_success' },
        key(),
      )
    ).json.data;
    const down = (await ws.client.patch(`/v1/subscriptions/${sub.id}`, { quantity: 2 })).json.data;
    expect(down).toMatchObject({ quantity: 4, pendingQuantity: 2, latestInvoiceId: sub.latestInvoiceId });
    const up = (await ws.client.patch(`/v1/subscriptions/${sub.id}`, { quantity: 6, applyAt: 'period_end' })).json.data;
    expect(up).toMatchObject({ quantity: 4, pendingQuantity: 6, latestInvoiceId: sub.latestInvoiceId });
    expect((await ws.client.get('/v1/credit-notes')).json.data).toEqual([]);
    for (const applyAt of ['later', 1, '']) {
      const res = await ws.client.patch(`/v1/subscriptions/${sub.id}`, { quantity: 2, applyAt });
      expect({ status: res.status, field: res.json.error?.field }).toEqual({ status: 400, field: 'applyAt' });
    }
  });
});
