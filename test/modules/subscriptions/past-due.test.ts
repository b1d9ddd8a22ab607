/**
 * The past-due rules (src/modules/subscriptions/past-due.ts): paying one invoice of a past-due
 * subscription leaves it past due while another invoice is unpaid, and its price or quantity cannot
 * change until then, over the API (409 subscription_past_due) and in the portal.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../../src/core/config.ts';
import { processDue } from '../../../src/modules/subscriptions/renewals.ts';
import { customer, invoicesOf, plan, scopeOf, seedSubscription, subscriptionRow } from '../../helpers/renewals.ts';
import { useServer } from '../../helpers/server.ts';

const server = useServer();
const previousBase = config.hostedBaseUrl;
beforeAll(() => {
  config.hostedBaseUrl = server.url;
});
afterAll(() => {
  config.hostedBaseUrl = previousBase;
});
const utc = (s: string) => new Date(`${s}T10:00:00.000Z`);
const usd = (unitAmount: number) => ({ prices: [{ currency: 'USD', model: 'flat', unitAmount }] });

describe('a past-due subscription', () => {
  it('stays past_due after a $1 invoice is paid, refuses plan changes, and is active once the $100 one is paid', async () => {
    const ws = await server.workspace();
    const basic = await plan(ws, { name: 'Basic', ...usd(100_00) });
    const better = await plan(ws, { name: 'Better', ...usd(101_00) });
    const cus = await customer(ws);
    const sub = await seedSubscription(ws, {
      customerId: cus,
      ...basic,
      currency: 'USD',
      anchorAt: utc('2026-01-10'),
      paymentMethod: 'pm_test_decline',
    });
    // The $100 renewal is declined.
    await processDue({ scope: scopeOf(ws), at: utc('2026-02-10'), testClockId: null });
    const [renewal] = await invoicesOf(sub);
    expect(renewal).toMatchObject({ status: 'past_due', total: '10000' });
    expect((await subscriptionRow(sub)).status).toBe('past_due');

    // A $1 invoice of the same subscription, paid: the $100 one is still unpaid.
    const small = await ws.client.post('/v1/invoices', {
      customerId: cus,
      subscriptionId: sub,
      currency: 'USD',
      status: 'open',
      lines: [{ description: 'Setup', quantity: 1, unitAmount: 1_00 }],
    });
    expect(small.status, JSON.stringify(small.json)).toBe(201);
    const paySmall = await ws.client.post(
      `/v1/invoices/${small.json.data.id}/pay`,
      {},
      { 'idempotency-key': randomUUID() },
    );
    expect(paySmall.status, JSON.stringify(paySmall.json)).toBe(201);
    expect(paySmall.json.data.status).toBe('paid');
    expect((await subscriptionRow(sub)).status).toBe('past_due');

    // Plan and quantity changes wait for the open invoice, over the API; other fields do not.
    for (const body of [{ priceId: better.priceId }, { quantity: 2 }]) {
      const res = await ws.client.patch(`/v1/subscriptions/${sub}`, body);
      expect({ status: res.status, code: res.json.error?.code }).toEqual({
        status: 409,
        code: 'subscription_past_due',
      });
    }
    const gql = await ws.client.graphql(
      `mutation($id: ID!, $input: UpdateSubscriptionInput!) { updateSubscription(id: $id, input: $input) { id } }`,
      { id: sub, input: { priceId: better.priceId } },
    );
    expect(gql.json.errors?.[0]?.extensions?.code).toBe('subscription_past_due');
    const fix = await ws.client.patch(`/v1/subscriptions/${sub}`, { paymentMethod: 'pm_test_success' });
    expect(fix.status, JSON.stringify(fix.json)).toBe(200);

    // And in the portal: no change offered, and a change asked for anyway is the same 409.
    const ps = (await ws.client.post('/v1/portal-sessions', { customerId: cus, returnUrl: 'https://shop.example' }))
      .json.data;
    const url = new URL(ps.url);
    const portal = (path: string, body?: unknown) =>
      fetch(`${server.url}${url.pathname}/api${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: {
          'x-portal-token': url.hash.slice('#t='.length),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, json: await r.json() }));
    const actionsOf = async () =>
      (await portal('/state')).json.data.subscriptions.find((s: { id: string }) => s.id === sub).actions;
    expect(await actionsOf()).toMatchObject({ upgrade: false, downgrade: false });
    const change = await portal(`/subscriptions/${sub}/change`, { priceId: better.priceId });
    expect({ status: change.status, code: change.json.error?.code }).toEqual({
      status: 409,
      code: 'subscription_past_due',
    });
    expect((await subscriptionRow(sub)).priceId).toBe(basic.priceId);

    // Paying the $100 invoice activates it; the portal offers the change again.
    const pay = await ws.client.post(`/v1/invoices/${renewal.id}/pay`, {}, { 'idempotency-key': randomUUID() });
    expect(pay.status, JSON.stringify(pay.json)).toBe(201);
    expect((await subscriptionRow(sub)).status).toBe('active');
    expect(await actionsOf()).toMatchObject({ upgrade: true, downgrade: true });
  });
});
