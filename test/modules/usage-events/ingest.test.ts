import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { createClient, db, useServer, type Workspace } from '../../helpers/server.ts';
import { mintKey } from '../../helpers/keys.ts';
import { usageStorage } from '../../../jobs/usage-storage.ts';

const server = useServer();

type Res = { status: number; json: any; headers: Headers };
const key = () => ({ 'idempotency-key': randomUUID() });
function expectError(res: Res, status: number, code: string, field?: string) {
  expect({ status: res.status, code: res.json?.error?.code, field: res.json?.error?.field }).toEqual({
    status,
    code,
    field: field ?? res.json?.error?.field,
  });
}
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** A workspace with a customer (externalId acme-42) and meters on api.call (count, sum of tokens). */
async function setup(ws?: Workspace) {
  ws ??= await server.workspace();
  const customer = (await ws.client.post('/v1/customers', { name: 'Acme', externalId: 'acme-42' })).json.data;
  await ws.client.post(
    '/v1/meters',
    { key: 'calls', name: 'Calls', eventName: 'api.call', aggregation: 'count' },
    key(),
  );
  await ws.client.post(
    '/v1/meters',
    { key: 'tokens', name: 'Tokens', eventName: 'api.call', aggregation: 'sum', valueProperty: 'tokens' },
    key(),
  );
  return { ws, customer };
}
const ingest = (ws: Workspace, events: unknown[]) => ws.client.post('/v1/usage-events', { events });
const statuses = (res: Res) => res.json.data.results.map((r: any) => [r.status, r.code, r.field]);

describe('POST /v1/usage-events', () => {
  it('answers 200 with one result per event, in order; events are independent', async () => {
    const { ws, customer } = await setup();
    const res = await ingest(ws, [
      { id: 'e1', eventName: 'api.call', customerId: customer.id, properties: { tokens: 120, model: 'gpt' } },
      { id: 'e2', eventName: 'api.call', externalCustomerId: 'nobody', properties: { tokens: '7.5' } },
      { id: 'e3', eventName: 'api.call', externalCustomerId: 'acme-42', properties: { tokens: '7.5' } },
    ]);
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({
      accepted: 2,
      duplicates: 0,
      rejected: 1,
      results: [
        { index: 0, id: 'e1', status: 'accepted', code: null, field: null, message: null },
        {
          index: 1,
          id: 'e2',
          status: 'rejected',
          code: 'customer_not_found',
          field: 'externalCustomerId',
          message: 'no customer has externalId "nobody"',
        },
        { index: 2, id: 'e3', status: 'accepted', code: null, field: null, message: null },
      ],
    });
    const got = (await ws.client.get('/v1/usage-events/e3')).json.data;
    expect(got).toMatchObject({
      id: 'e3',
      eventName: 'api.call',
      customerId: customer.id,
      externalCustomerId: 'acme-42',
      properties: { tokens: '7.5' },
      status: 'accepted',
      voidedAt: null,
    });
    expect(got.meterIds).toHaveLength(2);
    expect(got.timestamp).toBe(got.receivedAt);
  });

  it('rejects each malformed field with validation_error naming it, in the checking order', async () => {
    const { ws, customer } = await setup();
    const c = { eventName: 'api.call', customerId: customer.id, properties: { tokens: 1 } };
    const res = await ingest(ws, [
      { ...c, id: ' bad' },
      { ...c, id: 'a1', eventName: '' },
      { ...c, id: 'a2', externalCustomerId: 'acme-42' },
      { id: 'a3', eventName: 'api.call' },
      { ...c, id: 'a4', customerId: 'cus_x' },
      { id: 'a5', eventName: 'api.call', externalCustomerId: 'has space' },
      { ...c, id: 'a6', timestamp: '2026-13-01T00:00:00Z' },
      { ...c, id: 'a7', timestamp: '2026-01-01T00:00:00' },
      { ...c, id: 'a8', properties: [] },
      { ...c, id: 'a9', properties: { 'bad-name': 1 } },
      { ...c, id: 'a10', properties: { tokens: null } },
      { ...c, id: 'a11', properties: { nested: { a: 1 } } },
      { ...c, id: 'a12', extra: true },
      { ...c, id: 'a13', properties: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`p${i}`, 1])) },
      { ...c, id: 'a14', properties: { tokens: 'many' } },
      { ...c, id: 'a15', eventName: 'no.meter' },
      42,
    ]);
    expect(res.status).toBe(200);
    expect(statuses(res)).toEqual([
      ['rejected', 'validation_error', 'id'],
      ['rejected', 'validation_error', 'eventName'],
      ['rejected', 'validation_error', 'customerId'],
      ['rejected', 'validation_error', 'customerId'],
      ['rejected', 'validation_error', 'customerId'],
      ['rejected', 'validation_error', 'externalCustomerId'],
      ['rejected', 'validation_error', 'timestamp'],
      ['rejected', 'validation_error', 'timestamp'],
      ['rejected', 'validation_error', 'properties'],
      ['rejected', 'validation_error', 'properties.bad-name'],
      ['rejected', 'validation_error', 'properties.tokens'],
      ['rejected', 'validation_error', 'properties.nested'],
      ['rejected', 'validation_error', 'extra'],
      ['rejected', 'validation_error', 'properties'],
      ['rejected', 'validation_error', 'properties.tokens'],
      ['rejected', 'unknown_event_name', 'eventName'],
      ['rejected', 'validation_error', 'id'],
    ]);
    expect(res.json.data.results[0].id).toBe(' bad');
    expect(res.json.data.results[16].id).toBeNull();
    expect(res.json.data).toMatchObject({ accepted: 0, duplicates: 0, rejected: 17 });
  });

  it('the timestamp window: now - 35 days to now + 5 minutes; epoch seconds and offsets accepted', async () => {
    const { ws, customer } = await setup();
    const now = Date.now();
    const at = (id: string, timestamp: unknown) => ({
      id,
      eventName: 'api.call',
      customerId: customer.id,
      timestamp,
      properties: { tokens: 1 },
    });
    const res = await ingest(ws, [
      at('w1', iso(now - 35 * DAY + 60_000)),
      at('w2', iso(now - 35 * DAY - 60_000)),
      at('w3', iso(now + 4 * 60_000)),
      at('w4', iso(now + 6 * 60_000)),
      at('w5', Math.floor(now / 1000)),
      at('w6', '2026-12-03T10:00:00.123456+02:00'.replace('2026-12-03', iso(now).slice(0, 10))),
    ]);
    expect(statuses(res)).toEqual([
      ['accepted', null, null],
      ['rejected', 'timestamp_out_of_window', 'timestamp'],
      ['accepted', null, null],
      ['rejected', 'timestamp_out_of_window', 'timestamp'],
      ['accepted', null, null],
      expect.anything(),
    ]);
    const w5 = (await ws.client.get('/v1/usage-events/w5')).json.data;
    expect(w5.timestamp).toBe(iso(Math.floor(now / 1000) * 1000));
    if (res.json.data.results[5].status === 'accepted')
      expect((await ws.client.get('/v1/usage-events/w6')).json.data.timestamp).toMatch(/T08:00:00\.123Z$/);
  });

  it('dedupes by id: duplicates within and across requests, idempotency_conflict on other content', async () => {
    const { ws, customer } = await setup();
    const e = { id: 'd1', eventName: 'api.call', customerId: customer.id, properties: { tokens: 5, b: 'x' } };
    const first = await ingest(ws, [
      e,
      { ...e, properties: { b: 'x', tokens: 5 } },
      { ...e, properties: { tokens: 6 } },
    ]);
    expect(statuses(first)).toEqual([
      ['accepted', null, null],
      ['duplicate', null, null],
      ['rejected', 'idempotency_conflict', 'id'],
    ]);
    expect(first.json.data).toMatchObject({ accepted: 1, duplicates: 1, rejected: 1 });
    const again = await ingest(ws, [e, { ...e, properties: { tokens: 7 } }, { ...e, id: 'd2' }]);
    expect(statuses(again)).toEqual([
      ['duplicate', null, null],
      ['rejected', 'idempotency_conflict', 'id'],
      ['accepted', null, null],
    ]);
    // A rejected event reserves nothing: the corrected one may reuse its id.
    const bad = await ingest(ws, [{ ...e, id: 'd3', eventName: 'no.meter' }]);
    expect(statuses(bad)).toEqual([['rejected', 'unknown_event_name', 'eventName']]);
    expect(statuses(await ingest(ws, [{ ...e, id: 'd3' }]))).toEqual([['accepted', null, null]]);
    // A retry of an accepted event is a duplicate even once its meters are archived.
    const meters = (await ws.client.get('/v1/meters')).json.data;
    for (const m of meters) await ws.client.post(`/v1/meters/${m.id}/archive`, undefined, key());
    expect(statuses(await ingest(ws, [e]))).toEqual([['duplicate', null, null]]);
    expect(statuses(await ingest(ws, [{ ...e, id: 'd4' }]))).toEqual([['rejected', 'unknown_event_name', 'eventName']]);
    const list = (await ws.client.get('/v1/usage-events?order=asc&limit=100')).json.data;
    expect(list.map((x: any) => x.id).sort()).toEqual(['d1', 'd2', 'd3']);
  });

  it("another workspace's customer is customer_not_found; ids are per workspace and per mode", async () => {
    const a = await setup();
    const b = await setup();
    const e = { id: 'x1', eventName: 'api.call', properties: { tokens: 1 } };
    expect(statuses(await ingest(b.ws, [{ ...e, customerId: a.customer.id }]))).toEqual([
      ['rejected', 'customer_not_found', 'customerId'],
    ]);
    expect(statuses(await ingest(a.ws, [{ ...e, customerId: a.customer.id }]))).toEqual([['accepted', null, null]]);
    expect(statuses(await ingest(b.ws, [{ ...e, customerId: b.customer.id }]))).toEqual([['accepted', null, null]]);
    expectError(
      await b.ws.client.get('/v1/usage-events/x1').then(() => a.ws.client.get('/v1/usage-events/x2')),
      404,
      'not_found',
    );
    // Live mode: its own customers, meters and ids; test rows unseen.
    const live = await mintKey(a.ws.workspaceId, 'live');
    const liveWs = { ...a.ws, client: createClient({ baseUrl: server.url, keyId: live.keyId, secret: live.secret }) };
    expectError(await liveWs.client.get('/v1/usage-events/x1'), 404, 'not_found');
    expect(statuses(await ingest(liveWs, [{ ...e, customerId: a.customer.id }]))).toEqual([
      ['rejected', 'customer_not_found', 'customerId'],
    ]);
    const liveSetup = await setup(liveWs);
    expect(statuses(await ingest(liveWs, [{ ...e, customerId: liveSetup.customer.id }]))).toEqual([
      ['accepted', null, null],
    ]);
    expect((await liveWs.client.get('/v1/usage-events')).json.data.map((x: any) => x.id)).toEqual(['x1']);
  });

  it('takes 1,000 events in one request; 1,001, none, or another top-level key are 400 field events', async () => {
    const { ws, customer } = await setup();
    const events = Array.from({ length: 1000 }, (_, i) => ({
      id: `bulk-${i}`,
      eventName: 'api.call',
      customerId: customer.id,
      properties: { tokens: i },
    }));
    const res = await ingest(ws, events);
    expect(res.json.data).toMatchObject({ accepted: 1000, duplicates: 0, rejected: 0 });
    expect(res.json.data.results[999]).toMatchObject({ index: 999, id: 'bulk-999', status: 'accepted' });
    expect((await ingest(ws, events)).json.data).toMatchObject({ accepted: 0, duplicates: 1000 });
    expectError(await ingest(ws, [...events, { ...events[0], id: 'one-more' }]), 400, 'validation_error', 'events');
    expectError(await ingest(ws, []), 400, 'validation_error', 'events');
    expectError(await ws.client.post('/v1/usage-events', { events: {} }), 400, 'validation_error', 'events');
    expectError(await ws.client.post('/v1/usage-events', {}), 400, 'validation_error', 'events');
    expectError(await ws.client.post('/v1/usage-events', { events, more: 1 }), 400, 'validation_error', 'more');
  });

  it('takes a body up to 4 MiB on this route only; over it is 413 payload_too_large', async () => {
    const { ws, customer } = await setup();
    const pad = 'x'.repeat(250);
    const events = Array.from({ length: 1000 }, (_, i) => ({
      id: `big-${i}`,
      eventName: 'api.call',
      customerId: customer.id,
      properties: { tokens: 1, ...Object.fromEntries(Array.from({ length: 7 }, (_, k) => [`p${k}`, pad])) },
    }));
    const size = Buffer.byteLength(JSON.stringify({ events }));
    expect(size).toBeGreaterThan(1024 * 1024);
    expect(size).toBeLessThan(4 * 1024 * 1024);
    const ok = await ingest(ws, events);
    expect(ok.json.data.results[0]).toMatchObject({ status: 'accepted' });
    expect(ok.json.data.rejected).toBe(0);
    const tooBig = events.map((e) => ({ ...e, properties: { ...e.properties, q: pad.repeat(14) } }));
    expectError(await ingest(ws, tooBig), 413, 'payload_too_large');
    const other = await ws.client.post('/v1/customers', { name: 'x'.repeat(1024 * 1024 + 10) });
    expect(other.status).toBe(413);
  });

  it('ignores the Idempotency-Key header: event ids are the idempotency', async () => {
    const { ws, customer } = await setup();
    const h = key();
    const e = { eventName: 'api.call', customerId: customer.id, properties: { tokens: 1 } };
    expect((await ws.client.post('/v1/usage-events', { events: [{ ...e, id: 'k1' }] }, h)).json.data.accepted).toBe(1);
    expect((await ws.client.post('/v1/usage-events', { events: [{ ...e, id: 'k2' }] }, h)).json.data.accepted).toBe(1);
  });

  it('counts events against the usage_ingest class and needs svc:usage:write', async () => {
    const { ws, customer } = await setup();
    const ro = await mintKey(ws.workspaceId, 'test', { role: 'restricted', scopes: ['svc:usage:read'] });
    const roClient = createClient({ baseUrl: server.url, keyId: ro.keyId, secret: ro.secret });
    const e = { id: 'r1', eventName: 'api.call', customerId: customer.id, properties: { tokens: 1 } };
    expectError(await roClient.post('/v1/usage-events', { events: [e] }), 403, 'insufficient_scope');
    const wo = await mintKey(ws.workspaceId, 'test', { role: 'restricted', scopes: ['svc:usage:write'] });
    const woClient = createClient({ baseUrl: server.url, keyId: wo.keyId, secret: wo.secret });
    expect((await woClient.post('/v1/usage-events', { events: [e] })).json.data.accepted).toBe(1);
  });

  it('the same batch on two connections at once: each id accepted exactly once', async () => {
    const { ws, customer } = await setup();
    const events = Array.from({ length: 200 }, (_, i) => ({
      id: `race-${i}`,
      eventName: 'api.call',
      customerId: customer.id,
      properties: { tokens: i },
    }));
    const [a, b] = await Promise.all([ingest(ws, events), ingest(ws, events)]);
    expect(a.json.data.accepted + b.json.data.accepted).toBe(200);
    expect(a.json.data.duplicates + b.json.data.duplicates).toBe(200);
    expect((await ws.client.get('/v1/usage-events?limit=100')).json.meta.page.hasMore).toBe(true);
    const { rows } = await db().system.query(`SELECT count(*)::int AS n FROM usage_events WHERE "workspaceId" = $1`, [
      ws.workspaceId,
    ]);
    expect(rows[0].n).toBe(200);
  });

  it('an id is free again 35 days after its acceptance; expired keys go with usage_keys_rotate()', async () => {
    const { ws, customer } = await setup();
    const e = { id: 'old-1', eventName: 'api.call', customerId: customer.id, properties: { tokens: 1 } };
    expect(statuses(await ingest(ws, [e]))).toEqual([['accepted', null, null]]);
    const backdate = async (days: number) => {
      for (const t of ['usage_event_keys_0', 'usage_event_keys_1'])
        await db().system.query(
          `UPDATE ${t} SET "acceptedAt" = now() - make_interval(days => $2) WHERE "workspaceId" = $1 AND id = 'old-1'`,
          [ws.workspaceId, days],
        );
    };
    await backdate(34);
    expect(statuses(await ingest(ws, [{ ...e, properties: { tokens: 2 } }]))).toEqual([
      ['rejected', 'idempotency_conflict', 'id'],
    ]);
    await backdate(36);
    expect(statuses(await ingest(ws, [{ ...e, properties: { tokens: 2 } }]))).toEqual([['accepted', null, null]]);
    await backdate(36);
    await db().system.query('SELECT usage_keys_rotate()');
    await db().system.query("SELECT usage_keys_rotate(now() + interval '35 days')");
    const { rows } = await db().system.query(
      `SELECT (SELECT count(*) FROM usage_event_keys_0 WHERE "workspaceId" = $1 AND id = 'old-1')
        + (SELECT count(*) FROM usage_event_keys_1 WHERE "workspaceId" = $1 AND id = 'old-1') AS n`,
      [ws.workspaceId],
    );
    expect(Number(rows[0].n)).toBe(0);
    expect(statuses(await ingest(ws, [e]))).toEqual([['accepted', null, null]]);
  });
});

describe('usage-storage job (jobs/usage-storage.ts)', () => {
  it('makes the partitions three months ahead again, and ingestion into that month works', async () => {
    const ahead = await db().system.query<{ name: string }>(
      `SELECT format('usage_events_test_%s', to_char(date_trunc('month', now() + interval '3 months'), 'YYYY_MM')) AS name`,
    );
    const name = ahead.rows[0].name;
    await db().system.query(`DROP TABLE usage_parts.${name}`);
    const made = async () =>
      (await db().system.query(`SELECT to_regclass($1) IS NOT NULL AS made`, [`usage_parts.${name}`])).rows[0].made;
    expect(await made()).toBe(false);

    await usageStorage.handler([], {} as never);

    expect(await made()).toBe(true);
  });
});
