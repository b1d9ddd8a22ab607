import { describe, expect, it } from 'vitest';
import { useServer, createClient } from '../../helpers/server.ts';
import { mintKey } from '../../helpers/keys.ts';

const server = useServer();

type Res = { status: number; json: any };
function expectError(res: Res, status: number, code: string, field?: string) {
  expect({ status: res.status, code: res.json?.error?.code, field: res.json?.error?.field }).toEqual({
    status,
    code,
    field: field ?? res.json?.error?.field,
  });
  expect(res.json.data).toBeNull();
}
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const ids = (res: Res) => (res.json.data as { id: string }[]).map((r) => r.id);

describe('POST /v1/customers', () => {
  it('creates a customer (201) with exactly the spec Customer fields and emits customer.created', async () => {
    const ws = await server.workspace();
    const res = await ws.client.post('/v1/customers', {
      name: 'Budi Santoso',
      email: 'budi@example.co.id',
      phone: '+62 812-3456-7890',
      metadata: { crm: '42' },
    });
    expect(res.status).toBe(201);
    const c = res.json.data;
    expect(Object.keys(c).sort()).toEqual([
      'createdAt',
      'defaultPaymentMethodId',
      'email',
      'externalId',
      'id',
      'metadata',
      'name',
      'phone',
      'testClockId',
      'updatedAt',
    ]);
    expect(c).toMatchObject({
      name: 'Budi Santoso',
      email: 'budi@example.co.id',
      phone: '+62 812-3456-7890',
      metadata: { crm: '42' },
    });
    expect(c.id).toMatch(/^cus_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(c.createdAt).toMatch(ISO);
    expect(c.updatedAt).toBe(c.createdAt);
    const events = await ws.client.get(`/v1/events?objectId=${c.id}`);
    expect(events.json.data).toHaveLength(1);
    expect(events.json.data[0]).toMatchObject({
      type: 'customer.created',
      mode: 'test',
      data: { id: c.id, object: c },
    });
  });

  it('accepts an empty body: every field is optional', async () => {
    const ws = await server.workspace();
    const res = await ws.client.post('/v1/customers', {});
    expect(res.status).toBe(201);
    expect(res.json.data).toMatchObject({ name: null, email: null, phone: null, metadata: null });
  });

  it.each([
    [{ email: 'not-an-email' }, 'email'],
    [{ email: 'a@b' }, 'email'],
    [{ email: `${'x'.repeat(250)}@example.com` }, 'email'],
    [{ phone: 'call me' }, 'phone'],
    [{ phone: '+1' }, 'phone'],
    [{ name: '' }, 'name'],
    [{ name: 'x'.repeat(256) }, 'name'],
    [{ name: 5 }, 'name'],
    [{ metadata: { n: 1 } }, 'metadata'],
    [{ metadata: { ['k'.repeat(41)]: 'v' } }, 'metadata'],
    [{ metadata: { k: 'v'.repeat(501) } }, 'metadata'],
    [{ metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata'],
    [{ metadata: ['a'] }, 'metadata'],
    [{ bogus: true }, 'bogus'],
  ])('%j is 400 validation_error naming %s', async (body, field) => {
    const ws = await server.workspace();
    expectError(await ws.client.post('/v1/customers', body), 400, 'validation_error', field);
  });

  it('accepts metadata at the limits (50 keys, 40-char keys, 500-char values)', async () => {
    const ws = await server.workspace();
    const metadata = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [`${String(i).padStart(2, '0')}${'k'.repeat(38)}`, 'v'.repeat(500)]),
    );
    const res = await ws.client.post('/v1/customers', { metadata });
    expect(res.status).toBe(201);
    expect(res.json.data.metadata).toEqual(metadata);
  });

  it('replays with the same Idempotency-Key and refuses a different body (409 idempotency_conflict)', async () => {
    const ws = await server.workspace();
    const first = await ws.client.post('/v1/customers', { name: 'Once' }, { 'idempotency-key': 'cus-1' });
    const again = await ws.client.post('/v1/customers', { name: 'Once' }, { 'idempotency-key': 'cus-1' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.data.id).toBe(first.json.data.id);
    expectError(
      await ws.client.post('/v1/customers', { name: 'Twice' }, { 'idempotency-key': 'cus-1' }),
      409,
      'idempotency_conflict',
    );
    expect((await ws.client.get('/v1/customers')).json.data).toHaveLength(1);
  });
});

describe('GET /v1/customers/:id', () => {
  it('returns the customer; unknown ids, other workspaces and the other mode are 404 not_found', async () => {
    const a = await server.workspace();
    const b = await server.workspace();
    const c = (await a.client.post('/v1/customers', { name: 'Mine' })).json.data;
    const got = await a.client.get(`/v1/customers/${c.id}`);
    expect(got.status).toBe(200);
    expect(got.json.data).toEqual(c);
    expectError(await b.client.get(`/v1/customers/${c.id}`), 404, 'not_found');
    expectError(await a.client.get('/v1/customers/cus_01HZZZZZZZZZZZZZZZZZZZZZZZ'), 404, 'not_found');
    expectError(await b.client.patch(`/v1/customers/${c.id}`, { name: 'Hijacked' }), 404, 'not_found');
    const gql = await b.client.graphql(`query { customer(id: "${c.id}") { id } }`);
    expect(gql.json.errors?.[0].extensions.code).toBe('not_found');
    expect((await a.client.get(`/v1/customers/${c.id}`)).json.data.name).toBe('Mine');
  });

  it('test and live customers are separate', async () => {
    const live = await server.workspace({ environment: 'live' });
    const test = createClient({ baseUrl: server.url, ...(await mintKey(live.workspaceId, 'test')) });
    const liveCustomer = (await live.client.post('/v1/customers', { name: 'Live' })).json.data;
    const testCustomer = (await test.post('/v1/customers', { name: 'Test' })).json.data;
    expect(ids(await live.client.get('/v1/customers'))).toEqual([liveCustomer.id]);
    expect(ids(await test.get('/v1/customers'))).toEqual([testCustomer.id]);
    expectError(await test.get(`/v1/customers/${liveCustomer.id}`), 404, 'not_found');
    expectError(await live.client.get(`/v1/customers/${testCustomer.id}`), 404, 'not_found');
  });
});

describe('PATCH /v1/customers/:id', () => {
  it('changes only what is sent, null clears, metadata is replaced, and customer.updated carries previousAttributes', async () => {
    const ws = await server.workspace();
    const c = (
      await ws.client.post('/v1/customers', {
        name: 'Old',
        email: 'old@example.com',
        phone: '0812345678',
        metadata: { a: '1', b: '2' },
      })
    ).json.data;
    const res = await ws.client.patch(`/v1/customers/${c.id}`, { name: 'New', phone: null, metadata: { c: '3' } });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({
      id: c.id,
      name: 'New',
      email: 'old@example.com',
      phone: null,
      metadata: { c: '3' },
      createdAt: c.createdAt,
    });
    expect(res.json.data.updatedAt >= c.updatedAt).toBe(true);
    const events = (await ws.client.get(`/v1/events?objectId=${c.id}`)).json.data;
    expect(events.map((e: { type: string }) => e.type)).toEqual(['customer.updated', 'customer.created']);
    expect(events[0].data.previousAttributes).toEqual({
      name: 'Old',
      phone: '0812345678',
      metadata: { a: '1', b: '2' },
    });
    expect(events[0].data.object).toEqual(res.json.data);
    expect(events[0].sequence).toBe(2);

    const cleared = await ws.client.patch(`/v1/customers/${c.id}`, { metadata: null });
    expect(cleared.json.data.metadata).toBeNull();
  });

  it('validates like create', async () => {
    const ws = await server.workspace();
    const c = (await ws.client.post('/v1/customers', {})).json.data;
    expectError(await ws.client.patch(`/v1/customers/${c.id}`, { email: 'nope' }), 400, 'validation_error', 'email');
    expectError(await ws.client.patch(`/v1/customers/${c.id}`, { id: 'cus_x' }), 400, 'validation_error', 'id');
    expectError(
      await ws.client.patch(`/v1/customers/${c.id}`, { createdAt: '2020-01-01T00:00:00Z' }),
      400,
      'validation_error',
      'createdAt',
    );
  });
});

describe('GET /v1/customers', () => {
  async function seeded() {
    const ws = await server.workspace();
    const made: any[] = [];
    for (let i = 0; i < 5; i++) {
      made.push(
        (
          await ws.client.post('/v1/customers', {
            name: `C${i}`,
            email: i === 3 ? 'Find.Me@Example.com' : `c${i}@example.com`,
            metadata: { tier: i % 2 ? 'gold' : 'basic', i: String(i) },
          })
        ).json.data,
      );
    }
    return { ws, made };
  }

  it('lists newest first with meta.page, default limit 50, and pages with the cursor', async () => {
    const { ws, made } = await seeded();
    const all = await ws.client.get('/v1/customers');
    expect(all.status).toBe(200);
    expect(ids(all)).toEqual(made.map((c) => c.id).reverse());
    expect(all.json.meta.page).toEqual({ limit: 50, hasMore: false, nextCursor: null });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Res = await ws.client.get(
        `/v1/customers?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(page.status).toBe(200);
      seen.push(...ids(page));
      cursor = page.json.meta.page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(ids(all));
    expect(ids(await ws.client.get('/v1/customers?order=asc'))).toEqual(made.map((c) => c.id));
  });

  it('filters by email (case-insensitive), metadata[key], since and until', async () => {
    const { ws, made } = await seeded();
    expect(ids(await ws.client.get('/v1/customers?email=find.me%40example.com'))).toEqual([made[3].id]);
    expect(ids(await ws.client.get('/v1/customers?metadata[tier]=gold'))).toEqual([made[3].id, made[1].id]);
    expect(ids(await ws.client.get('/v1/customers?metadata[tier]=gold&metadata[i]=1'))).toEqual([made[1].id]);
    expect(ids(await ws.client.get('/v1/customers?metadata[tier]=platinum'))).toEqual([]);
    // since is inclusive, until exclusive (two rows may share a millisecond, so expectations come from the rows)
    const since = made[2].createdAt;
    expect(ids(await ws.client.get(`/v1/customers?since=${encodeURIComponent(since)}&order=asc`))).toEqual(
      made.filter((m) => m.createdAt >= since).map((m) => m.id),
    );
    expect(ids(await ws.client.get(`/v1/customers?until=${encodeURIComponent(since)}&order=asc`))).toEqual(
      made.filter((m) => m.createdAt < since).map((m) => m.id),
    );
    const epoch = Math.floor(Date.parse(made[0].createdAt) / 1000) + 3600;
    expect(ids(await ws.client.get(`/v1/customers?since=${epoch}`))).toEqual([]);
  });

  it('a cursor is bound to its filters (400 invalid_cursor) and bad limits are 400 invalid_limit', async () => {
    const { ws } = await seeded();
    const page = await ws.client.get('/v1/customers?limit=1&metadata[tier]=basic');
    const cursor = encodeURIComponent(page.json.meta.page.nextCursor);
    expect((await ws.client.get(`/v1/customers?limit=1&metadata[tier]=basic&cursor=${cursor}`)).status).toBe(200);
    expectError(
      await ws.client.get(`/v1/customers?limit=1&metadata[tier]=gold&cursor=${cursor}`),
      400,
      'invalid_cursor',
    );
    expectError(await ws.client.get('/v1/customers?limit=0'), 400, 'invalid_limit');
    expectError(await ws.client.get('/v1/customers?limit=101'), 400, 'invalid_limit');
    expectError(await ws.client.get('/v1/customers?order=sideways'), 400, 'validation_error', 'order');
    expectError(await ws.client.get('/v1/customers?since=yesterday'), 400, 'validation_error', 'since');
  });

  it('never lists another workspace', async () => {
    const { made } = await seeded();
    const other = await server.workspace();
    expect((await other.client.get('/v1/customers')).json.data).toEqual([]);
    expect((await other.client.get(`/v1/customers?email=${encodeURIComponent(made[0].email)}`)).json.data).toEqual([]);
  });
});

describe('customers over GraphQL', () => {
  it('the same objects, rules and codes as REST', async () => {
    const ws = await server.workspace();
    const created = await ws.client.graphql(
      'mutation($input: CreateCustomerInput!) { createCustomer(input: $input) { id name email phone externalId metadata testClockId defaultPaymentMethodId createdAt updatedAt } }',
      {
        input: { name: 'Gql', email: 'gql@example.com', metadata: { a: 'b' } },
      },
    );
    expect(created.json.errors).toBeUndefined();
    const c = created.json.data.createCustomer;
    expect((await ws.client.get(`/v1/customers/${c.id}`)).json.data).toEqual(c);
    const list = await ws.client.graphql(
      '{ customers(first: 10, metadata: {a: "b"}) { limit edges { node { id } } } }',
    );
    expect(list.json.data.customers).toEqual({ limit: 10, edges: [{ node: { id: c.id } }] });
    const bad = await ws.client.graphql(`mutation { updateCustomer(id: "${c.id}", input: {email: "nope"}) { id } }`);
    expect(bad.json.errors?.[0].extensions).toEqual({ code: 'validation_error', field: 'email' });
  });
});

describe('customer scopes', () => {
  it('read_only keys read but cannot write; restricted keys need customers:write', async () => {
    const ws = await server.workspace();
    const c = (await ws.client.post('/v1/customers', { name: 'x' })).json.data;
    const ro = (await ws.client.post('/v1/api-keys', { name: 'ro', role: 'read_only' })).json.data;
    const roClient = createClient({ baseUrl: server.url, keyId: ro.keyId, secret: ro.key });
    expect((await roClient.get(`/v1/customers/${c.id}`)).status).toBe(200);
    expect((await roClient.get('/v1/customers')).status).toBe(200);
    expectError(await roClient.post('/v1/customers', {}), 403, 'insufficient_scope');
    expectError(await roClient.patch(`/v1/customers/${c.id}`, { name: 'y' }), 403, 'insufficient_scope');
    const restricted = (
      await ws.client.post('/v1/api-keys', { name: 'r', role: 'restricted', scopes: ['customers:read'] })
    ).json.data;
    const rClient = createClient({ baseUrl: server.url, keyId: restricted.keyId, secret: restricted.key });
    expect((await rClient.get('/v1/customers')).status).toBe(200);
    expectError(await rClient.post('/v1/customers', {}), 403, 'insufficient_scope');
    const hooks = (await ws.client.post('/v1/api-keys', { name: 'w', role: 'webhook_management_only' })).json.data;
    expectError(
      await createClient({ baseUrl: server.url, keyId: hooks.keyId, secret: hooks.key }).get('/v1/customers'),
      403,
      'insufficient_scope',
    );
  });
});

describe('customer externalId', () => {
  it('concurrent creates with one externalId: one 201, the others 409 conflict (the unique index decides)', async () => {
    const ws = await server.workspace();
    const all = await Promise.all(
      Array.from({ length: 8 }, () => ws.client.post('/v1/customers', { externalId: 'crm-race' })),
    );
    expect(all.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of all.filter((x) => x.status === 409)) expect(r.json.error.field).toBe('externalId');
  });

  it('is set on create and PATCH, cleared with null, unique per workspace and mode (409 conflict)', async () => {
    const ws = await server.workspace();
    const a = await ws.client.post('/v1/customers', { name: 'A', externalId: 'crm-1' });
    expect(a.status).toBe(201);
    expect(a.json.data.externalId).toBe('crm-1');
    expectError(await ws.client.post('/v1/customers', { externalId: 'crm-1' }), 409, 'conflict', 'externalId');
    expectError(
      await ws.client.post('/v1/customers', { externalId: 'has space' }),
      400,
      'validation_error',
      'externalId',
    );
    expectError(
      await ws.client.post('/v1/customers', { externalId: 'x'.repeat(129) }),
      400,
      'validation_error',
      'externalId',
    );
    const b = (await ws.client.post('/v1/customers', { name: 'B' })).json.data;
    expect(b.externalId).toBeNull();
    expectError(await ws.client.patch(`/v1/customers/${b.id}`, { externalId: 'crm-1' }), 409, 'conflict', 'externalId');
    // Its own value again is no conflict.
    expect((await ws.client.patch(`/v1/customers/${a.json.data.id}`, { externalId: 'crm-1' })).status).toBe(200);
    const cleared = await ws.client.patch(`/v1/customers/${a.json.data.id}`, { externalId: null });
    expect(cleared.json.data.externalId).toBeNull();
    expect((await ws.client.patch(`/v1/customers/${b.id}`, { externalId: 'crm-1' })).json.data.externalId).toBe(
      'crm-1',
    );
    const events = (await ws.client.get(`/v1/events?objectId=${b.id}&order=asc`)).json.data;
    expect(events.at(-1)).toMatchObject({
      type: 'customer.updated',
      data: { object: { externalId: 'crm-1' }, previousAttributes: { externalId: null } },
    });
    // Another workspace may use the same value.
    const other = await server.workspace();
    expect((await other.client.post('/v1/customers', { externalId: 'crm-1' })).status).toBe(201);
  });
});
