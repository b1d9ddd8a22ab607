// Two server instances on one database: instance A is this process (useServer), instance B is a
// separate `svc serve` process. Events committed through one reach subscribers of the other
// through PostgreSQL's NOTIFY, and tenant and mode boundaries still hold.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { useServer, db, createClient, untilPublished, type Workspace } from '../helpers/server.ts';
import { startInstance, type Instance } from '../helpers/cli.ts';
import { collect } from '../helpers/subscription.ts';
import { mintLiveKey } from '../helpers/keys.ts';
import { signRequest } from '../../src/core/auth/signing.ts';

const server = useServer(); // instance A
let b: Instance; // instance B
beforeAll(async () => {
  b = await startInstance(server.dbUrl);
}, 60_000);

const sockets: WsClient[] = [];
afterAll(async () => {
  await Promise.all(sockets.map((c) => c.dispose()));
  await b?.stop();
});

type Key = Pick<Workspace, 'keyId' | 'secret'>;
const clientOn = (baseUrl: string, key: Key) => createClient({ baseUrl, keyId: key.keyId, secret: key.secret });

const liveKeyFor = (ws: Workspace): Promise<Key> => mintLiveKey(ws.workspaceId);

interface Received {
  id: string;
  type: string;
  workspaceId: string;
  mode: string;
}

/** Subscribes to `events` on the instance at `baseUrl`, authenticated by `key` in connectionParams. */
function subscribe(baseUrl: string, key: Key) {
  const client = createWsClient({
    url: `${baseUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    connectionParams: () => {
      const h = signRequest({ keyId: key.keyId, secret: key.secret, method: 'GET', target: '/graphql', body: '' });
      return { authorization: h.authorization, timestamp: h['x-svc-timestamp'] };
    },
  });
  sockets.push(client);
  return collect<Received>(
    client,
    'subscription { events { id type workspaceId mode } }',
    'events',
    () => `\ninstance B stderr:\n${b.stderr()}`,
  );
}

/** A PATCH of the workspace through the given instance: commits one workspace.updated event. */
async function rename(baseUrl: string, key: Key, workspaceId: string, name: string) {
  const res = await clientOn(baseUrl, key).patch(`/v1/workspaces/${workspaceId}`, { name });
  expect(res.status, res.text).toBe(200);
  return res.headers.get('x-request-id')!;
}

describe('two instances on one database', () => {
  it('instance B serves the same data, and its commits are visible through A', async () => {
    const ws = await server.workspace();
    const viaB = await clientOn(b.url, ws).get('/v1/api-keys');
    expect(viaB.status).toBe(200);
    expect(viaB.json.data.map((k: { id: string }) => k.id)).toEqual([ws.apiKeyId]);
    const requestId = await rename(b.url, ws, ws.workspaceId, 'Renamed on B');
    const onA = await ws.client.get('/v1/events?type=workspace.updated');
    expect(onA.json.data).toHaveLength(1);
    expect(onA.json.data[0].metadata.requestId).toBe(requestId);
  });

  it("a workspace.updated committed through B reaches A's subscriber, and neither another workspace's nor a live key's", async () => {
    const ws = await server.workspace();
    const other = await server.workspace({ name: 'Other' });
    const live = await liveKeyFor(ws);

    const mine = subscribe(server.url, ws);
    const otherWs = subscribe(server.url, other);
    const liveMode = subscribe(server.url, live);

    // Make every subscription live first (each with its own commits through B), so the negative
    // checks below are not passed by a subscription that simply had not started yet.
    let n = 0;
    const causedOnB: string[] = [];
    const pokeMine = async () => causedOnB.push(await rename(b.url, ws, ws.workspaceId, `Mine ${n++}`));
    const pokeOther = () => rename(b.url, other, other.workspaceId, `Other ${n++}`);
    const pokeLive = () => rename(b.url, live, ws.workspaceId, `Live ${n++}`);
    await mine.until(() => mine.received.length > 0, pokeMine);
    await otherWs.until(() => otherWs.received.length > 0, pokeOther);
    await liveMode.until(() => liveMode.received.length > 0, pokeLive);

    // Now three test-mode commits in `ws`, all through B.
    const before = mine.received.length;
    const otherSeen = otherWs.received.length;
    const liveSeen = liveMode.received.length;
    for (let i = 0; i < 3; i++) causedOnB.push(await rename(b.url, ws, ws.workspaceId, `Burst ${i}`));
    // Every commit is listed by now; wait for the newest to arrive (a poke above may still be in flight too).
    const listed = await ws.client.get('/v1/events?type=workspace.updated&order=asc&limit=100');
    const newest = listed.json.data.at(-1).id;
    await mine.until(() => mine.received.length >= before + 3 && mine.received.some((e) => e.id === newest));

    // A received exactly the events B committed, each once, in commit order. (A test key sees its
    // workspace's test and live events, spec Events, so the live rename above is among them.)
    const ids = mine.received.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(listed.json.data.map((e: Received) => e.id).slice(-ids.length));
    expect(mine.received.every((e) => e.type === 'workspace.updated' && e.workspaceId === ws.workspaceId)).toBe(true);
    const burst = mine.received.slice(-3);
    expect(burst.map((e) => e.mode)).toEqual(['test', 'test', 'test']);
    for (const e of burst) {
      const event = await ws.client.get(`/v1/events/${e.id}`);
      expect(causedOnB).toContain(event.json.data.metadata.requestId);
    }
    const burstIds = burst.map((e) => e.id);

    // A later commit reaches each negative subscriber, so the burst above would have arrived by now.
    await pokeOther();
    await pokeLive();
    await otherWs.until(() => otherWs.received.length > otherSeen);
    await liveMode.until(() => liveMode.received.length > liveSeen);
    expect(otherWs.received.every((e) => e.workspaceId === other.workspaceId)).toBe(true);
    expect(liveMode.received.every((e) => e.workspaceId === ws.workspaceId && e.mode === 'live')).toBe(true);
    for (const id of burstIds) {
      expect(otherWs.received.map((e) => e.id)).not.toContain(id);
      expect(liveMode.received.map((e) => e.id)).not.toContain(id);
    }
  });

  it("a commit through A reaches B's subscriber", async () => {
    const ws = await server.workspace();
    // The bootstrap's own event first: relayed after the subscription is live, it would be the first one B yields.
    await untilPublished();
    const sub = subscribe(b.url, ws);
    let n = 0;
    const causedOnA: string[] = [];
    await sub.until(
      () => sub.received.length > 0,
      async () => causedOnA.push(await rename(server.url, ws, ws.workspaceId, `A ${n++}`)),
    );
    const event = await ws.client.get(`/v1/events/${sub.received[0].id}`);
    expect(causedOnA).toContain(event.json.data.metadata.requestId);
  });

  it("A keeps delivering B's commits after its LISTEN connection is dropped", async () => {
    const ws = await server.workspace();
    const sub = subscribe(server.url, ws);
    let n = 0;
    const poke = () => rename(b.url, ws, ws.workspaceId, `Before ${n++}`);
    await sub.until(() => sub.received.length > 0, poke);
    // Both instances' notification connections are cut, as by a database restart or failover.
    const { rows } = await db().system.query(
      `SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN svc_%' AND pid <> pg_backend_pid()`,
    );
    expect(rows.length).toBeGreaterThanOrEqual(2);
    const seen = sub.received.length;
    await sub.until(
      () => sub.received.length > seen,
      () => rename(b.url, ws, ws.workspaceId, `After ${n++}`),
      15_000,
    );
    expect(sub.received.at(-1)).toMatchObject({ type: 'workspace.updated', workspaceId: ws.workspaceId });
  });
});
