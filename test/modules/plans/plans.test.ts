import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useServer, db, type Workspace } from '../../helpers/server.ts';

const server = useServer();

type Res = { status: number; json: any; headers: Headers };
const key = () => ({ 'idempotency-key': randomUUID() });
function expectError(res: Res, status: number, code: string, field?: string) {
  expect({ status: res.status, code: res.json?.error?.code, field: res.json?.error?.field }).toEqual({
    status,
    code,
    field: field ?? res.json?.error?.field,
  });
  expect(res.json.data).toBeNull();
}
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const features = {
  selfServeCancel: true,
  selfServePause: false,
  selfServeUpgrade: true,
  selfServeDowngrade: false,
  updatePaymentMethod: true,
};
const flat = (extra: Record<string, unknown> = {}) => ({ currency: 'IDR', model: 'flat', unitAmount: 150000, ...extra });
const tiered = (model = 'tiered', extra: Record<string, unknown> = {}) => ({
  currency: 'IDR',
  model,
  tiers: [
    { upTo: 10, unitAmount: 1000 },
    { upTo: 100, unitAmount: 800, flatAmount: 5000 },
    { upTo: 'inf', unitAmount: 500 },
  ],
  ...extra,
});
const planBody = (extra: Record<string, unknown> = {}) => ({
  name: 'Pro',
  interval: 'month',
  portalFeatures: features,
  prices: [flat()],
  ...extra,
});
const createPlan = (ws: Workspace, body: Record<string, unknown> = planBody(), headers: Record<string, string> = key()) =>
  ws.client.post('/v1/plans', body, headers);
const eventsOf = async (ws: Workspace, id: string) =>
  ((await ws.client.get(`/v1/events?objectId=${id}&order=asc`)).json.data as any[]).map((e) => ({
    type: e.type,
    data: e.data,
  }));

describe('POST /v1/plans', () => {
  it('creates a plan (201) with the spec fields, nested prices in order, and plan.created', async () => {
    const ws = await server.workspace();
    const res = await createPlan(
      ws,
      planBody({
        description: 'For teams',
        intervalCount: 3,
        trialDays: 14,
        usageAggregate: 'sum',
        meteredUnit: 'API call',
        metadata: { tier: 'pro' },
        prices: [flat(), tiered('tiered'), { currency: 'USD', model: 'usage', unitAmount: 2, taxMode: 'inclusive' }],
      }),
    );
    expect(res.status).toBe(201);
    const p = res.json.data;
    expect(Object.keys(p)).toEqual([
      'id',
      'arn',
      'accountId',
      'name',
      'description',
      'interval',
      'intervalCount',
      'trialDays',
      'prices',
      'usageAggregate',
      'meteredUnit',
      'portalFeatures',
      'dunningPolicyId',
      'active',
      'archivedAt',
      'metadata',
      'createdAt',
      'updatedAt',
    ]);
    expect(p.id).toMatch(/^pln_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(p.arn).toBe(`arn:svc:${ws.accountId}:plan/${p.id}`);
    expect(p).toMatchObject({
      accountId: ws.accountId,
      name: 'Pro',
      description: 'For teams',
      interval: 'month',
      intervalCount: 3,
      trialDays: 14,
      usageAggregate: 'sum',
      meteredUnit: 'API call',
      portalFeatures: features,
      dunningPolicyId: null,
      active: true,
      archivedAt: null,
      metadata: { tier: 'pro' },
    });
    expect(p.createdAt).toMatch(ISO);
    expect(p.prices.map((x: any) => [x.currency, x.model])).toEqual([
      ['IDR', 'flat'],
      ['IDR', 'tiered'],
      ['USD', 'usage'],
    ]);
    expect(Object.keys(p.prices[0])).toEqual([
      'id',
      'planId',
      'currency',
      'model',
      'unitAmount',
      'tiers',
      'taxMode',
      'active',
      'createdAt',
    ]);
    expect(p.prices[0]).toMatchObject({ planId: p.id, unitAmount: 150000, tiers: null, taxMode: 'exclusive', active: true });
    expect(p.prices[0].id).toMatch(/^pr_/);
    expect(p.prices[1]).toMatchObject({
      unitAmount: null,
      tiers: [
        { upTo: 10, unitAmount: 1000, flatAmount: null },
        { upTo: 100, unitAmount: 800, flatAmount: 5000 },
        { upTo: 'inf', unitAmount: 500, flatAmount: null },
      ],
    });
    expect(p.prices[2]).toMatchObject({ taxMode: 'inclusive', unitAmount: 2 });
    expect(await eventsOf(ws, p.id)).toEqual([{ type: 'plan.created', data: { id: p.id, object: p } }]);
    expect((await ws.client.get(`/v1/plans/${p.id}`)).json.data).toEqual(p);
  });

  it('applies the defaults: intervalCount 1, trialDays 0, active, exclusive prices', async () => {
    const ws = await server.workspace();
    const p = (await createPlan(ws)).json.data;
    expect(p).toMatchObject({ intervalCount: 1, trialDays: 0, active: true, description: null, metadata: null });
    expect(p.prices[0].taxMode).toBe('exclusive');
  });
});
