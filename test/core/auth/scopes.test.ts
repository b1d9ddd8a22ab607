import { describe, expect, it } from 'vitest';
import { useServer, createClient, db, type Workspace } from '../../helpers/server.ts';
import { randomUUID } from 'node:crypto';
import { newId } from '../../../src/core/ids.ts';
import { allows, scopeCatalog, type Grant, type MemberRole, type Scope } from '../../../src/core/auth/scopes.ts';
import { scopesDoc } from '../../../scripts/docs.ts';
import { joinMember, useMailOutbox } from '../../helpers/members.ts';

const server = useServer();
// Invitation emails of this file land in a temporary outbox.
const outbox = useMailOutbox();

type Res = { status: number; json: any };
function expectError(res: Res, status: number, code: string, field?: string) {
  expect({ status: res.status, code: res.json?.error?.code }).toEqual({ status, code });
  expect(res.json.data).toBeNull();
  if (field !== undefined) expect(res.json.error.field).toBe(field);
}

/** Mints a key with the given body and returns a client signed with it. */
async function mint(ws: Workspace, body: Record<string, unknown>, opts: { onBehalfOf?: string } = {}) {
  const res = await ws.client.post('/v1/api-keys', { name: 'minted', ...body });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  const key = res.json.data;
  return { ...key, client: createClient({ baseUrl: server.url, keyId: key.keyId, secret: key.key, ...opts }) } as {
    id: string;
    keyId: string;
    key: string;
    role: string;
    scopes: string[];
    environment: string;
    client: ReturnType<typeof createClient>;
  };
}

/** A member inserted behind the API (members have no create route that yields a key). */
async function insertMember(workspaceId: string, role: 'admin' | 'member' | 'read_only') {
  const id = newId('member');
  await db().system.query(
    `INSERT INTO members (id, "workspaceId", email, role, status, "joinedAt", "createdAt") VALUES ($1, $2, $3, $4, 'joined', now(), now())`,
    [id, workspaceId, `${role}-${id.slice(-6).toLowerCase()}@example.com`, role],
  );
  return id;
}

/** A fresh key re-pointed at another member before its first use (so no cache holds the old member). */
async function keyActingFor(ws: Workspace, memberId: string) {
  const key = await mint(ws, { name: 'acting' });
  await db().system.query(`UPDATE api_keys SET "memberId" = $1 WHERE id = $2`, [memberId, key.id]);
  return key;
}

describe('key roles', () => {
  it('read_only can list and retrieve API keys but not create or revoke them', async () => {
    const ws = await server.workspace();
    const ro = await mint(ws, { role: 'read_only' });
    expect(ro.role).toBe('read_only');
    expect(ro.scopes).toEqual([]);
    const list = await ro.client.get('/v1/api-keys');
    expect(list.status).toBe(200);
    expect(list.json.data.map((k: { id: string }) => k.id).sort()).toEqual([ws.apiKeyId, ro.id].sort());
    expect((await ro.client.get(`/v1/api-keys/${ws.apiKeyId}`)).status).toBe(200);
    expectError(await ro.client.post('/v1/api-keys', { name: 'nope' }), 403, 'insufficient_scope');
    expectError(await ro.client.delete(`/v1/api-keys/${ws.apiKeyId}`), 403, 'insufficient_scope');
    expectError(
      await ro.client.patch(`/v1/workspaces/${ws.workspaceId}`, { name: 'Renamed' }),
      403,
      'insufficient_scope',
    );
    expect((await ro.client.get(`/v1/workspaces/${ws.workspaceId}`)).status).toBe(200);
    expect((await ro.client.get('/v1/events')).status).toBe(200);
    // Nothing was minted by the refused call.
    expect((await ws.client.get('/v1/api-keys')).json.data).toHaveLength(2);
  });

  it('a restricted key with apiKeys:write mints restricted keys within its scopes only', async () => {
    const ws = await server.workspace();
    const admin = await mint(ws, { role: 'restricted', scopes: ['apiKeys:write', 'apiKeys:read', 'payments:read'] });
    expect(admin.scopes).toEqual(['svc:api_key:write', 'svc:api_key:read', 'svc:payment:read']);

    const narrower = await admin.client.post('/v1/api-keys', {
      name: 'payments reader',
      role: 'restricted',
      scopes: ['payments:read'],
    });
    expect(narrower.status).toBe(201);
    expect(narrower.json.data).toMatchObject({ role: 'restricted', scopes: ['svc:payment:read'], environment: 'test' });
    // Canonical scope names are accepted too.
    const canonical = await admin.client.post('/v1/api-keys', {
      name: 'canonical',
      role: 'restricted',
      scopes: ['svc:api_key:read'],
    });
    expect(canonical.status).toBe(201);

    expectError(await admin.client.post('/v1/api-keys', { name: 'wide' }), 403, 'insufficient_scope');
    expectError(
      await admin.client.post('/v1/api-keys', { name: 'wide', role: 'full_access' }),
      403,
      'insufficient_scope',
    );
    expectError(
      await admin.client.post('/v1/api-keys', { name: 'wide', role: 'read_only' }),
      403,
      'insufficient_scope',
    );
    expectError(
      await admin.client.post('/v1/api-keys', { name: 'wide', role: 'webhook_management_only' }),
      403,
      'insufficient_scope',
    );
    expectError(
      await admin.client.post('/v1/api-keys', {
        name: 'wider',
        role: 'restricted',
        scopes: ['payments:read', 'refunds:write'],
      }),
      403,
      'insufficient_scope',
    );
    // It can revoke, and read, keys.
    expect((await admin.client.delete(`/v1/api-keys/${canonical.json.data.id}`)).status).toBe(204);
    expect((await admin.client.get('/v1/api-keys')).status).toBe(200);
  });

  it('a restricted key without apiKeys:write gets 403 insufficient_scope', async () => {
    const ws = await server.workspace();
    const reader = await mint(ws, { role: 'restricted', scopes: ['payments:read', 'refunds:write'] });
    expectError(
      await reader.client.post('/v1/api-keys', { name: 'x', role: 'restricted', scopes: ['payments:read'] }),
      403,
      'insufficient_scope',
    );
    expectError(await reader.client.get('/v1/api-keys'), 403, 'insufficient_scope');
    expectError(await reader.client.get('/v1/events'), 403, 'insufficient_scope');
    expectError(await reader.client.delete(`/v1/api-keys/${ws.apiKeyId}`), 403, 'insufficient_scope');
  });

  it('webhook_management_only reaches /v1/events but not /v1/api-keys or workspaces', async () => {
    const ws = await server.workspace();
    const hooks = await mint(ws, { role: 'webhook_management_only' });
    expectError(await hooks.client.get('/v1/api-keys'), 403, 'insufficient_scope');
    expectError(await hooks.client.get(`/v1/api-keys/${ws.apiKeyId}`), 403, 'insufficient_scope');
    expectError(await hooks.client.post('/v1/api-keys', { name: 'x' }), 403, 'insufficient_scope');
    expectError(await hooks.client.get(`/v1/workspaces/${ws.workspaceId}`), 403, 'insufficient_scope');
    const events = await hooks.client.get('/v1/events');
    expect(events.status).toBe(200);
    expect(events.json.data.map((e: { type: string }) => e.type)).toEqual(['workspace.created']);
    expect((await hooks.client.get(`/v1/events/${events.json.data[0].id}`)).status).toBe(200);
  });

  it('a key acting for a `member` cannot administer keys even with a full_access role', async () => {
    const ws = await server.workspace();
    const member = await insertMember(ws.workspaceId, 'member');
    const key = await keyActingFor(ws, member);
    expectError(await key.client.post('/v1/api-keys', { name: 'x' }), 403, 'insufficient_scope');
    expect((await key.client.get('/v1/api-keys')).status).toBe(200);
  });
});

describe('create validation', () => {
  it.each([
    ['scopes without a role', { scopes: ['payments:read'] }],
    ['scopes with role full_access', { role: 'full_access', scopes: ['payments:read'] }],
    ['scopes with role read_only', { role: 'read_only', scopes: [] }],
    ['restricted without scopes', { role: 'restricted' }],
    ['restricted with an empty list', { role: 'restricted', scopes: [] }],
    ['an unknown scope', { role: 'restricted', scopes: ['payments:read', 'payments:teleport'] }],
  ])('%s gives 400 validation_error on field scopes', async (_name, body) => {
    const ws = await server.workspace();
    expectError(await ws.client.post('/v1/api-keys', { name: 'k', ...body }), 400, 'validation_error', 'scopes');
  });

  it.each([
    ['missing', {}],
    ['empty', { name: '' }],
    ['81 characters', { name: 'n'.repeat(81) }],
    ['null', { name: null }],
    ['not a string', { name: 42 }],
  ])('name %s gives 400 validation_error on field name', async (_label, body) => {
    const ws = await server.workspace();
    expectError(await ws.client.post('/v1/api-keys', body), 400, 'validation_error', 'name');
  });

  it('accepts a name of exactly 80 and 1 characters', async () => {
    const ws = await server.workspace();
    const long = await ws.client.post('/v1/api-keys', { name: 'n'.repeat(80) });
    expect(long.status).toBe(201);
    expect(long.json.data.name).toHaveLength(80);
    expect((await ws.client.post('/v1/api-keys', { name: 'n' })).status).toBe(201);
  });

  it('a bad environment or role gives 400 validation_error naming it', async () => {
    const ws = await server.workspace();
    expectError(
      await ws.client.post('/v1/api-keys', { name: 'k', environment: 'production' }),
      400,
      'validation_error',
      'environment',
    );
    expectError(await ws.client.post('/v1/api-keys', { name: 'k', role: 'admin' }), 400, 'validation_error', 'role');
    expectError(
      await ws.client.post('/v1/api-keys', { name: 'k', role: 'FULL_ACCESS' }),
      400,
      'validation_error',
      'role',
    );
  });

  it('a test key cannot mint a live key (403); a live key can', async () => {
    const ws = await server.workspace();
    expectError(await ws.client.post('/v1/api-keys', { name: 'live', environment: 'live' }), 403, 'insufficient_scope');
    expect((await ws.client.get('/v1/api-keys?environment=live')).json.data).toEqual([]);

    const live = await server.workspace({ environment: 'live' });
    const minted = await live.client.post('/v1/api-keys', { name: 'live too', environment: 'live' });
    expect(minted.status).toBe(201);
    expect(minted.json.data.keyId).toMatch(/^pk_live_[0-9a-f]{12}$/);
    expect(minted.json.data.key).toMatch(/^sk_live_[0-9a-f]{48}$/);
    expect(minted.json.data.environment).toBe('live');
  });
});

describe('tier cap', () => {
  it('starter allows 10 active keys (bootstrap included); the 11th is 409 tier_cap_reached; revoked keys do not count', async () => {
    const ws = await server.workspace();
    const ids: string[] = [];
    for (let i = 1; i <= 9; i++) {
      const res = await ws.client.post('/v1/api-keys', { name: `key ${i}` });
      expect(res.status).toBe(201);
      ids.push(res.json.data.id);
    }
    expect((await ws.client.get('/v1/api-keys')).json.data).toHaveLength(10);
    const eleventh = await ws.client.post('/v1/api-keys', { name: 'eleventh' });
    expectError(eleventh, 409, 'tier_cap_reached');
    // Other environments count against the same cap.
    expectError(await ws.client.post('/v1/api-keys', { name: 'reader', role: 'read_only' }), 409, 'tier_cap_reached');

    expect((await ws.client.delete(`/v1/api-keys/${ids[0]}`)).status).toBe(204);
    const replacement = await ws.client.post('/v1/api-keys', { name: 'replacement' });
    expect(replacement.status).toBe(201);
    expectError(await ws.client.post('/v1/api-keys', { name: 'twelfth' }), 409, 'tier_cap_reached');
    expect((await ws.client.get('/v1/api-keys?includeRevoked=true')).json.data).toHaveLength(11);
  });
});

describe('workspace archive', () => {
  it('a key acting for the owner archives its workspace (204), after which its keys are revoked', async () => {
    const ws = await server.workspace();
    const second = await mint(ws, { name: 'second' });
    expect((await second.client.get('/v1/api-keys')).status).toBe(200);
    const res = await ws.client.delete(`/v1/workspaces/${ws.workspaceId}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expectError(await ws.client.get(`/v1/workspaces/${ws.workspaceId}`), 401, 'invalid_key');
    expectError(await second.client.get('/v1/api-keys'), 401, 'invalid_key');

    const { rows } = await db().system.query(`SELECT "archivedAt", mode FROM workspaces WHERE id = $1`, [
      ws.workspaceId,
    ]);
    expect(rows[0].archivedAt).toBeInstanceOf(Date);
    expect(rows[0].mode).toBe('test');
    const events = await db().system.query(`SELECT type FROM events WHERE "workspaceId" = $1 ORDER BY position`, [
      ws.workspaceId,
    ]);
    expect(events.rows.map((r) => r.type)).toEqual(['workspace.created', 'workspace.archived']);
  });

  it('a key acting for an admin gets 403 owner_required', async () => {
    const ws = await server.workspace();
    const admin = await insertMember(ws.workspaceId, 'admin');
    const key = await keyActingFor(ws, admin);
    expectError(await key.client.delete(`/v1/workspaces/${ws.workspaceId}`), 403, 'owner_required');
    // Admins still administer everything else.
    expect((await key.client.patch(`/v1/workspaces/${ws.workspaceId}`, { brandName: 'Acme Brand' })).status).toBe(200);
    expect((await key.client.post('/v1/api-keys', { name: 'admin minted' })).status).toBe(201);
    // The workspace is untouched and the owner's key still works.
    const got = await ws.client.get(`/v1/workspaces/${ws.workspaceId}`);
    expect(got.status).toBe(200);
    expect(got.json.data.archivedAt).toBeNull();
  });

  it('keys minted by an admin key act for that admin (owner_required too)', async () => {
    const ws = await server.workspace();
    const admin = await insertMember(ws.workspaceId, 'admin');
    const key = await keyActingFor(ws, admin);
    const child = await mint({ ...ws, client: key.client }, { name: 'child of admin' });
    expectError(await child.client.delete(`/v1/workspaces/${ws.workspaceId}`), 403, 'owner_required');
  });

  it('another workspace cannot be archived (404)', async () => {
    const a = await server.workspace();
    const b = await server.workspace();
    expectError(await b.client.delete(`/v1/workspaces/${a.workspaceId}`), 404, 'not_found');
    expect((await a.client.get(`/v1/workspaces/${a.workspaceId}`)).json.data.archivedAt).toBeNull();
  });
});

describe('workspace update', () => {
  it('a different region gives 422 region_immutable; the same region is accepted', async () => {
    const ws = await server.workspace();
    expectError(
      await ws.client.patch(`/v1/workspaces/${ws.workspaceId}`, { region: 'sg-singapore' }),
      422,
      'region_immutable',
    );
    expectError(
      await ws.client.patch(`/v1/workspaces/${ws.workspaceId}`, { region: 'sg-singapore', name: 'X' }),
      422,
      'region_immutable',
    );
    const same = await ws.client.patch(`/v1/workspaces/${ws.workspaceId}`, {
      region: 'id-jakarta',
      name: 'Still Jakarta',
    });
    expect(same.status).toBe(200);
    expect(same.json.data).toMatchObject({ region: 'id-jakarta', name: 'Still Jakarta' });
  });

  it('renames the slug, retires the old one and emits workspace.updated with previousAttributes', async () => {
    const ws = await server.workspace({ name: 'Slug Shop' });
    const before = (await ws.client.get(`/v1/workspaces/${ws.workspaceId}`)).json.data;
    const newSlug = `renamed-${before.id.slice(-8).toLowerCase()}`;
    const res = await ws.client.patch(`/v1/workspaces/${ws.workspaceId}`, { slug: newSlug, name: 'Slug Shop Two' });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({
      id: ws.workspaceId,
      slug: newSlug,
      name: 'Slug Shop Two',
      createdAt: before.createdAt,
    });
    expect(res.json.data.updatedAt >= before.updatedAt).toBe(true);

    const retired = await db().system.query(`SELECT slug, "workspaceId" FROM retired_slugs WHERE "workspaceId" = $1`, [
      ws.workspaceId,
    ]);
    expect(retired.rows).toEqual([{ slug: before.slug, workspaceId: ws.workspaceId }]);

    const events = await ws.client.get('/v1/events?type=workspace.updated');
    expect(events.status).toBe(200);
    expect(events.json.data).toHaveLength(1);
    const evt = events.json.data[0];
    expect(evt).toMatchObject({ type: 'workspace.updated', mode: 'test', workspaceId: ws.workspaceId });
    expect(evt.data.id).toBe(ws.workspaceId);
    expect(evt.data.previousAttributes).toEqual({ slug: before.slug, name: before.name });
    expect(evt.data.object).toMatchObject({ id: ws.workspaceId, slug: newSlug, name: 'Slug Shop Two' });

    // The retired slug cannot be taken again, by this or any workspace.
    const other = await server.workspace();
    expectError(
      await other.client.patch(`/v1/workspaces/${other.workspaceId}`, { slug: before.slug }),
      400,
      'validation_error',
      'slug',
    );
  });
});

describe('platform admin', () => {
  it('creates merchants (201, workspace.created), lists them, and reads them on behalf', async () => {
    const partner = await server.workspace({ name: 'Partner', platformAdmin: true });
    const created = await partner.client.post(
      '/v1/workspaces',
      { name: 'Merchant One', businessEmail: 'm1@example.com' },
      { 'idempotency-key': 'm1' },
    );
    expect(created.status).toBe(201);
    const m1 = created.json.data;
    expect(m1).toMatchObject({
      name: 'Merchant One',
      region: 'id-jakarta',
      defaultCurrency: 'IDR',
      timezone: 'Asia/Jakarta',
      mode: 'test',
      archivedAt: null,
    });
    expect(m1.id).toMatch(/^ws_/);
    expect(m1.accountId).toMatch(/^acc_/);
    // Idempotent replay returns the same merchant.
    const replay = await partner.client.post(
      '/v1/workspaces',
      { name: 'Merchant One', businessEmail: 'm1@example.com' },
      { 'idempotency-key': 'm1' },
    );
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.json.data.id).toBe(m1.id);
    const m2 = (await partner.client.post('/v1/workspaces', { name: 'Merchant Two', region: 'sg-singapore' })).json
      .data;
    expect(m2).toMatchObject({ region: 'sg-singapore', defaultCurrency: 'SGD' });

    // workspace.created, in the merchant's archive.
    const evts = await partner.client.get(`/v1/events?workspaceId=${m1.id}&type=workspace.created`);
    expect(evts.status).toBe(200);
    expect(evts.json.data).toHaveLength(1);
    expect(evts.json.data[0]).toMatchObject({ type: 'workspace.created', workspaceId: m1.id, mode: 'test' });
    expect(evts.json.data[0].data.object).toEqual(m1);

    const list = await partner.client.get('/v1/workspaces');
    expect(list.status).toBe(200);
    expect(list.json.data.map((w: { id: string }) => w.id)).toEqual([m2.id, m1.id]);

    const onBehalf = createClient({
      baseUrl: server.url,
      keyId: partner.keyId,
      secret: partner.secret,
      onBehalfOf: m1.accountId,
    });
    const got = await onBehalf.get(`/v1/workspaces/${m1.id}`);
    expect(got.status).toBe(200);
    expect(got.json.data).toEqual(m1);
    // On behalf, the list is the merchant's single workspace, and events are the merchant's.
    expect((await onBehalf.get('/v1/workspaces')).json.data.map((w: { id: string }) => w.id)).toEqual([m1.id]);
    expect((await onBehalf.get('/v1/events')).json.data.map((e: { workspaceId: string }) => e.workspaceId)).toEqual([
      m1.id,
    ]);
    // On behalf of m1, the sibling m2 does not exist.
    expectError(await onBehalf.get(`/v1/workspaces/${m2.id}`), 404, 'not_found');

    // Without the header: 403 for the merchant, 200 for the partner's own workspace.
    expectError(await partner.client.get(`/v1/workspaces/${m1.id}`), 403, 'insufficient_scope');
    expect((await partner.client.get(`/v1/workspaces/${partner.workspaceId}`)).status).toBe(200);
  });

  it('an unknown or foreign on-behalf-of account is 404', async () => {
    const partner = await server.workspace({ platformAdmin: true });
    const stranger = await server.workspace();
    const foreign = createClient({
      baseUrl: server.url,
      keyId: partner.keyId,
      secret: partner.secret,
      onBehalfOf: stranger.accountId,
    });
    expectError(await foreign.get(`/v1/workspaces/${stranger.workspaceId}`), 404, 'not_found');
  });

  it('a non-admin key gets 403 insufficient_scope on POST /v1/workspaces', async () => {
    const ws = await server.workspace();
    expectError(await ws.client.post('/v1/workspaces', { name: 'Sneaky' }), 403, 'insufficient_scope');
    const { rows } = await db().system.query(`SELECT count(*)::int AS n FROM workspaces WHERE name = 'Sneaky'`);
    expect(rows[0].n).toBe(0);
  });

  it('a partner acting on behalf of a merchant cannot create workspaces', async () => {
    const partner = await server.workspace({ platformAdmin: true });
    const m = (await partner.client.post('/v1/workspaces', { name: 'Merchant' })).json.data;
    const onBehalf = createClient({
      baseUrl: server.url,
      keyId: partner.keyId,
      secret: partner.secret,
      onBehalfOf: m.accountId,
    });
    expectError(await onBehalf.post('/v1/workspaces', { name: 'Nested' }), 403, 'insufficient_scope');
  });

  it('a merchant key ignores the on-behalf-of header silently', async () => {
    const partner = await server.workspace({ platformAdmin: true });
    const m = (await partner.client.post('/v1/workspaces', { name: 'Merchant' })).json.data;
    const merchant = await server.workspace();
    const withHeader = createClient({
      baseUrl: server.url,
      keyId: merchant.keyId,
      secret: merchant.secret,
      onBehalfOf: m.accountId,
    });
    const own = await withHeader.get(`/v1/workspaces/${merchant.workspaceId}`);
    expect(own.status).toBe(200);
    expect(own.json.data.id).toBe(merchant.workspaceId);
    expect((await withHeader.get('/v1/workspaces')).json.data.map((w: { id: string }) => w.id)).toEqual([
      merchant.workspaceId,
    ]);
    expectError(await withHeader.get(`/v1/workspaces/${m.id}`), 404, 'not_found');
  });
});

describe('the role matrix (every role x every scope)', () => {
  // Written out here, independently of src/core/auth/scopes.ts: what the spec's role descriptions grant.
  const reads = Object.keys(scopeCatalog).filter((s) => s.endsWith(':read'));
  const memberWrites = [
    'svc:event:trigger',
    'svc:webhook:write',
    'svc:checkout:write',
    'svc:refund:write',
    'svc:customer:write',
    'svc:payment_method:write',
    'svc:invoice:write',
    'svc:subscription:write',
    'svc:portal:create',
    'svc:credit_note:write',
    'svc:customer_balance:write',
    // usage: ingest and void (meters are plan administration: owner and admin only)
    'svc:usage:write',
  ];
  const expected: Record<string, string[]> = {
    'key full_access': Object.keys(scopeCatalog),
    'key read_only': reads,
    'key webhook_management_only': [
      'svc:webhook:read',
      'svc:webhook:write',
      'svc:event:read',
      'svc:event:write',
      'svc:event:trigger',
    ],
    'member owner': Object.keys(scopeCatalog),
    'member admin': Object.keys(scopeCatalog),
    'member member': [...reads, ...memberWrites],
    'member read_only': reads,
  };
  const grantOf = (label: string): Grant => {
    const [kind, role] = label.split(' ');
    return kind === 'key'
      ? { role: role as Grant['role'], scopes: [], memberRole: null }
      : { role: 'full_access', scopes: [], memberRole: role as MemberRole };
  };

  it('every role allows exactly its allow-list', () => {
    const scopes = Object.keys(scopeCatalog) as Scope[];
    expect(scopes.length).toBeGreaterThan(30);
    let checked = 0;
    for (const [label, allowed] of Object.entries(expected)) {
      for (const scope of scopes) {
        expect({ label, scope, allowed: allows(grantOf(label), scope) }).toEqual({
          label,
          scope,
          allowed: allowed.includes(scope),
        });
        checked++;
      }
    }
    expect(checked).toBe(scopes.length * 7);
    // the member role never moves money out, changes the bank account, replays events or administers keys and team
    for (const s of [
      'svc:payout:write',
      'svc:event:write',
      'svc:api_key:write',
      'svc:member:write',
      'svc:workspace:write',
      'svc:adapter:write',
      'svc:plan:create',
      'svc:plan:write',
      'svc:template:write',
    ] as Scope[]) {
      expect(allows(grantOf('member member'), s), s).toBe(false);
    }
    // a key may act only where both its own role and its member's role allow
    for (const s of scopes) {
      expect(allows({ role: 'read_only', scopes: [], memberRole: 'member' }, s)).toBe(
        expected['key read_only'].includes(s) && expected['member member'].includes(s),
      );
      expect(allows({ role: 'restricted', scopes: [s], memberRole: 'read_only' }, s)).toBe(reads.includes(s));
      expect(allows({ role: 'restricted', scopes: [], memberRole: 'owner' }, s)).toBe(false);
    }
  });

  it('docs/scopes.md prints the matrix', () => {
    const doc = scopesDoc();
    for (const scope of Object.keys(scopeCatalog)) {
      const row = doc
        .split('\n')
        .find((l) => l.startsWith(`| \`${scope}\` | yes`) || l.startsWith(`| \`${scope}\` | -`));
      expect(row, scope).toBeDefined();
      const cells = row!
        .split('|')
        .slice(2, -1)
        .map((c) => c.trim() === 'yes');
      expect(cells).toEqual(Object.values(expected).map((list) => list.includes(scope)));
    }
  });

  it('a representative REST call per sensitive scope answers 403 exactly for the roles without it', async () => {
    const k = () => ({ 'idempotency-key': randomUUID() });
    type Call = [Scope, (c: ReturnType<typeof createClient>, ws: Workspace) => Promise<Res>];
    const calls: Call[] = [
      [
        'svc:api_key:write',
        (c) => c.post('/v1/api-keys', { name: 'matrix', role: 'restricted', scopes: ['payments:read'] }, k()),
      ],
      ['svc:workspace:write', (c, ws) => c.patch(`/v1/workspaces/${ws.workspaceId}`, { brandName: 'Matrix' }, k())],
      ['svc:event:write', (c) => c.post('/v1/events/replay', { eventIds: [newId('event')] }, k())],
      ['svc:event:trigger', (c) => c.post('/v1/events/trigger', { type: 'matrix.test' }, k())],
      [
        'svc:payout:write',
        (c) =>
          c.patch(
            '/v1/payouts/bank-account',
            { bankCode: 'BCA', bankName: 'BCA', bankAccountNumber: '1234567890', bankAccountHolder: 'Mallory' },
            k(),
          ),
      ],
      ['svc:payout:write', (c) => c.post('/v1/payouts', { amount: 1000, currency: 'IDR' }, k())],
      ['svc:payout:write', (c) => c.patch('/v1/payouts/schedule', { interval: 'daily' }, k())],
      ['svc:adapter:write', (c) => c.put('/v1/adapters/manual', { instructions: 'pay me' }, k())],
      ['svc:template:write', (c) => c.post('/v1/templates', { kind: 'receipt', name: 'Matrix' }, k())],
      ['svc:webhook:write', (c) => c.post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/matrix' }, k())],
      ['svc:refund:write', (c) => c.post('/v1/refunds', { chargeId: newId('payment'), amount: 1 }, k())],
      ['svc:customer:write', (c) => c.post('/v1/customers', { name: 'Matrix' }, k())],
      ['svc:checkout:write', (c) => c.post(`/v1/checkout-sessions/${newId('checkoutSession')}/cancel`, {}, k())],
      ['svc:api_key:read', (c) => c.get('/v1/api-keys')],
      [
        'svc:member:write',
        (c, ws) =>
          c.post(`/v1/workspaces/${ws.workspaceId}/members`, {
            email: `m-${randomUUID()}@example.com`,
            role: 'read_only',
          }),
      ],
      ['svc:member:read', (c, ws) => c.get(`/v1/workspaces/${ws.workspaceId}/members`)],
      ['svc:payout:read', (c) => c.get('/v1/payouts/bank-account')],
    ];
    // one workspace per role, so the workspace's rate-limit buckets never interfere
    const keyFor: Record<string, (ws: Workspace) => Promise<ReturnType<typeof createClient>>> = {
      'key full_access': async (ws) => ws.client,
      'key read_only': async (ws) => (await mint(ws, { role: 'read_only' })).client,
      'key webhook_management_only': async (ws) => (await mint(ws, { role: 'webhook_management_only' })).client,
      'member owner': async (ws) => ws.client,
      'member admin': async (ws) => (await keyActingFor(ws, await insertMember(ws.workspaceId, 'admin'))).client,
      'member member': async (ws) => (await keyActingFor(ws, await insertMember(ws.workspaceId, 'member'))).client,
      'member read_only': async (ws) =>
        (await keyActingFor(ws, await insertMember(ws.workspaceId, 'read_only'))).client,
    };
    const clients: Record<string, [ReturnType<typeof createClient>, Workspace]> = {};
    for (const [label, make] of Object.entries(keyFor)) {
      const ws = await server.workspace();
      clients[label] = [await make(ws), ws];
    }
    const outcomes: string[] = [];
    for (const [label, [client, ws]] of Object.entries(clients)) {
      for (const [scope, call] of calls) {
        const res = await call(client, ws);
        const refused = res.status === 403 && res.json?.error?.code === 'insufficient_scope';
        expect({ label, scope, refused }, `${res.status} ${JSON.stringify(res.json?.error)}`).toEqual({
          label,
          scope,
          refused: !expected[label].includes(scope),
        });
        outcomes.push(`${label} ${scope} ${res.status}`);
      }
    }
    expect(outcomes).toHaveLength(Object.keys(clients).length * calls.length);
    // the member's refused bank-account change left nothing behind
    const [, memberWs] = clients['member member'];
    expect((await memberWs.client.get('/v1/payouts/bank-account')).json.data.bankAccountHolder).toBeNull();
  });
});

describe('the role matrix on the team endpoints (member role x key role x endpoint)', () => {
  // Written out independently of src/core/auth/scopes.ts (spec Member roles; DECISIONS §2): team
  // administration follows the member's role as well as the key's; ownership transfer is owner only.
  const READ = 'svc:member:read';
  const WRITE = 'svc:member:write';
  const byMember: Record<MemberRole, string[]> = {
    owner: [READ, WRITE],
    admin: [READ, WRITE],
    member: [READ],
    read_only: [READ],
  };
  const keyBodies: Record<string, { body: Record<string, unknown>; scopes: string[] }> = {
    full_access: { body: {}, scopes: [READ, WRITE] },
    read_only: { body: { role: 'read_only' }, scopes: [READ] },
    webhook_management_only: { body: { role: 'webhook_management_only' }, scopes: [] },
    'restricted member:read': { body: { role: 'restricted', scopes: [READ] }, scopes: [READ] },
    'restricted member:read+write': { body: { role: 'restricted', scopes: [READ, WRITE] }, scopes: [READ, WRITE] },
  };
  it('every combination answers exactly as the two roles allow, over real HTTP', async () => {
    const outcomes: string[] = [];
    for (const memberRole of ['owner', 'admin', 'member', 'read_only'] as MemberRole[]) {
      for (const [keyLabel, key] of Object.entries(keyBodies)) {
        const ws = await server.workspace();
        const owner = (await db().system.query(`SELECT id FROM members WHERE "workspaceId" = $1`, [ws.workspaceId]))
          .rows[0].id as string;
        const self = memberRole === 'owner' ? owner : (await joinMember(server, outbox, ws, memberRole as 'admin')).id;
        const minted = await mint(ws, { name: 'team matrix', ...key.body });
        await db().system.query(`UPDATE api_keys SET "memberId" = $1 WHERE id = $2`, [self, minted.id]);
        const c = minted.client;
        const roleTarget = await joinMember(server, outbox, ws, 'read_only');
        const removeTarget = await joinMember(server, outbox, ws, 'read_only');
        const heir = await joinMember(server, outbox, ws, 'admin');
        const has = (s: string) => key.scopes.includes(s) && byMember[memberRole].includes(s);
        const path = `/v1/workspaces/${ws.workspaceId}`;
        const calls: [string, () => Promise<Res>, [number, string | null]][] = [
          ['list', () => c.get(`${path}/members`), has(READ) ? [200, null] : [403, 'insufficient_scope']],
          [
            'invite read_only',
            () => c.post(`${path}/members`, { email: `ro-${randomUUID()}@example.com`, role: 'read_only' }),
            has(WRITE) ? [201, null] : [403, 'insufficient_scope'],
          ],
          [
            'invite admin (only above admin)',
            () => c.post(`${path}/members`, { email: `ad-${randomUUID()}@example.com`, role: 'admin' }),
            has(WRITE) && memberRole === 'owner' ? [201, null] : [403, 'insufficient_scope'],
          ],
          [
            'change role',
            () => c.patch(`${path}/members/${roleTarget.id}`, { role: 'member' }),
            has(WRITE) ? [200, null] : [403, 'insufficient_scope'],
          ],
          [
            'remove',
            () => c.delete(`${path}/members/${removeTarget.id}`),
            has(WRITE) ? [204, null] : [403, 'insufficient_scope'],
          ],
          [
            'transfer ownership',
            () => c.post(`${path}/transfer-ownership`, { memberId: heir.id }),
            !has(WRITE) ? [403, 'insufficient_scope'] : memberRole === 'owner' ? [200, null] : [403, 'owner_required'],
          ],
        ];
        for (const [endpoint, call, [status, code]] of calls) {
          const res = await call();
          expect(
            { memberRole, keyLabel, endpoint, status: res.status, code: res.json?.error?.code ?? null },
            JSON.stringify(res.json?.error),
          ).toEqual({ memberRole, keyLabel, endpoint, status, code });
          outcomes.push(`${memberRole} ${keyLabel} ${endpoint} ${res.status}`);
        }
        // A refused change left the target as it was.
        const role = (await db().system.query(`SELECT role FROM members WHERE id = $1`, [roleTarget.id])).rows[0].role;
        expect(role).toBe(has(WRITE) ? 'member' : 'read_only');
      }
    }
    expect(outcomes).toHaveLength(4 * Object.keys(keyBodies).length * 6);
  });
});
