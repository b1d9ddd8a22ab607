import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useServer, createClient } from '../../helpers/server.ts';
import { mintKey } from '../../helpers/keys.ts';
import { planBody, postPlan } from '../../helpers/plans.ts';

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

describe('/v1/dunning-policies', () => {
  it('creates (201), retrieves, lists and updates a policy with dunning_policy.* events', async () => {
    const ws = await server.workspace();
    const res = await ws.client.post('/v1/dunning-policies', {
      retryScheduleDays: [1, 3, 5],
      finalAction: 'uncollectible',
    });
    expect(res.status).toBe(201);
    const p = res.json.data;
    expect(Object.keys(p)).toEqual(['id', 'retryScheduleDays', 'finalAction', 'createdAt', 'updatedAt']);
    expect(p.id).toMatch(/^dp_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(p).toMatchObject({ retryScheduleDays: [1, 3, 5], finalAction: 'uncollectible' });
    expect((await ws.client.get(`/v1/dunning-policies/${p.id}`)).json.data).toEqual(p);
    const up = await ws.client.patch(`/v1/dunning-policies/${p.id}`, { finalAction: 'void' });
    expect(up.status).toBe(200);
    expect(up.json.data).toMatchObject({ retryScheduleDays: [1, 3, 5], finalAction: 'void' });
    const second = (
      await ws.client.post('/v1/dunning-policies', { retryScheduleDays: [2], finalAction: 'void' }, key())
    ).json.data;
    const list = await ws.client.get('/v1/dunning-policies');
    expect(list.json.data.map((x: any) => x.id)).toEqual([second.id, p.id]);
    expect(list.json.meta.page).toMatchObject({ limit: 20, hasMore: false });
    const events = (await ws.client.get(`/v1/events?objectId=${p.id}&order=asc`)).json.data;
    expect(events.map((e: any) => e.type)).toEqual(['dunning_policy.created', 'dunning_policy.updated']);
    expect(events[1].data.object).toEqual(up.json.data);
    expect(events[1].data.previousAttributes).toEqual({ finalAction: 'uncollectible' });
  });

  it.each([
    [{ finalAction: 'void' }, 'retryScheduleDays'],
    [{ retryScheduleDays: [], finalAction: 'void' }, 'retryScheduleDays'],
    [{ retryScheduleDays: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], finalAction: 'void' }, 'retryScheduleDays'],
    [{ retryScheduleDays: [3, 1], finalAction: 'void' }, 'retryScheduleDays[1]'],
    [{ retryScheduleDays: [1, 1], finalAction: 'void' }, 'retryScheduleDays[1]'],
    [{ retryScheduleDays: [0], finalAction: 'void' }, 'retryScheduleDays[0]'],
    [{ retryScheduleDays: [61], finalAction: 'void' }, 'retryScheduleDays[0]'],
    [{ retryScheduleDays: [1.5], finalAction: 'void' }, 'retryScheduleDays[0]'],
    [{ retryScheduleDays: [1] }, 'finalAction'],
    [{ retryScheduleDays: [1], finalAction: 'paid' }, 'finalAction'],
    [{ retryScheduleDays: [1], finalAction: 'void', name: 'x' }, 'name'],
  ])('%j is 400 VALIDATION_ERROR naming %s', async (body, field) => {
    const ws = await server.workspace();
    expectError(await ws.client.post('/v1/dunning-policies', body), 400, 'VALIDATION_ERROR', field);
  });

  it('404 NOT_FOUND for an unknown or foreign policy; update validates; scopes are the plan scopes', async () => {
    const ws = await server.workspace();
    const other = await server.workspace();
    const p = (await ws.client.post('/v1/dunning-policies', { retryScheduleDays: [1], finalAction: 'void' })).json.data;
    expectError(await other.client.get(`/v1/dunning-policies/${p.id}`), 404, 'NOT_FOUND');
    expectError(await other.client.patch(`/v1/dunning-policies/${p.id}`, { finalAction: 'void' }), 404, 'NOT_FOUND');
    expect((await other.client.get('/v1/dunning-policies')).json.data).toEqual([]);
    expectError(
      await ws.client.patch(`/v1/dunning-policies/${p.id}`, { retryScheduleDays: [5, 2] }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await ws.client.patch(`/v1/dunning-policies/${p.id}`, { finalAction: null }),
      400,
      'VALIDATION_ERROR',
      'finalAction',
    );
    const ro = await mintKey(ws.workspaceId, 'test', { role: 'read_only' });
    const c = createClient({ baseUrl: server.url, keyId: ro.keyId, secret: ro.secret });
    expect((await c.get(`/v1/dunning-policies/${p.id}`)).status).toBe(200);
    expectError(
      await c.post('/v1/dunning-policies', { retryScheduleDays: [1], finalAction: 'void' }),
      403,
      'insufficient_scope',
    );
    // A plan of another workspace cannot name this policy.
    const plan = await postPlan(other, planBody({ dunningPolicyId: p.id }));
    expectError(plan, 400, 'VALIDATION_ERROR', 'dunningPolicyId');
  });

  it('plans name a policy of their workspace; PATCH switches or clears it (next failed renewal)', async () => {
    const ws = await server.workspace();
    const a = (await ws.client.post('/v1/dunning-policies', { retryScheduleDays: [1, 3, 5], finalAction: 'void' })).json
      .data;
    const b = (await ws.client.post('/v1/dunning-policies', { retryScheduleDays: [2], finalAction: 'uncollectible' }))
      .json.data;
    const plan = (await postPlan(ws, planBody({ dunningPolicyId: a.id }))).json.data;
    expect(plan.dunningPolicyId).toBe(a.id);
    expect(
      (await ws.client.patch(`/v1/plans/${plan.id}`, { dunningPolicyId: b.id }, key())).json.data.dunningPolicyId,
    ).toBe(b.id);
    expect(
      (await ws.client.patch(`/v1/plans/${plan.id}`, { dunningPolicyId: null }, key())).json.data.dunningPolicyId,
    ).toBe(null);
  });

  it('GraphQL: createDunningPolicy, dunningPolicy, dunningPolicies, updateDunningPolicy with the same codes', async () => {
    const ws = await server.workspace();
    const created = await ws.client.graphql(
      'mutation { createDunningPolicy(input: { retryScheduleDays: [1, 3], finalAction: "void" }) { id retryScheduleDays finalAction } }',
    );
    const id = created.json.data.createDunningPolicy.id;
    expect(created.json.data.createDunningPolicy).toMatchObject({ retryScheduleDays: [1, 3], finalAction: 'void' });
    const q = await ws.client.graphql(
      'query($id: ID!) { dunningPolicy(id: $id) { id } dunningPolicies(first: 10) { edges { node { id } } } }',
      { id },
    );
    expect(q.json.data).toEqual({ dunningPolicy: { id }, dunningPolicies: { edges: [{ node: { id } }] } });
    const bad = await ws.client.graphql(
      'mutation($id: ID!) { updateDunningPolicy(id: $id, input: { finalAction: "refund" }) { id } }',
      { id },
    );
    expect(bad.json.errors![0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', field: 'finalAction' });
    const missing = await ws.client.graphql('query { dunningPolicy(id: "dp_01JAAAAAAAAAAAAAAAAAAAAAAA") { id } }');
    expect(missing.json.errors![0].extensions.code).toBe('NOT_FOUND');
  });
});
