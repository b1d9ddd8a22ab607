/**
 * Setup sessions (docs/guides/setup-sessions.md) over real HTTP: create, read, list and cancel with
 * their errors; the hosted page `/s/<id>_<secret>` in test mode (attempt, the sandbox's scenarios,
 * OTP, simulate, cancel), completion attaching the method with its consent and events, a
 * subscription taking the method, the attempt limit, hostile tokens and expiry.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { clock } from '../../../src/core/clock.ts';
import { expireDueSetupSessions } from '../../../src/modules/setup-sessions/expiry.ts';
import { completeSetup } from '../../../src/modules/setup-sessions/complete.ts';
import { reconcileStaleSetupAttempts } from '../../../src/modules/setup-sessions/sweep.ts';
import { SWEEP_GRACE_MS } from '../../../src/modules/refunds/sweep.ts';
import { mintKey, mintLiveKey } from '../../helpers/keys.ts';
import { planBody, postPlan } from '../../helpers/plans.ts';
import { createClient, db, useServer, type Workspace } from '../../helpers/server.ts';

const server = useServer();
type Res = { status: number; json: any; text: string };
const key = () => ({ 'idempotency-key': randomUUID() });

function fails(res: Res, status: number, code: string, field?: string) {
  expect({ status: res.status, code: res.json?.error?.code, field: res.json?.error?.field }, res.text).toEqual({
    status,
    code,
    field: field ?? res.json?.error?.field,
  });
}
function ok(res: Res, status = 200) {
  expect(res.status, res.text).toBe(status);
  return res.json.data;
}
const customer = async (ws: Workspace) => ok(await ws.client.post('/v1/customers', { name: 'Budi' }), 201).id as string;
const body = (customerId: string, extra: Record<string, unknown> = {}) => ({
  customerId,
  successUrl: 'https://shop.example/saved',
  cancelUrl: 'https://shop.example/account',
  ...extra,
});
const createSs = (ws: Workspace, b: Record<string, unknown>) => ws.client.post('/v1/setup-sessions', b, key());
const tokenOf = (ss: { hostedUrl: string }) => ss.hostedUrl.slice(ss.hostedUrl.lastIndexOf('/s/') + 3);

/** The hosted page's own calls (public, unsigned). */
async function page(token: string, path: string, payload?: unknown, method = payload === undefined ? 'GET' : 'POST') {
  const res = await fetch(`${server.url}/s/${token}${path}`, {
    method,
    redirect: 'manual',
    headers: payload === undefined ? {} : { 'content-type': 'application/json' },
    body: payload === undefined ? undefined : JSON.stringify(payload),
  });
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, json, text, location: res.headers.get('location') };
}
const eventsOf = async (ws: Workspace, objectId: string) =>
  ok(await ws.client.get(`/v1/events?objectId=${objectId}&order=asc&limit=100`)) as any[];

const wireFields = [
  'accountId',
  'adapter',
  'arn',
  'cancelUrl',
  'completedAt',
  'createdAt',
  'currency',
  'customerId',
  'expiresAt',
  'hostedUrl',
  'id',
  'lastError',
  'metadata',
  'mode',
  'paymentMethodId',
  'setDefault',
  'status',
  'subscriptionId',
  'successUrl',
  'types',
  'updatedAt',
];

describe('POST /v1/setup-sessions', () => {
  it('creates an open session (201) with the wire shape; GET and the list read it back', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const ss = ok(await createSs(ws, body(cus, { metadata: { plan: 'pro' } })), 201);
    expect(Object.keys(ss).sort()).toEqual(wireFields);
    expect(ss).toMatchObject({
      id: expect.stringMatching(/^ss_[0-9A-HJKMNP-TV-Z]{26}$/),
      arn: `arn:svc:${ws.accountId}:setup-session:${ss.id}`,
      accountId: ws.accountId,
      customerId: cus,
      mode: 'test',
      status: 'open',
      // Test mode: the managed sandbox saves every type.
      types: ['card', 'ewallet', 'direct_debit', 'paypal'],
      currency: 'IDR',
      adapter: null,
      setDefault: false,
      subscriptionId: null,
      paymentMethodId: null,
      lastError: null,
      completedAt: null,
      metadata: { plan: 'pro' },
    });
    expect(ss.hostedUrl).toMatch(new RegExp(`/s/${ss.id}_[0-9a-f]{40}$`));
    expect(Date.parse(ss.expiresAt) - Date.parse(ss.createdAt)).toBe(86_400_000);
    expect(ok(await ws.client.get(`/v1/setup-sessions/${ss.id}`))).toEqual(ss);
    const other = ok(await createSs(ws, body(await customer(ws), { types: ['card'], currency: 'USD' })), 201);
    expect(other.types).toEqual(['card']);
    const list = await ws.client.get(`/v1/setup-sessions?customerId=${cus}`);
    expect(ok(list).map((s: any) => s.id)).toEqual([ss.id]);
    const all = await ws.client.get('/v1/setup-sessions?limit=1');
    expect(ok(all).map((s: any) => s.id)).toEqual([other.id]);
    expect(all.json.hasMore ?? all.json.pagination?.hasMore ?? true).toBeTruthy();
    expect(ok(await ws.client.get('/v1/setup-sessions?status=completed'))).toEqual([]);
    // No event on create (as checkout's reserved created event).
    expect(await eventsOf(ws, ss.id)).toEqual([]);
  });

  it('refuses bad input: 400 VALIDATION_ERROR, missing Idempotency-Key 400, unknown customer or subscription 404', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    fails(
      await createSs(ws, { successUrl: 'https://a.example', cancelUrl: 'https://a.example' }),
      400,
      'VALIDATION_ERROR',
      'customerId',
    );
    fails(await createSs(ws, body(cus, { types: ['cash'] })), 400, 'VALIDATION_ERROR', 'types');
    fails(await createSs(ws, body(cus, { successUrl: 'http://localhost/x' })), 400, 'VALIDATION_ERROR', 'successUrl');
    fails(await createSs(ws, body(cus, { expiresInSec: 86_401 })), 400, 'VALIDATION_ERROR', 'expiresInSec');
    fails(await createSs(ws, body(cus, { metadata: { card: '4242 4242 4242 4242' } })), 400, 'VALIDATION_ERROR');
    fails(await createSs(ws, body('cus_01J00000000000000000000000')), 404, 'not_found', 'customerId');
    fails(
      await createSs(ws, body(cus, { subscriptionId: 'sub_01J00000000000000000000000' })),
      404,
      'not_found',
      'subscriptionId',
    );
    fails(await ws.client.post('/v1/setup-sessions', body(cus)), 400, 'idempotency_required');
    // Another workspace's customer is unknown here.
    const other = await server.workspace();
    fails(await createSs(other, body(cus)), 404, 'not_found', 'customerId');
    // A currency no adapter saves in.
    fails(await createSs(ws, body(cus, { currency: 'EUR' })), 422, 'no_adapter_supports_methods');
  });

  it('live mode offers merchant-connected adapters only: none connected is 422 no_adapter_supports_methods', async () => {
    const ws = await server.workspace();
    const live = await mintLiveKey(ws.workspaceId);
    const liveClient = createClient({ baseUrl: server.url, keyId: live.keyId, secret: live.secret });
    const cus = ok(await liveClient.post('/v1/customers', { name: 'Live' }), 201).id;
    fails(await liveClient.post('/v1/setup-sessions', body(cus), key()), 422, 'no_adapter_supports_methods');
    // The test key does not see the live customer.
    fails(await createSs(ws, body(cus)), 404, 'not_found', 'customerId');
  });

  it('another workspace or mode reads another session as 404; scopes are the payment-method ones', async () => {
    const ws = await server.workspace();
    const ss = ok(await createSs(ws, body(await customer(ws))), 201);
    const other = await server.workspace();
    fails(await other.client.get(`/v1/setup-sessions/${ss.id}`), 404, 'not_found');
    fails(await other.client.post(`/v1/setup-sessions/${ss.id}/cancel`, {}, key()), 404, 'not_found');
    const live = await mintLiveKey(ws.workspaceId);
    const liveClient = createClient({ baseUrl: server.url, keyId: live.keyId, secret: live.secret });
    fails(await liveClient.get(`/v1/setup-sessions/${ss.id}`), 404, 'not_found');
    const reader = await mintKey(ws.workspaceId, 'test', { role: 'restricted', scopes: ['svc:payment_method:read'] });
    const client = createClient({ baseUrl: server.url, keyId: reader.keyId, secret: reader.secret });
    expect(ok(await client.get(`/v1/setup-sessions/${ss.id}`)).id).toBe(ss.id);
    fails(await client.post('/v1/setup-sessions', body(ss.customerId), key()), 403, 'insufficient_scope');
  });

  it('cancel (200, no event); a terminal session is 409 conflict; the page says canceled', async () => {
    const ws = await server.workspace();
    const ss = ok(await createSs(ws, body(await customer(ws))), 201);
    fails(await ws.client.post(`/v1/setup-sessions/${ss.id}/cancel`, {}), 400, 'idempotency_required');
    expect(ok(await ws.client.post(`/v1/setup-sessions/${ss.id}/cancel`, {}, key())).status).toBe('canceled');
    fails(await ws.client.post(`/v1/setup-sessions/${ss.id}/cancel`, {}, key()), 409, 'conflict');
    expect(await eventsOf(ws, ss.id)).toEqual([]);
    fails(await page(tokenOf(ss), '/attempt', { type: 'card' }), 409, 'conflict');
    expect((await page(tokenOf(ss), '')).text).toContain('data-state="canceled"');
  });

  it('GraphQL: createSetupSession and setupSession answer the same object as REST', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const created = await ws.client.graphql(
      `mutation($input: CreateSetupSessionInput!) { createSetupSession(input: $input) { id status customerId hostedUrl } }`,
      { input: body(cus) },
      key(),
    );
    const ss = created.json.data.createSetupSession;
    expect(ss).toMatchObject({ status: 'open', customerId: cus });
    const read = await ws.client.graphql(`query($id: ID!) { setupSession(id: $id) { id hostedUrl } }`, { id: ss.id });
    expect(read.json.data.setupSession).toEqual({ id: ss.id, hostedUrl: ss.hostedUrl });
  });
});

describe('the hosted setup page (test mode, managed sandbox)', () => {
  it('a guessed, malformed or wrong-secret token is 404 with one body for all', async () => {
    const ws = await server.workspace();
    const ss = ok(await createSs(ws, body(await customer(ws))), 201);
    const wrong = `${ss.id}_${'0'.repeat(40)}`;
    const bodies = new Set<string>();
    for (const t of [wrong, ss.id, 'ss_nope', `${ss.id}_zz`]) {
      const res = await page(t, '/attempt', { type: 'card' });
      expect(res.status, t).toBe(404);
      bodies.add(JSON.stringify({ data: res.json.data, error: res.json.error }));
    }
    expect(bodies.size).toBe(1);
    expect((await page(wrong, '')).status).toBe(404);
    expect((await page(tokenOf(ss), '')).status).toBe(200);
  });

  it('GET /s/<token> lists the types with the consent text, in English or Indonesian', async () => {
    const ws = await server.workspace();
    const ss = ok(await createSs(ws, body(await customer(ws), { types: ['card', 'ewallet'] })), 201);
    const en = await page(tokenOf(ss), '?lang=en');
    expect(en.status).toBe(200);
    expect(en.text).toContain('data-type="card"');
    expect(en.text).toContain('data-type="ewallet"');
    expect(en.text).not.toContain('data-type="paypal"');
    expect(en.text).toContain('to charge it for future payments');
    expect(en.text).toContain('You will not be charged now.');
    const id = await page(tokenOf(ss), '?lang=id');
    expect(id.text).toContain('Simpan metode pembayaran');
    expect(id.text).toContain('Anda tidak ditagih sekarang.');
  });

  it('attempt -> simulate success: completed, the method attached with its consent, events in order; successUrl gets ?setup_session_id=', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const ss = ok(await createSs(ws, body(cus)), 201);
    const t = tokenOf(ss);
    fails(await page(t, '/simulate', { outcome: 'success' }), 409, 'conflict');
    const a = ok(await page(t, '/attempt', { type: 'card' }));
    expect(a).toEqual({ status: 'pending', next: { kind: 'sandbox' } });
    expect(ok(await ws.client.get(`/v1/setup-sessions/${ss.id}`))).toMatchObject({
      status: 'pending',
      adapter: 'provider_a_platform',
    });
    const done = ok(await page(t, '/simulate', { outcome: 'success', scenario: 'charge_declined' }));
    expect(done.status).toBe('completed');
    expect(done.redirectUrl).toBe(`https://shop.example/saved?setup_session_id=${ss.id}`);
    const after = ok(await ws.client.get(`/v1/setup-sessions/${ss.id}`));
    expect(after).toMatchObject({ status: 'completed', paymentMethodId: expect.stringMatching(/^pm_/) });
    expect(after.completedAt).not.toBeNull();
    const pm = ok(await ws.client.get(`/v1/payment-methods/${after.paymentMethodId}`));
    expect(pm).toMatchObject({
      customerId: cus,
      type: 'card',
      status: 'active',
      adapter: 'provider_a_platform',
      isDefault: true,
      card: { brand: 'visa', last4: '0341' },
      consent: { source: 'setup_session', sourceId: ss.id, at: expect.any(String) },
    });
    expect(ok(await ws.client.get(`/v1/customers/${cus}`)).defaultPaymentMethodId).toBe(pm.id);
    const pmEvents = (await eventsOf(ws, pm.id)).map((e) => e.type);
    expect(pmEvents).toEqual(['payment_method.attached']);
    const ssEvents = await eventsOf(ws, ss.id);
    expect(ssEvents.map((e) => e.type)).toEqual(['svc.setup_session.completed.v1']);
    expect(ssEvents[0].data.object).toEqual(after);
    // No event carries a token; the stored one is sealed and carries the scenario's digits.
    for (const e of [...ssEvents, ...(await eventsOf(ws, pm.id))]) expect(JSON.stringify(e)).not.toContain('sbx_');
    // A repeat answers the completed session; the page shows it.
    expect(ok(await page(t, '/simulate', { outcome: 'success' })).status).toBe('completed');
    expect((await page(t, '')).text).toContain(`setup_session_id=${ss.id}`);
    // Replayed after completion: no second attempt.
    fails(await page(t, '/attempt', { type: 'card' }), 409, 'conflict');
    const { rows } = await db().system.query(`SELECT count(*)::int AS n FROM payment_methods WHERE "customerId" = $1`, [
      cus,
    ]);
    expect(rows[0].n).toBe(1);
  });

  it('setup_declined fails: the session is open again with lastError and no event; another attempt then succeeds', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const ss = ok(await createSs(ws, body(cus)), 201);
    const t = tokenOf(ss);
    ok(await page(t, '/attempt', { type: 'card' }));
    const failed = ok(await page(t, '/simulate', { outcome: 'success', scenario: 'setup_declined' }));
    expect(failed.status).toBe('open');
    const row = ok(await ws.client.get(`/v1/setup-sessions/${ss.id}`));
    expect(row).toMatchObject({ status: 'open', paymentMethodId: null, lastError: { code: 'card_declined' } });
    expect(await eventsOf(ws, ss.id)).toEqual([]);
    fails(await page(t, '/simulate', { outcome: 'success' }), 409, 'conflict');
    // An e-wallet whose phone ends in 0000 (success), linked on the second attempt.
    ok(await page(t, '/attempt', { type: 'ewallet', channel: 'dana', phone: '+62 812 3456 0000' }));
    const done = ok(await page(t, '/simulate', { outcome: 'success' }));
    expect(done.status).toBe('completed');
    const pm = ok(
      await ws.client.get(
        `/v1/payment-methods/${ok(await ws.client.get(`/v1/setup-sessions/${ss.id}`)).paymentMethodId}`,
      ),
    );
    expect(pm).toMatchObject({ type: 'ewallet', ewallet: { provider: 'dana', maskedAccount: '+62 812-****-4242' } });
    expect(ok(await ws.client.get(`/v1/setup-sessions/${ss.id}`)).lastError).toBeNull();
  });

  it('direct debit asks for the OTP: a wrong code fails (invalid_otp), 222000 saves', async () => {
    const ws = await server.workspace();
    const ss = ok(await createSs(ws, body(await customer(ws), { types: ['direct_debit'] })), 201);
    const t = tokenOf(ss);
    fails(await page(t, '/attempt', { type: 'card' }), 400, 'VALIDATION_ERROR', 'type');
    fails(await page(t, '/attempt', { type: 'direct_debit', channel: 'citibank' }), 400, 'VALIDATION_ERROR', 'channel');
    fails(
      await page(t, '/attempt', { type: 'direct_debit', phone: '4242424242424242' }),
      400,
      'VALIDATION_ERROR',
      'phone',
    );
    expect(ok(await page(t, '/attempt', { type: 'direct_debit', channel: 'bri', phone: '1234560000' })).next).toEqual({
      kind: 'otp',
    });
    const wrong = ok(await page(t, '/attempt/otp', { otp: '111111' }));
    expect(wrong.status).toBe('open');
    expect(ok(await ws.client.get(`/v1/setup-sessions/${ss.id}`)).lastError.code).toBe('invalid_otp');
    ok(await page(t, '/attempt', { type: 'direct_debit', channel: 'bri', phone: '1234560000' }));
    expect(ok(await page(t, '/attempt/otp', { otp: '222000' })).status).toBe('completed');
    const pmId = ok(await ws.client.get(`/v1/setup-sessions/${ss.id}`)).paymentMethodId;
    expect(ok(await ws.client.get(`/v1/payment-methods/${pmId}`)).directDebit).toEqual({
      bank: 'bri',
      maskedAccount: '****4242',
    });
  });

  it('subscriptionId: on completion the subscription charges the new method (subscription.updated); setDefault flips the default', async () => {
    const ws = await server.workspace();
    const plan = ok(
      await postPlan(ws, planBody({ prices: [{ currency: 'IDR', model: 'flat', unitAmount: 100_000 }] })),
      201,
    );
    const cus = await customer(ws);
    const first = ok(await ws.client.post('/v1/payment-methods', { customerId: cus }, key()), 201);
    const sub = ok(
      await ws.client.post(
        '/v1/subscriptions',
        { customerId: cus, priceId: plan.prices[0].id, paymentMethod: first.id, trialDays: 7 },
        key(),
      ),
      201,
    );
    const other = await customer(ws);
    fails(await createSs(ws, body(other, { subscriptionId: sub.id })), 404, 'not_found', 'subscriptionId');
    const ss = ok(await createSs(ws, body(cus, { subscriptionId: sub.id, setDefault: true })), 201);
    expect(ss).toMatchObject({ subscriptionId: sub.id, setDefault: true, currency: 'IDR' });
    ok(await page(tokenOf(ss), '/attempt', { type: 'paypal' }));
    ok(await page(tokenOf(ss), '/simulate', { outcome: 'success' }));
    const pmId = ok(await ws.client.get(`/v1/setup-sessions/${ss.id}`)).paymentMethodId;
    expect(ok(await ws.client.get(`/v1/subscriptions/${sub.id}`)).paymentMethod).toBe(pmId);
    expect(ok(await ws.client.get(`/v1/customers/${cus}`)).defaultPaymentMethodId).toBe(pmId);
    expect(ok(await ws.client.get(`/v1/payment-methods/${first.id}`)).isDefault).toBe(false);
    const subEvents = (await eventsOf(ws, sub.id)).filter((e) => e.type === 'subscription.updated');
    expect(subEvents.at(-1).data.object.paymentMethod).toBe(pmId);
    expect(subEvents.at(-1).data.previousAttributes.paymentMethod).toBe(first.id);
  });

  it('at most 10 attempts per session: the 11th is refused', async () => {
    const ws = await server.workspace();
    const ss = ok(await createSs(ws, body(await customer(ws))), 201);
    for (let i = 0; i < 10; i++) ok(await page(tokenOf(ss), '/attempt', { type: 'card' }));
    fails(await page(tokenOf(ss), '/attempt', { type: 'card' }), 409, 'conflict');
    const { rows } = await db().system.query(
      `SELECT status, count(*)::int AS n FROM setup_attempts WHERE "setupSessionId" = $1 GROUP BY status ORDER BY status`,
      [ss.id],
    );
    // A new attempt supersedes the live one.
    expect(rows).toEqual([
      { status: 'open', n: 1 },
      { status: 'superseded', n: 9 },
    ]);
  });

  it('the customer cancels on the page: canceled, back to cancelUrl', async () => {
    const ws = await server.workspace();
    const ss = ok(await createSs(ws, body(await customer(ws))), 201);
    ok(await page(tokenOf(ss), '/attempt', { type: 'card' }));
    expect(ok(await page(tokenOf(ss), '/cancel', {}))).toEqual({
      status: 'canceled',
      redirectUrl: 'https://shop.example/account',
    });
    fails(await page(tokenOf(ss), '/simulate', { outcome: 'success' }), 409, 'conflict');
    expect(ok(await ws.client.get(`/v1/setup-sessions/${ss.id}`)).paymentMethodId).toBeNull();
  });

  it('simulate is test mode only: a live session answers 403 forbidden_in_live_mode', async () => {
    const ws = await server.workspace();
    const live = await mintLiveKey(ws.workspaceId);
    const liveClient = createClient({ baseUrl: server.url, keyId: live.keyId, secret: live.secret });
    const cus = ok(await liveClient.post('/v1/customers', { name: 'Live' }), 201).id;
    // No live adapter saves methods on this machine's providers yet: the row is written as a connected one would.
    const id = `ss_01J${randomUUID()
      .replace(/-/g, '')
      .slice(0, 23)
      .toUpperCase()
      .replace(/[ILOU]/g, '0')}`;
    const { rows } = await db().system.query(
      `INSERT INTO setup_sessions (id, "workspaceId", mode, "customerId", status, types, currency, "successUrl", "cancelUrl", "expiresAt")
       VALUES ($1, $2, 'live', $3, 'open', '{card}', 'IDR', 'https://a.example', 'https://a.example', now() + interval '1 hour')
       RETURNING "hostedSecret"`,
      [id, ws.workspaceId, cus],
    );
    fails(
      await page(`${id}_${rows[0].hostedSecret}`, '/simulate', { outcome: 'success' }),
      403,
      'forbidden_in_live_mode',
    );
  });

  it('expiry: the sweep expires the session with its event; the page says expired and a late simulate is 409', async () => {
    const ws = await server.workspace();
    const ss = ok(await createSs(ws, body(await customer(ws), { expiresInSec: 300 })), 201);
    ok(await page(tokenOf(ss), '/attempt', { type: 'card' }));
    clock.advance(301_000);
    try {
      expect((await page(tokenOf(ss), '')).text).toContain('data-state="expired"');
      expect(await expireDueSetupSessions()).toBeGreaterThanOrEqual(1);
      fails(await page(tokenOf(ss), '/simulate', { outcome: 'success' }), 409, 'conflict');
    } finally {
      clock.reset();
    }
    const row = ok(await ws.client.get(`/v1/setup-sessions/${ss.id}`));
    expect(row.status).toBe('expired');
    const events = await eventsOf(ws, ss.id);
    expect(events.map((e) => e.type)).toEqual(['svc.setup_session.expired.v1']);
    expect(events[0].data.object).toEqual(row);
    fails(await ws.client.post(`/v1/setup-sessions/${ss.id}/cancel`, {}, key()), 409, 'conflict');
  });
});

describe('idempotency, late tokens and the attempt sweep', () => {
  it('the same Idempotency-Key answers the same session; GraphQL edges read its customer and method', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const k = { 'idempotency-key': randomUUID() };
    const first = ok(await ws.client.post('/v1/setup-sessions', body(cus), k), 201);
    const again = ok(await ws.client.post('/v1/setup-sessions', body(cus), k), 201);
    expect(again).toEqual(first);
    expect(ok(await ws.client.get(`/v1/setup-sessions?customerId=${cus}`))).toHaveLength(1);
    ok(await page(tokenOf(first), '/attempt', { type: 'card' }));
    ok(await page(tokenOf(first), '/simulate', { outcome: 'success' }));
    const read = await ws.client.graphql(
      `query($id: ID!) { setupSession(id: $id) { status customer { id } paymentMethod { id status card } } }`,
      { id: first.id },
    );
    expect(read.json.data.setupSession).toMatchObject({
      status: 'completed',
      customer: { id: cus },
      paymentMethod: { id: expect.stringMatching(/^pm_/), status: 'active', card: { last4: '4242' } },
    });
  });

  it('a token that becomes active after its session ended is not attached (attempt completed_unapplied)', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const ss = ok(await createSs(ws, body(cus)), 201);
    ok(await page(tokenOf(ss), '/attempt', { type: 'card' }));
    ok(await ws.client.post(`/v1/setup-sessions/${ss.id}/cancel`, {}, key()));
    const { rows } = await db().system.query(`SELECT id FROM setup_attempts WHERE "setupSessionId" = $1`, [ss.id]);
    const scope = { workspaceId: ws.workspaceId, mode: 'test' as const, modes: ['test' as const] };
    // The provider's late word, as the return URL or a callback would bring it.
    const late = await completeSetup(
      scope,
      ss.id,
      rows[0].id,
      {
        token: 'sbx_4242_late',
        display: () => ({ card: { brand: 'visa', last4: '4242', expMonth: 1, expYear: 2040, funding: 'credit' } }),
      },
      { source: 'test' },
    );
    expect(late.applied).toBe(false);
    expect(late.session.status).toBe('canceled');
    const attempt = await db().system.query(`SELECT status FROM setup_attempts WHERE id = $1`, [rows[0].id]);
    expect(attempt.rows[0].status).toBe('completed_unapplied');
    expect(ok(await ws.client.get(`/v1/payment-methods?customerId=${cus}`))).toEqual([]);
    expect(await eventsOf(ws, ss.id)).toEqual([]);
  });

  it('the sweep fails a provider attempt a crash left creating: the session is open again with lastError', async () => {
    const ws = await server.workspace();
    const ss = ok(await createSs(ws, body(await customer(ws))), 201);
    // A process died between phase 1 and phase 3 of a provider_a attempt.
    await db().system.query(
      `UPDATE setup_sessions SET status = 'pending', "attemptCount" = 1, adapter = 'provider_a' WHERE id = $1`,
      [ss.id],
    );
    await db().system.query(
      `INSERT INTO setup_attempts (id, "workspaceId", mode, "setupSessionId", number, adapter, type, status,
         "idempotencyKey", "createdAt", "updatedAt")
       VALUES ($1, $2, 'test', $3, 1, 'provider_a', 'card', 'creating', $3 || ':1', now() - interval '1 hour',
         now() - interval '1 hour')`,
      [`satt_${ss.id.slice(3)}`, ws.workspaceId, ss.id],
    );
    expect(SWEEP_GRACE_MS).toBeLessThan(3_600_000);
    expect(await reconcileStaleSetupAttempts()).toBeGreaterThanOrEqual(1);
    const row = ok(await ws.client.get(`/v1/setup-sessions/${ss.id}`));
    expect(row).toMatchObject({ status: 'open', lastError: { code: 'provider_no_answer' } });
    // The customer can try again.
    expect(ok(await page(tokenOf(row), '/attempt', { type: 'card' })).status).toBe('pending');
  });
});
