/**
 * A subscription whose one period would bill past 2^53 - 1 minor units is refused when it is created or
 * changed (docs/billing.md, Plans and prices), trialing or not, over REST and GraphQL: 400 validation_error
 * naming `quantity` (when sent, and one unit fits) or `priceId`. Before, create answered 500 and a trial was
 * accepted, then its renewal failed for ever.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { planBody, postPlan } from '../../helpers/plans.ts';
import { db, useServer, type Workspace } from '../../helpers/server.ts';
import { periodTotal } from '../../../src/modules/plans/pricing.ts';

const server = useServer();
const MAX = Number.MAX_SAFE_INTEGER; // 9007199254740991
const TENTH = Math.floor(MAX / 10);
const key = () => ({ 'idempotency-key': randomUUID() });

async function priceOf(ws: Workspace, price: Record<string, unknown>) {
  const res = await postPlan(ws, planBody({ prices: [{ currency: 'IDR', ...price }] }));
  expect(res.status, res.text).toBe(201);
  return res.json.data.prices[0].id as string;
}
async function customerOf(ws: Workspace) {
  return (await ws.client.post('/v1/customers', { name: 'Budi', email: 'budi@example.com' })).json.data.id as string;
}
const subscribe = (ws: Workspace, body: Record<string, unknown>) => ws.client.post('/v1/subscriptions', body, key());
const refused = (res: { status: number; json: any; text: string }) => [
  res.status,
  res.json?.error?.code,
  res.json?.error?.field,
];
const count = async (ws: Workspace) =>
  (await db().system.query('SELECT count(*)::int AS n FROM subscriptions WHERE "workspaceId" = $1', [ws.workspaceId]))
    .rows[0].n;

describe('a period past 2^53 - 1', () => {
  it('create with a quantity whose period overflows: 400 naming quantity, trialing or not, REST and GraphQL', async () => {
    const ws = await server.workspace();
    const customerId = await customerOf(ws);
    const priceId = await priceOf(ws, { model: 'flat', unitAmount: TENTH });
    const over = { customerId, priceId, quantity: 11, paymentMethod: 'pm_test_success' };
    expect(refused(await subscribe(ws, over))).toEqual([400, 'validation_error', 'quantity']);
    // In a trial nothing is billed now, but the first renewal would be: refused the same.
    expect(refused(await subscribe(ws, { ...over, trialDays: 14 }))).toEqual([400, 'validation_error', 'quantity']);
    const gql = await ws.client.graphql(
      'mutation($input: CreateSubscriptionInput!) { createSubscription(input: $input) { id } }',
      { input: { ...over, trialDays: 14 } },
      key(),
    );
    expect(gql.json.errors?.[0]?.extensions, gql.text).toMatchObject({ code: 'validation_error', field: 'quantity' });
    expect(await count(ws)).toBe(0);
    // Ten units are exactly an amount: accepted.
    const fits = await subscribe(ws, { ...over, quantity: 10, trialDays: 14 });
    expect(fits.status, fits.text).toBe(201);
  });

  it('a tiered price whose last tier overflows with the quantity: 400 naming quantity; within it: 201', async () => {
    const ws = await server.workspace();
    const customerId = await customerOf(ws);
    const tiers = [
      { upTo: 10, unitAmount: 1 },
      { upTo: 'inf', unitAmount: Math.floor(MAX / 100) },
    ];
    for (const model of ['tiered', 'volume']) {
      const priceId = await priceOf(ws, { model, tiers });
      const res = await subscribe(ws, { customerId, priceId, quantity: 200, trialDays: 7 });
      expect(refused(res), res.text).toEqual([400, 'validation_error', 'quantity']);
      expect((await subscribe(ws, { customerId, priceId, quantity: 50, trialDays: 7 })).status).toBe(201);
    }
  });

  it('a price that alone, with the tax at the workspace rate, passes 2^53 - 1: 400 naming priceId', async () => {
    const ws = await server.workspace();
    const customerId = await customerOf(ws);
    const priceId = await priceOf(ws, { model: 'flat', unitAmount: MAX });
    // Without tax, one unit of 2^53 - 1 is an amount; two are not (the quantity is to blame).
    expect((await subscribe(ws, { customerId, priceId, trialDays: 7 })).status).toBe(201);
    const two = await subscribe(ws, { customerId, priceId, quantity: 2, trialDays: 7 });
    expect(refused(two)).toEqual([400, 'validation_error', 'quantity']);
    // Tax on: the invoice adds 11% to 2^53 - 1, which no invoice can hold.
    const template = await ws.client.post('/v1/templates', {
      kind: 'invoice',
      name: 'Tax',
      showTax: true,
      isDefault: true,
    });
    expect(template.status, template.text).toBe(201);
    const taxed = await subscribe(ws, { customerId, priceId, trialDays: 7 });
    expect(refused(taxed), taxed.text).toEqual([400, 'validation_error', 'priceId']);
    const usage = await postPlan(
      ws,
      planBody({ usageAggregate: 'sum', prices: [{ currency: 'IDR', model: 'usage', unitAmount: MAX }] }),
    );
    const metered = await subscribe(ws, { customerId, priceId: usage.json.data.prices[0].id });
    expect(refused(metered), metered.text).toEqual([400, 'validation_error', 'priceId']);
  });

  it('PATCH: a quantity or a price whose period overflows is 400 (now and at the period end); nothing changes', async () => {
    const ws = await server.workspace();
    const customerId = await customerOf(ws);
    const priceId = await priceOf(ws, { model: 'flat', unitAmount: TENTH });
    const half = await priceOf(ws, { model: 'flat', unitAmount: Math.floor(MAX / 2) });
    const trial = (await subscribe(ws, { customerId, priceId, quantity: 3, trialDays: 14 })).json.data;
    const active = await subscribe(ws, { customerId, priceId, quantity: 3, paymentMethod: 'pm_test_success' });
    expect(active.json.data?.status, active.text).toBe('active');
    for (const sub of [trial, active.json.data]) {
      const patch = (body: Record<string, unknown>) => ws.client.patch(`/v1/subscriptions/${sub.id}`, body, key());
      expect(refused(await patch({ quantity: 11 }))).toEqual([400, 'validation_error', 'quantity']);
      expect(refused(await patch({ quantity: 11, applyAt: 'period_end' }))).toEqual([
        400,
        'validation_error',
        'quantity',
      ]);
      // Half of 2^53 - 1 fits once, not three times: the price is what changed.
      const price = await patch({ priceId: half });
      expect(refused(price), price.text).toEqual([400, 'validation_error', 'priceId']);
      const gql = await ws.client.graphql(
        'mutation($id: ID!, $input: UpdateSubscriptionInput!) { updateSubscription(id: $id, input: $input) { id } }',
        { id: sub.id, input: { quantity: 11 } },
        key(),
      );
      expect(gql.json.errors?.[0]?.extensions, gql.text).toMatchObject({ code: 'validation_error', field: 'quantity' });
      const row = (await ws.client.get(`/v1/subscriptions/${sub.id}`)).json.data;
      expect([row.priceId, row.quantity, row.pendingQuantity ?? null]).toEqual([priceId, 3, null]);
      expect((await patch({ quantity: 10, applyAt: 'period_end' })).status).toBe(200);
    }
  });

  it('periodTotal adds an exclusive price its tax in BigInt: exact at the limit, null one past it', () => {
    const flat = (unitAmount: number, taxMode: 'inclusive' | 'exclusive') =>
      ({ model: 'flat', unitAmount, tiers: null, taxMode }) as const;
    expect(periodTotal(flat(MAX, 'exclusive'), 1, '0')).toBe(MAX);
    expect(periodTotal(flat(MAX, 'inclusive'), 1, '0.11')).toBe(MAX);
    expect(periodTotal(flat(MAX, 'exclusive'), 1, '0.11')).toBeNull();
    expect(periodTotal(flat(MAX, 'exclusive'), 2, '0')).toBeNull();
    // 100 x 1.11 = 111: the largest amount whose tax still fits, and one more unit past it.
    const unit = Math.floor(MAX / 111);
    expect(periodTotal(flat(unit, 'exclusive'), 100, '0.11')).toBe(unit * 111);
    expect(periodTotal(flat(unit + 1, 'exclusive'), 100, '0.11')).toBeNull();
  });
});
