import { afterAll, describe, expect, it } from 'vitest';
import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { useServer, createClient, untilPublished, type Workspace } from '../../helpers/server.ts';
import { collect } from '../../helpers/subscription.ts';
import { mintLiveKey } from '../../helpers/keys.ts';
import { signRequest } from '../../../src/core/auth/signing.ts';
import { newId } from '../../../src/core/ids.ts';
import { futureClockEvent, insertEvent } from '../../helpers/events.ts';

const server = useServer();

const T0 = Date.parse('2026-03-01T12:00:00.000Z'); // whole seconds, so epoch-second bounds are exact
const epoch = (ms: number) => String(Math.floor(ms / 1000));

/** A live-mode key for an existing workspace, with a client signing as it. */
async function liveKeyFor(ws: Workspace) {
  const key = await mintLiveKey(ws.workspaceId);
  return { ...key, client: createClient({ baseUrl: server.url, ...key }) };
}

const ids = (res: { json: any }) => res.json.data.map((e: { id: string }) => e.id);

describe('GET /v1/events filters', () => {
  it('type matches exactly', async () => {
    const ws = await server.workspace();
    const a = await insertEvent(ws.workspaceId, { type: 'payout.paid', at: T0 });
    await insertEvent(ws.workspaceId, { type: 'payout.paid.extra', at: T0 + 1000 });
    await insertEvent(ws.workspaceId, { type: 'payout', at: T0 + 2000 });
    await insertEvent(ws.workspaceId, { type: 'PAYOUT.PAID', at: T0 + 3000 });
    const res = await ws.client.get('/v1/events?type=payout.paid');
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([a]);
    expect((await ws.client.get('/v1/events?type=payout.%25')).json.data).toEqual([]);
    expect((await ws.client.get('/v1/events?type=nothing.here')).json.data).toEqual([]);
  });

  it('occurredAfter/since and occurredBefore/until are strict, in ISO and epoch seconds', async () => {
    const ws = await server.workspace();
    const e = [];
    for (let i = 0; i < 5; i++) e.push(await insertEvent(ws.workspaceId, { type: 'time.test', at: T0 + i * 1000 }));
    const q = (s: string) => ws.client.get(`/v1/events?type=time.test&order=asc&${s}`).then(ids);
    const iso = (i: number) => new Date(T0 + i * 1000).toISOString();

    expect(await q(`occurredAfter=${iso(1)}`)).toEqual(e.slice(2));
    expect(await q(`since=${iso(1)}`)).toEqual(e.slice(2));
    expect(await q(`occurredAfter=${epoch(T0 + 1000)}`)).toEqual(e.slice(2));
    expect(await q(`since=${epoch(T0 + 1000)}`)).toEqual(e.slice(2));

    expect(await q(`occurredBefore=${iso(3)}`)).toEqual(e.slice(0, 3));
    expect(await q(`until=${iso(3)}`)).toEqual(e.slice(0, 3));
    expect(await q(`occurredBefore=${epoch(T0 + 3000)}`)).toEqual(e.slice(0, 3));
    expect(await q(`until=${epoch(T0 + 3000)}`)).toEqual(e.slice(0, 3));

    expect(await q(`since=${iso(1)}&until=${iso(3)}`)).toEqual([e[2]]);
    expect(await q(`occurredAfter=${epoch(T0 + 1000)}&occurredBefore=${epoch(T0 + 2000)}`)).toEqual([]);
    // one millisecond either side of an event includes it
    expect(
      await q(`occurredAfter=${new Date(T0 + 999).toISOString()}&occurredBefore=${new Date(T0 + 1001).toISOString()}`),
    ).toEqual([e[1]]);
    // an ISO time with an offset is the same instant
    expect(await q(`occurredAfter=${encodeURIComponent('2026-03-01T19:00:03+07:00')}`)).toEqual([e[4]]);
  });

  it('objectId matches data.id', async () => {
    const ws = await server.workspace();
    await ws.client.patch(`/v1/workspaces/${ws.workspaceId}`, { name: 'Renamed once' });
    await insertEvent(ws.workspaceId, { type: 'other.thing', at: T0, objectId: 'po_01ZZZZZZZZZZZZZZZZZZZZZZZZ' });
    const res = await ws.client.get(`/v1/events?objectId=${ws.workspaceId}&order=asc`);
    expect(res.json.data.map((e: any) => e.type)).toEqual(['workspace.created', 'workspace.updated']);
    for (const e of res.json.data) expect(e.data.id).toBe(ws.workspaceId);
    const other = await ws.client.get('/v1/events?objectId=po_01ZZZZZZZZZZZZZZZZZZZZZZZZ');
    expect(other.json.data).toHaveLength(1);
    expect(other.json.data[0].data.id).toBe('po_01ZZZZZZZZZZZZZZZZZZZZZZZZ');
    expect((await ws.client.get('/v1/events?objectId=ws_unknown')).json.data).toEqual([]);
  });

  it('order asc and desc, newest first by default, and limit defaults to 20', async () => {
    const ws = await server.workspace();
    const e = [];
    for (let i = 0; i < 25; i++) e.push(await insertEvent(ws.workspaceId, { type: 'order.test', at: T0 + i * 1000 }));
    const def = await ws.client.get('/v1/events?type=order.test');
    expect(def.json.data).toHaveLength(20);
    expect(def.json.meta.page).toMatchObject({ limit: 20, hasMore: true });
    expect(ids(def)).toEqual([...e].reverse().slice(0, 20));
    expect(ids(await ws.client.get('/v1/events?type=order.test&order=desc&limit=25'))).toEqual([...e].reverse());
    expect(ids(await ws.client.get('/v1/events?type=order.test&order=asc&limit=25'))).toEqual(e);
    const bad = await ws.client.get('/v1/events?order=up');
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: 'validation_error', field: 'order' });
  });

  it('filters of another workspace are not honoured for merchant keys', async () => {
    const a = await server.workspace();
    const b = await server.workspace();
    await insertEvent(b.workspaceId, { type: 'b.only', at: T0 });
    // workspaceId is for platform-admin keys; a merchant key's is ignored
    const res = await a.client.get(`/v1/events?workspaceId=${b.workspaceId}`);
    expect(res.status).toBe(200);
    expect(res.json.data.every((e: any) => e.workspaceId === a.workspaceId)).toBe(true);
    expect(res.json.data.some((e: any) => e.type === 'b.only')).toBe(false);
  });
});

describe('order: commit order, occurredAt is data', () => {
  it("a test clock's future event, then a normal one: limit=1 is the normal one; pages keep commit order", async () => {
    const ws = await server.workspace();
    const future = await futureClockEvent(ws);
    const customer = await ws.client.post('/v1/customers', { name: 'Committed after' });
    expect(customer.status, customer.text).toBe(201);
    await untilPublished();
    const newest = (await ws.client.get('/v1/events?limit=1')).json.data;
    expect(newest.map((e: { type: string; data: { id: string } }) => [e.type, e.data.id])).toEqual([
      ['customer.created', customer.json.data.id],
    ]);
    // Pages of 2, both ways, are the one page of everything; the 2027 event sits where it committed.
    const all = ids(await ws.client.get('/v1/events?limit=100'));
    expect(all.indexOf(future.id)).toBeGreaterThan(0);
    for (const order of ['desc', 'asc']) {
      const paged: string[] = [];
      let cursor: string | null = null;
      do {
        const res: { status: number; text: string; json: any } = await ws.client.get(
          `/v1/events?limit=2&order=${order}${cursor ? `&cursor=${cursor}` : ''}`,
        );
        expect(res.status, res.text).toBe(200);
        paged.push(...ids(res));
        cursor = res.json.meta.page.nextCursor;
      } while (cursor);
      expect(paged).toEqual(order === 'desc' ? all : [...all].reverse());
    }
    // The GraphQL list is the same list.
    const gql = await ws.client.post('/graphql', { query: '{ events(first: 1) { edges { node { id type } } } }' });
    expect(gql.json.data.events.edges[0].node).toEqual({ id: all[0], type: 'customer.created' });
  });
});

describe('GET /v1/events/:id', () => {
  it('retrieves an event with the full envelope', async () => {
    const ws = await server.workspace();
    const patched = await ws.client.patch(`/v1/workspaces/${ws.workspaceId}`, { brandName: 'Acme Brand' });
    expect(patched.status).toBe(200);
    await untilPublished(); // both reads then see the same publishedAt
    const list = await ws.client.get(`/v1/events?type=workspace.updated`);
    expect(list.json.data).toHaveLength(1);
    const event = list.json.data[0];
    const res = await ws.client.get(`/v1/events/${event.id}`);
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual(event);
    for (const k of ['id', 'type', 'occurredAt', 'createdAt', 'publishedAt', 'mode', 'workspaceId', 'data', 'metadata'])
      expect(res.json.data).toHaveProperty(k);
    expect(event.id).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(event.occurredAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(event.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(event.publishedAt === null || typeof event.publishedAt === 'string').toBe(true);
    expect(event).toMatchObject({ type: 'workspace.updated', mode: 'test', workspaceId: ws.workspaceId });
    expect(event.data).toMatchObject({
      id: ws.workspaceId,
      object: { id: ws.workspaceId, brandName: 'Acme Brand' },
      previousAttributes: { brandName: null },
    });
    expect(event.metadata.requestId).toBe(patched.headers.get('x-request-id'));
    expect(event.metadata.requestId).toBe(patched.json.meta.requestId);
  });

  it('is 404 not_found for an unknown id and for another workspace', async () => {
    const a = await server.workspace();
    const b = await server.workspace();
    const missing = await a.client.get(`/v1/events/${newId('event')}`);
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ data: null, error: { code: 'not_found' } });
    const bEvent = await insertEvent(b.workspaceId, { type: 'b.secret', at: T0 });
    const foreign = await a.client.get(`/v1/events/${bEvent}`);
    expect(foreign.status).toBe(404);
    expect(foreign.json.error.code).toBe('not_found');
    expect((await b.client.get(`/v1/events/${bEvent}`)).status).toBe(200);
  });
});

describe('mode visibility', () => {
  it('a test key sees test and live events; a live key sees only live ones', async () => {
    const ws = await server.workspace();
    const live = await insertEvent(ws.workspaceId, { type: 'live.thing', at: T0, mode: 'live' });
    const testEvent = await insertEvent(ws.workspaceId, { type: 'test.thing', at: T0 + 1000, mode: 'test' });
    const liveClient = (await liveKeyFor(ws)).client;

    const asTest = await ws.client.get('/v1/events?limit=100');
    expect(asTest.json.data.map((e: any) => e.id)).toEqual(expect.arrayContaining([live, testEvent]));
    expect(new Set(asTest.json.data.map((e: any) => e.mode))).toEqual(new Set(['test', 'live']));

    const asLive = await liveClient.get('/v1/events?limit=100');
    expect(asLive.status).toBe(200);
    expect(ids(asLive)).toEqual([live]);
    expect(asLive.json.data[0].mode).toBe('live');

    expect((await liveClient.get(`/v1/events/${live}`)).status).toBe(200);
    const hidden = await liveClient.get(`/v1/events/${testEvent}`);
    expect(hidden.status).toBe(404);
    expect(hidden.json.error.code).toBe('not_found');
    expect((await ws.client.get(`/v1/events/${live}`)).status).toBe(200);
    // and the test-mode workspace.created never reaches the live key, even by filter
    expect((await liveClient.get('/v1/events?type=workspace.created')).json.data).toEqual([]);
  });
});

describe('sequence and request ids', () => {
  it('counts 1, 2, 3 per object and carries the causing request id', async () => {
    const ws = await server.workspace();
    const p1 = await ws.client.patch(`/v1/workspaces/${ws.workspaceId}`, { name: 'First' });
    const p2 = await ws.client.patch(`/v1/workspaces/${ws.workspaceId}`, { name: 'Second' });
    expect(p1.status).toBe(200);
    expect(p2.status).toBe(200);
    const res = await ws.client.get(`/v1/events?objectId=${ws.workspaceId}&order=asc`);
    const events = res.json.data;
    expect(events.map((e: any) => [e.type, e.sequence])).toEqual([
      ['workspace.created', 1],
      ['workspace.updated', 2],
      ['workspace.updated', 3],
    ]);
    expect(events[1].metadata.requestId).toBe(p1.headers.get('x-request-id'));
    expect(events[2].metadata.requestId).toBe(p2.headers.get('x-request-id'));
    expect(events[1].data.object.name).toBe('First');
    expect(events[2].data.object.name).toBe('Second');
    expect(events[2].data.previousAttributes).toEqual({ name: 'First' });
    // sequences are per object: another workspace starts at 1 again
    const other = await server.workspace();
    await other.client.patch(`/v1/workspaces/${other.workspaceId}`, { name: 'Other' });
    const o = await other.client.get(`/v1/events?objectId=${other.workspaceId}&order=asc`);
    expect(o.json.data.map((e: any) => e.sequence)).toEqual([1, 2]);
  });

  it('a failed update emits nothing', async () => {
    const ws = await server.workspace();
    const bad = await ws.client.patch(`/v1/workspaces/${ws.workspaceId}`, { timezone: 'Nowhere/Else' });
    expect(bad.status).toBe(400);
    const res = await ws.client.get(`/v1/events?type=workspace.updated`);
    expect(res.json.data).toEqual([]);
  });
});

// ---- GraphQL subscriptions over graphql-ws ----

const sockets: WsClient[] = [];
afterAll(async () => {
  await Promise.all(sockets.map((c) => c.dispose()));
});

function connect(ws: Pick<Workspace, 'keyId' | 'secret'>, opts: { tamper?: boolean } = {}) {
  const closes: { code: number; reason: string }[] = [];
  const client = createWsClient({
    url: `${server.url.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: true,
    connectionParams: () => {
      const h = signRequest({ keyId: ws.keyId, secret: ws.secret, method: 'GET', target: '/graphql', body: '' });
      const authorization = opts.tamper
        ? h.authorization.replace(/signature=([0-9a-f])/, (_m, c) => `signature=${c === '0' ? '1' : '0'}`)
        : h.authorization;
      return { authorization, timestamp: h['x-svc-timestamp'] };
    },
    on: { closed: (e) => closes.push({ code: (e as CloseEvent).code, reason: (e as CloseEvent).reason }) },
  });
  sockets.push(client);
  return { client, closes };
}

interface Received {
  id: string;
  type: string;
  workspaceId: string;
}

function subscribe(client: WsClient, query = 'subscription { events { id type workspaceId } }') {
  return collect<Received>(client, query, 'events');
}

describe('GraphQL subscription events', () => {
  it('delivers workspace.updated to a subscriber of the workspace', async () => {
    const ws = await server.workspace();
    await untilPublished(); // workspace.created would otherwise be published after the subscription starts
    const { client } = connect(ws);
    const sub = subscribe(client);
    const patches: string[] = [];
    // The subscription starts asynchronously; patch until an event arrives, then check it.
    await sub.until(
      () => sub.received.length > 0,
      async () =>
        patches.push(
          (await ws.client.patch(`/v1/workspaces/${ws.workspaceId}`, { name: `Live ${patches.length}` })).headers.get(
            'x-request-id',
          )!,
        ),
    );
    const first = sub.received[0];
    expect(first).toMatchObject({ type: 'workspace.updated', workspaceId: ws.workspaceId });
    expect(first.id).toMatch(/^evt_/);
    // the delivered event is the archived one, caused by one of our requests
    const archived = await ws.client.get(`/v1/events/${first.id}`);
    expect(patches).toContain(archived.json.data.metadata.requestId);

    // once live, every later commit is delivered exactly once, in order
    const before = sub.received.length;
    const more = [];
    for (let i = 0; i < 3; i++)
      more.push((await ws.client.patch(`/v1/workspaces/${ws.workspaceId}`, { name: `More ${i}` })).status);
    expect(more).toEqual([200, 200, 200]);
    await sub.until(() => sub.received.length >= before + 3);
    // A sentinel commit: the stream is in published position (docs/architecture.md, Events), so a
    // repeat of the earlier events would come before it; the checks below see it last.
    expect((await ws.client.patch(`/v1/workspaces/${ws.workspaceId}`, { name: 'Sentinel' })).status).toBe(200);
    await sub.until(() => sub.received.length >= before + 4);
    const ids = sub.received.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    const listed = await ws.client.get(`/v1/events?type=workspace.updated&order=asc&limit=100`);
    expect(ids).toEqual(listed.json.data.map((e: any) => e.id).slice(-ids.length));
    sub.dispose();
  });

  it('filters by types and objectId', async () => {
    const ws = await server.workspace();
    const { client } = connect(ws);
    const typed = subscribe(client, 'subscription { events(types: ["workspace.updated"]) { id type workspaceId } }');
    const other = subscribe(client, `subscription { events(types: ["never.happens"]) { id type workspaceId } }`);
    const byObject = subscribe(
      client,
      `subscription { events(objectId: "${ws.workspaceId}") { id type workspaceId } }`,
    );
    let n = 0;
    await typed.until(
      () => typed.received.length > 0 && byObject.received.length > 0,
      () => ws.client.patch(`/v1/workspaces/${ws.workspaceId}`, { name: `N${n++}` }),
    );
    expect(typed.received.every((e) => e.type === 'workspace.updated')).toBe(true);
    expect(other.received).toEqual([]);
    typed.dispose();
    other.dispose();
    byObject.dispose();
  });

  it('a subscriber of workspace B never receives A events', async () => {
    const a = await server.workspace();
    const b = await server.workspace();
    const { client } = connect(b);
    const sub = subscribe(client);
    let n = 0;
    const patchB = () => b.client.patch(`/v1/workspaces/${b.workspaceId}`, { name: `B${n++}` });
    await sub.until(() => sub.received.length > 0, patchB); // B's subscription is live
    for (let i = 0; i < 3; i++)
      expect((await a.client.patch(`/v1/workspaces/${a.workspaceId}`, { name: `A${i}` })).status).toBe(200);
    const seen = sub.received.length;
    await patchB(); // a later B event proves A's earlier ones were passed over, not still in flight
    await sub.until(() => sub.received.length > seen);
    expect(sub.received.every((e) => e.workspaceId === b.workspaceId)).toBe(true);
    sub.dispose();
  });

  it('a bad signature in connectionParams closes the connection', async () => {
    const ws = await server.workspace();
    const { client, closes } = connect(ws, { tamper: true });
    const sub = subscribe(client);
    await expect(sub.until(() => false, undefined, 5000)).rejects.toThrow(/subscription failed/);
    expect(closes.length).toBeGreaterThan(0);
    expect(closes[0].code).toBe(4403);
  });

  it('missing connectionParams close the connection too', async () => {
    const closes: number[] = [];
    const client = createWsClient({
      url: `${server.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      on: { closed: (e) => closes.push((e as CloseEvent).code) },
    });
    sockets.push(client);
    const sub = subscribe(client);
    await expect(sub.until(() => false, undefined, 5000)).rejects.toThrow(/subscription failed/);
    expect(closes[0]).toBe(4403);
  });

  it('a live key subscriber does not see test-mode events', async () => {
    const ws = await server.workspace();
    const live = await liveKeyFor(ws);
    const { client } = connect(live);
    const sub = subscribe(client);
    const liveIds: string[] = [];
    const pokeLive = async () =>
      liveIds.push(await insertEvent(ws.workspaceId, { type: 'live.tick', at: Date.now(), mode: 'live' }));
    await sub.until(() => sub.received.length > 0, pokeLive);
    // test-mode commits in the same workspace: one inserted, one through the API
    await insertEvent(ws.workspaceId, { type: 'test.tick', at: Date.now(), mode: 'test' });
    expect((await ws.client.patch(`/v1/workspaces/${ws.workspaceId}`, { name: 'test-mode change' })).status).toBe(200);
    const seen = sub.received.length;
    await pokeLive();
    await sub.until(() => sub.received.length > seen);
    expect(sub.received.every((e) => e.type === 'live.tick')).toBe(true);
    expect(sub.received.map((e) => e.id).every((id) => liveIds.includes(id))).toBe(true);
    sub.dispose();
  });
});

describe('streams resume and carry any size', () => {
  const customer = (ws: Workspace, name: string) =>
    ws.client.post('/v1/customers', { name }).then((r) => r.json.data.id as string);

  it('a reconnecting subscriber resumes after its last event: what committed meanwhile comes first, once, in commit order', async () => {
    const ws = await server.workspace();
    await untilPublished();
    const first = subscribe(
      connect(ws).client,
      'subscription { events(types: ["customer.created"]) { id type workspaceId } }',
    );
    await first.until(
      () => first.received.length > 0,
      () => customer(ws, 'before'),
    );
    const last = first.received.at(-1)!;
    first.dispose();
    const missed = [];
    for (let i = 0; i < 3; i++) missed.push(await customer(ws, `while away ${i}`));
    await untilPublished();
    const resumed = subscribe(
      connect(ws).client,
      `subscription { events(types: ["customer.created"], after: "${last.id}") { id type workspaceId data } }`,
    );
    await resumed.until(() => resumed.received.length >= 3);
    expect(resumed.received.slice(0, 3).map((e) => (e as unknown as { data: { id: string } }).data.id)).toEqual(missed);
    // A sentinel committed now comes after anything the resume could wrongly repeat (stream order is
    // published position): once it is in, the stream holds exactly the missed events and it.
    const sentinel = await customer(ws, 'sentinel');
    await resumed.until(() => resumed.received.length >= 4);
    const seen = resumed.received.map((e) => (e as unknown as { data: { id: string } }).data.id);
    expect(seen).toEqual([...missed, sentinel]); // nothing twice, nothing from before `after`
  });

  it('an event far larger than the 8000-byte NOTIFY cap arrives whole (notifications carry positions, rows are read)', async () => {
    const ws = await server.workspace();
    await untilPublished();
    const sub = subscribe(
      connect(ws).client,
      'subscription { events(types: ["big.one"]) { id type workspaceId data } }',
    );
    const blob = 'x'.repeat(20_000);
    await sub.until(
      () => sub.received.length > 0,
      () =>
        ws.client.post(
          '/v1/events/trigger',
          { type: 'big.one', aggregateId: 'agg_big', data: { blob } },
          { 'idempotency-key': newId('request') },
        ),
    );
    expect((sub.received[0] as unknown as { data: { blob: string } }).data.blob).toBe(blob);
  });
});
