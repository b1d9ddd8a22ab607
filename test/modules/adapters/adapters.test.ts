import { describe, expect, it } from 'vitest';
import { createHash, randomUUID } from 'node:crypto';
import { useServer, createClient, db, type Workspace } from '../../helpers/server.ts';
import { mintKey } from '../../helpers/keys.ts';
import { inTenant, type Mode } from '../../../src/core/db/client.ts';
import {
  adapterSecrets,
  enabledAdapters,
  recordGatewayFailure,
  recordGatewaySuccess,
} from '../../../src/modules/adapters/service.ts';
import { applyManagedUpdate } from '../../../src/modules/adapters/managed.ts';
import { assertMethodsServed, planMethods } from '../../../src/modules/adapters/capabilities.ts';

const server = useServer();

type Res = { status: number; json: any; text: string };
function expectError(res: Res, status: number, code: string, field?: string) {
  expect({ status: res.status, code: res.json?.error?.code, field: res.json?.error?.field }, res.text).toEqual({
    status,
    code,
    field: field ?? res.json?.error?.field,
  });
  expect(res.json.data).toBeNull();
}
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const ADAPTER_FIELDS = [
  'configuredAt',
  'kind',
  'lastErrorAt',
  'lastErrorCode',
  'publicConfig',
  'secretKeyLast4',
  'status',
];
const key = () => ({ 'idempotency-key': randomUUID() });
const put = (ws: Workspace, kind: string, body: unknown, headers: Record<string, string> = key()) =>
  ws.client.put(`/v1/adapters/${kind}`, body, headers);
const fingerprint = (token: string) => createHash('sha256').update(token).digest('hex').slice(0, 16);
const devKey = 'xnd_development_P4qDfOss0OCpl8RtKrROHjaQYNCk9dN5lSfk+R1l9Wbe+rSiCwZ3jw==';
const prodKey = 'xnd_production_Zq9m2Lk3Jh4Gf5Ds6Aa7Pp8Oo9Ii0Uu1Yy2Tt3Rr4Ee5Ww6==';

async function liveWorkspace() {
  const live = await server.workspace({ environment: 'live' });
  return live;
}
const events = async (ws: Workspace, objectId: string) =>
  (await ws.client.get(`/v1/events?objectId=${objectId}`)).json.data as any[];
const scope = (ws: Workspace, mode: Mode = 'test') => ({ workspaceId: ws.workspaceId, mode });
const tenantScope = (ws: Workspace, mode: Mode = 'test') => ({ workspaceId: ws.workspaceId, modes: [mode] });

describe('GET /v1/adapters', () => {
  it('a new test-mode workspace shows only the managed sandbox, active (spec Payment flow)', async () => {
    const ws = await server.workspace();
    const res = await ws.client.get('/v1/adapters');
    expect(res.status).toBe(200);
    expect(Object.keys(res.json.data)).toEqual(['managed']);
    const managed = res.json.data.managed;
    expect(Object.keys(managed).sort()).toEqual(ADAPTER_FIELDS);
    expect(managed).toMatchObject({
      kind: 'managed',
      status: 'active',
      secretKeyLast4: null,
      lastErrorAt: null,
      lastErrorCode: null,
      publicConfig: {
        subAccountId: null,
        env: 'sandbox',
        kybStatus: 'not_started',
        capabilitiesStatus: 'inactive',
        payoutsReady: false,
        lastWebhookAt: null,
      },
    });
    const workspace = (await ws.client.get(`/v1/workspaces/${ws.workspaceId}`)).json.data;
    expect(managed.configuredAt).toBe(workspace.createdAt);
  });

  it('a live-mode workspace starts with no adapters at all', async () => {
    const live = await liveWorkspace();
    const res = await live.client.get('/v1/adapters');
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({});
  });

  it('GraphQL has every kind, null when never connected', async () => {
    const ws = await server.workspace();
    const gql = await ws.client.graphql(
      '{ adapters { provider_a { kind } provider_b { kind } provider_c { kind } manual { kind } managed { kind status } } }',
    );
    expect(gql.json.data.adapters).toEqual({
      provider_a: null,
      provider_b: null,
      provider_c: null,
      manual: null,
      managed: { kind: 'managed', status: 'active' },
    });
  });
});

describe('PUT /v1/adapters/provider_a', () => {
  it('needs an Idempotency-Key (400 idempotency_required), over REST and GraphQL', async () => {
    const ws = await server.workspace();
    expectError(await ws.client.put('/v1/adapters/provider_a', { secretKey: devKey }), 400, 'idempotency_required');
    const gql = await ws.client.graphql(
      `mutation { connectProviderAAdapter(input: {secretKey: "${devKey}"}) { kind } }`,
    );
    expect(gql.json.errors?.[0].extensions.code).toBe('idempotency_required');
    expect((await ws.client.get('/v1/adapters')).json.data.provider_a).toBeUndefined();
    const withArg = await ws.client.graphql(
      `mutation { connectProviderAAdapter(input: {secretKey: "${devKey}"}, idempotencyKey: "gql-1") { kind secretKeyLast4 } }`,
    );
    expect(withArg.json.data.connectProviderAAdapter).toEqual({ kind: 'provider_a', secretKeyLast4: devKey.slice(-4) });
  });

  it('connects: secrets encrypted at rest and write-only, secretKeyLast4 and the token fingerprint returned, adapter.connected', async () => {
    const ws = await server.workspace();
    const token = `cb-token-${randomUUID()}`;
    const res = await put(ws, 'provider_a', { secretKey: devKey, callbackToken: token });
    expect(res.status).toBe(200);
    const a = res.json.data;
    expect(Object.keys(a).sort()).toEqual(ADAPTER_FIELDS);
    expect(a).toMatchObject({
      kind: 'provider_a',
      status: 'active',
      secretKeyLast4: 'jw==',
      lastErrorAt: null,
      lastErrorCode: null,
      publicConfig: { callbackTokenFingerprint: fingerprint(token) },
    });
    expect(a.configuredAt).toMatch(ISO);
    expect(res.text).not.toContain(devKey);
    expect(res.text).not.toContain(token);

    const listed = await ws.client.get('/v1/adapters');
    expect(listed.json.data.provider_a).toEqual(a);
    expect(listed.text).not.toContain(token);

    const row = (
      await db().system.query(
        `SELECT "workspaceId", mode, kind, secrets, "callbackTokenHash" FROM adapters WHERE "workspaceId" = $1 AND kind = 'provider_a'`,
        [ws.workspaceId],
      )
    ).rows[0];
    expect(Buffer.from(row.secrets).toString('latin1')).not.toContain('xnd_development');
    expect(adapterSecrets(row)).toEqual({ secretKey: devKey, callbackToken: token });
    expect(row.callbackTokenHash).toBe(createHash('sha256').update(token).digest('hex'));

    const evts = await events(ws, 'provider_a');
    expect(evts.map((e) => e.type)).toEqual(['adapter.connected']);
    expect(evts[0].data).toEqual({ id: 'provider_a', object: a });
    expect(JSON.stringify(evts)).not.toContain(token);
  });

  it('a later PUT replaces the configuration, refreshes configuredAt, clears the last error, emits adapter.updated', async () => {
    const ws = await server.workspace();
    const first = (await put(ws, 'provider_a', { secretKey: devKey, callbackToken: 'one' })).json.data;
    await inTenant(tenantScope(ws), (tx) => recordGatewayFailure(tx, scope(ws), 'provider_a', 'invalid_credentials'));
    const errored = (await ws.client.get('/v1/adapters')).json.data.provider_a;
    expect(errored).toMatchObject({ status: 'error', lastErrorCode: 'invalid_credentials' });
    expect(errored.lastErrorAt).toMatch(ISO);

    const newKey = 'xnd_development_abcdEFGH1234';
    const second = (await put(ws, 'provider_a', { secretKey: newKey })).json.data;
    expect(second).toMatchObject({
      status: 'active',
      secretKeyLast4: '1234',
      lastErrorAt: null,
      lastErrorCode: null,
      publicConfig: { callbackTokenFingerprint: null },
    });
    expect(second.configuredAt > first.configuredAt).toBe(true);

    const evts = await events(ws, 'provider_a');
    expect(evts.map((e) => e.type)).toEqual(['adapter.updated', 'adapter.error', 'adapter.connected']);
    expect(evts[0].data.previousAttributes).toEqual({
      status: 'error',
      secretKeyLast4: 'jw==',
      publicConfig: { callbackTokenFingerprint: fingerprint('one') },
      lastErrorAt: errored.lastErrorAt,
      lastErrorCode: 'invalid_credentials',
    });
    expect(evts[1].data.object).toMatchObject({ status: 'error', lastErrorCode: 'invalid_credentials' });
    expect(evts.map((e) => e.sequence)).toEqual([3, 2, 1]);
    // the callback token was dropped with the replaced configuration
    const row = (
      await db().system.query(
        `SELECT "workspaceId", mode, kind, secrets, "callbackTokenHash" FROM adapters WHERE "workspaceId" = $1 AND kind = 'provider_a'`,
        [ws.workspaceId],
      )
    ).rows[0];
    expect(adapterSecrets(row)).toEqual({ secretKey: newKey, callbackToken: null });
    expect(row.callbackTokenHash).toBeNull();
  });

  it.each([
    [{ secretKey: 'sk_live_abcdef' }, 422, 'gateway_error', 'secretKey'],
    [{ secretKey: 'xnd_sandbox_abc' }, 422, 'gateway_error', 'secretKey'],
    [{ secretKey: 'xnd_development_' }, 422, 'gateway_error', 'secretKey'],
    [{ secretKey: prodKey }, 422, 'gateway_error', 'secretKey'],
    [{ secretKey: '' }, 400, 'validation_error', 'secretKey'],
    [{ secretKey: `${devKey}\n` }, 400, 'validation_error', 'secretKey'],
    [{ secretKey: `xnd_development_${'a'.repeat(240)}` }, 400, 'validation_error', 'secretKey'],
    [{}, 400, 'validation_error', 'secretKey'],
    [{ secretKey: 5 }, 400, 'validation_error', 'secretKey'],
    [{ secretKey: devKey, callbackToken: '' }, 400, 'validation_error', 'callbackToken'],
    [{ secretKey: devKey, webhookToken: 'x' }, 400, 'validation_error', 'webhookToken'],
  ])('%j is %i %s', async (body, status, code, field) => {
    const ws = await server.workspace();
    expectError(await put(ws, 'provider_a', body), status, code, field);
    expect((await ws.client.get('/v1/adapters')).json.data.provider_a).toBeUndefined();
    expect(await events(ws, 'provider_a')).toEqual([]);
  });

  it('live mode takes production keys and refuses development keys', async () => {
    const live = await liveWorkspace();
    expectError(await put(live, 'provider_a', { secretKey: devKey }), 422, 'gateway_error', 'secretKey');
    const res = await put(live, 'provider_a', { secretKey: prodKey });
    expect(res.status).toBe(200);
    expect(res.json.data.secretKeyLast4).toBe(prodKey.slice(-4));
  });
});

describe('PUT /v1/adapters/provider_b and provider_c', () => {
  it('provider_b: serverKey is write-only; clientKey, merchantId and env (default sandbox) are public', async () => {
    const ws = await server.workspace();
    const res = await put(ws, 'provider_b', {
      serverKey: 'SB-Mid-server-abcdWXYZ',
      clientKey: 'SB-Mid-client-1234',
      merchantId: 'G123456789',
    });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({
      kind: 'provider_b',
      status: 'active',
      secretKeyLast4: 'WXYZ',
      publicConfig: { clientKey: 'SB-Mid-client-1234', merchantId: 'G123456789', env: 'sandbox' },
    });
    expect(res.text).not.toContain('SB-Mid-server');
    const prod = await put(ws, 'provider_b', {
      serverKey: 'Mid-server-zz99',
      clientKey: 'Mid-client-1',
      merchantId: 'G1',
      env: 'production',
    });
    expect(prod.json.data.publicConfig).toEqual({ clientKey: 'Mid-client-1', merchantId: 'G1', env: 'production' });
    expect((await events(ws, 'provider_b')).map((e) => e.type)).toEqual(['adapter.updated', 'adapter.connected']);
  });

  it.each([
    [{ clientKey: 'c', merchantId: 'm' }, 'serverKey'],
    [{ serverKey: 's', merchantId: 'm' }, 'clientKey'],
    [{ serverKey: 's', clientKey: 'c' }, 'merchantId'],
    [{ serverKey: 's', clientKey: 'c', merchantId: 'm', env: 'staging' }, 'env'],
    [{ serverKey: 's', clientKey: 'c', merchantId: 'm'.repeat(65) }, 'merchantId'],
    [{ serverKey: '', clientKey: 'c', merchantId: 'm' }, 'serverKey'],
  ])('provider_b %j is 400 validation_error on %s', async (body, field) => {
    const ws = await server.workspace();
    expectError(await put(ws, 'provider_b', body), 400, 'validation_error', field);
  });

  it('provider_c: secret is write-only; clientId and mode (default live) are public', async () => {
    const ws = await server.workspace();
    const res = await put(ws, 'provider_c', { clientId: 'AcLientId123', secret: 'EPs3cr3t-9876' });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({
      kind: 'provider_c',
      secretKeyLast4: '9876',
      publicConfig: { clientId: 'AcLientId123', mode: 'live' },
    });
    expect(res.text).not.toContain('EPs3cr3t');
    expect(
      (await put(ws, 'provider_c', { clientId: 'x', secret: 'y', mode: 'sandbox' })).json.data.publicConfig,
    ).toEqual({ clientId: 'x', mode: 'sandbox' });
    expectError(
      await put(ws, 'provider_c', { clientId: 'x', secret: 'y', mode: 'test' }),
      400,
      'validation_error',
      'mode',
    );
    expectError(await put(ws, 'provider_c', { clientId: 'x' }), 400, 'validation_error', 'secret');
    expectError(await put(ws, 'provider_c', { secret: 'x' }), 400, 'validation_error', 'clientId');
  });
});

describe('PUT /v1/adapters/manual', () => {
  const account = { bankName: 'BCA', accountNumber: '1234567890', accountHolder: 'PT Acme Indonesia' };

  it('configures bank accounts, a static QR and instructions; no secrets', async () => {
    const ws = await server.workspace();
    const body = {
      bankAccounts: [account, { bankName: 'Mandiri', accountNumber: '9876', accountHolder: 'Acme' }],
      staticQrImageUrl: 'https://cdn.example.com/qris.png',
      instructions: 'Transfer, then tap "I have paid".',
    };
    const res = await put(ws, 'manual', body);
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ kind: 'manual', status: 'active', secretKeyLast4: null, publicConfig: body });
    // PUT replaces: omitted fields are reset
    const replaced = await put(ws, 'manual', { instructions: 'Cash only' });
    expect(replaced.json.data.publicConfig).toEqual({
      bankAccounts: [],
      staticQrImageUrl: null,
      instructions: 'Cash only',
    });
    const empty = await put(ws, 'manual', {});
    expect(empty.json.data.publicConfig).toEqual({ bankAccounts: [], staticQrImageUrl: null, instructions: null });
  });

  it('accepts the limits exactly and refuses one more (spec Limits "Manual adapter")', async () => {
    const ws = await server.workspace();
    const max = { bankName: 'b'.repeat(60), accountNumber: '1'.repeat(40), accountHolder: 'h'.repeat(80) };
    const ok = await put(ws, 'manual', {
      bankAccounts: [max],
      staticQrImageUrl: `https://x.example/${'q'.repeat(500 - 18)}`,
      instructions: 'i'.repeat(500),
    });
    expect(ok.status, ok.text).toBe(200);
    const cases: [unknown, string][] = [
      [{ bankAccounts: [{ ...account, bankName: 'b'.repeat(61) }] }, 'bankAccounts[0].bankName'],
      [{ bankAccounts: [account, { ...account, accountNumber: '1'.repeat(41) }] }, 'bankAccounts[1].accountNumber'],
      [{ bankAccounts: [{ ...account, accountHolder: 'h'.repeat(81) }] }, 'bankAccounts[0].accountHolder'],
      [{ bankAccounts: [{ ...account, bankName: '' }] }, 'bankAccounts[0].bankName'],
      [{ bankAccounts: [{ bankName: 'BCA', accountNumber: '1' }] }, 'bankAccounts[0].accountHolder'],
      [{ bankAccounts: Array(11).fill(account) }, 'bankAccounts'],
      [{ staticQrImageUrl: `https://x.example/${'q'.repeat(500 - 17)}` }, 'staticQrImageUrl'],
      [{ staticQrImageUrl: 'http://x.example/qr.png' }, 'staticQrImageUrl'],
      [{ staticQrImageUrl: 'qr.png' }, 'staticQrImageUrl'],
      [{ instructions: 'i'.repeat(501) }, 'instructions'],
      [{ bankAccounts: 'BCA 123' }, 'bankAccounts'],
    ];
    for (const [body, field] of cases) expectError(await put(ws, 'manual', body), 400, 'validation_error', field);
  });
});

describe('adapter PUT idempotency, scopes and isolation', () => {
  it('the same key replays the response without a second event; a different body is 409 idempotency_conflict', async () => {
    const ws = await server.workspace();
    const headers = { 'idempotency-key': 'put-a-1' };
    const first = await put(ws, 'provider_a', { secretKey: devKey }, headers);
    const again = await put(ws, 'provider_a', { secretKey: devKey }, headers);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect((await events(ws, 'provider_a')).map((e) => e.type)).toEqual(['adapter.connected']);
    expectError(
      await put(ws, 'provider_a', { secretKey: 'xnd_development_other' }, headers),
      409,
      'idempotency_conflict',
    );
  });

  it('read_only keys read adapters but cannot connect them; restricted keys need svc:adapter:write', async () => {
    const ws = await server.workspace();
    const ro = (await ws.client.post('/v1/api-keys', { name: 'ro', role: 'read_only' })).json.data;
    const roClient = createClient({ baseUrl: server.url, keyId: ro.keyId, secret: ro.key });
    expect((await roClient.get('/v1/adapters')).status).toBe(200);
    expect((await roClient.get('/v1/adapters/managed/onboarding')).status).toBe(200);
    expectError(await roClient.put('/v1/adapters/manual', {}, key()), 403, 'insufficient_scope');
    expectError(
      await roClient.post('/v1/adapters/managed/onboarding', { email: 'a@example.com' }),
      403,
      'insufficient_scope',
    );
    const r = (await ws.client.post('/v1/api-keys', { name: 'r', role: 'restricted', scopes: ['svc:adapter:write'] }))
      .json.data;
    const rClient = createClient({ baseUrl: server.url, keyId: r.keyId, secret: r.key });
    expect((await rClient.put('/v1/adapters/manual', {}, key())).status).toBe(200);
    expectError(await rClient.get('/v1/adapters'), 403, 'insufficient_scope');
  });

  it("workspaces and modes never see each other's adapters", async () => {
    const a = await server.workspace();
    const b = await server.workspace();
    await put(a, 'provider_b', { serverKey: 's', clientKey: 'c', merchantId: 'm' });
    expect(Object.keys((await b.client.get('/v1/adapters')).json.data)).toEqual(['managed']);
    const live = await liveWorkspace();
    const test = createClient({ baseUrl: server.url, ...(await mintKey(live.workspaceId, 'test')) });
    expect((await test.put('/v1/adapters/manual', { instructions: 'test only' }, key())).status).toBe(200);
    expect((await live.client.get('/v1/adapters')).json.data).toEqual({});
    expect((await test.get('/v1/adapters')).json.data.manual.publicConfig.instructions).toBe('test only');
  });
});

describe('managed onboarding', () => {
  it('GET before anything: not_started', async () => {
    const ws = await server.workspace();
    const res = await ws.client.get('/v1/adapters/managed/onboarding');
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({
      subAccountId: null,
      kybStatus: 'not_started',
      capabilitiesStatus: 'inactive',
      payoutsReady: false,
      onboardingUrl: null,
    });
  });

  it('POST {email} creates the sub-account and invites (200 with the onboarding state); repeats are harmless', async () => {
    const ws = await server.workspace();
    expectError(await ws.client.post('/v1/adapters/managed/onboarding', {}), 400, 'validation_error', 'email');
    expectError(
      await ws.client.post('/v1/adapters/managed/onboarding', { email: 'nope' }),
      400,
      'validation_error',
      'email',
    );
    expectError(
      await ws.client.post('/v1/adapters/managed/onboarding', { email: 'a@example.com', country: 'ID' }),
      400,
      'validation_error',
      'country',
    );
    const res = await ws.client.post('/v1/adapters/managed/onboarding', { email: 'owner@acme.example' });
    expect(res.status).toBe(200);
    const state = res.json.data;
    expect(Object.keys(state).sort()).toEqual([
      'capabilitiesStatus',
      'kybStatus',
      'onboardingUrl',
      'payoutsReady',
      'subAccountId',
    ]);
    expect(state).toMatchObject({ kybStatus: 'invited', capabilitiesStatus: 'pending', payoutsReady: false });
    expect(state.subAccountId).toMatch(/^[0-9a-f]{24}$/);
    expect(state.onboardingUrl).toMatch(new RegExp(`^https?://.+/onboarding/${state.subAccountId}$`));
    expect((await ws.client.get('/v1/adapters/managed/onboarding')).json.data).toEqual(state);

    const evts = await events(ws, 'managed');
    expect(evts.map((e) => e.type).sort()).toEqual([
      'adapter.managed.capabilities_changed',
      'adapter.managed.kyb_changed',
    ]);
    const kyb = evts.find((e) => e.type === 'adapter.managed.kyb_changed');
    expect(kyb.data).toEqual({ id: 'managed', object: state, previousAttributes: { kybStatus: 'not_started' } });

    // again, same or other email: same sub-account, no new events
    expect(
      (await ws.client.post('/v1/adapters/managed/onboarding', { email: 'owner@acme.example' })).json.data,
    ).toEqual(state);
    expect(
      (await ws.client.post('/v1/adapters/managed/onboarding', { email: 'finance@acme.example' })).json.data,
    ).toEqual(state);
    expect(await events(ws, 'managed')).toHaveLength(2);
    const row = (
      await db().system.query(`SELECT email FROM managed_accounts WHERE "workspaceId" = $1`, [ws.workspaceId])
    ).rows[0];
    expect(row.email).toBe('finance@acme.example');

    // the test-mode sandbox reflects the profile and stays active
    expect((await ws.client.get('/v1/adapters')).json.data.managed).toMatchObject({
      status: 'active',
      publicConfig: {
        subAccountId: state.subAccountId,
        env: 'sandbox',
        kybStatus: 'invited',
        capabilitiesStatus: 'pending',
      },
    });
  });

  it('live mode: the managed adapter appears once the sub-account is live, and serves only then', async () => {
    const live = await liveWorkspace();
    const state = (await live.client.post('/v1/adapters/managed/onboarding', { email: 'owner@live.example' })).json
      .data;
    expect(state.kybStatus).toBe('invited');
    expect((await live.client.get('/v1/adapters')).json.data).toEqual({});

    const at = new Date();
    await inTenant(tenantScope(live, 'live'), async (tx) => {
      const before = await tx.managedAccount.findFirstOrThrow({ where: { workspaceId: live.workspaceId } });
      await applyManagedUpdate(tx, scope(live, 'live'), before, {
        kybStatus: 'live',
        capabilitiesStatus: 'active',
        payoutsReady: true,
        webhookAt: at,
      });
    });
    const managed = (await live.client.get('/v1/adapters')).json.data.managed;
    expect(managed).toMatchObject({
      kind: 'managed',
      status: 'active',
      secretKeyLast4: null,
      publicConfig: {
        subAccountId: state.subAccountId,
        env: 'production',
        kybStatus: 'live',
        capabilitiesStatus: 'active',
        payoutsReady: true,
        lastWebhookAt: at.toISOString(),
      },
    });
    const kyb = (await events(live, 'managed')).filter((e) => e.type === 'adapter.managed.kyb_changed');
    expect(kyb.map((e) => e.data.previousAttributes)).toEqual([{ kybStatus: 'invited' }, { kybStatus: 'not_started' }]);
    expect(kyb[0].metadata.source).toBe('provider');
    const enabled = await inTenant(tenantScope(live, 'live'), (tx) => enabledAdapters(tx, scope(live, 'live')));
    expect(enabled).toEqual([{ kind: 'managed', configured: true, publicConfig: {} }]);
  });

  it('GraphQL: managedOnboarding and startManagedOnboarding', async () => {
    const ws = await server.workspace();
    const started = await ws.client.graphql(
      'mutation { startManagedOnboarding(input: {email: "g@example.com"}) { kybStatus subAccountId } }',
    );
    expect(started.json.data.startManagedOnboarding.kybStatus).toBe('invited');
    const got = await ws.client.graphql('{ managedOnboarding { kybStatus subAccountId payoutsReady } }');
    expect(got.json.data.managedOnboarding).toEqual({
      ...started.json.data.startManagedOnboarding,
      payoutsReady: false,
    });
  });
});

describe('gateway failures (for the provider clients)', () => {
  it('recordGatewayFailure sets error and emits adapter.error; recordGatewaySuccess makes it active again', async () => {
    const ws = await server.workspace();
    await put(ws, 'provider_b', { serverKey: 's', clientKey: 'c', merchantId: 'm' });
    await inTenant(tenantScope(ws), (tx) => recordGatewayFailure(tx, scope(ws), 'provider_b', 'gateway_error'));
    expect((await ws.client.get('/v1/adapters')).json.data.provider_b).toMatchObject({
      status: 'error',
      lastErrorCode: 'gateway_error',
    });
    await inTenant(tenantScope(ws), (tx) => recordGatewaySuccess(tx, scope(ws), 'provider_b'));
    expect((await ws.client.get('/v1/adapters')).json.data.provider_b).toMatchObject({
      status: 'active',
      lastErrorCode: 'gateway_error',
    });
    expect((await events(ws, 'provider_b')).map((e) => e.type)).toEqual([
      'adapter.updated',
      'adapter.error',
      'adapter.connected',
    ]);
    // a support-disabled adapter stays disabled through failures and PUTs, and serves nothing
    await db().system.query(`UPDATE adapters SET status = 'disabled' WHERE "workspaceId" = $1`, [ws.workspaceId]);
    await inTenant(tenantScope(ws), (tx) => recordGatewayFailure(tx, scope(ws), 'provider_b', 'gateway_error'));
    expect((await put(ws, 'provider_b', { serverKey: 's2', clientKey: 'c', merchantId: 'm' })).json.data.status).toBe(
      'disabled',
    );
    const enabled = await inTenant(tenantScope(ws), (tx) => enabledAdapters(tx, scope(ws)));
    expect(enabled.map((a) => a.kind)).toEqual(['managed']);
    // no adapter of that kind: nothing to record
    expect(
      await inTenant(tenantScope(ws), (tx) => recordGatewayFailure(tx, scope(ws), 'provider_c', 'gateway_error')),
    ).toBeNull();
  });
});

describe('capabilities of what a workspace has connected', () => {
  const decide = (
    ws: Workspace,
    mode: Mode,
    methods: ('qris' | 'va' | 'ewallet' | 'card' | 'retail' | 'provider_c')[],
    currency: string,
  ) =>
    inTenant(tenantScope(ws, mode), async (tx) => {
      const enabled = await enabledAdapters(tx, scope(ws, mode));
      try {
        return assertMethodsServed(enabled, mode, methods, currency);
      } catch (e) {
        return { code: (e as { extensions: { code: string } }).extensions.code };
      }
    });

  it('live: nothing connected serves nothing; manual serves bank transfer; provider_a then wins', async () => {
    const live = await liveWorkspace();
    expect(await decide(live, 'live', ['card', 'va'], 'IDR')).toEqual({ code: 'no_adapter_supports_methods' });
    await put(live, 'manual', { bankAccounts: [{ bankName: 'BCA', accountNumber: '1', accountHolder: 'A' }] });
    expect(await decide(live, 'live', ['card', 'va'], 'IDR')).toEqual({
      served: [{ method: 'va', adapter: 'manual' }],
      unserved: ['card'],
    });
    expect(await decide(live, 'live', ['qris'], 'IDR')).toEqual({ code: 'no_adapter_supports_methods' });
    await put(live, 'provider_a', { secretKey: prodKey });
    expect(await decide(live, 'live', ['card', 'va', 'retail'], 'IDR')).toEqual({
      served: [
        { method: 'card', adapter: 'provider_a' },
        { method: 'va', adapter: 'provider_a' },
        { method: 'retail', adapter: 'provider_a' },
      ],
      unserved: [],
    });
    expect(await decide(live, 'live', ['card'], 'USD')).toEqual({ code: 'no_adapter_supports_methods' });
    await put(live, 'provider_c', { clientId: 'c', secret: 's' });
    expect(await decide(live, 'live', ['card', 'provider_c'], 'USD')).toEqual({
      served: [
        { method: 'card', adapter: 'provider_c' },
        { method: 'provider_c', adapter: 'provider_c' },
      ],
      unserved: [],
    });
  });

  it('test: the sandbox serves every method in IDR and USD; configured adapters win; other currencies are refused', async () => {
    const ws = await server.workspace();
    const all = ['qris', 'va', 'ewallet', 'card', 'retail', 'provider_c'] as const;
    const idr = await decide(ws, 'test', [...all], 'IDR');
    expect(idr).toEqual(
      planMethods([{ kind: 'managed', configured: false, publicConfig: {} }], 'test', [...all], 'IDR'),
    );
    expect((idr as { served: unknown[] }).served).toHaveLength(6);
    expect(await decide(ws, 'test', ['card'], 'SGD')).toEqual({ code: 'no_adapter_supports_methods' });
    await put(ws, 'provider_b', { serverKey: 's', clientKey: 'c', merchantId: 'm' });
    expect(await decide(ws, 'test', ['card', 'provider_c'], 'IDR')).toEqual({
      served: [
        { method: 'card', adapter: 'provider_b' },
        { method: 'provider_c', adapter: 'managed' },
      ],
      unserved: [],
    });
    expect(await decide(ws, 'test', ['card'], 'USD')).toEqual({
      served: [{ method: 'card', adapter: 'managed' }],
      unserved: [],
    });
  });
});
