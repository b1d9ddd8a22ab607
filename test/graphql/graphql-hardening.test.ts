import { afterAll, describe, expect, it } from 'vitest';
import type { Client as WsClient } from 'graphql-ws';
import { useServer, db, createClient, type Workspace } from '../helpers/server.ts';
import { signedSocket } from '../helpers/sockets.ts';
import { limits, parseCacheStats } from '../../src/graphql/parse.ts';
import { config } from '../../src/core/config.ts';
import { until } from '../helpers/receiver.ts';

const server = useServer();

const customers = async (workspaceId: string) =>
  Number(
    (await db().system.query(`SELECT count(*)::int AS n FROM customers WHERE "workspaceId" = $1`, [workspaceId]))
      .rows[0].n,
  );
const apiKeys = async (workspaceId: string) =>
  Number(
    (await db().system.query(`SELECT count(*)::int AS n FROM api_keys WHERE "workspaceId" = $1`, [workspaceId])).rows[0]
      .n,
  );

/** A second full_access key of the workspace, with a client signing as it. */
async function secondKey(ws: Workspace) {
  const made = await ws.client.post('/v1/api-keys', { name: 'socket' });
  expect(made.status, made.text).toBe(201);
  const key = {
    keyId: made.json.data.keyId as string,
    secret: made.json.data.key as string,
    id: made.json.data.id as string,
  };
  return { ...key, client: createClient({ baseUrl: server.url, keyId: key.keyId, secret: key.secret }) };
}

// ---- the socket (item 3) ----

const sockets: WsClient[] = [];
afterAll(async () => {
  await Promise.all(sockets.map((c) => c.dispose()));
});

function connect(key: { keyId: string; secret: string }) {
  const socket = signedSocket(server.url, key, { lazy: false });
  sockets.push(socket.client);
  return socket;
}

/** The first result of an operation over the socket: its data or its errors. */
function once(
  client: WsClient,
  query: string,
): Promise<{ data?: unknown; errors?: { message: string; extensions?: { code?: string } }[] }> {
  return new Promise((resolve) => {
    client.subscribe(
      { query },
      {
        next: (v) => resolve(v as never),
        error: (e) =>
          resolve({
            errors: Array.isArray(e)
              ? e
              : [{ message: e instanceof Error ? e.message : String((e as CloseEvent)?.reason ?? e) }],
          }),
        complete: () => resolve({}),
      },
    );
  });
}

describe('graphql-ws: the key is checked for the whole life of the socket', () => {
  it('revoking the key closes an open socket with 4403 within seconds', async () => {
    const ws = await server.workspace();
    const key = await secondKey(ws);
    const { client, closes, state } = connect(key);
    client.subscribe(
      { query: 'subscription { events { id } }' },
      { next: () => {}, error: () => {}, complete: () => {} },
    );
    await until(() => state.connected, 'the connection', 8000);
    expect(closes).toEqual([]);
    const revoked = await ws.client.delete(`/v1/api-keys/${key.id}`);
    expect(revoked.status).toBe(204);
    await until(() => closes.length > 0, 'the close', config.keyCacheMs * 3);
    expect(closes[0].code).toBe(4403);
  });

  it('archiving the workspace (or removing the member) closes it too', async () => {
    const ws = await server.workspace();
    const key = await secondKey(ws);
    const { client, closes, state } = connect(key);
    client.subscribe(
      { query: 'subscription { events { id } }' },
      { next: () => {}, error: () => {}, complete: () => {} },
    );
    await until(() => state.connected, 'the connection', 8000);
    // the member behind the key is removed: the key stops working
    const {
      rows: [k],
    } = await db().system.query(`SELECT "memberId" FROM api_keys WHERE id = $1`, [key.id]);
    await db().system.query(`UPDATE members SET "removedAt" = now() WHERE id = $1`, [k.memberId]);
    await until(() => closes.length > 0, 'the close', config.keyCacheMs * 3);
    expect(closes[0].code).toBe(4403);
    await db().system.query(`UPDATE members SET "removedAt" = NULL WHERE id = $1`, [k.memberId]);

    const other = await server.workspace();
    const socket = connect(other);
    socket.client.subscribe(
      { query: 'subscription { events { id } }' },
      { next: () => {}, error: () => {}, complete: () => {} },
    );
    await until(() => socket.state.connected, 'the connection', 8000);
    expect((await other.client.delete(`/v1/workspaces/${other.workspaceId}`)).status).toBe(204);
    await until(() => socket.closes.length > 0, 'the close', config.keyCacheMs * 3);
    expect(socket.closes[0].code).toBe(4403);
  });

  it('queries and mutations are refused over the socket (POST /graphql has the checks); nothing runs', async () => {
    const ws = await server.workspace();
    const { client } = connect(ws);
    const before = await apiKeys(ws.workspaceId);
    const mutation = await once(client, 'mutation { createApiKey(input: { name: "over-socket" }) { id key } }');
    expect(mutation.data ?? null).toBeNull();
    expect(mutation.errors?.[0].extensions?.code).toBe('method_not_allowed');
    expect(mutation.errors?.[0].message).toMatch(/POST \/graphql/);
    const query = await once(client, '{ apiKeys { edges { node { id } } } }');
    expect(query.data ?? null).toBeNull();
    expect(query.errors?.[0].extensions?.code).toBe('method_not_allowed');
    expect(await apiKeys(ws.workspaceId)).toBe(before);
  });

  it(`one connection holds at most ${config.maxSubscriptionsPerSocket} subscriptions`, async () => {
    const ws = await server.workspace();
    const { client } = connect(ws);
    const errors: unknown[] = [];
    for (let i = 0; i < config.maxSubscriptionsPerSocket; i++) {
      client.subscribe(
        { query: `subscription { events(types: ["t${i}"]) { id } }` },
        { next: () => {}, error: (e) => void errors.push(e), complete: () => {} },
      );
    }
    const extra = await once(client, 'subscription { events { id } }');
    expect(extra.errors?.[0].message).toMatch(/at most \d+ subscriptions/i);
    expect(errors).toEqual([]);
  });

  it('a subscription document over the limits is refused', async () => {
    const ws = await server.workspace();
    const { client } = connect(ws);
    const aliased = `subscription { ${Array.from({ length: limits.aliases + 1 }, (_, i) => `a${i}: events { id }`).join(' ')} }`;
    const res = await once(client, aliased);
    expect(res.errors?.[0].extensions?.code).toBe('validation_error');
  });
});

// ---- document limits (item 4) ----

const post = (ws: Workspace, query: string, variables?: Record<string, unknown>) =>
  ws.client.post('/graphql', { query, variables });

describe('GraphQL document limits', () => {
  it('10,000 aliased mutations are refused before anything runs', async () => {
    const ws = await server.workspace();
    const query = `mutation { ${Array.from({ length: 10_000 }, (_, i) => `c${i}: createCustomer(input: { name: "x" }) { id }`).join(' ')} }`;
    const res = await post(ws, query);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.json.data ?? null).toBeNull();
    expect(res.json.errors[0].extensions.code).toBe('payload_too_large');
    expect(await customers(ws.workspaceId)).toBe(0);
  });

  it('aliases within the byte cap are still counted: a clear 400 and no resolver runs', async () => {
    const ws = await server.workspace();
    const query = `mutation { ${Array.from({ length: 200 }, (_, i) => `c${i}: createCustomer(input: { name: "x" }) { id }`).join(' ')} }`;
    expect(Buffer.byteLength(query)).toBeLessThan(limits.bytes);
    const res = await post(ws, query);
    expect(res.status).toBe(400);
    expect(res.json.errors[0].extensions).toMatchObject({ code: 'validation_error', field: 'query' });
    expect(res.json.errors[0].message).toMatch(/200 root fields; at most 20/);
    expect(await customers(ws.workspaceId)).toBe(0);
    // aliases below the root, through a fragment spread twice, count as executed
    const nested = `query { customers { ...F ...G } } fragment F on QueryCustomersConnection { ${Array.from({ length: 16 }, (_, i) => `f${i}: limit`).join(' ')} } fragment G on QueryCustomersConnection { ...F }`;
    const aliased = await post(ws, nested);
    expect(aliased.status).toBe(400);
    expect(aliased.json.errors[0].message).toMatch(/32 aliases; at most 30/);
    // the same limits on GET
    const get = await ws.client.get(
      `/graphql?query=${encodeURIComponent(`{ ${Array.from({ length: 21 }, (_, i) => `a${i}: __typename`).join(' ')} }`)}`,
    );
    expect(get.status).toBe(400);
    expect(get.json.errors[0].message).toMatch(/21 root fields/);
  });

  it('depth and token limits', async () => {
    const ws = await server.workspace();
    const deep = await post(ws, `{ ${'__schema { types { fields { type { '.repeat(4)}name${' } } } }'.repeat(4)} }`);
    expect(deep.status).toBe(400);
    expect(deep.json.errors[0].message).toMatch(/nests selections \d+ deep; at most 15/);
    const tokens = await post(ws, `{ __typename ${'@skip(if: false) '.repeat(1200)} }`);
    expect(tokens.status).toBe(400);
    expect(tokens.json.errors[0].message).toMatch(/Document contains more tha[nt] 5000 tokens/);
    // introspection (GraphiQL, codegen) stays within them
    const { getIntrospectionQuery } = await import('graphql');
    const intro = await post(ws, getIntrospectionQuery());
    expect(intro.status, intro.text.slice(0, 300)).toBe(200);
    expect(intro.json.data.__schema.queryType.name).toBe('Query');
  });

  it('a 1 MB document is refused before it is parsed, and never cached', async () => {
    const ws = await server.workspace();
    const before = parseCacheStats();
    const query = `{ ${'__typename '.repeat(90_000)} }`;
    expect(Buffer.byteLength(query)).toBeGreaterThan(900_000);
    const res = await post(ws, query);
    expect(res.status).toBe(413);
    expect(res.json.errors[0].extensions.code).toBe('payload_too_large');
    expect(res.json.errors[0].message).toMatch(/at most 65536/);
    expect(parseCacheStats().bytes).toBe(before.bytes);
  });

  it('the parse cache stays bounded by bytes', async () => {
    const ws = await server.workspace();
    for (let i = 0; i < 40; i++) {
      const padded = `# ${String(i).padStart(4, '0')}${'x'.repeat(60_000)}\n{ __typename }`;
      const res = await post(ws, padded);
      expect(res.status).toBe(200);
    }
    // yoga's own path (another media type) shares the same bounded cache
    for (let i = 0; i < 20; i++) {
      const padded = `# y${String(i).padStart(4, '0')}${'y'.repeat(60_000)}\n{ __typename }`;
      expect(
        (await ws.client.request('POST', '/graphql', padded, { 'content-type': 'application/graphql' })).status,
      ).toBeLessThan(500);
    }
    const stats = parseCacheStats();
    expect(stats.bytes).toBeLessThanOrEqual(stats.maxBytes);
    expect(stats.entries).toBeLessThan(40);
  });

  it('each root field costs a rate-limit token', async () => {
    const ws = await server.workspace();
    const burst = config.rateLimits.read.burst;
    const query = `{ ${Array.from({ length: limits.rootFields }, (_, i) => `a${i}: __typename`).join(' ')} }`;
    const statuses: number[] = [];
    // burst / 20 documents empty the bucket (refill aside); at one token per request this would be far from it
    for (let i = 0; i < Math.ceil(burst / limits.rootFields) + 3; i++) statuses.push((await post(ws, query)).status);
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses).toContain(429);
  });

  it('an operation sent in another media type runs nothing', async () => {
    const ws = await server.workspace();
    const body = 'mutation { createCustomer(input: { name: "graphql-body" }) { id } }';
    const res = await ws.client.request('POST', '/graphql', body, { 'content-type': 'application/graphql' });
    expect(res.status).toBeLessThan(500);
    expect(await customers(ws.workspaceId)).toBe(0);
  });
});

// ---- item 14 (part): NUL in an inline literal ----

describe('string literals PostgreSQL cannot store', () => {
  it('a NUL escape in an inline literal is a 400 validation error naming the argument, not a 500', async () => {
    const ws = await server.workspace();
    for (const query of [
      'mutation { createCustomer(input: { name: "a\\u0000b" }) { id } }',
      'mutation { createCustomer(input: { name: "a\\u{0}b" }) { id } }',
    ]) {
      const res = await post(ws, query);
      expect(res.status, res.text).toBe(400);
      expect(res.json.errors[0].extensions).toMatchObject({ code: 'validation_error', field: 'input' });
    }
    expect(await customers(ws.workspaceId)).toBe(0);
  });
});
