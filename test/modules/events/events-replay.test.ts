import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useServer, db, createClient, untilPublished, type Workspace } from '../../helpers/server.ts';
import { mintLiveKey } from '../../helpers/keys.ts';
import { newId } from '../../../src/core/ids.ts';
import { purgeExpiredEvents } from '../../../src/modules/events/retention.ts';

const server = useServer();

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const idem = () => ({ 'idempotency-key': randomUUID() });

/**
 * `n` events of one workspace and mode in one statement: objects `obj_<i % 100>` with their own
 * `sequence`, and metadata an original emitter would have written.
 */
async function insertEvents(
  workspaceId: string,
  n: number,
  opts: { mode?: 'test' | 'live'; createdAt?: string } = {},
): Promise<string[]> {
  const ids = Array.from({ length: n }, () => newId('event'));
  await db().system.query(
    `INSERT INTO events (id, "workspaceId", mode, type, "objectId", sequence, "occurredAt", "createdAt", data, metadata)
     SELECT u.id, $2, $3, 'bulk.test', 'obj_' || (u.ord % 100), 1000 + u.ord::int, $4::timestamptz + u.ord * interval '1 ms',
       COALESCE($5::timestamptz, now()),
       jsonb_build_object('id', 'obj_' || (u.ord % 100), 'object', jsonb_build_object('n', u.ord)),
       jsonb_build_object('source', 'api', 'requestId', 'req_original', 'origin', 'kept')
     FROM unnest($1::text[]) WITH ORDINALITY AS u(id, ord)`,
    [ids, workspaceId, opts.mode ?? 'test', new Date(T0).toISOString(), opts.createdAt ?? null],
  );
  return ids;
}

const countEvents = async (workspaceId: string) =>
  Number(
    (await db().system.query('SELECT count(*) AS n FROM events WHERE "workspaceId" = $1', [workspaceId])).rows[0].n,
  );

async function keyWithRole(ws: Workspace, role: string) {
  const res = await ws.client.post('/v1/api-keys', { name: role, role });
  expect(res.status).toBe(201);
  return createClient({ baseUrl: server.url, keyId: res.json.data.keyId, secret: res.json.data.key });
}

describe('POST /v1/events/replay', () => {
  it('replays 10,000 events in one call: new ids, replayOf, the original sequence, published by the relay', async () => {
    const ws = await server.workspace();
    const originals = await insertEvents(ws.workspaceId, 10_000);
    const startedAt = new Date();
    const t = performance.now();
    const res = await ws.client.post('/v1/events/replay', { eventIds: originals }, idem());
    const ms = performance.now() - t;
    console.log(`replay of 10,000 ids: ${ms.toFixed(0)} ms (HTTP round trip)`);
    expect(res.status, res.text.slice(0, 300)).toBe(201);
    expect(res.json.error).toBeNull();
    const { count, eventIds } = res.json.data;
    expect(count).toBe(10_000);
    expect(eventIds).toHaveLength(10_000);
    expect(new Set(eventIds).size).toBe(10_000);
    expect(eventIds.every((id: string) => /^evt_[0-9A-HJKMNP-TV-Z]{26}$/.test(id))).toBe(true);
    const old = new Set(originals);
    expect(eventIds.some((id: string) => old.has(id))).toBe(false);
    expect(ms).toBeLessThan(10_000);

    // eventIds[i] replays originals[i]: same type, object, sequence, data and occurredAt; new createdAt; markers merged
    const { rows } = await db().system.query(
      `SELECT count(*)::int AS n FROM unnest($1::text[], $2::text[]) AS p(original, replay)
         JOIN events e ON e.id = p.original JOIN events r ON r.id = p.replay
        WHERE r."workspaceId" = e."workspaceId" AND r.mode = e.mode AND r.type = e.type AND r."objectId" = e."objectId"
          AND r.sequence = e.sequence AND r.data = e.data AND r."occurredAt" = e."occurredAt"
          AND r."createdAt" >= $3 AND r."publishedAt" IS NULL
          AND r.metadata = e.metadata || jsonb_build_object('replayOf', e.id, 'source', 'replay', 'requestId', $4::text)`,
      [originals, eventIds, new Date(startedAt.getTime() - 1), res.json.meta.requestId],
    );
    expect(rows[0].n).toBe(10_000);
    expect(await countEvents(ws.workspaceId)).toBe(20_000 + 1); // + workspace.created

    // as the API shows it
    const one = await ws.client.get(`/v1/events/${eventIds[7]}`);
    const original = await ws.client.get(`/v1/events/${originals[7]}`);
    expect(one.status).toBe(200);
    expect(one.json.data).toMatchObject({
      id: eventIds[7],
      type: 'bulk.test',
      mode: 'test',
      sequence: original.json.data.sequence,
      occurredAt: original.json.data.occurredAt,
      data: original.json.data.data,
      metadata: { replayOf: originals[7], source: 'replay', requestId: res.json.meta.requestId, origin: 'kept' },
    });
    expect(one.json.data.createdAt > original.json.data.createdAt).toBe(true);

    // written in request order (the relay's order), and the outbox relay publishes them like any other event
    const byPosition = await db().system.query('SELECT id FROM events WHERE id = ANY($1::text[]) ORDER BY position', [
      eventIds,
    ]);
    expect(byPosition.rows.map((r) => r.id)).toEqual(eventIds);
    await untilPublished(30_000);
    const published = await db().system.query(
      'SELECT id FROM events WHERE id = ANY($1::text[]) ORDER BY "publishedPosition"',
      [eventIds],
    );
    expect(published.rows.map((r) => r.id)).toEqual(eventIds);
  }, 60_000);

  it('one unknown id fails the whole request with 404 not_found and writes nothing', async () => {
    const ws = await server.workspace();
    const originals = await insertEvents(ws.workspaceId, 3);
    const before = await countEvents(ws.workspaceId);
    const res = await ws.client.post('/v1/events/replay', { eventIds: [...originals, newId('event')] }, idem());
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ data: null, error: { code: 'not_found' } });
    expect(await countEvents(ws.workspaceId)).toBe(before);
  });

  it("another workspace's events, and a test key replaying live events, are 404 (nothing written)", async () => {
    const a = await server.workspace();
    const b = await server.workspace();
    const [own] = await insertEvents(a.workspaceId, 1);
    const [foreign] = await insertEvents(b.workspaceId, 1);
    const [live] = await insertEvents(a.workspaceId, 1, { mode: 'live' });
    const before = await countEvents(a.workspaceId);
    for (const ids of [[foreign], [own, foreign], [live], [own, live]]) {
      const res = await a.client.post('/v1/events/replay', { eventIds: ids }, idem());
      expect(res.status, JSON.stringify(ids)).toBe(404);
      expect(res.json.error.code).toBe('not_found');
    }
    expect(await countEvents(a.workspaceId)).toBe(before);
    // the test key can read the live event, but not re-emit it; a live key can, in live mode
    expect((await a.client.get(`/v1/events/${live}`)).status).toBe(200);
    const liveClient = createClient({ baseUrl: server.url, ...(await mintLiveKey(a.workspaceId)) });
    const ok = await liveClient.post('/v1/events/replay', { eventIds: [live] }, idem());
    expect(ok.status, ok.text).toBe(201);
    const replay = await liveClient.get(`/v1/events/${ok.json.data.eventIds[0]}`);
    expect(replay.json.data).toMatchObject({ mode: 'live', metadata: { replayOf: live, source: 'replay' } });
    // and a live key cannot re-emit test events
    expect((await liveClient.post('/v1/events/replay', { eventIds: [own] }, idem())).status).toBe(404);
  });

  it('400 validation_error on eventIds: missing, empty, over 10,000, malformed, duplicated', async () => {
    const ws = await server.workspace();
    const [known] = await insertEvents(ws.workspaceId, 1);
    const many = Array.from({ length: 10_001 }, () => newId('event'));
    // A value GraphQL cannot coerce names its whole path.
    const cases: [string, unknown, string?][] = [
      ['missing', {}],
      ['null', { eventIds: null }],
      ['empty', { eventIds: [] }],
      ['10,001 ids', { eventIds: many }],
      ['malformed', { eventIds: [known, 'evt_123'] }],
      ['another prefix', { eventIds: [newId('payout')] }],
      ['lower case', { eventIds: [known.toLowerCase()] }],
      ['a number', { eventIds: [42] }],
      ['a null id', { eventIds: [known, null] }, 'eventIds[1]'],
      ['an object id', { eventIds: [{ id: known }] }, 'eventIds[0]'],
      ['duplicated', { eventIds: [known, known] }],
    ];
    const before = await countEvents(ws.workspaceId);
    for (const [what, body, field = 'eventIds'] of cases) {
      const res = await ws.client.post('/v1/events/replay', body, idem());
      expect(res.status, `${what}: ${res.text.slice(0, 300)}`).toBe(400);
      expect(res.json.error, what).toMatchObject({ code: 'validation_error', field });
    }
    expect(await countEvents(ws.workspaceId)).toBe(before);
    // exactly 10,000 is allowed (unknown ids: 404, not 400)
    const limit = await ws.client.post('/v1/events/replay', { eventIds: many.slice(1) }, idem());
    expect(limit.status).toBe(404);
  });

  it('the same Idempotency-Key returns the same body without replaying twice; another body is 409', async () => {
    const ws = await server.workspace();
    const originals = await insertEvents(ws.workspaceId, 5);
    const headers = idem();
    const first = await ws.client.post('/v1/events/replay', { eventIds: originals }, headers);
    expect(first.status).toBe(201);
    const after = await countEvents(ws.workspaceId);
    const again = await ws.client.post('/v1/events/replay', { eventIds: originals }, headers);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await countEvents(ws.workspaceId)).toBe(after);
    const other = await ws.client.post('/v1/events/replay', { eventIds: originals.slice(1) }, headers);
    expect(other.status).toBe(409);
    expect(other.json.error.code).toBe('idempotency_conflict');
  });

  it('without an Idempotency-Key: 400 idempotency_required', async () => {
    const ws = await server.workspace();
    const originals = await insertEvents(ws.workspaceId, 1);
    const res = await ws.client.post('/v1/events/replay', { eventIds: originals });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'idempotency_required', field: 'Idempotency-Key' });
  });

  it('a read_only key cannot replay: 403 insufficient_scope', async () => {
    const ws = await server.workspace();
    const originals = await insertEvents(ws.workspaceId, 1);
    const readOnly = await keyWithRole(ws, 'read_only');
    const res = await readOnly.post('/v1/events/replay', { eventIds: originals }, idem());
    expect(res.status).toBe(403);
    expect(res.json.error.code).toBe('insufficient_scope');
    // event keys (webhook_management_only has svc:event:*) may
    const hooks = await keyWithRole(ws, 'webhook_management_only');
    expect((await hooks.post('/v1/events/replay', { eventIds: originals }, idem())).status).toBe(201);
  });
});

describe('POST /v1/events/trigger', () => {
  it('test mode: 201 with the stored event, data merged with aggregateId, sequence counted per aggregate', async () => {
    const ws = await server.workspace();
    const fire = (aggregateId: string | undefined, data?: unknown) =>
      ws.client.post(
        '/v1/events/trigger',
        {
          type: 'anything.goes.here',
          ...(aggregateId ? { aggregateId } : {}),
          ...(data === undefined ? {} : { data }),
        },
        idem(),
      );
    const first = await fire('agg_1', { amount: 5, nested: { ok: true } });
    expect(first.status, first.text).toBe(201);
    const e = first.json.data;
    expect(e).toMatchObject({
      type: 'anything.goes.here',
      mode: 'test',
      workspaceId: ws.workspaceId,
      publishedAt: null,
      sequence: 1,
      data: { amount: 5, nested: { ok: true }, aggregateId: 'agg_1' },
      metadata: { source: 'trigger', requestId: first.json.meta.requestId },
    });
    expect(e.id).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
    // exactly what GET /v1/events/:id returns
    const stored = (await ws.client.get(`/v1/events/${e.id}`)).json.data;
    expect(stored).toEqual({ ...e, publishedAt: stored.publishedAt }); // the relay may have published it since

    const second = await fire('agg_1');
    const other = await fire('agg_2', {});
    const third = await fire('agg_1', { aggregateId: 'ignored' });
    expect([second, other, third].map((r) => r.status)).toEqual([201, 201, 201]);
    expect(second.json.data).toMatchObject({ sequence: 2, data: { aggregateId: 'agg_1' } });
    expect(other.json.data).toMatchObject({ sequence: 1, data: { aggregateId: 'agg_2' } });
    expect(third.json.data).toMatchObject({ sequence: 3, data: { aggregateId: 'agg_1' } });
    const listed = await ws.client.get('/v1/events?objectId=agg_1&order=asc');
    expect(listed.json.data.map((x: any) => x.sequence)).toEqual([1, 2, 3]);

    // without an aggregate: data.aggregateId null, no object to count
    const bare = await fire(undefined, { note: 'hello' });
    expect(bare.status).toBe(201);
    expect(bare.json.data).toMatchObject({ sequence: 1, data: { note: 'hello', aggregateId: null } });
  });

  it('400 validation_error naming the field', async () => {
    const ws = await server.workspace();
    const cases: [unknown, string][] = [
      [{}, 'type'],
      [{ type: '' }, 'type'],
      [{ type: 'x'.repeat(101) }, 'type'],
      [{ type: 5 }, 'type'],
      [{ type: 'ok', aggregateId: '' }, 'aggregateId'],
      [{ type: 'ok', aggregateId: 'a'.repeat(256) }, 'aggregateId'],
      [{ type: 'ok', data: [1, 2] }, 'data'],
      [{ type: 'ok', data: 'text' }, 'data'],
      [{ type: 'ok', data: { id: 'x' } }, 'data'],
      [{ type: 'ok', data: { a: 'a\u0000b' } }, 'data'],
      [{ type: 'ok', bogus: 1 }, 'bogus'],
    ];
    for (const [body, field] of cases) {
      const res = await ws.client.post('/v1/events/trigger', body, idem());
      expect(res.status, `${JSON.stringify(body).slice(0, 80)}: ${res.text.slice(0, 300)}`).toBe(400);
      expect(res.json.error, JSON.stringify(body).slice(0, 80)).toMatchObject({ code: 'validation_error', field });
    }
    // the limits themselves are accepted
    const deep = JSON.parse(`{"a":${'['.repeat(31)}${']'.repeat(31)}}`); // 32 levels with data itself
    const edge = await ws.client.post(
      '/v1/events/trigger',
      { type: 'x'.repeat(100), aggregateId: 'a'.repeat(255), data: deep },
      idem(),
    );
    expect(edge.status, edge.text.slice(0, 300)).toBe(201);
    const deeper = await ws.client.post('/v1/events/trigger', { type: 'ok', data: { a: deep } }, idem());
    expect(deeper.json.error).toMatchObject({ code: 'validation_error', field: 'data' });
    // far deeper nesting (PostgreSQL's jsonb parser would run out of stack): still a 400, never a 500
    const abyss = `{"type":"ok","data":{"a":${'['.repeat(50_000)}${']'.repeat(50_000)}}}`;
    const res = await ws.client.request('POST', '/v1/events/trigger', abyss, idem());
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'validation_error', field: 'data' });
  });

  it('a live key gets 403 forbidden_in_live_mode', async () => {
    const ws = await server.workspace();
    const live = createClient({ baseUrl: server.url, ...(await mintLiveKey(ws.workspaceId)) });
    const before = await countEvents(ws.workspaceId);
    const res = await live.post('/v1/events/trigger', { type: 'test.ping' }, idem());
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ data: null, error: { code: 'forbidden_in_live_mode' } });
    expect(await countEvents(ws.workspaceId)).toBe(before);
  });

  it('without an Idempotency-Key: 400; a read_only key: 403 insufficient_scope; a repeated key replays', async () => {
    const ws = await server.workspace();
    const missing = await ws.client.post('/v1/events/trigger', { type: 'test.ping' });
    expect(missing.status).toBe(400);
    expect(missing.json.error.code).toBe('idempotency_required');
    const readOnly = await keyWithRole(ws, 'read_only');
    const denied = await readOnly.post('/v1/events/trigger', { type: 'test.ping' }, idem());
    expect(denied.status).toBe(403);
    expect(denied.json.error.code).toBe('insufficient_scope');
    const headers = idem();
    const first = await ws.client.post('/v1/events/trigger', { type: 'test.ping', aggregateId: 'agg_once' }, headers);
    const again = await ws.client.post('/v1/events/trigger', { type: 'test.ping', aggregateId: 'agg_once' }, headers);
    expect(first.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect((await ws.client.get('/v1/events?objectId=agg_once')).json.data).toHaveLength(1);
  });
});

describe('GraphQL replayEvents and triggerEvent', () => {
  it('run the same rules as REST, with the idempotencyKey argument', async () => {
    const ws = await server.workspace();
    const trigger = `mutation($input: TriggerEventInput!, $key: String) {
      triggerEvent(input: $input, idempotencyKey: $key) { id type occurredAt createdAt publishedAt mode workspaceId sequence data metadata } }`;
    const t = await ws.client.graphql(trigger, {
      input: { type: 'gql.ping', aggregateId: 'agg_g', data: { x: 1 } },
      key: randomUUID(),
    });
    expect(t.json.errors).toBeUndefined();
    const event = t.json.data.triggerEvent;
    expect(event).toMatchObject({
      type: 'gql.ping',
      sequence: 1,
      data: { x: 1, aggregateId: 'agg_g' },
      metadata: { source: 'trigger' },
    });
    const stored = (await ws.client.get(`/v1/events/${event.id}`)).json.data;
    expect(stored).toEqual({ ...event, publishedAt: stored.publishedAt }); // the relay may have published it since

    const replay =
      'mutation($input: ReplayEventsInput!, $key: String) { replayEvents(input: $input, idempotencyKey: $key) { count eventIds } }';
    const r = await ws.client.graphql(replay, { input: { eventIds: [event.id] }, key: randomUUID() });
    expect(r.json.errors).toBeUndefined();
    expect(r.json.data.replayEvents.count).toBe(1);
    const replayed = (await ws.client.get(`/v1/events/${r.json.data.replayEvents.eventIds[0]}`)).json.data;
    expect(replayed).toMatchObject({
      type: 'gql.ping',
      sequence: 1,
      data: event.data,
      occurredAt: event.occurredAt,
      metadata: { replayOf: event.id, source: 'replay' },
    });

    // same codes as REST
    const noKey = await ws.client.graphql(replay, { input: { eventIds: [event.id] } });
    expect(noKey.json.errors?.[0].extensions.code).toBe('idempotency_required');
    const bad = await ws.client.graphql(replay, { input: { eventIds: [] }, key: randomUUID() });
    expect(bad.json.errors?.[0].extensions).toMatchObject({ code: 'validation_error', field: 'eventIds' });
    const unknown = await ws.client.graphql(replay, { input: { eventIds: [newId('event')] }, key: randomUUID() });
    expect(unknown.json.errors?.[0].extensions.code).toBe('not_found');
    const live = createClient({ baseUrl: server.url, ...(await mintLiveKey(ws.workspaceId)) });
    const forbidden = await live.graphql(trigger, { input: { type: 'gql.ping' }, key: randomUUID() });
    expect(forbidden.json.errors?.[0].extensions.code).toBe('forbidden_in_live_mode');
  });
});

describe('event retention (purgeExpiredEvents)', () => {
  it('deletes events created more than 90 days ago, in batches, and keeps younger ones', async () => {
    const ws = await server.workspace();
    const day = 86_400_000;
    const now = new Date();
    const old = await insertEvents(ws.workspaceId, 20_001, {
      createdAt: new Date(now.getTime() - 91 * day).toISOString(),
    });
    const kept = await insertEvents(ws.workspaceId, 5, { createdAt: new Date(now.getTime() - 89 * day).toISOString() });
    const [liveOld] = await insertEvents(ws.workspaceId, 1, {
      mode: 'live',
      createdAt: new Date(now.getTime() - 120 * day).toISOString(),
    });
    const other = await server.workspace(); // another workspace's recent events are untouched
    const otherBefore = await countEvents(other.workspaceId);
    await untilPublished(30_000); // only published events are purged

    expect(await purgeExpiredEvents(now)).toBe(20_002); // three statements: 10,000 + 10,000 + 2
    const left = async (ids: string[]) =>
      Number((await db().system.query('SELECT count(*) AS n FROM events WHERE id = ANY($1::text[])', [ids])).rows[0].n);
    expect(await left(old)).toBe(0);
    expect(await left([liveOld])).toBe(0);
    expect(await left(kept)).toBe(5);
    expect(await countEvents(other.workspaceId)).toBe(otherBefore);
    expect((await ws.client.get(`/v1/events/${kept[0]}`)).status).toBe(200);
    expect(await purgeExpiredEvents(now)).toBe(0);
  }, 60_000);
});
