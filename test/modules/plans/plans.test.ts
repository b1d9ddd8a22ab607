import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
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
const flat = (extra: Record<string, unknown> = {}) => ({
  currency: 'IDR',
  model: 'flat',
  unitAmount: 150000,
  ...extra,
});
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
const createPlan = (
  ws: Workspace,
  body: Record<string, unknown> = planBody(),
  headers: Record<string, string> = key(),
) => ws.client.post('/v1/plans', body, headers);
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
      'meterId',
      'divideBy',
      'quantityRounding',
      'createdAt',
    ]);
    expect(p.prices[0]).toMatchObject({
      planId: p.id,
      unitAmount: 150000,
      tiers: null,
      taxMode: 'exclusive',
      active: true,
    });
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

describe('plan validation: 400 VALIDATION_ERROR naming the field, UNSUPPORTED_CURRENCY', () => {
  const noFeature = { ...features } as Record<string, unknown>;
  delete noFeature.selfServePause;
  it.each([
    [{ name: undefined }, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'x'.repeat(256) }, 'name'],
    [{ description: 'x'.repeat(1025) }, 'description'],
    [{ interval: undefined }, 'interval'],
    [{ interval: 'fortnight' }, 'interval'],
    [{ intervalCount: 0 }, 'intervalCount'],
    [{ intervalCount: 1.5 }, 'intervalCount'],
    [{ interval: 'month', intervalCount: 37 }, 'intervalCount'],
    [{ trialDays: -1 }, 'trialDays'],
    [{ trialDays: 731 }, 'trialDays'],
    [{ portalFeatures: undefined }, 'portalFeatures'],
    [{ portalFeatures: null }, 'portalFeatures'],
    [{ portalFeatures: noFeature }, 'portalFeatures.selfServePause'],
    [{ portalFeatures: { ...features, selfServeCancel: 'yes' } }, 'portalFeatures.selfServeCancel'],
    [{ portalFeatures: { ...features, extra: true } }, 'portalFeatures.extra'],
    [{ usageAggregate: 'avg' }, 'usageAggregate'],
    [{ meteredUnit: 'x'.repeat(65) }, 'meteredUnit'],
    [{ metadata: { k: 1 } }, 'metadata'],
    [{ dunningPolicyId: 'nope' }, 'dunningPolicyId'],
    [{ dunningPolicyId: 'dp_01JAAAAAAAAAAAAAAAAAAAAAAA' }, 'dunningPolicyId'],
    [{ prices: undefined }, 'prices'],
    [{ prices: [] }, 'prices'],
    [{ prices: Array.from({ length: 51 }, () => flat({ active: false })) }, 'prices'],
    [{ bogus: 1 }, 'bogus'],
    [{ prices: [flat({ unitAmount: undefined })] }, 'prices[0].unitAmount'],
    [{ prices: [flat({ unitAmount: -1 })] }, 'prices[0].unitAmount'],
    [{ prices: [flat({ unitAmount: 1.5 })] }, 'prices[0].unitAmount'],
    [{ prices: [flat({ tiers: [{ upTo: 'inf', unitAmount: 1 }] })] }, 'prices[0].tiers'],
    [{ prices: [flat({ currency: 'idr' })] }, 'prices[0].currency'],
    [{ prices: [flat({ currency: undefined })] }, 'prices[0].currency'],
    [{ prices: [flat({ model: 'per_seat' })] }, 'prices[0].model'],
    [{ prices: [flat({ taxMode: 'gross' })] }, 'prices[0].taxMode'],
    [{ prices: [flat({ colour: 'red' })] }, 'prices[0].colour'],
    [{ prices: [{ currency: 'IDR', model: 'usage', unitAmount: 5 }] }, 'usageAggregate'],
    [{ prices: [tiered('tiered', { tiers: undefined })] }, 'prices[0].tiers'],
    [{ prices: [tiered('volume', { tiers: [] })] }, 'prices[0].tiers'],
    [{ prices: [tiered('tiered', { unitAmount: 100 })] }, 'prices[0].unitAmount'],
    [
      {
        prices: [
          tiered('tiered', {
            tiers: [
              { upTo: 10, unitAmount: 1 },
              { upTo: 10, unitAmount: 1 },
              { upTo: 'inf', unitAmount: 1 },
            ],
          }),
        ],
      },
      'prices[0].tiers[1].upTo',
    ],
    [
      {
        prices: [
          tiered('volume', {
            tiers: [
              { upTo: 10, unitAmount: 1 },
              { upTo: 5, unitAmount: 1 },
              { upTo: 'inf', unitAmount: 1 },
            ],
          }),
        ],
      },
      'prices[0].tiers[1].upTo',
    ],
    [
      {
        prices: [
          tiered('tiered', {
            tiers: [
              { upTo: 10, unitAmount: 1 },
              { upTo: 20, unitAmount: 1 },
            ],
          }),
        ],
      },
      'prices[0].tiers[1].upTo',
    ],
    [
      {
        prices: [
          tiered('tiered', {
            tiers: [
              { upTo: 'inf', unitAmount: 1 },
              { upTo: 'inf', unitAmount: 1 },
            ],
          }),
        ],
      },
      'prices[0].tiers[0].upTo',
    ],
    [
      {
        prices: [
          tiered('tiered', {
            tiers: [
              { upTo: 0, unitAmount: 1 },
              { upTo: 'inf', unitAmount: 1 },
            ],
          }),
        ],
      },
      'prices[0].tiers[0].upTo',
    ],
    [
      {
        prices: [
          tiered('tiered', {
            tiers: [
              { upTo: '10', unitAmount: 1 },
              { upTo: 'inf', unitAmount: 1 },
            ],
          }),
        ],
      },
      'prices[0].tiers[0].upTo',
    ],
    [
      { prices: [tiered('tiered', { tiers: [{ upTo: 10 }, { upTo: 'inf', unitAmount: 1 }] })] },
      'prices[0].tiers[0].unitAmount',
    ],
    [
      {
        prices: [
          tiered('tiered', {
            tiers: [
              { upTo: 10, flatAmount: -5 },
              { upTo: 'inf', unitAmount: 1 },
            ],
          }),
        ],
      },
      'prices[0].tiers[0].flatAmount',
    ],
    [{ prices: [flat(), flat({ unitAmount: 9 })] }, 'prices[1]'],
  ])('%j is 400 VALIDATION_ERROR naming %s', async (patch, field) => {
    const ws = await server.workspace();
    const body = { ...planBody(), ...patch } as Record<string, unknown>;
    for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
    expectError(await createPlan(ws, body), 400, 'VALIDATION_ERROR', field);
  });

  it('a well-formed currency that no adapter takes is 400 UNSUPPORTED_CURRENCY', async () => {
    const ws = await server.workspace();
    expectError(
      await createPlan(ws, planBody({ prices: [flat({ currency: 'XYZ' })] })),
      400,
      'UNSUPPORTED_CURRENCY',
      'prices[0].currency',
    );
    expectError(await createPlan(ws, planBody({ prices: [flat({ currency: 'EUR' })] })), 400, 'UNSUPPORTED_CURRENCY');
  });

  it('two prices of one currency and model are fine when only one is active; nothing is written on a 400', async () => {
    const ws = await server.workspace();
    const ok = await createPlan(ws, planBody({ prices: [flat(), flat({ unitAmount: 9, active: false })] }));
    expect(ok.status).toBe(201);
    expect(ok.json.data.prices.map((p: any) => p.active)).toEqual([true, false]);
    await createPlan(ws, planBody({ name: 'Broken', prices: [flat(), flat()] }));
    const n = await db().system.query(`SELECT count(*)::int AS n FROM plans WHERE "workspaceId" = $1`, [
      ws.workspaceId,
    ]);
    expect(n.rows[0].n).toBe(1);
  });

  it('accepts the limits: name 255, description 1024, meteredUnit 64, 3 years of months, trialDays 730', async () => {
    const ws = await server.workspace();
    const res = await createPlan(
      ws,
      planBody({
        name: 'n'.repeat(255),
        description: 'd'.repeat(1024),
        meteredUnit: 'u'.repeat(64),
        intervalCount: 36,
        trialDays: 730,
      }),
    );
    expect(res.status).toBe(201);
  });
});

describe('idempotency on plan endpoints', () => {
  it('400 idempotency_required without a key on create, update, archive and add price', async () => {
    const ws = await server.workspace();
    expectError(await createPlan(ws, planBody(), {}), 400, 'idempotency_required');
    const p = (await createPlan(ws)).json.data;
    expectError(await ws.client.patch(`/v1/plans/${p.id}`, { name: 'X' }), 400, 'idempotency_required');
    expectError(await ws.client.post(`/v1/plans/${p.id}/archive`, {}), 400, 'idempotency_required');
    expectError(
      await ws.client.post(`/v1/plans/${p.id}/prices`, flat({ currency: 'USD' })),
      400,
      'idempotency_required',
    );
    // spec: price PATCH is not in the required list
    expect((await ws.client.patch(`/v1/prices/${p.prices[0].id}`, { active: false })).status).toBe(200);
  });

  it('the same key replays the plan (one plan, one event); another body is 409 IDEMPOTENCY_MISMATCH', async () => {
    const ws = await server.workspace();
    const k = key();
    const first = await createPlan(ws, planBody(), k);
    const again = await createPlan(ws, planBody(), k);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.data).toEqual(first.json.data);
    expectError(await createPlan(ws, planBody({ name: 'Other' }), k), 409, 'IDEMPOTENCY_MISMATCH');
    expect((await ws.client.get('/v1/plans')).json.data).toHaveLength(1);
    expect(await eventsOf(ws, first.json.data.id)).toHaveLength(1);
    const pk = key();
    const id = first.json.data.id;
    expect((await ws.client.patch(`/v1/plans/${id}`, { name: 'A' }, pk)).status).toBe(200);
    expectError(await ws.client.patch(`/v1/plans/${id}`, { name: 'B' }, pk), 409, 'IDEMPOTENCY_MISMATCH');
  });
});

describe('GET /v1/plans', () => {
  it('lists newest first, pages with cursors, and filters active: omitted hides archived, true live, false archived', async () => {
    const ws = await server.workspace();
    const live = (await createPlan(ws, planBody({ name: 'live' }))).json.data;
    const hidden = (await createPlan(ws, planBody({ name: 'hidden', active: false }))).json.data;
    const archived = (await createPlan(ws, planBody({ name: 'archived' }))).json.data;
    expect((await ws.client.post(`/v1/plans/${archived.id}/archive`, {}, key())).status).toBe(200);
    const names = async (q: string) => ((await ws.client.get(`/v1/plans${q}`)).json.data as any[]).map((p) => p.name);
    expect(await names('')).toEqual(['hidden', 'live']);
    expect(await names('?active=true')).toEqual(['live']);
    expect(await names('?active=false')).toEqual(['archived']);
    expect(await names('?order=asc')).toEqual(['live', 'hidden']);
    const page = await ws.client.get('/v1/plans?limit=1');
    expect(page.json.meta.page).toMatchObject({ limit: 1, hasMore: true });
    expect(page.json.data[0].prices).toHaveLength(1);
    const next = await ws.client.get(`/v1/plans?limit=1&cursor=${page.json.meta.page.nextCursor}`);
    expect(next.json.data.map((p: any) => p.id)).toEqual([live.id]);
    expect(next.json.meta.page).toMatchObject({ hasMore: false, nextCursor: null });
    expectError(
      await ws.client.get(`/v1/plans?limit=1&active=true&cursor=${page.json.meta.page.nextCursor}`),
      400,
      'invalid_cursor',
    );
    expectError(await ws.client.get('/v1/plans?limit=101'), 400, 'invalid_limit');
    expectError(await ws.client.get('/v1/plans?limit=0'), 400, 'invalid_limit');
    expectError(await ws.client.get('/v1/plans?active=maybe'), 400, 'VALIDATION_ERROR', 'active');
    expectError(await ws.client.get('/v1/plans?order=up'), 400, 'VALIDATION_ERROR', 'order');
    expect((await ws.client.get('/v1/plans')).json.meta.page.limit).toBe(20);
    void hidden;
  });

  it("404 NOT_FOUND for an unknown id and for another workspace's plan; lists are per workspace and mode", async () => {
    const ws = await server.workspace();
    const other = await server.workspace();
    const p = (await createPlan(ws)).json.data;
    expectError(await ws.client.get('/v1/plans/pln_01JAAAAAAAAAAAAAAAAAAAAAAA'), 404, 'NOT_FOUND');
    expectError(await other.client.get(`/v1/plans/${p.id}`), 404, 'NOT_FOUND');
    expectError(await other.client.patch(`/v1/plans/${p.id}`, { name: 'x' }, key()), 404, 'NOT_FOUND');
    expectError(await other.client.post(`/v1/plans/${p.id}/archive`, {}, key()), 404, 'NOT_FOUND');
    expectError(
      await other.client.post(`/v1/plans/${p.id}/prices`, flat({ currency: 'USD' }), key()),
      404,
      'NOT_FOUND',
    );
    expectError(await other.client.patch(`/v1/prices/${p.prices[0].id}`, { active: false }), 404, 'NOT_FOUND');
    expect((await other.client.get('/v1/plans')).json.data).toEqual([]);
    const { mintKey } = await import('../../helpers/keys.ts');
    const { createClient } = await import('../../helpers/server.ts');
    const live = await mintKey(ws.workspaceId, 'live');
    const liveClient = createClient({ baseUrl: server.url, keyId: live.keyId, secret: live.secret });
    expectError(await liveClient.get(`/v1/plans/${p.id}`), 404, 'NOT_FOUND');
    expect((await liveClient.get('/v1/plans')).json.data).toEqual([]);
  });

  it('scopes: a read_only key reads but may not create (403 insufficient_scope)', async () => {
    const ws = await server.workspace();
    const p = (await createPlan(ws)).json.data;
    const { mintKey } = await import('../../helpers/keys.ts');
    const { createClient } = await import('../../helpers/server.ts');
    const ro = await mintKey(ws.workspaceId, 'test', { role: 'read_only' });
    const c = createClient({ baseUrl: server.url, keyId: ro.keyId, secret: ro.secret });
    expect((await c.get(`/v1/plans/${p.id}`)).status).toBe(200);
    expectError(await c.post('/v1/plans', planBody(), key()), 403, 'insufficient_scope');
    expectError(await c.patch(`/v1/plans/${p.id}`, { name: 'x' }, key()), 403, 'insufficient_scope');
    const restricted = await mintKey(ws.workspaceId, 'test', { role: 'restricted', scopes: ['svc:plan:create'] });
    const rc = createClient({ baseUrl: server.url, keyId: restricted.keyId, secret: restricted.secret });
    expect((await rc.post('/v1/plans', planBody(), key())).status).toBe(201);
    expectError(await rc.post(`/v1/plans/${p.id}/archive`, {}, key()), 403, 'insufficient_scope');
  });
});

describe('PATCH /v1/plans/:id', () => {
  it('updates the mutable fields, emits plan.updated with previousAttributes; null clears metadata', async () => {
    const ws = await server.workspace();
    const p = (await createPlan(ws, planBody({ metadata: { a: '1' }, description: 'old' }))).json.data;
    const nf = { ...features, selfServePause: true };
    const res = await ws.client.patch(
      `/v1/plans/${p.id}`,
      { name: 'Pro 2', description: null, trialDays: 7, portalFeatures: nf, metadata: null },
      key(),
    );
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({
      name: 'Pro 2',
      description: null,
      trialDays: 7,
      portalFeatures: nf,
      metadata: null,
    });
    expect(res.json.data.updatedAt >= p.updatedAt).toBe(true);
    const events = await eventsOf(ws, p.id);
    expect(events.map((e) => e.type)).toEqual(['plan.created', 'plan.updated']);
    expect(events[1].data.object).toEqual(res.json.data);
    expect(events[1].data.previousAttributes).toMatchObject({
      name: 'Pro',
      description: 'old',
      trialDays: 0,
      portalFeatures: features,
      metadata: { a: '1' },
    });
    // Nothing changed: no event.
    expect((await ws.client.patch(`/v1/plans/${p.id}`, { name: 'Pro 2' }, key())).status).toBe(200);
    expect(await eventsOf(ws, p.id)).toHaveLength(2);
  });

  it.each([
    [{ interval: 'year' }, 'interval'],
    [{ intervalCount: 2 }, 'intervalCount'],
    [{ prices: [] }, 'prices'],
    [{ usageAggregate: 'sum' }, 'usageAggregate'],
    [{ meteredUnit: 'x' }, 'meteredUnit'],
    [{ currency: 'USD' }, 'currency'],
    [{ unitAmount: 5 }, 'unitAmount'],
    [{ name: null }, 'name'],
    [{ active: null }, 'active'],
    [{ trialDays: null }, 'trialDays'],
    [{ portalFeatures: { selfServeCancel: true } }, 'portalFeatures.selfServePause'],
    [{ dunningPolicyId: 'dp_01JAAAAAAAAAAAAAAAAAAAAAAA' }, 'dunningPolicyId'],
  ])('immutable, unknown or invalid %j is 400 VALIDATION_ERROR naming %s', async (body, field) => {
    const ws = await server.workspace();
    const p = (await createPlan(ws)).json.data;
    expectError(await ws.client.patch(`/v1/plans/${p.id}`, body, key()), 400, 'VALIDATION_ERROR', field);
    expect((await ws.client.get(`/v1/plans/${p.id}`)).json.data).toEqual(p);
  });

  it('active false hides without archiving; active true on an archived plan clears archivedAt', async () => {
    const ws = await server.workspace();
    const p = (await createPlan(ws)).json.data;
    const off = await ws.client.patch(`/v1/plans/${p.id}`, { active: false }, key());
    expect(off.json.data).toMatchObject({ active: false, archivedAt: null });
    const archived = await ws.client.post(`/v1/plans/${p.id}/archive`, {}, key());
    expect(archived.json.data.archivedAt).toMatch(ISO);
    const on = await ws.client.patch(`/v1/plans/${p.id}`, { active: true }, key());
    expect(on.json.data).toMatchObject({ active: true, archivedAt: null });
    const types = (await eventsOf(ws, p.id)).map((e) => e.type);
    expect(types).toEqual(['plan.created', 'plan.updated', 'plan.archived', 'plan.updated']);
  });
});

describe('POST /v1/plans/:id/archive', () => {
  it('sets archivedAt and active false, emits plan.archived once; archiving again answers 200 without an event', async () => {
    const ws = await server.workspace();
    const p = (await createPlan(ws)).json.data;
    const res = await ws.client.post(`/v1/plans/${p.id}/archive`, undefined, key());
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ id: p.id, active: false });
    expect(res.json.data.archivedAt).toMatch(ISO);
    const again = await ws.client.post(`/v1/plans/${p.id}/archive`, {}, key());
    expect(again.status).toBe(200);
    expect(again.json.data.archivedAt).toBe(res.json.data.archivedAt);
    const events = await eventsOf(ws, p.id);
    expect(events.map((e) => e.type)).toEqual(['plan.created', 'plan.archived']);
    expect(events[1].data.object).toEqual(res.json.data);
    expect(events[1].data.previousAttributes).toMatchObject({ active: true, archivedAt: null });
  });

  it('refuses a body (spec: empty body) and an unknown plan', async () => {
    const ws = await server.workspace();
    const p = (await createPlan(ws)).json.data;
    expectError(
      await ws.client.post(`/v1/plans/${p.id}/archive`, { reason: 'x' }, key()),
      400,
      'VALIDATION_ERROR',
      'reason',
    );
    expectError(await ws.client.post('/v1/plans/pln_01JAAAAAAAAAAAAAAAAAAAAAAA/archive', {}, key()), 404, 'NOT_FOUND');
  });
});

describe('prices: add (versions) and PATCH active', () => {
  it('add price answers 201 with the price; a new active version retires the old one in the same transaction', async () => {
    const ws = await server.workspace();
    const p = (await createPlan(ws, planBody({ prices: [flat(), flat({ currency: 'USD', unitAmount: 1000 })] }))).json
      .data;
    const res = await ws.client.post(`/v1/plans/${p.id}/prices`, flat({ unitAmount: 175000 }), key());
    expect(res.status).toBe(201);
    expect(Object.keys(res.json.data)).toEqual([
      'id',
      'planId',
      'currency',
      'model',
      'unitAmount',
      'tiers',
      'taxMode',
      'active',
      'meterId',
      'divideBy',
      'quantityRounding',
      'createdAt',
    ]);
    expect(res.json.data).toMatchObject({
      planId: p.id,
      currency: 'IDR',
      model: 'flat',
      unitAmount: 175000,
      active: true,
    });
    const plan = (await ws.client.get(`/v1/plans/${p.id}`)).json.data;
    expect(plan.prices.map((x: any) => [x.id, x.active])).toEqual([
      [p.prices[0].id, false],
      [p.prices[1].id, true],
      [res.json.data.id, true],
    ]);
    const events = await eventsOf(ws, p.id);
    expect(events.map((e) => e.type)).toEqual(['plan.created', 'plan.updated']);
    expect(events[1].data.object.prices).toEqual(plan.prices);
    expect(events[1].data.previousAttributes.prices).toEqual(p.prices);
    // An inactive new price leaves the active one alone.
    const quiet = await ws.client.post(`/v1/plans/${p.id}/prices`, flat({ unitAmount: 1, active: false }), key());
    expect(quiet.json.data.active).toBe(false);
    expect((await ws.client.get(`/v1/plans/${p.id}`)).json.data.prices.filter((x: any) => x.active)).toHaveLength(2);
  });

  it('add price validates like create (fields without a path), and a usage price needs the plan usageAggregate', async () => {
    const ws = await server.workspace();
    const p = (await createPlan(ws)).json.data;
    const add = (body: unknown) => ws.client.post(`/v1/plans/${p.id}/prices`, body, key());
    expectError(await add({ currency: 'IDR', model: 'flat' }), 400, 'VALIDATION_ERROR', 'unitAmount');
    expectError(
      await add({ currency: 'IDR', model: 'usage', unitAmount: 3 }),
      400,
      'VALIDATION_ERROR',
      'usageAggregate',
    );
    expectError(
      await add(tiered('volume', { tiers: [{ upTo: 5, unitAmount: 1 }] })),
      400,
      'VALIDATION_ERROR',
      'tiers[0].upTo',
    );
    expectError(await add({ currency: 'XYZ', model: 'flat', unitAmount: 1 }), 400, 'UNSUPPORTED_CURRENCY', 'currency');
    expectError(await add({ ...flat(), planId: 'x' }), 400, 'VALIDATION_ERROR', 'planId');
    expect((await ws.client.get(`/v1/plans/${p.id}`)).json.data.prices).toHaveLength(1);
  });

  it('PATCH /v1/prices/:id flips active (plan.updated), re-activating retires the sibling; other fields are 400', async () => {
    const ws = await server.workspace();
    const p = (await createPlan(ws)).json.data;
    const v2 = (await ws.client.post(`/v1/plans/${p.id}/prices`, flat({ unitAmount: 2 }), key())).json.data;
    const back = await ws.client.patch(`/v1/prices/${p.prices[0].id}`, { active: true });
    expect(back.status).toBe(200);
    expect(back.json.data).toMatchObject({ id: p.prices[0].id, active: true, unitAmount: 150000 });
    const prices = (await ws.client.get(`/v1/plans/${p.id}`)).json.data.prices;
    expect(prices.map((x: any) => [x.id, x.active])).toEqual([
      [p.prices[0].id, true],
      [v2.id, false],
    ]);
    // Deactivating the last active price is allowed; the array still holds it.
    expect((await ws.client.patch(`/v1/prices/${p.prices[0].id}`, { active: false })).json.data.active).toBe(false);
    // No change, no event.
    expect((await ws.client.patch(`/v1/prices/${p.prices[0].id}`, { active: false })).status).toBe(200);
    expect((await eventsOf(ws, p.id)).map((e) => e.type)).toEqual([
      'plan.created',
      'plan.updated',
      'plan.updated',
      'plan.updated',
    ]);
    for (const [body, field] of [
      [{ unitAmount: 5 }, 'unitAmount'],
      [{ currency: 'USD' }, 'currency'],
      [{ active: true, taxMode: 'inclusive' }, 'taxMode'],
      [{}, 'active'],
      [{ active: null }, 'active'],
    ] as const) {
      expectError(await ws.client.patch(`/v1/prices/${p.prices[0].id}`, body), 400, 'VALIDATION_ERROR', field);
    }
    expectError(await ws.client.patch('/v1/prices/pr_01JAAAAAAAAAAAAAAAAAAAAAAA', { active: true }), 404, 'NOT_FOUND');
  });

  it('the database keeps one active price per (plan, currency, model) and prices immutable but for active', async () => {
    const ws = await server.workspace();
    const p = (await createPlan(ws)).json.data;
    const c = await db().system.connect();
    try {
      await expect(
        c.query(
          `INSERT INTO prices (id, "workspaceId", mode, "planId", position, currency, model, "unitAmount", active)
           VALUES ('pr_x', $1, 'test', $2, 9, 'IDR', 'flat', 1, true)`,
          [ws.workspaceId, p.id],
        ),
      ).rejects.toThrow(/prices_one_active_key/);
      await expect(c.query(`UPDATE prices SET "unitAmount" = 1 WHERE id = $1`, [p.prices[0].id])).rejects.toThrow(
        /immutable/,
      );
    } finally {
      c.release();
    }
  });

  it('concurrent add price calls leave exactly one active price per currency and model', async () => {
    const ws = await server.workspace();
    const p = (await createPlan(ws)).json.data;
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        ws.client.post(`/v1/plans/${p.id}/prices`, flat({ unitAmount: 100 + i }), key()),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    const prices = (await ws.client.get(`/v1/plans/${p.id}`)).json.data.prices;
    expect(prices).toHaveLength(9);
    expect(prices.filter((x: any) => x.active)).toHaveLength(1);
  });
});

describe('tenancy in the database', () => {
  it('row-level security shows svc_app only its workspace and mode of plans, prices and policies', async () => {
    const a = await server.workspace();
    const b = await server.workspace();
    for (const w of [a, b]) {
      await w.client.post('/v1/dunning-policies', { retryScheduleDays: [1], finalAction: 'void' });
      expect((await createPlan(w)).status).toBe(201);
    }
    const c = new pg.Client({ connectionString: server.dbUrl });
    await c.connect();
    try {
      await c.query('SET ROLE svc_app');
      const count = async (t: string) => (await c.query(`SELECT count(*)::int AS n FROM ${t}`)).rows[0].n;
      for (const t of ['plans', 'prices', 'dunning_policies']) expect(await count(t), t).toBe(0);
      await c.query(`SELECT set_config('app.workspace_id', $1, false), set_config('app.modes', 'test', false)`, [
        a.workspaceId,
      ]);
      for (const t of ['plans', 'prices', 'dunning_policies']) {
        expect(await count(t), t).toBe(1);
        const foreign = await c.query(`SELECT count(*)::int AS n FROM ${t} WHERE "workspaceId" <> $1`, [a.workspaceId]);
        expect(foreign.rows[0].n, t).toBe(0);
      }
      await c.query(`SELECT set_config('app.modes', 'live', false)`);
      expect(await count('plans')).toBe(0);
      // The app may not delete plans or prices at all.
      await expect(c.query('DELETE FROM prices')).rejects.toThrow(/permission denied/);
    } finally {
      await c.end();
    }
    // A plan cannot name another workspace's policy, even written behind the API.
    const bPolicy = (await b.client.get('/v1/dunning-policies')).json.data[0].id;
    await expect(
      db().system.query(`UPDATE plans SET "dunningPolicyId" = $1 WHERE "workspaceId" = $2`, [bPolicy, a.workspaceId]),
    ).rejects.toThrow(/plans_dunning_policy_fkey/);
  });
});

describe('GraphQL', () => {
  it('createPlan, plan with its prices edge and dunningPolicy edge, plans connection; codes in extensions', async () => {
    const ws = await server.workspace();
    const dp = (await ws.client.post('/v1/dunning-policies', { retryScheduleDays: [1, 3, 5], finalAction: 'void' }))
      .json.data;
    const m = `mutation($input: CreatePlanInput!, $k: String) {
      createPlan(input: $input, idempotencyKey: $k) { id arn dunningPolicyId prices { id model tiers } dunningPolicy { id finalAction } }
    }`;
    const ok = await ws.client.graphql(m, {
      input: planBody({ dunningPolicyId: dp.id, prices: [tiered()] }),
      k: randomUUID(),
    });
    expect(ok.json.errors).toBeUndefined();
    const plan = ok.json.data.createPlan;
    expect(plan).toMatchObject({ dunningPolicyId: dp.id, dunningPolicy: { id: dp.id, finalAction: 'void' } });
    expect(plan.prices[0].tiers[2].upTo).toBe('inf');
    const q = await ws.client.graphql(
      `query($id: ID!) { plan(id: $id) { id prices { id } dunningPolicy { retryScheduleDays } } plans(first: 5) { edges { node { id prices { model } } } } }`,
      { id: plan.id },
    );
    expect(q.json.errors).toBeUndefined();
    expect(q.json.data.plan).toEqual({
      id: plan.id,
      prices: [{ id: plan.prices[0].id }],
      dunningPolicy: { retryScheduleDays: [1, 3, 5] },
    });
    expect(q.json.data.plans.edges).toEqual([{ node: { id: plan.id, prices: [{ model: 'tiered' }] } }]);
    const bad = await ws.client.graphql(m, {
      input: planBody({ prices: [flat({ unitAmount: null })] }),
      k: randomUUID(),
    });
    expect(bad.json.errors![0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', field: 'prices[0].unitAmount' });
    const missing = await ws.client.graphql(`query { plan(id: "pln_01JAAAAAAAAAAAAAAAAAAAAAAA") { id } }`);
    expect(missing.json.errors![0].extensions.code).toBe('NOT_FOUND');
    const noKey = await ws.client.graphql(m, { input: planBody() });
    expect(noKey.json.errors![0].extensions.code).toBe('idempotency_required');
    const add = await ws.client.graphql(
      `mutation($id: ID!, $k: String) { addPrice(planId: $id, input: { currency: "XYZ", model: "flat", unitAmount: 1 }, idempotencyKey: $k) { id } }`,
      { id: plan.id, k: randomUUID() },
    );
    expect(add.json.errors![0].extensions.code).toBe('UNSUPPORTED_CURRENCY');
  });

  it('updatePlan, archivePlan, addPrice and updatePrice follow the REST rules; a replayed key returns the first result', async () => {
    const ws = await server.workspace();
    const p = (await createPlan(ws)).json.data;
    const k = randomUUID();
    const upd = `mutation($id: ID!, $input: UpdatePlanInput!, $k: String) {
      updatePlan(id: $id, input: $input, idempotencyKey: $k) { id name updatedAt }
    }`;
    const first = await ws.client.graphql(upd, { id: p.id, input: { name: 'GQL' }, k });
    expect(first.json.data.updatePlan.name).toBe('GQL');
    const replay = await ws.client.graphql(upd, { id: p.id, input: { name: 'GQL' }, k });
    expect(replay.json.data).toEqual(first.json.data);
    const mismatch = await ws.client.graphql(upd, { id: p.id, input: { name: 'Other' }, k });
    expect(mismatch.json.errors![0].extensions.code).toBe('IDEMPOTENCY_MISMATCH');
    const immutable = await ws.client.graphql(upd, { id: p.id, input: { interval: 'year' }, k: randomUUID() });
    expect(immutable.json.errors![0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', field: 'interval' });
    const add = await ws.client.graphql(
      `mutation($id: ID!, $k: String) {
        addPrice(planId: $id, input: { currency: "IDR", model: "volume", tiers: [{ upTo: 5, unitAmount: 10 }, { upTo: "inf", unitAmount: 8 }] }, idempotencyKey: $k) { id model active tiers }
      }`,
      { id: p.id, k: randomUUID() },
    );
    expect(add.json.data.addPrice).toMatchObject({ model: 'volume', active: true });
    const flip = await ws.client.graphql(
      'mutation($id: ID!) { updatePrice(id: $id, input: { active: false }) { id active } }',
      {
        id: add.json.data.addPrice.id,
      },
    );
    expect(flip.json.data.updatePrice).toEqual({ id: add.json.data.addPrice.id, active: false });
    const archived = await ws.client.graphql(
      'mutation($id: ID!, $k: String) { archivePlan(id: $id, idempotencyKey: $k) { active archivedAt } }',
      { id: p.id, k: randomUUID() },
    );
    expect(archived.json.data.archivePlan.active).toBe(false);
    expect(archived.json.data.archivePlan.archivedAt).toMatch(ISO);
    const listed = await ws.client.graphql('query { plans(active: false) { edges { node { id } } } }');
    expect(listed.json.data.plans.edges).toEqual([{ node: { id: p.id } }]);
  });
});
