import { describe, expect, it } from 'vitest';
import { useServer, createClient, untilPublished, db } from '../helpers/server.ts';
import { mintKey } from '../helpers/keys.ts';
import { signRequest } from '../../src/client/index.ts';

const server = useServer();

const API_KEY = 'id keyId name role scopes environment lastUsedAt createdAt revokedAt';
const WORKSPACE =
  'id accountId name slug region defaultCurrency timezone mode brandName businessEmail portalSettings createdAt updatedAt archivedAt';
const EVENT = 'id type occurredAt createdAt publishedAt mode workspaceId sequence data metadata';
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

type Gql = {
  status: number;
  json: { data: any; errors?: { message: string; extensions: { code: string; field?: string } }[] };
};
const nodes = (conn: { edges: { node: unknown }[] }) => conn.edges.map((e) => e.node);
function ok(res: Gql) {
  expect(res.status).toBe(200);
  expect(res.json.errors).toBeUndefined();
  return res.json.data;
}

/**
 * A live workspace whose test keys are never used to sign after setup, so their lastUsedAt
 * cannot move between the REST and the GraphQL read: one used once (with `waitForLastUsed`, its
 * lastUsedAt is flushed before the reads), one restricted, one revoked.
 */
async function fixture(opts: { waitForLastUsed?: boolean } = {}) {
  const ws = await server.workspace({ name: 'Parity Shop', environment: 'live' });
  // a live key may not mint or revoke test keys: they are written behind the API
  const at = (ms: number) => new Date(Date.now() - ms);
  const minted = async (name: string, role: string, scopes: string[], createdAt: Date) => {
    const k = await mintKey(ws.workspaceId, 'test', { name, role, scopes, createdAt });
    if (name === 'gone') await db().system.query(`UPDATE api_keys SET "revokedAt" = now() WHERE id = $1`, [k.id]);
    // the key as the API returns it at creation: the object plus its secret
    return { ...(await ws.client.get(`/v1/api-keys/${k.id}`)).json.data, key: k.secret };
  };
  const used = await minted('used once', 'read_only', [], at(3));
  const restricted = await minted('narrow', 'restricted', ['svc:payment:read', 'svc:refund:write'], at(2));
  const revoked = await minted('gone', 'webhook_management_only', [], at(1));
  const usedClient = createClient({ baseUrl: server.url, keyId: used.keyId, secret: used.key });
  expect((await usedClient.get('/v1/api-keys')).status).toBe(200);
  const deadline = Date.now() + 5000;
  while (opts.waitForLastUsed && (await ws.client.get(`/v1/api-keys/${used.id}`)).json.data.lastUsedAt === null) {
    if (Date.now() > deadline) throw new Error('lastUsedAt never set');
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(
    (
      await ws.client.patch(`/v1/workspaces/${ws.workspaceId}`, {
        brandName: 'Parity Brand',
        businessEmail: 'billing@parity.example',
      })
    ).status,
  ).toBe(200);
  return { ws, used, restricted, revoked, usedClient };
}

describe('REST data equals the GraphQL field result', () => {
  it('listApiKeys', async () => {
    const { ws, used, restricted, revoked } = await fixture({ waitForLastUsed: true });
    const rest = await ws.client.get('/v1/api-keys?environment=test&includeRevoked=true');
    expect(rest.status).toBe(200);
    const gql = ok(
      await ws.client.graphql(
        `query { apiKeys(environment: "test", includeRevoked: true) { limit pageInfo { hasNextPage endCursor } edges { node { ${API_KEY} } } } }`,
      ),
    );
    expect(nodes(gql.apiKeys)).toEqual(rest.json.data);
    expect(rest.json.data.map((k: { id: string }) => k.id)).toEqual([revoked.id, restricted.id, used.id]);
    expect(rest.json.meta.page).toEqual({
      limit: gql.apiKeys.limit,
      hasMore: gql.apiKeys.pageInfo.hasNextPage,
      nextCursor: null,
    });

    // Same values and spellings, and a real timestamp in each timestamp field.
    const [r, n, u] = rest.json.data;
    expect(r).toMatchObject({ role: 'webhook_management_only', environment: 'test', scopes: [] });
    expect(r.revokedAt).toMatch(ISO);
    expect(n).toMatchObject({
      role: 'restricted',
      scopes: ['svc:payment:read', 'svc:refund:write'],
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(u).toMatchObject({ role: 'read_only', environment: 'test', revokedAt: null });
    expect(u.lastUsedAt).toMatch(ISO);
    for (const k of rest.json.data) {
      expect(k.createdAt).toMatch(ISO);
      expect(k.keyId).toMatch(/^pk_test_[0-9a-f]{12}$/);
      expect(k).not.toHaveProperty('key');
    }
  });

  it('listApiKeys with pagination: the REST cursor pages GraphQL identically', async () => {
    const { ws } = await fixture({ waitForLastUsed: true });
    const rest1 = await ws.client.get('/v1/api-keys?environment=test&includeRevoked=true&limit=2');
    const gql1 = ok(
      await ws.client.graphql(
        `query { apiKeys(first: 2, environment: "test", includeRevoked: true) { limit pageInfo { hasNextPage } edges { node { ${API_KEY} } } } }`,
      ),
    );
    expect(nodes(gql1.apiKeys)).toEqual(rest1.json.data);
    expect(rest1.json.meta.page).toMatchObject({ limit: 2, hasMore: true });
    expect(gql1.apiKeys).toMatchObject({ limit: 2, pageInfo: { hasNextPage: true } });

    const cursor = rest1.json.meta.page.nextCursor as string;
    const rest2 = await ws.client.get(
      `/v1/api-keys?environment=test&includeRevoked=true&limit=2&cursor=${encodeURIComponent(cursor)}`,
    );
    const gql2 = ok(
      await ws.client.graphql(
        `query($after: String) { apiKeys(first: 2, after: $after, environment: "test", includeRevoked: true) { pageInfo { hasNextPage endCursor } edges { node { ${API_KEY} } } } }`,
        { after: cursor },
      ),
    );
    expect(rest2.json.data).toHaveLength(1);
    expect(nodes(gql2.apiKeys)).toEqual(rest2.json.data);
    expect(rest2.json.meta.page).toEqual({ limit: 2, hasMore: false, nextCursor: null });
    expect(gql2.apiKeys.pageInfo).toEqual({ hasNextPage: false, endCursor: null });
  });

  it('getApiKey', async () => {
    const { ws, used, restricted, revoked } = await fixture({ waitForLastUsed: true });
    for (const key of [used, restricted, revoked]) {
      const rest = await ws.client.get(`/v1/api-keys/${key.id}`);
      expect(rest.status).toBe(200);
      const gql = ok(await ws.client.graphql(`query($id: ID!) { apiKey(id: $id) { ${API_KEY} } }`, { id: key.id }));
      expect(gql.apiKey).toEqual(rest.json.data);
      expect(rest.json.data.id).toBe(key.id);
      expect(rest.json.data.createdAt).toBe(key.createdAt);
    }
  });

  it('getWorkspace and listWorkspaces', async () => {
    const { ws } = await fixture();
    const rest = await ws.client.get(`/v1/workspaces/${ws.workspaceId}`);
    expect(rest.status).toBe(200);
    const gql = ok(
      await ws.client.graphql(
        `query($id: ID!) { workspace(id: $id) { ${WORKSPACE} } workspaces { edges { node { ${WORKSPACE} } } } }`,
        { id: ws.workspaceId },
      ),
    );
    expect(gql.workspace).toEqual(rest.json.data);
    expect(rest.json.data).toMatchObject({
      id: ws.workspaceId,
      accountId: ws.accountId,
      region: 'id-jakarta',
      // bootstrapped with a live key: activated (docs/decisions.md, Workspace lifecycle)
      mode: 'live',
      brandName: 'Parity Brand',
      businessEmail: 'billing@parity.example',
      archivedAt: null,
    });
    expect(rest.json.data.createdAt).toMatch(ISO);
    expect(rest.json.data.updatedAt).toMatch(ISO);
    const restList = await ws.client.get('/v1/workspaces');
    expect(nodes(gql.workspaces)).toEqual(restList.json.data);
    expect(restList.json.data).toEqual([rest.json.data]);
  });

  it('listEvents and getEvent', async () => {
    const { ws } = await fixture();
    await untilPublished(); // both reads then see the same publishedAt
    const rest = await ws.client.get('/v1/events');
    expect(rest.status).toBe(200);
    const gql = ok(
      await ws.client.graphql(`query { events { limit pageInfo { hasNextPage } edges { node { ${EVENT} } } } }`),
    );
    expect(nodes(gql.events)).toEqual(rest.json.data);
    expect(rest.json.meta.page).toEqual({ limit: 20, hasMore: false, nextCursor: null });
    expect(gql.events.limit).toBe(20);
    expect(rest.json.data.map((e: { type: string }) => e.type)).toEqual(['workspace.updated', 'workspace.created']);
    for (const e of rest.json.data) {
      expect(e.id).toMatch(/^evt_/);
      expect(e.occurredAt).toMatch(ISO);
      expect(e.createdAt).toMatch(ISO);
      expect(e.mode).toBe('live');
      expect(e.sequence).toEqual(expect.any(Number));
      const one = await ws.client.get(`/v1/events/${e.id}`);
      const gqlOne = ok(await ws.client.graphql(`query($id: ID!) { event(id: $id) { ${EVENT} } }`, { id: e.id }));
      expect(one.json.data).toEqual(e);
      expect(gqlOne.event).toEqual(e);
    }
    // The workspace snapshot inside the event has the REST shape.
    const restWs = await ws.client.get(`/v1/workspaces/${ws.workspaceId}`);
    expect(rest.json.data[0].data.object).toEqual(restWs.json.data);
  });

  it('listEvents with filters and ascending order', async () => {
    const { ws } = await fixture();
    const since = new Date(Date.now() - 60_000).toISOString();
    const rest = await ws.client.get(`/v1/events?order=asc&type=workspace.created&since=${encodeURIComponent(since)}`);
    const gql = ok(
      await ws.client.graphql(
        `query($since: DateTime) { events(order: "asc", type: "workspace.created", occurredAfter: $since) { edges { node { ${EVENT} } } } }`,
        { since },
      ),
    );
    expect(rest.json.data).toHaveLength(1);
    expect(nodes(gql.events)).toEqual(rest.json.data);
    const all = await ws.client.get('/v1/events?order=asc');
    const gqlAll = ok(await ws.client.graphql(`query { events(order: "asc") { edges { node { ${EVENT} } } } }`));
    expect(nodes(gqlAll.events)).toEqual(all.json.data);
    expect(all.json.data.map((e: { type: string }) => e.type)).toEqual(['workspace.created', 'workspace.updated']);
  });
});

describe('errors match', () => {
  it('not_found for unknown ids, in both', async () => {
    const { ws } = await fixture();
    const cases = [
      [
        '/v1/api-keys/akey_01HZZZZZZZZZZZZZZZZZZZZZZZ',
        'query { apiKey(id: "akey_01HZZZZZZZZZZZZZZZZZZZZZZZ") { id } }',
      ],
      ['/v1/events/evt_01HZZZZZZZZZZZZZZZZZZZZZZZ', 'query { event(id: "evt_01HZZZZZZZZZZZZZZZZZZZZZZZ") { id } }'],
      [
        '/v1/workspaces/ws_01HZZZZZZZZZZZZZZZZZZZZZZZ',
        'query { workspace(id: "ws_01HZZZZZZZZZZZZZZZZZZZZZZZ") { id } }',
      ],
    ];
    for (const [path, query] of cases) {
      const rest = await ws.client.get(path);
      const gql = await ws.client.graphql(query);
      expect(rest.status).toBe(404);
      expect(rest.json.error.code).toBe('not_found');
      expect(gql.json.errors![0].extensions.code).toBe('not_found');
      expect(gql.json.errors![0].message).toBe(rest.json.error.message);
    }
  });

  it('insufficient_scope, validation_error (with field), invalid_limit and cannot_revoke_self, in both', async () => {
    const { ws, used, usedClient } = await fixture();
    const pairs: [Promise<{ json: any }>, Promise<Gql>][] = [
      [
        usedClient.post('/v1/api-keys', { name: 'x', environment: 'test' }),
        usedClient.graphql('mutation { createApiKey(input: { name: "x", environment: "test" }) { id } }'),
      ],
      [
        ws.client.post('/v1/api-keys', { name: 'n'.repeat(81) }),
        ws.client.graphql('mutation($n: String!) { createApiKey(input: { name: $n }) { id } }', { n: 'n'.repeat(81) }),
      ],
      [
        ws.client.post('/v1/api-keys', { name: 'x', scopes: ['payments:read'] }),
        ws.client.graphql('mutation { createApiKey(input: { name: "x", scopes: ["payments:read"] }) { id } }'),
      ],
      [
        ws.client.post('/v1/api-keys', { name: 'x', role: 'owner' }),
        ws.client.graphql('mutation { createApiKey(input: { name: "x", role: "owner" }) { id } }'),
      ],
      [ws.client.get('/v1/api-keys?limit=0'), ws.client.graphql('query { apiKeys(first: 0) { limit } }')],
      [ws.client.get('/v1/api-keys?limit=101'), ws.client.graphql('query { apiKeys(first: 101) { limit } }')],
      [
        ws.client.delete(`/v1/api-keys/${(await ws.client.get('/v1/api-keys?environment=live')).json.data[0].id}`),
        ws.client.graphql(
          `mutation { revokeApiKey(id: "${(await ws.client.get('/v1/api-keys?environment=live')).json.data[0].id}") { id } }`,
        ),
      ],
      [
        ws.client.patch(`/v1/workspaces/${ws.workspaceId}`, { region: 'sg-singapore' }),
        ws.client.graphql(
          `mutation { updateWorkspace(id: "${ws.workspaceId}", input: { region: "sg-singapore" }) { id } }`,
        ),
      ],
    ];
    const seen: string[] = [];
    for (const [restP, gqlP] of pairs) {
      const [rest, gql] = [await restP, await gqlP];
      expect(gql.json.errors, JSON.stringify(gql.json)).toHaveLength(1);
      const g = gql.json.errors![0].extensions;
      expect({ code: g.code, field: g.field }).toEqual({ code: rest.json.error.code, field: rest.json.error.field });
      seen.push(rest.json.error.field ? `${rest.json.error.code}:${rest.json.error.field}` : rest.json.error.code);
    }
    expect(seen).toEqual([
      'insufficient_scope',
      'validation_error:name',
      'validation_error:scopes',
      'validation_error:role',
      'invalid_limit:limit',
      'invalid_limit:limit',
      'cannot_revoke_self',
      'region_immutable:region',
    ]);
    expect(used.role).toBe('read_only');
  });
});

describe('GraphQL authentication', () => {
  it('an unsigned POST /graphql is 401 with extensions.code invalid_signature', async () => {
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ apiKeys { edges { node { id } } } }' }),
    });
    expect(res.status).toBe(401);
    const json = await res.json();
    expect(json.errors[0].extensions.code).toBe('invalid_signature');
    expect(json.data ?? null).toBeNull();
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('a GraphQL body tampered with after signing is 401 invalid_signature; an unknown key is invalid_key', async () => {
    const ws = await server.workspace();
    const body = JSON.stringify({ query: '{ apiKeys { edges { node { id } } } }' });
    const signed = signRequest({ keyId: ws.keyId, secret: ws.secret, method: 'POST', target: '/graphql', body });
    const post = (b: string, headers: Record<string, string>) =>
      fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: b,
      });
    const good = await post(body, signed);
    expect(good.status).toBe(200);
    const tampered = await post(JSON.stringify({ query: '{ workspaces { edges { node { id } } } }' }), signed);
    expect(tampered.status).toBe(401);
    expect((await tampered.json()).errors[0].extensions.code).toBe('invalid_signature');

    const ghost = createClient({
      baseUrl: server.url,
      keyId: 'pk_test_0123456789ab',
      secret: `sk_test_${'0'.repeat(48)}`,
    });
    const res = await ghost.graphql('{ apiKeys { edges { node { id } } } }');
    expect(res.status).toBe(401);
    expect(res.json.errors![0].extensions.code).toBe('invalid_key');
  });
});

describe('GraphQL mutations', () => {
  it('createApiKey returns the key once, in the same shape as REST, and the key signs requests', async () => {
    const ws = await server.workspace();
    const gql = ok(
      await ws.client.graphql(
        `mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { ${API_KEY} key } }`,
        {
          input: { name: 'from graphql', role: 'restricted', scopes: ['apiKeys:read', 'events:read'] },
        },
      ),
    );
    const created = gql.createApiKey;
    expect(created).toMatchObject({
      name: 'from graphql',
      role: 'restricted',
      environment: 'test',
      scopes: ['svc:api_key:read', 'svc:event:read'],
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(created.key).toMatch(/^sk_test_[0-9a-f]{48}$/);
    expect(created.keyId).toMatch(/^pk_test_[0-9a-f]{12}$/);
    expect(created.createdAt).toMatch(ISO);

    const rest = await ws.client.post('/v1/api-keys', {
      name: 'from rest',
      role: 'restricted',
      scopes: ['apiKeys:read', 'events:read'],
    });
    expect(Object.keys(rest.json.data).sort()).toEqual(Object.keys(created).sort());

    // Afterwards the secret is never returned, in either surface.
    const again = ok(
      await ws.client.graphql(`query($id: ID!) { apiKey(id: $id) { ${API_KEY} key } }`, { id: created.id }),
    );
    expect(again.apiKey.key).toBeNull();
    const { key: _secret, ...withoutKey } = created;
    expect(again.apiKey).toMatchObject(withoutKey);
    expect((await ws.client.get(`/v1/api-keys/${created.id}`)).json.data).toEqual(
      Object.fromEntries(Object.entries(again.apiKey).filter(([k]) => k !== 'key')),
    );

    const client = createClient({ baseUrl: server.url, keyId: created.keyId, secret: created.key });
    const mine = ok(await client.graphql('{ apiKeys { edges { node { id } } } }'));
    expect(nodes(mine.apiKeys).map((n: any) => n.id)).toContain(created.id);
    expect((await client.get('/v1/events')).status).toBe(200);
    // Its scopes hold in GraphQL too.
    const denied = await client.graphql(
      'mutation { createApiKey(input: { name: "nope", role: "restricted", scopes: ["events:read"] }) { id } }',
    );
    expect(denied.json.errors![0].extensions.code).toBe('insufficient_scope');
  });

  it('revokeApiKey over GraphQL revokes like DELETE', async () => {
    const ws = await server.workspace();
    const other = (await ws.client.post('/v1/api-keys', { name: 'to revoke' })).json.data;
    const gql = ok(
      await ws.client.graphql(`mutation($id: ID!) { revokeApiKey(id: $id) { id revokedAt } }`, { id: other.id }),
    );
    expect(gql.revokeApiKey.id).toBe(other.id);
    expect(gql.revokeApiKey.revokedAt).toMatch(ISO);
    const client = createClient({ baseUrl: server.url, keyId: other.keyId, secret: other.key });
    expect((await client.get('/v1/api-keys')).json.error.code).toBe('invalid_key');
    expect((await ws.client.get(`/v1/api-keys/${other.id}`)).json.data.revokedAt).toBe(gql.revokeApiKey.revokedAt);
  });
});
