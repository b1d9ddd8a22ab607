import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { useServer, createClient, db } from './helpers/server.ts';
import { randomBytes } from 'node:crypto';
import { newId } from '../src/core/ids.ts';
import { mintKey } from './helpers/keys.ts';

const server = useServer();

type Res = { status: number; json: any };
function expectError(res: Res, status: number, code: string) {
  expect({ status: res.status, code: res.json?.error?.code }).toEqual({ status, code });
  expect(res.json.data).toBeNull();
}
const ids = (res: Res) => (res.json.data as { id: string }[]).map((r) => r.id);
const gqlCode = (res: Res) => res.json.errors?.[0]?.extensions?.code;

/** A workspace with a few more keys and events than the bootstrap gives it. */
async function populated(name: string) {
  const ws = await server.workspace({ name });
  const minted: string[] = [];
  for (const n of ['one', 'two']) {
    const res = await ws.client.post('/v1/api-keys', { name: `${name} ${n}` });
    expect(res.status).toBe(201);
    minted.push(res.json.data.id);
  }
  expect((await ws.client.patch(`/v1/workspaces/${ws.workspaceId}`, { brandName: `${name} brand` })).status).toBe(200);
  const events = await ws.client.get('/v1/events');
  expect(events.json.data.length).toBe(2);
  return { ...ws, keyIds: [ws.apiKeyId, ...minted], eventIds: ids(events) };
}

describe('cross-workspace reads answer 404 not_found', () => {
  it("for another workspace's API key, via REST and GraphQL", async () => {
    const a = await populated('Alpha');
    const b = await populated('Bravo');
    for (const id of a.keyIds) {
      expectError(await b.client.get(`/v1/api-keys/${id}`), 404, 'not_found');
      const gql = await b.client.graphql(`query { apiKey(id: "${id}") { id } }`);
      expect(gqlCode(gql)).toBe('not_found');
      expect(gql.json.data?.apiKey ?? null).toBeNull();
    }
    // Same answer as for an id that exists nowhere: existence is not revealed.
    const ghost = await b.client.get('/v1/api-keys/akey_01HZZZZZZZZZZZZZZZZZZZZZZZ');
    const foreign = await b.client.get(`/v1/api-keys/${a.apiKeyId}`);
    expect(foreign.status).toBe(ghost.status);
    expect(foreign.json.error).toEqual(ghost.json.error);
  });

  it("for revoking another workspace's API key, which stays active", async () => {
    const a = await populated('Alpha');
    const b = await populated('Bravo');
    expectError(await b.client.delete(`/v1/api-keys/${a.keyIds[1]}`), 404, 'not_found');
    const gql = await b.client.graphql(`mutation { revokeApiKey(id: "${a.keyIds[2]}") { id revokedAt } }`);
    expect(gqlCode(gql)).toBe('not_found');
    const still = await a.client.get('/v1/api-keys');
    expect(ids(still).sort()).toEqual([...a.keyIds].sort());
  });

  it("for another workspace's event, via REST and GraphQL", async () => {
    const a = await populated('Alpha');
    const b = await populated('Bravo');
    for (const id of a.eventIds) {
      expectError(await b.client.get(`/v1/events/${id}`), 404, 'not_found');
      const gql = await b.client.graphql(`query { event(id: "${id}") { id } }`);
      expect(gqlCode(gql)).toBe('not_found');
      // The owner sees it.
      expect((await a.client.get(`/v1/events/${id}`)).status).toBe(200);
    }
  });

  it('for another (non-partner) workspace, to read or to change', async () => {
    const a = await populated('Alpha');
    const b = await populated('Bravo');
    expectError(await b.client.get(`/v1/workspaces/${a.workspaceId}`), 404, 'not_found');
    expectError(await b.client.patch(`/v1/workspaces/${a.workspaceId}`, { name: 'Hijacked' }), 404, 'not_found');
    const gql = await b.client.graphql(`query { workspace(id: "${a.workspaceId}") { id name } }`);
    expect(gqlCode(gql)).toBe('not_found');
    expect((await a.client.get(`/v1/workspaces/${a.workspaceId}`)).json.data.name).toBe('Alpha');
  });
});

describe('lists never show other workspaces', () => {
  it('API keys, events and workspaces of B contain only B, over REST and GraphQL', async () => {
    const a = await populated('Alpha');
    const b = await populated('Bravo');

    expect(ids(await b.client.get('/v1/api-keys?includeRevoked=true')).sort()).toEqual([...b.keyIds].sort());
    expect(ids(await a.client.get('/v1/api-keys?includeRevoked=true')).sort()).toEqual([...a.keyIds].sort());

    const events = await b.client.get('/v1/events?limit=100');
    expect(ids(events).sort()).toEqual([...b.eventIds].sort());
    expect(new Set(events.json.data.map((e: { workspaceId: string }) => e.workspaceId))).toEqual(
      new Set([b.workspaceId]),
    );
    // workspaceId is a partner-only filter: other keys have it ignored, never honoured.
    expect(ids(await b.client.get(`/v1/events?workspaceId=${a.workspaceId}`)).sort()).toEqual([...b.eventIds].sort());
    // objectId of A's workspace finds nothing in B.
    expect((await b.client.get(`/v1/events?objectId=${a.workspaceId}`)).json.data).toEqual([]);

    expect(ids(await b.client.get('/v1/workspaces'))).toEqual([b.workspaceId]);

    const gql = await b.client.graphql(`query {
      apiKeys(includeRevoked: true) { edges { node { id } } }
      events(first: 100) { edges { node { id workspaceId } } }
      workspaces { edges { node { id } } }
    }`);
    expect(gql.json.errors).toBeUndefined();
    expect(gql.json.data.apiKeys.edges.map((e: { node: { id: string } }) => e.node.id).sort()).toEqual(
      [...b.keyIds].sort(),
    );
    expect(gql.json.data.events.edges.map((e: { node: { id: string } }) => e.node.id).sort()).toEqual(
      [...b.eventIds].sort(),
    );
    expect(gql.json.data.workspaces.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual([b.workspaceId]);
  });

  it('a cursor issued to A is refused to B (400 invalid_cursor)', async () => {
    const a = await populated('Alpha');
    const b = await populated('Bravo');
    const page = await a.client.get('/v1/api-keys?limit=1');
    expect(page.json.meta.page.hasMore).toBe(true);
    const cursor = page.json.meta.page.nextCursor as string;
    expect((await a.client.get(`/v1/api-keys?limit=1&cursor=${encodeURIComponent(cursor)}`)).status).toBe(200);
    expectError(await b.client.get(`/v1/api-keys?limit=1&cursor=${encodeURIComponent(cursor)}`), 400, 'invalid_cursor');
  });

  it("a partner cannot read another partner's merchant events (404)", async () => {
    const p1 = await server.workspace({ platformAdmin: true });
    const p2 = await server.workspace({ platformAdmin: true });
    const m = (await p1.client.post('/v1/workspaces', { name: 'P1 merchant' })).json.data;
    expect((await p1.client.get(`/v1/events?workspaceId=${m.id}`)).json.data).toHaveLength(1);
    expectError(await p2.client.get(`/v1/events?workspaceId=${m.id}`), 404, 'not_found');
    expectError(await p2.client.get(`/v1/workspaces/${m.id}`), 404, 'not_found');
    expect(ids(await p2.client.get('/v1/workspaces'))).toEqual([]);
    const onBehalf = createClient({ baseUrl: server.url, keyId: p2.keyId, secret: p2.secret, onBehalfOf: m.accountId });
    expectError(await onBehalf.get('/v1/events'), 404, 'not_found');
  });
});

describe('modes', () => {
  /** A live workspace (its workspace.created is live) plus a test key whose writes emit test events. */
  async function liveAndTest() {
    const live = await server.workspace({ name: 'Live Co', environment: 'live' });
    // a live key cannot mint test keys (keys act on their own mode): the twin is minted behind the API
    expect((await live.client.post('/v1/api-keys', { name: 'test twin', environment: 'test' })).status).toBe(403);
    const minted = await mintKey(live.workspaceId, 'test');
    const test = createClient({ baseUrl: server.url, keyId: minted.keyId, secret: minted.secret });
    expect((await test.patch(`/v1/workspaces/${live.workspaceId}`, { brandName: 'Test brand' })).status).toBe(200);
    return { live, test, testKeyId: minted.id };
  }

  it('a live key sees live events only; a test key sees test and live', async () => {
    const { live, test } = await liveAndTest();
    const fromTest = await test.get('/v1/events');
    expect(fromTest.status).toBe(200);
    expect(fromTest.json.data.map((e: { type: string; mode: string }) => [e.type, e.mode])).toEqual([
      ['workspace.updated', 'test'],
      ['workspace.created', 'live'],
    ]);
    const [testEvent, liveEvent] = fromTest.json.data;

    const fromLive = await live.client.get('/v1/events');
    expect(ids(fromLive)).toEqual([liveEvent.id]);
    expectError(await live.client.get(`/v1/events/${testEvent.id}`), 404, 'not_found');
    expect(gqlCode(await live.client.graphql(`query { event(id: "${testEvent.id}") { id } }`))).toBe('not_found');
    expect((await live.client.get(`/v1/events/${liveEvent.id}`)).status).toBe(200);
    expect((await test.get(`/v1/events/${liveEvent.id}`)).status).toBe(200);
    expect((await test.get(`/v1/events/${testEvent.id}`)).status).toBe(200);
    expect((await live.client.get('/v1/events?type=workspace.updated')).json.data).toEqual([]);
  });

  it('API key lists default to both environments and filter by environment', async () => {
    const { live, test, testKeyId } = await liveAndTest();
    for (const client of [live.client, test]) {
      expect(ids(await client.get('/v1/api-keys')).sort()).toEqual([live.apiKeyId, testKeyId].sort());
      expect(ids(await client.get('/v1/api-keys?environment=live'))).toEqual([live.apiKeyId]);
      expect(ids(await client.get('/v1/api-keys?environment=test'))).toEqual([testKeyId]);
    }
  });
});

describe('row-level security (svc_app role, raw SQL)', () => {
  async function asApp<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
    const c = new pg.Client({ connectionString: server.dbUrl });
    await c.connect();
    try {
      await c.query('SET ROLE svc_app');
      return await fn(c);
    } finally {
      await c.end();
    }
  }
  const tables = ['api_keys', 'events', 'workspaces', 'members', 'idempotency_keys'] as const;
  const count = async (c: pg.Client | pg.Pool, table: string, where = 'true', params: unknown[] = []) =>
    (await c.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, params)).rows[0].n as number;
  const wsColumn = (t: string) => (t === 'workspaces' ? 'id' : '"workspaceId"');

  async function seeded() {
    const a = await populated('Alpha');
    const b = await populated('Bravo');
    for (const w of [a, b]) {
      const res = await w.client.post('/v1/api-keys', { name: 'idem' }, { 'idempotency-key': `idem-${w.workspaceId}` });
      expect(res.status).toBe(201);
    }
    // A live-mode key row in A, written behind the API (a test bootstrap cannot mint one).
    await db().system.query(
      `INSERT INTO api_keys (id, "workspaceId", mode, "keyId", name, role, scopes, "signingKey", "createdAt") VALUES ($1, $2, 'live', $3, 'live row', 'full_access', '{}', '\\x00', now())`,
      [newId('apiKey'), a.workspaceId, `pk_live_${randomBytes(6).toString('hex')}`],
    );
    return { a, b };
  }

  it('sees nothing without app.workspace_id, although rows exist', async () => {
    const { a, b } = await seeded();
    for (const t of tables) {
      for (const w of [a, b])
        expect(await count(db().system, t, `${wsColumn(t)} = $1`, [w.workspaceId]), t).toBeGreaterThan(0);
    }
    await asApp(async (c) => {
      expect((await c.query('SELECT current_user AS u')).rows[0].u).toBe('svc_app');
      for (const t of tables) expect(await count(c, t), t).toBe(0);
      // Modes alone open nothing either.
      await c.query(`SELECT set_config('app.modes', 'test,live', false)`);
      for (const t of tables) expect(await count(c, t), t).toBe(0);
    });
  });

  it("with app.workspace_id = A and app.modes = test, sees only A's test rows", async () => {
    const { a, b } = await seeded();
    await asApp(async (c) => {
      await c.query(`SELECT set_config('app.workspace_id', $1, false), set_config('app.modes', 'test', false)`, [
        a.workspaceId,
      ]);
      for (const t of tables) {
        const all = await count(c, t);
        expect(all, t).toBeGreaterThan(0);
        expect(await count(c, t, `${wsColumn(t)} <> $1`, [a.workspaceId]), t).toBe(0);
        expect(await count(c, t, `${wsColumn(t)} = $1`, [b.workspaceId]), t).toBe(0);
      }
      // Exactly A's test-mode rows, as the owner role counts them.
      for (const t of ['api_keys', 'events', 'idempotency_keys']) {
        expect(await count(c, t), t).toBe(
          await count(db().system, t, `"workspaceId" = $1 AND mode = 'test'`, [a.workspaceId]),
        );
        expect(await count(c, t, `mode <> 'test'`), t).toBe(0);
      }
      expect(await count(c, 'members')).toBe(
        await count(db().system, 'members', '"workspaceId" = $1', [a.workspaceId]),
      );
      // The live row appears once live is among the modes.
      expect(await count(c, 'api_keys', `mode = 'live'`)).toBe(0);
      await c.query(`SELECT set_config('app.modes', 'test,live', false)`);
      expect(await count(c, 'api_keys', `mode = 'live'`)).toBe(1);
      // Switching the workspace switches the view entirely.
      await c.query(`SELECT set_config('app.workspace_id', $1, false)`, [b.workspaceId]);
      expect(await count(c, 'api_keys', `"workspaceId" = $1`, [a.workspaceId])).toBe(0);
      expect(await count(c, 'api_keys')).toBe(
        await count(db().system, 'api_keys', `"workspaceId" = $1`, [b.workspaceId]),
      );
    });
  });

  it('refuses writes outside the scope with an RLS violation, and cannot touch foreign rows', async () => {
    const { a, b } = await seeded();
    await asApp(async (c) => {
      await c.query(`SELECT set_config('app.workspace_id', $1, false), set_config('app.modes', 'test', false)`, [
        a.workspaceId,
      ]);
      const rlsViolation = expect.objectContaining({
        code: '42501',
        message: expect.stringContaining('row-level security'),
      });

      await expect(
        c.query(
          `INSERT INTO members (id, "workspaceId", email, role) VALUES ($1, $2, 'intruder@example.com', 'admin')`,
          [newId('member'), b.workspaceId],
        ),
      ).rejects.toEqual(rlsViolation);
      await expect(
        c.query(
          `INSERT INTO events (id, "workspaceId", mode, type, sequence, "occurredAt", data, metadata) VALUES ($1, $2, 'test', 'x.forged', 1, now(), '{}', '{}')`,
          [newId('event'), b.workspaceId],
        ),
      ).rejects.toEqual(rlsViolation);
      // Own workspace but a mode outside app.modes is refused too.
      await expect(
        c.query(
          `INSERT INTO events (id, "workspaceId", mode, type, sequence, "occurredAt", data, metadata) VALUES ($1, $2, 'live', 'x.forged', 1, now(), '{}', '{}')`,
          [newId('event'), a.workspaceId],
        ),
      ).rejects.toEqual(rlsViolation);
      // Moving an own row into another workspace is refused.
      await expect(
        c.query(`UPDATE members SET "workspaceId" = $1 WHERE "workspaceId" = $2`, [b.workspaceId, a.workspaceId]),
      ).rejects.toEqual(rlsViolation);
      // Foreign rows are invisible to UPDATE and DELETE.
      expect(
        (await c.query(`UPDATE api_keys SET name = 'pwned' WHERE "workspaceId" = $1`, [b.workspaceId])).rowCount,
      ).toBe(0);
      expect((await c.query(`DELETE FROM members WHERE "workspaceId" = $1`, [b.workspaceId])).rowCount).toBe(0);
      expect((await c.query(`UPDATE workspaces SET name = 'pwned' WHERE id = $1`, [b.workspaceId])).rowCount).toBe(0);
      // An in-scope write works, proving the connection itself is usable.
      expect(
        (
          await c.query(
            `INSERT INTO members (id, "workspaceId", email, role) VALUES ($1, $2, 'new@example.com', 'member')`,
            [newId('member'), a.workspaceId],
          )
        ).rowCount,
      ).toBe(1);
    });
    expect(await count(db().system, 'api_keys', `name = 'pwned'`)).toBe(0);
    expect(await count(db().system, 'workspaces', `name = 'pwned'`)).toBe(0);
    expect(
      await count(db().system, 'members', `"workspaceId" = $1 AND email = 'intruder@example.com'`, [b.workspaceId]),
    ).toBe(0);
    expect(await count(db().system, 'events', `type = 'x.forged'`)).toBe(0);
    expect((await b.client.get(`/v1/workspaces/${b.workspaceId}`)).json.data.name).toBe('Bravo');
  });
});
