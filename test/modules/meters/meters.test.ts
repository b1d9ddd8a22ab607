import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useServer, type Workspace } from '../../helpers/server.ts';

const server = useServer();

type Res = { status: number; json: any };
const key = () => ({ 'idempotency-key': randomUUID() });
function expectError(res: Res, status: number, code: string, field?: string) {
  expect({ status: res.status, code: res.json?.error?.code, field: res.json?.error?.field }).toEqual({
    status,
    code,
    field: field ?? res.json?.error?.field,
  });
  expect(res.json.data).toBeNull();
}
const base = { key: 'api_calls', name: 'API calls', eventName: 'api.call', aggregation: 'count' };
const create = (ws: Workspace, body: Record<string, unknown>) => ws.client.post('/v1/meters', body, key());
const eventsOf = async (ws: Workspace, id: string) =>
  ((await ws.client.get(`/v1/events?objectId=${id}&order=asc`)).json.data as any[]).map((e) => e.type);

describe('meters', () => {
  it('creates (201) with the meter fields and meter.created; retrieves and lists it', async () => {
    const ws = await server.workspace();
    const res = await create(ws, {
      ...base,
      key: 'tokens',
      aggregation: 'sum',
      valueProperty: 'tokens',
      filters: { region: ['eu', 'us'] },
      groupBy: ['model'],
      unit: 'tokens',
      metadata: { team: 'ai' },
    });
    expect(res.status).toBe(201);
    const m = res.json.data;
    expect(Object.keys(m).sort()).toEqual(
      [
        'accountId',
        'aggregation',
        'archivedAt',
        'arn',
        'createdAt',
        'description',
        'eventName',
        'filters',
        'groupBy',
        'id',
        'key',
        'metadata',
        'name',
        'status',
        'unit',
        'updatedAt',
        'valueProperty',
      ].sort(),
    );
    expect(m).toMatchObject({
      key: 'tokens',
      status: 'active',
      archivedAt: null,
      filters: { region: ['eu', 'us'] },
      groupBy: ['model'],
      accountId: ws.accountId,
      arn: `arn:svc:${ws.accountId}:meter/${m.id}`,
    });
    expect(m.id).toMatch(/^mtr_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(await eventsOf(ws, m.id)).toEqual(['meter.created']);
    expect((await ws.client.get(`/v1/meters/${m.id}`)).json.data).toEqual(m);
    const list = await ws.client.get('/v1/meters?eventName=api.call');
    expect(list.json.data.map((x: any) => x.id)).toEqual([m.id]);
    expect((await ws.client.get('/v1/meters?eventName=other')).json.data).toEqual([]);
  });

  it('requires an Idempotency-Key and answers in the plans spelling', async () => {
    const ws = await server.workspace();
    expectError(await ws.client.post('/v1/meters', base), 400, 'idempotency_required');
    expectError(await create(ws, { ...base, key: 'Bad Key' }), 400, 'VALIDATION_ERROR', 'key');
    expectError(await create(ws, { ...base, aggregation: 'median' }), 400, 'VALIDATION_ERROR', 'aggregation');
    expectError(await create(ws, { ...base, valueProperty: 'x' }), 400, 'VALIDATION_ERROR', 'valueProperty');
    expectError(await create(ws, { ...base, aggregation: 'sum' }), 400, 'VALIDATION_ERROR', 'valueProperty');
    expectError(await create(ws, { ...base, eventName: ' x' }), 400, 'VALIDATION_ERROR', 'eventName');
    expectError(await create(ws, { ...base, filters: { a: [] } }), 400, 'VALIDATION_ERROR', 'filters.a');
    expectError(await create(ws, { ...base, groupBy: ['a', 'b', 'c', 'd'] }), 400, 'VALIDATION_ERROR', 'groupBy');
    expectError(await create(ws, { ...base, name: undefined }), 400, 'VALIDATION_ERROR', 'name');
    expectError(await ws.client.get('/v1/meters/mtr_nope'), 404, 'NOT_FOUND');
  });

  it('PATCH changes name, description, unit and metadata only (meter.updated); other fields are 400', async () => {
    const ws = await server.workspace();
    const m = (await create(ws, base)).json.data;
    const res = await ws.client.patch(`/v1/meters/${m.id}`, { name: 'Calls', unit: 'calls' }, key());
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ name: 'Calls', unit: 'calls', key: 'api_calls' });
    expectError(
      await ws.client.patch(`/v1/meters/${m.id}`, { eventName: 'x' }, key()),
      400,
      'VALIDATION_ERROR',
      'eventName',
    );
    expectError(await ws.client.patch(`/v1/meters/${m.id}`, { key: 'y' }, key()), 400, 'VALIDATION_ERROR', 'key');
    expect(await eventsOf(ws, m.id)).toEqual(['meter.created', 'meter.updated']);
  });

  it('archive answers 200; again 200 unchanged with no second event; archived keep their key', async () => {
    const ws = await server.workspace();
    const m = (await create(ws, base)).json.data;
    const first = await ws.client.post(`/v1/meters/${m.id}/archive`, undefined, key());
    expect(first.status).toBe(200);
    expect(first.json.data).toMatchObject({ status: 'archived' });
    expect(first.json.data.archivedAt).not.toBeNull();
    const again = await ws.client.post(`/v1/meters/${m.id}/archive`, undefined, key());
    expect(again.status).toBe(200);
    expect(again.json.data).toEqual(first.json.data);
    expect(await eventsOf(ws, m.id)).toEqual(['meter.created', 'meter.archived']);
    expect((await ws.client.get('/v1/meters')).json.data).toEqual([]);
    expect((await ws.client.get('/v1/meters?archived=true')).json.data.map((x: any) => x.id)).toEqual([m.id]);
    expectError(await create(ws, base), 409, 'conflict', 'key');
  });

  it('at most 10 active meters per eventName (409); archiving one makes room', async () => {
    const ws = await server.workspace();
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await create(ws, { ...base, key: `m${i}` })).json.data.id);
    expectError(await create(ws, { ...base, key: 'm10' }), 409, 'conflict', 'eventName');
    expect((await create(ws, { ...base, key: 'other', eventName: 'other' })).status).toBe(201);
    await ws.client.post(`/v1/meters/${ids[0]}/archive`, undefined, key());
    expect((await create(ws, { ...base, key: 'm10' })).status).toBe(201);
  });

  it("another workspace's meter is 404; test and live are apart", async () => {
    const a = await server.workspace();
    const b = await server.workspace();
    const m = (await create(a, base)).json.data;
    expectError(await b.client.get(`/v1/meters/${m.id}`), 404, 'NOT_FOUND');
    expect((await b.client.get('/v1/meters')).json.data).toEqual([]);
  });

  it('GraphQL: createMeter and meters', async () => {
    const ws = await server.workspace();
    const res = await ws.client.graphql(
      'mutation($i: CreateMeterInput!) { createMeter(input: $i, idempotencyKey: "k1") { id key status } }',
      { i: base },
    );
    expect(res.json.data.createMeter).toMatchObject({ key: 'api_calls', status: 'active' });
    const list = await ws.client.graphql('{ meters { edges { node { key } } } }');
    expect(list.json.data.meters.edges).toEqual([{ node: { key: 'api_calls' } }]);
  });
});
