/**
 * Amounts past 2^53 are exact or refused, never a 500 and never rounded.
 * A line's unitAmount x quantity on the hosted page, and sums (ledger balances) in the Money scalar.
 */
import { describe, expect, it } from 'vitest';
import { useServer, db } from '../helpers/server.ts';
import { hostedToken, sandboxPayment, unthrottled } from '../helpers/payments.ts';
import { newId } from '../../src/core/ids.ts';
import { clock } from '../../src/core/clock.ts';
import { customer, plan, seedSubscription } from '../helpers/renewals.ts';
import { planBody, postPlan } from '../helpers/plans.ts';
import { priceQuantity, productAmount } from '../../src/modules/plans/pricing.ts';

const server = useServer();
const MAX = Number.MAX_SAFE_INTEGER; // 9007199254740991
const DAY = 86_400_000;

describe('amounts past 2^53', () => {
  it('a line whose unitAmount x quantity passes 2^53 - 1 is refused at creation: 400 naming the line', async () => {
    const ws = await server.workspace();
    const base = {
      amount: 1000,
      currency: 'IDR',
      methods: ['qris'],
      successUrl: 'https://shop.example/ok',
      cancelUrl: 'https://shop.example/cart',
    };
    const over = await ws.client.post(
      '/v1/checkout-sessions',
      {
        ...base,
        lineItems: [
          { name: 'Ok', quantity: 1, unitAmount: 5 },
          { name: 'Big', quantity: 2, unitAmount: MAX },
        ],
      },
      { 'idempotency-key': newId('request') },
    );
    expect(over.status, over.text).toBe(400);
    expect(over.json.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'lineItems[1].quantity' });
    const edge = await ws.client.post(
      '/v1/checkout-sessions',
      { ...base, lineItems: [{ name: 'Edge', quantity: 1, unitAmount: MAX }] },
      { 'idempotency-key': newId('request') },
    );
    expect(edge.status, edge.text).toBe(201);
  });

  it('the hosted page shows a stored line of unitAmount x quantity > 2^53 exactly (a session from before the rule)', async () => {
    const ws = await server.workspace();
    const s = await ws.client.post(
      '/v1/checkout-sessions',
      {
        amount: 1000,
        currency: 'IDR',
        methods: ['qris'],
        successUrl: 'https://shop.example/ok',
        cancelUrl: 'https://shop.example/cart',
      },
      { 'idempotency-key': newId('request') },
    );
    expect(s.status, s.text).toBe(201);
    const lines = [
      { name: 'Many', quantity: 2 ** 31 - 1, unitAmount: MAX },
      { name: 'Big', quantity: 3, unitAmount: MAX },
    ];
    await db().system.query(`UPDATE checkout_sessions SET "lineItems" = $2 WHERE id = $1`, [
      s.json.data.id,
      JSON.stringify(lines),
    ]);
    const res = await fetch(`${server.url}/c/${await hostedToken(s.json.data.id)}`);
    const html = await res.text();
    expect(res.status, html).toBe(200);
    // (2^31 - 1) x (2^53 - 1) and 3 x (2^53 - 1), in id-ID grouping: exact, not rounded.
    expect(html).toContain('Rp 19.342.813.104.826.865.393.074.177');
    expect(html).toContain('Rp 27.021.597.764.222.973');
  });

  it('ledger balances summing past 2^53 serialize exactly over REST and GraphQL', async () => {
    const ws = await server.workspace();
    await unthrottled(async () => {
      for (let i = 0; i < 3; i++) await sandboxPayment(server, ws, { amount: MAX, method: 'qris' });
    });
    const rest = await ws.client.get('/v1/ledger/balances');
    expect(rest.status, rest.text).toBe(200);
    const gql = await ws.client.post('/graphql', {
      query: '{ ledgerBalances { code currency debits credits balance } }',
    });
    expect(gql.status, gql.text).toBe(200);
    for (const text of [rest.text, gql.text]) {
      expect(text).not.toMatch(/internal_error|INTERNAL/);
      // Three captures of 2^53 - 1: the sums are exact JSON integers, never rounded floats.
      expect(text).toMatch(/\b27021597764222973\b/);
      expect(text).not.toMatch(/2702159776422297[0-24-9]\b|e\+/);
    }
  });

  it('a usage price of unitAmount 2^53 - 1 takes usage 1 but not a second unit: 400 on the usage record', async () => {
    const ws = await server.workspace();
    const usage = await plan(ws, {
      usageAggregate: 'sum',
      prices: [{ currency: 'IDR', model: 'usage', unitAmount: MAX }],
    });
    const anchorAt = new Date(clock.now().getTime() - 10 * DAY);
    const sub = await seedSubscription(ws, { customerId: await customer(ws), ...usage, anchorAt });
    const report = (quantity: number) =>
      ws.client.post(`/v1/subscriptions/${sub}/usage`, { quantity }, { 'idempotency-key': newId('request') });
    // 2 at once, then 1 and 1 more: the period's sum x unitAmount would pass 2^53 - 1.
    const two = await report(2);
    expect([two.status, two.json.error?.code, two.json.error?.field], two.text).toEqual([
      400,
      'validation_error',
      'quantity',
    ]);
    expect((await report(1)).status).toBe(201);
    const more = await report(1);
    expect([more.status, more.json.error?.field], more.text).toEqual([400, 'quantity']);
    const { rows } = await db().system.query('SELECT quantity FROM usage_records WHERE "subscriptionId" = $1', [sub]);
    expect(rows).toEqual([{ quantity: 1 }]);
    // Zero more is still fine.
    expect((await report(0)).status).toBe(201);
  });

  it('race: 20 usage records at once against room for 10 units: exactly 10 are accepted', async () => {
    const ws = await server.workspace();
    const unit = Math.floor(MAX / 10);
    const usage = await plan(ws, {
      usageAggregate: 'sum',
      prices: [{ currency: 'IDR', model: 'usage', unitAmount: unit }],
    });
    const anchorAt = new Date(clock.now().getTime() - 10 * DAY);
    const sub = await seedSubscription(ws, { customerId: await customer(ws), ...usage, anchorAt });
    const statuses = await unthrottled(() =>
      Promise.all(
        Array.from({ length: 20 }, async () => {
          const res = await ws.client.post(
            `/v1/subscriptions/${sub}/usage`,
            { quantity: 1 },
            { 'idempotency-key': newId('request') },
          );
          return res.status;
        }),
      ),
    );
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 400)).toHaveLength(10);
    const { rows } = await db().system.query(
      'SELECT sum(quantity)::int AS n FROM usage_records WHERE "subscriptionId" = $1',
      [sub],
    );
    expect(rows[0].n).toBe(10);
  });

  it('a tiered or volume price whose tiers would price past 2^53 - 1 is refused at creation, naming the tier', async () => {
    const ws = await server.workspace();
    const tiers = [
      { upTo: 10, unitAmount: 1 },
      { upTo: 20, unitAmount: Math.floor(MAX / 10) },
      { upTo: 'inf', unitAmount: 1 },
    ];
    for (const model of ['tiered', 'volume']) {
      const over = await postPlan(ws, planBody({ prices: [{ currency: 'IDR', model, tiers }] }));
      expect([over.status, over.json.error?.field], over.text).toEqual([400, 'prices[0].tiers[1].unitAmount']);
    }
    // The same tiers up to 10 units fit: accepted (volume's tier 1 at 10 units is exactly under the limit).
    const fits = [
      { upTo: 10, unitAmount: Math.floor(MAX / 20) },
      { upTo: 'inf', unitAmount: Math.floor(MAX / 11) },
    ];
    for (const model of ['tiered', 'volume']) {
      const ok = await postPlan(ws, planBody({ prices: [{ currency: 'IDR', model, tiers: fits }] }));
      expect(ok.status, ok.text).toBe(201);
    }
  });

  it('pricing multiplies in BigInt: a product past 2^53 - 1 is refused, never rounded', () => {
    expect(productAmount(1, MAX)).toBe(MAX);
    expect(productAmount(2, MAX)).toBeNull();
    // 3 x 3002399751580331 = 2^53 + 1: one past the limit.
    expect(productAmount(3, 3_002_399_751_580_331)).toBeNull();
    expect(() => priceQuantity({ model: 'usage', unitAmount: MAX, tiers: null }, 2)).toThrow(RangeError);
  });
});
