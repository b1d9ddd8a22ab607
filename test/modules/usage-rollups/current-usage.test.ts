import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useServer, type Workspace } from '../../helpers/server.ts';
import { planBody, postPlan } from '../../helpers/plans.ts';
import { customer } from '../../helpers/renewals.ts';
import { until } from '../../helpers/receiver.ts';

const server = useServer({ background: 'worker' });
const key = () => ({ 'idempotency-key': randomUUID() });

async function setup(ws: Workspace) {
  const meter = async (body: Record<string, unknown>) => (await ws.client.post('/v1/meters', body, key())).json.data.id;
  const tokens = await meter({
    key: 'tokens',
    name: 'Tokens',
    eventName: 'call',
    aggregation: 'sum',
    valueProperty: 'n',
    groupBy: ['region', 'model'],
  });
  const users = await meter({
    key: 'users',
    name: 'Users',
    eventName: 'call',
    aggregation: 'unique_count',
    valueProperty: 'user',
    groupBy: ['region'],
  });
  const other = await meter({ key: 'other', name: 'Other', eventName: 'other', aggregation: 'count' });
  const tiers = [
    { upTo: 2, unitAmount: 1000 },
    { upTo: 'inf', unitAmount: 500 },
  ];
  const plan = await postPlan(
    ws,
    planBody({
      prices: [
        { currency: 'IDR', model: 'flat', unitAmount: 150000 },
        { currency: 'IDR', model: 'usage', unitAmount: 100, meterId: tokens, divideBy: 10 },
        { currency: 'IDR', model: 'tiered', tiers, meterId: users },
      ],
    }),
  );
  const [base, perToken, perUser] = plan.json.data.prices.map((p: { id: string }) => p.id);
  const cus = await customer(ws);
  const sub = await ws.client.post(
    '/v1/subscriptions',
    { customerId: cus, priceId: base, paymentMethod: 'pm_test_success' },
    key(),
  );
  return { tokens, users, other, base, perToken, perUser, cus, sub: sub.json.data.id as string };
}

const usage = (ws: Workspace, sub: string, query = '') =>
  ws.client.get(`/v1/subscriptions/${sub}/current-usage${query}`);

describe('current usage', () => {
  it('answers every metered price from rollups, priced by the engine, with groups on request', async () => {
    const ws = await server.workspace();
    const s = await setup(ws);
    const empty = await usage(ws, s.sub);
    expect(empty.status).toBe(200);
    expect(empty.json.data).toMatchObject({ subscriptionId: s.sub, customerId: s.cus, currency: 'IDR', amount: 0 });
    expect(empty.json.data.items.map((i: any) => [i.priceId, i.value, i.quantity, i.amount])).toEqual([
      [s.perToken, '0', 0, 0],
      [s.perUser, '0', 0, 0],
    ]);
    const ev = (id: string, props: Record<string, unknown>) => ({
      id,
      eventName: 'call',
      customerId: s.cus,
      properties: props,
    });
    await ws.client.post('/v1/usage-events', {
      events: [
        ev('1', { n: 12.5, region: 'eu', model: 'a', user: 'u1' }),
        ev('2', { n: '30', region: 'us', model: 'a', user: 'u2' }),
        ev('3', { n: 2, model: 'b', user: 'u1' }),
        ev('4', { n: 0.25, region: 'eu', model: 'b', user: 'u3' }),
      ],
    });
    await until(async () => {
      const r = await usage(ws, s.sub);
      return r.json.data?.items[0].value === '44.75';
    }, 'the fold');
    const full = (await usage(ws, s.sub)).json.data;
    // 44.75 / 10 rounds half up to 4 units at 100; 3 users: 2 x 1000 + 1 x 500.
    expect(full.items.map((i: any) => [i.meterId, i.aggregation, i.value, i.quantity, i.amount, i.groups])).toEqual([
      [s.tokens, 'sum', '44.75', 4, 400, null],
      [s.users, 'unique_count', '3', 3, 2500, null],
    ]);
    expect(full.amount).toBe(2900);
    const grouped = await usage(ws, s.sub, `?meterId=${s.tokens}&groupBy=region`);
    expect(grouped.json.data.items).toHaveLength(1);
    expect(grouped.json.data.items[0].groups).toEqual([
      { dimensions: { region: 'eu' }, value: '12.75' },
      { dimensions: { region: 'us' }, value: '30' },
      { dimensions: { region: null }, value: '2' },
    ]);
    // A void shows at once the fold has run.
    await ws.client.post('/v1/usage-events/2/void', undefined);
    await until(async () => (await usage(ws, s.sub)).json.data.items[0].value === '14.75', 'the void');
    // GraphQL root field and the subscription edge agree with REST.
    const gql = await ws.client.graphql(
      `{ subscriptionCurrentUsage(subscriptionId: "${s.sub}") { amount items { value } }
         subscription(id: "${s.sub}") { currentUsage { amount } } }`,
    );
    const rest = (await usage(ws, s.sub)).json.data;
    expect(gql.json.data.subscriptionCurrentUsage.amount).toBe(rest.amount);
    expect(gql.json.data.subscription.currentUsage.amount).toBe(rest.amount);
    const byCustomer = await ws.client.get(`/v1/customers/${s.cus}/current-usage`);
    expect(byCustomer.json.data.subscriptions.map((x: any) => x.subscriptionId)).toEqual([s.sub]);
  }, 60_000);

  it('refuses bad queries (400), unknown ids (404), a canceled subscription (409) and other workspaces', async () => {
    const ws = await server.workspace();
    const s = await setup(ws);
    const expectError = (res: any, status: number, code: string, field?: string) =>
      expect([res.status, res.json.error?.code, res.json.error?.field ?? undefined]).toEqual([status, code, field]);
    expectError(await usage(ws, s.sub, '?groupBy=region'), 400, 'validation_error', 'meterId');
    expectError(await usage(ws, s.sub, `?meterId=${s.other}`), 400, 'validation_error', 'meterId');
    expectError(await usage(ws, s.sub, `?meterId=${s.tokens}&groupBy=color`), 400, 'validation_error', 'groupBy');
    expectError(await usage(ws, s.sub, `?meterId=${s.users}&groupBy=model`), 400, 'validation_error', 'groupBy');
    expectError(await usage(ws, 'sub_nope'), 404, 'not_found');
    const other = await server.workspace();
    expectError(await usage(other, s.sub), 404, 'not_found');
    expectError(await other.client.get(`/v1/customers/${s.cus}/current-usage`), 404, 'not_found');
    await ws.client.post(`/v1/subscriptions/${s.sub}/cancel`, {}, key());
    expectError(await usage(ws, s.sub), 409, 'conflict');
  }, 60_000);
});
