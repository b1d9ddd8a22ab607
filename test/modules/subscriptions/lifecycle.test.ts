/**
 * Subscription lifecycle over real HTTP, driven through time by the renewal function
 * (`processDue`, renewals.ts): the state-table walker (every REST trigger from every reachable
 * status answers as `subscriptionMachine` says), trial -> active / past_due, a Jan 31 anchor created
 * over HTTP keeping month ends, and a downgrade applied at the renewal.
 */
import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useServer, db, type Workspace } from '../../helpers/server.ts';
import { clockedSender } from '../../helpers/clocked.ts';
import { planBody, postPlan } from '../../helpers/plans.ts';
import { clock } from '../../../src/core/clock.ts';
import { canMove } from '../../../src/core/state-machine.ts';
import { processDue } from '../../../src/modules/subscriptions/renewals.ts';
import { subscriptionMachine, type SubscriptionStatus } from '../../../src/modules/subscriptions/states.ts';

const server = useServer();
const send = clockedSender(server);
const key = () => ({ 'idempotency-key': randomUUID() });
const DAY = 86_400_000;

async function setup(ws: Workspace, extra: Record<string, unknown> = {}) {
  const plan = await postPlan(
    ws,
    planBody({ prices: [{ currency: 'IDR', model: 'flat', unitAmount: 100000 }], ...extra }),
  );
  expect(plan.status).toBe(201);
  const cus = (await ws.client.post('/v1/customers', { name: 'Sari' })).json.data.id as string;
  return { cus, priceId: plan.json.data.prices[0].id as string };
}
const scopeOf = (ws: Workspace) => ({ workspaceId: ws.workspaceId, mode: 'test' as const });
const get = async (ws: Workspace, id: string) => (await ws.client.get(`/v1/subscriptions/${id}`)).json.data;

/** A subscription in `status`, reached through the API (past_due: a declined upgrade charge). */
async function inStatus(ws: Workspace, status: SubscriptionStatus) {
  const { cus, priceId } = await setup(ws, status === 'trialing' ? { trialDays: 7 } : {});
  const method = status === 'incomplete' ? 'pm_test_decline' : 'pm_test_success';
  const sub = (await ws.client.post('/v1/subscriptions', { customerId: cus, priceId, paymentMethod: method }, key()))
    .json.data;
  const id = sub.id as string;
  if (status === 'paused') await ws.client.post(`/v1/subscriptions/${id}/pause`, {}, key());
  if (status === 'canceled') await ws.client.post(`/v1/subscriptions/${id}/cancel`, {}, key());
  if (status === 'past_due') {
    await ws.client.patch(`/v1/subscriptions/${id}`, { paymentMethod: 'pm_test_decline' });
    await ws.client.patch(`/v1/subscriptions/${id}`, { quantity: 2 });
  }
  expect((await get(ws, id)).status).toBe(status);
  return id;
}

describe('the state table, walked over HTTP', () => {
  const api = [
    ['pause', (ws: Workspace, id: string) => ws.client.post(`/v1/subscriptions/${id}/pause`, {}, key())],
    ['resume', (ws: Workspace, id: string) => ws.client.post(`/v1/subscriptions/${id}/resume`, {}, key())],
    ['cancel', (ws: Workspace, id: string) => ws.client.post(`/v1/subscriptions/${id}/cancel`, {}, key())],
  ] as const;
  const statuses: SubscriptionStatus[] = ['trialing', 'active', 'incomplete', 'past_due', 'paused', 'canceled'];
  it.each(statuses)('from %s every trigger answers as the table says', async (status) => {
    const ws = await server.workspace();
    for (const [trigger, call] of api) {
      const id = await inStatus(ws, status);
      const res = await call(ws, id);
      const allowed = canMove(subscriptionMachine, status, trigger);
      expect({ trigger, status: res.status }).toEqual({ trigger, status: allowed ? 200 : 409 });
      if (allowed) expect(res.json.data.status).toBe(subscriptionMachine.moves[trigger].to);
      else expect(res.json.error.code).toBe('conflict');
    }
    // PATCH and cancel-at-period-end are refused only once canceled.
    const id = await inStatus(ws, status);
    const patch = await ws.client.patch(`/v1/subscriptions/${id}`, { metadata: { k: 'v' } });
    expect(patch.status).toBe(status === 'canceled' ? 409 : 200);
    const atEnd = await ws.client.post(`/v1/subscriptions/${id}/cancel`, { atPeriodEnd: true }, key());
    expect(atEnd.status).toBe(status === 'canceled' ? 409 : 200);
  });
});

describe('through time (processDue)', () => {
  it('trial end: the first paid period starts at trialEnd and is charged -> active', async () => {
    const ws = await server.workspace();
    const { cus, priceId } = await setup(ws, { trialDays: 14 });
    const sub = (
      await ws.client.post('/v1/subscriptions', { customerId: cus, priceId, paymentMethod: 'pm_test_success' }, key())
    ).json.data;
    expect(sub.status).toBe('trialing');
    const trialEnd = new Date(sub.trialEnd);
    expect(
      (await processDue({ scope: scopeOf(ws), at: new Date(trialEnd.getTime() - 1000), testClockId: null })).renewed,
    ).toBe(0);
    await processDue({ scope: scopeOf(ws), at: trialEnd, testClockId: null });
    const after = await get(ws, sub.id);
    expect(after).toMatchObject({ status: 'active', currentPeriodStart: sub.trialEnd });
    expect(new Date(after.currentPeriodEnd).getTime()).toBeGreaterThan(trialEnd.getTime() + 27 * DAY);
    const inv = (await ws.client.get(`/v1/invoices/${after.latestInvoiceId}`)).json.data;
    expect(inv).toMatchObject({ status: 'paid', total: 100000 });
  });

  it('trial end with a declining method: past_due, the invoice past_due; paying it reactivates', async () => {
    const ws = await server.workspace();
    const { cus, priceId } = await setup(ws, { trialDays: 3 });
    const sub = (
      await ws.client.post('/v1/subscriptions', { customerId: cus, priceId, paymentMethod: 'pm_test_decline' }, key())
    ).json.data;
    await processDue({ scope: scopeOf(ws), at: new Date(sub.trialEnd), testClockId: null });
    const after = await get(ws, sub.id);
    expect(after.status).toBe('past_due');
    const inv = (await ws.client.get(`/v1/invoices/${after.latestInvoiceId}`)).json.data;
    expect(inv.status).toBe('past_due');
    expect((await ws.client.post(`/v1/invoices/${inv.id}/pay`, {}, key())).status).toBe(201);
    expect((await get(ws, sub.id)).status).toBe('active');
  });

  it('created on Jan 31: periods end Feb 28, Mar 31, Apr 30; a downgrade applies at the renewal', async () => {
    const ws = await server.workspace();
    const { cus, priceId } = await setup(ws);
    const now = clock.now();
    const jan31 = new Date(Date.UTC(now.getUTCFullYear() + 1, 0, 31, 9, 0, 0));
    const shift = jan31.getTime() - now.getTime();
    clock.advance(shift);
    let sub: any;
    try {
      const res = await send(
        ws,
        'POST',
        '/v1/subscriptions',
        {
          customerId: cus,
          priceId,
          quantity: 3,
          paymentMethod: 'pm_test_success',
        },
        key(),
      );
      sub = res.json.data;
      expect(res.status).toBe(201);
      expect((await send(ws, 'PATCH', `/v1/subscriptions/${sub.id}`, { quantity: 1 })).json.data).toMatchObject({
        quantity: 3,
        pendingQuantity: 1,
      });
    } finally {
      clock.advance(-shift);
    }
    const y = jan31.getUTCFullYear();
    const ends: string[] = [];
    for (let i = 0; i < 3; i++) {
      const row = await get(ws, sub.id);
      ends.push(row.currentPeriodEnd.slice(0, 10));
      await processDue({ scope: scopeOf(ws), at: new Date(row.currentPeriodEnd), testClockId: null });
    }
    expect(ends).toEqual(
      [`${y}-02-28`, `${y}-03-31`, `${y}-04-30`].map((d) => (y % 4 === 0 ? d.replace('02-28', '02-29') : d)),
    );
    const after = await get(ws, sub.id);
    expect(after).toMatchObject({ quantity: 1, pendingQuantity: null, status: 'active' });
    const invoices = (await ws.client.get(`/v1/invoices?subscriptionId=${sub.id}&order=asc`)).json.data;
    expect(invoices.map((i: any) => i.total)).toEqual([300000, 100000, 100000, 100000]);
    expect(invoices.every((i: any) => i.status === 'paid')).toBe(true);
  });
});

describe('incomplete expiry (expiry.ts, through processDue)', () => {
  it('an unpaid first invoice a day old: canceled, the invoice voided; a paid one never expires', async () => {
    const ws = await server.workspace();
    const { cus, priceId } = await setup(ws);
    const create = async () =>
      (await ws.client.post('/v1/subscriptions', { customerId: cus, priceId, paymentMethod: 'pm_test_decline' }, key()))
        .json.data;
    const unpaid = await create();
    const paid = await create();
    expect((await ws.client.post(`/v1/invoices/${paid.latestInvoiceId}/pay`, {}, key())).status).toBe(201);
    const due = new Date((await ws.client.get(`/v1/invoices/${unpaid.latestInvoiceId}`)).json.data.dueAt);
    expect(due.getTime() - new Date(unpaid.createdAt).getTime()).toBe(DAY);
    await processDue({ scope: scopeOf(ws), at: new Date(due.getTime() - 1000), testClockId: null });
    expect((await get(ws, unpaid.id)).status).toBe('incomplete');
    await processDue({ scope: scopeOf(ws), at: due, testClockId: null });
    const expired = await get(ws, unpaid.id);
    expect(expired.status).toBe('canceled');
    expect(expired.canceledAt).toBe(due.toISOString());
    expect((await ws.client.get(`/v1/invoices/${unpaid.latestInvoiceId}`)).json.data.status).toBe('void');
    const events = (await ws.client.get(`/v1/events?objectId=${unpaid.id}&order=asc`)).json.data.map(
      (e: any) => e.type,
    );
    expect(events).toEqual(['subscription.created', 'subscription.cancelled']);
    expect((await get(ws, paid.id)).status).toBe('active');
    // Again: nothing more.
    await processDue({ scope: scopeOf(ws), at: new Date(due.getTime() + DAY), testClockId: null });
    expect((await get(ws, paid.id)).status).toBe('active');
  });
});

describe('workspace archive', () => {
  it('sets cancelAtPeriodEnd on every live subscription (updated event each); canceled untouched', async () => {
    const ws = await server.workspace();
    const { cus, priceId } = await setup(ws);
    const make = async (body: Record<string, unknown> = {}) =>
      (await ws.client.post('/v1/subscriptions', { customerId: cus, priceId, ...body }, key())).json.data.id as string;
    const active = await make({ paymentMethod: 'pm_test_success' });
    const incomplete = await make();
    const canceled = await make();
    await ws.client.post(`/v1/subscriptions/${canceled}/cancel`, {}, key());
    const before = await get(ws, canceled);
    expect((await ws.client.delete(`/v1/workspaces/${ws.workspaceId}`)).status).toBe(204);
    const rows = await db().system.query(
      `SELECT id, status, "cancelAtPeriodEnd" FROM subscriptions WHERE "workspaceId" = $1 ORDER BY id`,
      [ws.workspaceId],
    );
    const byId = Object.fromEntries(rows.rows.map((r: any) => [r.id, r]));
    expect(byId[active]).toMatchObject({ status: 'active', cancelAtPeriodEnd: true });
    expect(byId[incomplete]).toMatchObject({ status: 'incomplete', cancelAtPeriodEnd: true });
    expect(byId[canceled]).toMatchObject({ status: 'canceled', cancelAtPeriodEnd: before.cancelAtPeriodEnd });
    const events = await db().system.query(
      `SELECT data FROM events WHERE "objectId" = $1 AND type = 'subscription.updated' ORDER BY sequence DESC LIMIT 1`,
      [active],
    );
    expect(events.rows[0].data.previousAttributes).toEqual({ cancelAtPeriodEnd: false });
  });
});
