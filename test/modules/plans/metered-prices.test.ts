import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useServer, type Workspace } from '../../helpers/server.ts';
import { planBody, postPlan } from '../../helpers/plans.ts';
import { billableQuantity } from '../../../src/modules/plans/metered.ts';

const server = useServer();
const key = () => ({ 'idempotency-key': randomUUID() });

async function meter(ws: Workspace, k: string, aggregation = 'sum') {
  const body = {
    key: k,
    name: k,
    eventName: `ev.${k}`,
    aggregation,
    valueProperty: aggregation === 'count' ? null : 'n',
  };
  const res = await ws.client.post('/v1/meters', body, key());
  if (res.status !== 201) throw new Error(JSON.stringify(res.json));
  return res.json.data.id as string;
}

const flat = { currency: 'IDR', model: 'flat', unitAmount: 150000 };
const tiers = [
  { upTo: 100, unitAmount: 10 },
  { upTo: 'inf', unitAmount: 5 },
];

function expect400(res: { status: number; json: any }, field: string) {
  expect([res.status, res.json.error?.code, res.json.error?.field]).toEqual([400, 'VALIDATION_ERROR', field]);
}

describe('metered prices', () => {
  it('usage, tiered and volume prices take meterId with divideBy and quantityRounding defaults', async () => {
    const ws = await server.workspace();
    const [a, b, c] = [await meter(ws, 'calls', 'count'), await meter(ws, 'tokens'), await meter(ws, 'gb', 'max')];
    const res = await postPlan(
      ws,
      planBody({
        prices: [
          flat,
          { currency: 'IDR', model: 'usage', unitAmount: 3, meterId: a },
          { currency: 'IDR', model: 'tiered', tiers, meterId: b, divideBy: 1000, quantityRounding: 'up' },
          { currency: 'IDR', model: 'volume', tiers, meterId: c, quantityRounding: 'down' },
        ],
      }),
    );
    expect(res.status).toBe(201);
    const prices = res.json.data.prices;
    expect(prices.map((p: any) => [p.meterId, p.divideBy, p.quantityRounding])).toEqual([
      [null, null, null],
      [a, 1, 'half_up'],
      [b, 1000, 'up'],
      [c, 1, 'down'],
    ]);
    // A plan without usageAggregate takes a metered usage price; GraphQL shows the same fields.
    const gql = await ws.client.graphql(`{ plan(id: "${res.json.data.id}") { prices { meterId divideBy } } }`);
    expect(gql.json.data.plan.prices[2]).toEqual({ meterId: b, divideBy: 1000 });
  });

  it('refuses a flat price with a meter, an unknown, malformed or archived meter, and metered fields without one', async () => {
    const ws = await server.workspace();
    const m = await meter(ws, 'calls', 'count');
    const usage = (extra: Record<string, unknown>) => ({ currency: 'IDR', model: 'usage', unitAmount: 3, ...extra });
    const refuse = async (price: Record<string, unknown>, field: string) =>
      expect400(await postPlan(ws, planBody({ prices: [flat, price] })), field);
    await refuse({ ...flat, currency: 'USD', meterId: m }, 'prices[1].meterId');
    await refuse(usage({ meterId: 'mtr_01HZZZZZZZZZZZZZZZZZZZZZZZ' }), 'prices[1].meterId');
    await refuse(usage({ meterId: 'nope' }), 'prices[1].meterId');
    await refuse(usage({ meterId: m, divideBy: 0 }), 'prices[1].divideBy');
    await refuse(usage({ meterId: m, divideBy: 1_000_000_001 }), 'prices[1].divideBy');
    await refuse(usage({ meterId: m, divideBy: 1.5 }), 'prices[1].divideBy');
    await refuse(usage({ meterId: m, quantityRounding: 'nearest' }), 'prices[1].quantityRounding');
    await refuse({ ...flat, currency: 'USD', divideBy: 2 }, 'prices[1].divideBy');
    await refuse({ ...flat, currency: 'USD', quantityRounding: 'up' }, 'prices[1].quantityRounding');
    // A usage price without a meter still needs the plan's usageAggregate.
    expect400(await postPlan(ws, planBody({ prices: [usage({})] })), 'usageAggregate');
    // Another workspace's meter is unknown here.
    const other = await server.workspace();
    const theirs = await meter(other, 'calls', 'count');
    await refuse(usage({ meterId: theirs }), 'prices[1].meterId');
    // Archived meters take no new prices, on create and on add price.
    expect((await ws.client.post(`/v1/meters/${m}/archive`, undefined, key())).status).toBe(200);
    await refuse(usage({ meterId: m }), 'prices[1].meterId');
    const p = (await postPlan(ws, planBody())).json.data;
    expect400(await ws.client.post(`/v1/plans/${p.id}/prices`, usage({ meterId: m }), key()), 'meterId');
  });

  it('one active price per (currency, model, meter): a second on the same meter is refused; distinct meters coexist', async () => {
    const ws = await server.workspace();
    const [a, b] = [await meter(ws, 'a', 'count'), await meter(ws, 'b', 'count')];
    const usage = (meterId: string, unitAmount = 3) => ({ currency: 'IDR', model: 'usage', unitAmount, meterId });
    expect400(await postPlan(ws, planBody({ prices: [flat, usage(a), usage(a, 4)] })), 'prices[2]');
    const p = (await postPlan(ws, planBody({ prices: [flat, usage(a), usage(b)] }))).json.data;
    expect(p.prices.every((x: any) => x.active)).toBe(true);
    // A new version on meter a retires the active one on a only.
    const added = await ws.client.post(`/v1/plans/${p.id}/prices`, usage(a, 5), key());
    expect(added.status).toBe(201);
    const after = (await ws.client.get(`/v1/plans/${p.id}`)).json.data.prices;
    expect(after.map((x: any) => [x.meterId, x.unitAmount, x.active])).toEqual([
      [null, 150000, true],
      [a, 3, false],
      [b, 3, true],
      [a, 5, true],
    ]);
  });

  it('billable quantity: max(0, round(value / divideBy)) in exact decimals', () => {
    expect(billableQuantity('2.5', 1, 'half_up')).toBe(3);
    expect(billableQuantity('2.499999999999', 1, 'half_up')).toBe(2);
    expect(billableQuantity('1500', 1000, 'half_up')).toBe(2);
    expect(billableQuantity('1499', 1000, 'half_up')).toBe(1);
    expect(billableQuantity('1001', 1000, 'up')).toBe(2);
    expect(billableQuantity('1999', 1000, 'down')).toBe(1);
    expect(billableQuantity('0.000000000001', 1, 'up')).toBe(1);
    expect(billableQuantity('-7', 1, 'up')).toBe(0);
    expect(billableQuantity('0', 3, 'half_up')).toBe(0);
    expect(billableQuantity('999999999999999', 1, 'down')).toBe(999999999999999);
  });
});
