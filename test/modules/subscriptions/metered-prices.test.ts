import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createClient, useServer, type Workspace } from '../../helpers/server.ts';
import { mintKey } from '../../helpers/keys.ts';
import { planBody, postPlan } from '../../helpers/plans.ts';
import { customer } from '../../helpers/renewals.ts';

const server = useServer();
const key = () => ({ 'idempotency-key': randomUUID() });

async function meter(ws: Workspace, k: string) {
  const body = { key: k, name: k, eventName: `ev.${k}`, aggregation: 'count' };
  return (await ws.client.post('/v1/meters', body, key())).json.data.id as string;
}

const flat = (currency = 'IDR') => ({ currency, model: 'flat', unitAmount: 150000 });
const usage = (meterId: string, currency = 'IDR') => ({ currency, model: 'usage', unitAmount: 3, meterId });

/** A plan: IDR flat, two IDR metered prices, one USD flat and one USD metered price. */
async function meteredPlan(ws: Workspace) {
  const tag = randomUUID().slice(0, 8);
  const [a, b] = [await meter(ws, `a_${tag}`), await meter(ws, `b_${tag}`)];
  const prices = [flat(), usage(a), usage(b), flat('USD'), usage(a, 'USD')];
  const res = await postPlan(ws, planBody({ prices }));
  if (res.status !== 201) throw new Error(JSON.stringify(res.json));
  return (res.json.data.prices as { id: string }[]).map((p) => p.id);
}

const subscribe = (ws: Workspace, body: Record<string, unknown>) => ws.client.post('/v1/subscriptions', body, key());

function expect400(res: { status: number; json: any }, field: string) {
  expect([res.status, res.json.error?.code, res.json.error?.field]).toEqual([400, 'validation_error', field]);
}

describe('subscriptions: meteredPriceIds', () => {
  it("defaults to every active metered price of the plan in priceId's currency, in price order", async () => {
    const ws = await server.workspace();
    const [base, a, b] = await meteredPlan(ws);
    const cus = await customer(ws);
    const res = await subscribe(ws, { customerId: cus, priceId: base, paymentMethod: 'pm_test_success' });
    expect(res.status).toBe(201);
    expect(res.json.data.meteredPriceIds).toEqual([a, b]);
    const got = await ws.client.get(`/v1/subscriptions/${res.json.data.id}`);
    expect(got.json.data.meteredPriceIds).toEqual([a, b]);
    const gql = await ws.client.graphql(`{ subscription(id: "${res.json.data.id}") { meteredPriceIds } }`);
    expect(gql.json.data.subscription.meteredPriceIds).toEqual([a, b]);
  });

  it('takes a subset (kept in price order), an empty list, and a metered priceId (arrears, active at once)', async () => {
    const ws = await server.workspace();
    const [base, a, b] = await meteredPlan(ws);
    const cus = await customer(ws);
    const some = await subscribe(ws, {
      customerId: cus,
      priceId: base,
      meteredPriceIds: [b],
      paymentMethod: 'pm_test_success',
    });
    expect(some.json.data.meteredPriceIds).toEqual([b]);
    const none = await subscribe(ws, {
      customerId: cus,
      priceId: base,
      meteredPriceIds: [],
      paymentMethod: 'pm_test_success',
    });
    expect(none.json.data.meteredPriceIds).toEqual([]);
    const metered = await subscribe(ws, { customerId: cus, priceId: a });
    expect(metered.status).toBe(201);
    expect(metered.json.data).toMatchObject({
      status: 'active',
      priceId: a,
      meteredPriceIds: [b],
      latestInvoiceId: null,
    });
  });

  it('refuses ids that are not such prices, repeats, and any PATCH of the list or of priceId to or from metered', async () => {
    const ws = await server.workspace();
    const [base, a, b, usdBase, usdMetered] = await meteredPlan(ws);
    const cus = await customer(ws);
    const body = { customerId: cus, priceId: base, paymentMethod: 'pm_test_success' };
    for (const ids of [[base], [usdMetered], [a, a], ['pr_nope'], [usdBase]])
      expect400(await subscribe(ws, { ...body, meteredPriceIds: ids }), 'meteredPriceIds');
    // Another plan's metered price is not one of this plan's.
    const [, theirs] = await meteredPlan(ws);
    expect400(await subscribe(ws, { ...body, meteredPriceIds: [theirs] }), 'meteredPriceIds');
    const sub = (await subscribe(ws, body)).json.data;
    expect(sub.status).toBe('active');
    expect400(await ws.client.patch(`/v1/subscriptions/${sub.id}`, { meteredPriceIds: [a] }, key()), 'meteredPriceIds');
    expect400(
      await ws.client.patch(`/v1/subscriptions/${sub.id}`, { meteredPriceIds: [a, b] }, key()),
      'meteredPriceIds',
    );
    expect400(await ws.client.patch(`/v1/subscriptions/${sub.id}`, { priceId: a }, key()), 'priceId');
    const metered = (await subscribe(ws, { customerId: cus, priceId: a })).json.data;
    expect400(await ws.client.patch(`/v1/subscriptions/${metered.id}`, { priceId: base }, key()), 'priceId');
    const unchanged = await ws.client.get(`/v1/subscriptions/${sub.id}`);
    expect(unchanged.json.data).toMatchObject({ priceId: base, meteredPriceIds: [a, b] });
  });
});

describe('subscriptions: metered prices in live mode', () => {
  it('are refused until renewals bill meters (priceId, or a non-empty meteredPriceIds); [] opts out', async () => {
    const ws = await server.workspace();
    const live = await mintKey(ws.workspaceId, 'live');
    const liveWs = { ...ws, client: createClient({ baseUrl: server.url, keyId: live.keyId, secret: live.secret }) };
    const [base, a] = await meteredPlan(liveWs);
    const cus = await customer(liveWs);
    expect400(await subscribe(liveWs, { customerId: cus, priceId: a }), 'priceId');
    expect400(await subscribe(liveWs, { customerId: cus, priceId: base }), 'meteredPriceIds');
    const optedOut = await subscribe(liveWs, { customerId: cus, priceId: base, meteredPriceIds: [] });
    expect(optedOut.json.error?.field).not.toBe('meteredPriceIds');
    expect(optedOut.json.error?.field).not.toBe('priceId');
  });
});
