/**
 * Portal sessions over real HTTP (src/modules/portal-sessions): POST /v1/portal-sessions exactly as
 * the spec (scope, unknown fields, https returnUrl, 404 for another workspace's customer, 15
 * minutes, token in the fragment, no event, no retrieve), then the portal's page and JSON API: 404
 * and 410 on the page, the token checked before anything, the customer's own subscriptions only,
 * the plan's portalFeatures AND the workspace's toggles, and each action emitting the same events
 * as its API equivalent (metadata.source `portal`). The clicks are in test/hosted/portal-page.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../../src/core/clock.ts';
import { config } from '../../../src/core/config.ts';
import { mintKey, mintLiveKey } from '../../helpers/keys.ts';
import { allPortalFeatures, planBody, postPlan } from '../../helpers/plans.ts';
import { createClient, db, useServer, type Workspace } from '../../helpers/server.ts';

const server = useServer();
const previousBase = config.hostedBaseUrl;
beforeAll(() => {
  config.hostedBaseUrl = server.url;
});
afterAll(() => {
  config.hostedBaseUrl = previousBase;
});

type Res = { status: number; json: any };
const expectError = (res: Res, status: number, code: string, field?: string) =>
  expect({ status: res.status, code: res.json?.error?.code, field: res.json?.error?.field }).toEqual({
    status,
    code,
    field: field ?? res.json?.error?.field,
  });

async function customer(ws: Workspace, name = 'Budi') {
  return (await ws.client.post('/v1/customers', { name, email: `${name.toLowerCase()}@example.com` })).json.data
    .id as string;
}
const createSession = (ws: Workspace, body: Record<string, unknown>) => ws.client.post('/v1/portal-sessions', body);

/** The session id and token of a portal URL. */
function parts(url: string) {
  const u = new URL(url);
  return { id: u.pathname.split('/')[2], token: u.hash.slice('#t='.length) };
}
const portal = (id: string, path: string, token: string | null, body?: unknown) =>
  fetch(`${server.url}/portal/${id}/api${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      ...(token === null ? {} : { 'x-portal-token': token }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, json: await r.json().catch(() => null) }));

async function plan(ws: Workspace, name: string, unitAmount: number, features = allPortalFeatures) {
  const res = await postPlan(
    ws,
    planBody({ name, portalFeatures: features, prices: [{ currency: 'IDR', model: 'flat', unitAmount }] }),
  );
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return { planId: res.json.data.id as string, priceId: res.json.data.prices[0].id as string };
}
async function subscribe(ws: Workspace, cus: string, priceId: string) {
  const res = await ws.client.post(
    '/v1/subscriptions',
    { customerId: cus, priceId, paymentMethod: 'pm_test_success' },
    { 'idempotency-key': randomUUID() },
  );
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  expect(res.json.data.status).toBe('active');
  return res.json.data.id as string;
}
const eventsOf = async (ws: Workspace, id: string) =>
  (await ws.client.get(`/v1/events?objectId=${id}&order=asc&limit=100`)).json.data as any[];

describe('POST /v1/portal-sessions', () => {
  it('201: the spec object, a 15-minute URL with the token in the fragment; no event; no retrieve', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const before = (await ws.client.get('/v1/events?limit=100')).json.data.length;
    const res = await createSession(ws, { customerId: cus, returnUrl: 'https://shop.example/account' });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const ps = res.json.data;
    expect(Object.keys(ps).sort()).toEqual(
      ['id', 'arn', 'accountId', 'customerId', 'url', 'returnUrl', 'expiresAt', 'createdAt'].sort(),
    );
    expect(ps.id).toMatch(/^ps_[0-9A-Z]{26}$/);
    expect(ps).toMatchObject({
      arn: `arn:svc:${ws.accountId}:portal-session/${ps.id}`,
      accountId: ws.accountId,
      customerId: cus,
      returnUrl: 'https://shop.example/account',
    });
    expect(Date.parse(ps.expiresAt) - Date.parse(ps.createdAt)).toBe(15 * 60 * 1000);
    expect(ps.url).toMatch(new RegExp(`^${server.url}/portal/${ps.id}#t=[^#?/]+$`));
    // The token is signed for this session, customer and tenant, and stored nowhere.
    const { token } = parts(ps.url);
    const { rows } = await db().system.query(`SELECT to_jsonb(s)::text AS row FROM portal_sessions s WHERE id = $1`, [
      ps.id,
    ]);
    expect(rows[0].row).not.toContain(token.split('.').pop());
    expect((await ws.client.get('/v1/events?limit=100')).json.data.length).toBe(before);
    // No retrieve, list or delete.
    expect((await ws.client.get(`/v1/portal-sessions/${ps.id}`)).status).toBe(404);
    expect((await ws.client.get('/v1/portal-sessions')).status).toBe(404);
    expect((await ws.client.delete(`/v1/portal-sessions/${ps.id}`)).status).toBe(404);
  });

  it('400 VALIDATION_ERROR: unknown fields, non-https returnUrl, missing fields; 404 for another workspace', async () => {
    const ws = await server.workspace();
    const other = await server.workspace();
    const cus = await customer(ws);
    const cases: [Record<string, unknown>, string][] = [
      [{ customerId: cus, returnUrl: 'https://shop.example', bogus: 1 }, 'bogus'],
      [{ customerId: cus, returnUrl: 'http://shop.example' }, 'returnUrl'],
      [{ customerId: cus, returnUrl: 'https://localhost/x' }, 'returnUrl'],
      [{ customerId: cus, returnUrl: 'javascript:alert(1)' }, 'returnUrl'],
      [{ customerId: cus, returnUrl: `https://shop.example/${'x'.repeat(2048)}` }, 'returnUrl'],
      [{ customerId: cus }, 'returnUrl'],
      [{ returnUrl: 'https://shop.example' }, 'customerId'],
      [{ customerId: 5, returnUrl: 'https://shop.example' }, 'customerId'],
    ];
    for (const [body, field] of cases) expectError(await createSession(ws, body), 400, 'VALIDATION_ERROR', field);
    // Another workspace's customer, and an unknown one, are the same 404.
    expectError(await createSession(other, { customerId: cus, returnUrl: 'https://shop.example' }), 404, 'not_found');
    expectError(
      await createSession(ws, { customerId: 'cus_01JCKZ3V6Q8Y2X4W5T7R9P0M1N', returnUrl: 'https://shop.example' }),
      404,
      'not_found',
    );
    const { rows } = await db().system.query(
      `SELECT count(*)::int AS n FROM portal_sessions WHERE "workspaceId" = $1`,
      [ws.workspaceId],
    );
    expect(rows[0].n).toBe(0);
  });

  it('needs svc:portal:create (403 insufficient_scope without it)', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const body = { customerId: cus, returnUrl: 'https://shop.example' };
    const without = await mintKey(ws.workspaceId, 'test', { role: 'restricted', scopes: ['svc:customer:read'] });
    const denied = await createClient({ baseUrl: server.url, keyId: without.keyId, secret: without.secret }).post(
      '/v1/portal-sessions',
      body,
    );
    expectError(denied, 403, 'insufficient_scope');
    const withScope = await mintKey(ws.workspaceId, 'test', { role: 'restricted', scopes: ['svc:portal:create'] });
    const ok = await createClient({ baseUrl: server.url, keyId: withScope.keyId, secret: withScope.secret }).post(
      '/v1/portal-sessions',
      body,
    );
    expect(ok.status).toBe(201);
    const readOnly = await mintKey(ws.workspaceId, 'test', { role: 'read_only' });
    expectError(
      await createClient({ baseUrl: server.url, keyId: readOnly.keyId, secret: readOnly.secret }).post(
        '/v1/portal-sessions',
        body,
      ),
      403,
      'insufficient_scope',
    );
  });
  it('over GraphQL the same; a live key makes a live session (no stored test methods offered)', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const gql = await ws.client.graphql(
      'mutation($i: CreatePortalSessionInput!) { createPortalSession(input: $i) { id customerId url expiresAt } }',
      { i: { customerId: cus, returnUrl: 'https://shop.example' } },
    );
    expect(gql.json.errors).toBeUndefined();
    expect(gql.json.data.createPortalSession.url).toContain(`/portal/${gql.json.data.createPortalSession.id}#t=`);
    const bogus = await ws.client.graphql(
      'mutation($i: CreatePortalSessionInput!) { createPortalSession(input: $i) { id } }',
      { i: { customerId: cus, returnUrl: 'https://shop.example', bogus: 1 } },
    );
    expect(bogus.json.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');

    const live = await mintLiveKey(ws.workspaceId);
    const liveClient = createClient({ baseUrl: server.url, keyId: live.keyId, secret: live.secret });
    // A test customer is unknown to a live key (another mode reads as another tenant).
    expectError(
      await liveClient.post('/v1/portal-sessions', { customerId: cus, returnUrl: 'https://shop.example' }),
      404,
      'not_found',
    );
    const liveCus = (await liveClient.post('/v1/customers', { name: 'Live' })).json.data.id;
    const ps = (
      await liveClient.post('/v1/portal-sessions', { customerId: liveCus, returnUrl: 'https://shop.example' })
    ).json.data;
    const { id, token } = parts(ps.url);
    expect(token.split('.')[1]).toBe('live');
    const state = (await portal(id, '/state', token)).json.data;
    expect(state).toMatchObject({ testMode: false, paymentMethods: [], customer: { name: 'Live' } });
  });
});

describe('the portal page and its API', () => {
  it('page: 200 without data, 404 unknown, 410 after 15 minutes; API: token in a header, checked first', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const ps = (await createSession(ws, { customerId: cus, returnUrl: 'https://shop.example' })).json.data;
    const { id, token } = parts(ps.url);
    const page = await fetch(`${server.url}/portal/${id}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await page.text();
    // The same bytes for every session: nothing of this customer or merchant.
    expect(html).not.toContain('Budi');
    expect(html).not.toContain('Acme');
    expect(html).not.toContain(id);
    expect((await fetch(`${server.url}/portal/ps_01JCKZ3V6Q8Y2X4W5T7R9P0M1N`)).status).toBe(404);
    expect((await fetch(`${server.url}/portal/nope`)).status).toBe(404);

    const state = await portal(id, '/state', token);
    expect(state.status).toBe(200);
    expect(state.json.data).toMatchObject({
      merchantName: 'Acme',
      testMode: true,
      returnUrl: 'https://shop.example',
      customer: { name: 'Budi', email: 'budi@example.com' },
      settings: { cancel: true, updatePaymentMethod: true, viewInvoices: true, changePlan: true },
      subscriptions: [],
      invoices: [],
    });
    // No token, a wrong one, one of another session: 404 alike.
    expectError(await portal(id, '/state', null), 404, 'not_found');
    expectError(await portal(id, '/state', `${token.slice(0, -2)}AA`), 404, 'not_found');
    const second = (await createSession(ws, { customerId: cus, returnUrl: 'https://shop.example' })).json.data;
    expectError(await portal(parts(second.url).id, '/state', token), 404, 'not_found');
    // A token whose customer is changed no longer verifies.
    const [w, m, , e, mac] = token.split('.');
    const other = await customer(ws, 'Sari');
    expectError(await portal(id, '/state', [w, m, other, e, mac].join('.')), 404, 'not_found');

    clock.advance(15 * 60 * 1000);
    try {
      expect((await fetch(`${server.url}/portal/${id}`)).status).toBe(410);
      const gone = await fetch(`${server.url}/portal/${id}`);
      expect(await gone.text()).toContain('expired');
      expectError(await portal(id, '/state', token), 410, 'gone');
    } finally {
      clock.reset();
    }
  });

  it('actions call the API services: the same events (source portal), own subscriptions only', async () => {
    const ws = await server.workspace();
    const basic = await plan(ws, 'Basic', 100_000);
    const pro = await plan(ws, 'Pro', 150_000);
    const premium = await plan(ws, 'Premium', 300_000);
    const cus = await customer(ws);
    const sub = await subscribe(ws, cus, pro.priceId);
    const twin = await subscribe(ws, cus, pro.priceId);
    const stranger = await subscribe(ws, await customer(ws, 'Sari'), pro.priceId);
    const ps = (await createSession(ws, { customerId: cus, returnUrl: 'https://shop.example' })).json.data;
    const { id, token } = parts(ps.url);
    const act = (s: string, action: string, body: unknown = {}) =>
      portal(id, `/subscriptions/${s}/${action}`, token, body);

    const state = (await portal(id, '/state', token)).json.data;
    const mine = state.subscriptions.find((s: any) => s.id === sub);
    expect(state.subscriptions.map((s: any) => s.id).sort()).toEqual([sub, twin].sort());
    expect(mine.actions).toEqual({
      cancel: true,
      keep: false,
      pause: true,
      resume: false,
      updatePaymentMethod: true,
      upgrade: true,
      downgrade: true,
    });
    expect(mine.options.map((o: any) => [o.priceId, o.direction]).sort()).toEqual(
      [
        [basic.priceId, 'downgrade'],
        [premium.priceId, 'upgrade'],
      ].sort(),
    );
    expect(state.invoices).toHaveLength(2);
    expect(state.invoices[0].pdfUrl).toMatch(new RegExp(`^${server.url}/f/inv_.*\\.pdf\\?`));
    expect((await fetch(state.invoices[0].pdfUrl)).headers.get('content-type')).toBe('application/pdf');

    // Another customer's subscription reads as unknown, and nothing happens to it.
    expectError(await act(stranger, 'cancel'), 404, 'not_found');
    expectError(await act('sub_01JCKZ3V6Q8Y2X4W5T7R9P0M1N', 'cancel'), 404, 'not_found');
    expectError(await act(sub, 'explode'), 404, 'not_found');
    expectError(await act(sub, 'cancel', { atPeriodEnd: false }), 400, 'VALIDATION_ERROR', 'atPeriodEnd');
    expectError(await act(sub, 'payment-method', { paymentMethod: 'pm_real' }), 400, 'VALIDATION_ERROR');
    expect((await ws.client.get(`/v1/subscriptions/${stranger}`)).json.data.cancelAtPeriodEnd).toBe(false);

    // Each action, then the same through the API on the twin: the same event types and payload changes.
    const steps: [string, unknown, () => Promise<Res>][] = [
      [
        'payment-method',
        { paymentMethod: 'pm_test_decline' },
        () => ws.client.patch(`/v1/subscriptions/${twin}`, { paymentMethod: 'pm_test_decline' }),
      ],
      [
        'payment-method',
        { paymentMethod: 'pm_test_success' },
        () => ws.client.patch(`/v1/subscriptions/${twin}`, { paymentMethod: 'pm_test_success' }),
      ],
      [
        'change',
        { priceId: premium.priceId },
        () => ws.client.patch(`/v1/subscriptions/${twin}`, { priceId: premium.priceId }),
      ],
      ['pause', {}, () => ws.client.post(`/v1/subscriptions/${twin}/pause`, {})],
      ['resume', {}, () => ws.client.post(`/v1/subscriptions/${twin}/resume`, {})],
      ['cancel', {}, () => ws.client.post(`/v1/subscriptions/${twin}/cancel`, { atPeriodEnd: true })],
      ['keep', {}, () => ws.client.patch(`/v1/subscriptions/${twin}`, { cancelAtPeriodEnd: false })],
      [
        'change',
        { priceId: basic.priceId },
        () => ws.client.patch(`/v1/subscriptions/${twin}`, { priceId: basic.priceId }),
      ],
    ];
    for (const [action, body, viaApi] of steps) {
      const seen = (await eventsOf(ws, sub)).length;
      const seenTwin = (await eventsOf(ws, twin)).length;
      const res = await act(sub, action, body);
      expect(res.status, `${action}: ${JSON.stringify(res.json)}`).toBe(200);
      const api = await viaApi();
      expect(api.status, `${action} via API: ${JSON.stringify(api.json)}`).toBeLessThan(300);
      const fromPortal = (await eventsOf(ws, sub)).slice(seen);
      const fromApi = (await eventsOf(ws, twin)).slice(seenTwin);
      expect(fromPortal.length, action).toBeGreaterThan(0);
      expect(fromPortal.map((e) => e.type)).toEqual(fromApi.map((e) => e.type));
      expect(fromPortal.map((e) => Object.keys(e.data.previousAttributes ?? {}).sort())).toEqual(
        fromApi.map((e) => Object.keys(e.data.previousAttributes ?? {}).sort()),
      );
      expect(fromPortal.map((e) => e.metadata.source)).toEqual(fromPortal.map(() => 'portal'));
    }
    const after = (await ws.client.get(`/v1/subscriptions/${sub}`)).json.data;
    expect(after).toMatchObject({
      status: 'active',
      priceId: premium.priceId,
      pendingPriceId: basic.priceId,
      cancelAtPeriodEnd: false,
      paymentMethod: 'pm_test_success',
    });
    // The upgrade's proration invoice was charged like the API's (two first invoices, two prorations).
    const invoices = (await portal(id, '/state', token)).json.data.invoices;
    expect(invoices.map((i: any) => i.status)).toEqual(['paid', 'paid', 'paid', 'paid']);
    const [proration] = (await ws.client.get(`/v1/invoices?subscriptionId=${sub}&limit=10`)).json.data;
    expect(proration).toMatchObject({ status: 'paid', amountDue: 0 });
    expect(proration.total).toBeGreaterThan(0);
  });

  it("the plan's portalFeatures AND the workspace's toggles decide; the page's state says so", async () => {
    const ws = await server.workspace();
    const locked = await plan(ws, 'Locked', 100_000, {
      selfServeCancel: false,
      selfServePause: false,
      selfServeUpgrade: true,
      selfServeDowngrade: false,
      updatePaymentMethod: false,
    });
    const bigger = await plan(ws, 'Bigger', 200_000);
    await plan(ws, 'Smaller', 50_000);
    const cus = await customer(ws);
    const sub = await subscribe(ws, cus, locked.priceId);
    const ps = (await createSession(ws, { customerId: cus, returnUrl: 'https://shop.example' })).json.data;
    const { id, token } = parts(ps.url);
    const act = (action: string, body: unknown = {}) => portal(id, `/subscriptions/${sub}/${action}`, token, body);
    let s = (await portal(id, '/state', token)).json.data.subscriptions[0];
    expect(s.actions).toMatchObject({ cancel: false, pause: false, updatePaymentMethod: false, upgrade: true });
    expect(s.options.map((o: any) => o.priceId)).toEqual([bigger.priceId]);
    expectError(await act('cancel'), 403, 'insufficient_scope');
    expectError(await act('pause'), 403, 'insufficient_scope');
    expectError(await act('payment-method', { paymentMethod: 'pm_test_decline' }), 403, 'insufficient_scope');

    // The workspace turns plan changes and invoices off: no options, no invoices, and the action is refused.
    const patched = await ws.client.patch(`/v1/workspaces/${ws.workspaceId}`, {
      portalSettings: { changePlan: false, viewInvoices: false },
    });
    expect(patched.status, JSON.stringify(patched.json)).toBe(200);
    expect(patched.json.data.portalSettings).toEqual({
      cancel: true,
      updatePaymentMethod: true,
      viewInvoices: false,
      changePlan: false,
    });
    const state = (await portal(id, '/state', token)).json.data;
    s = state.subscriptions[0];
    expect(state.invoices).toBeNull();
    expect(s.actions.upgrade).toBe(false);
    expect(s.options).toEqual([]);
    expectError(await act('change', { priceId: bigger.priceId }), 403, 'insufficient_scope');
    expectError(
      await ws.client.patch(`/v1/workspaces/${ws.workspaceId}`, { portalSettings: { cancel: 'yes' } }),
      400,
      'validation_error',
    );
    expectError(
      await ws.client.patch(`/v1/workspaces/${ws.workspaceId}`, { portalSettings: { refund: true } }),
      400,
      'validation_error',
      'portalSettings.refund',
    );
    expect(await eventsOf(ws, sub).then((e) => e.map((x) => x.type))).toEqual([
      'subscription.created',
      'subscription.updated',
    ]);
  });

  it('a plan whose period at the subscription quantity passes 2^53 - 1 is not offered; the page still loads', async () => {
    const ws = await server.workspace();
    const small = await plan(ws, 'Small', 100);
    const huge = await plan(ws, 'Huge', Number.MAX_SAFE_INTEGER);
    const bigger = await plan(ws, 'Bigger', 200);
    const cus = await customer(ws);
    const res = await ws.client.post(
      '/v1/subscriptions',
      { customerId: cus, priceId: small.priceId, quantity: 2, paymentMethod: 'pm_test_success' },
      { 'idempotency-key': randomUUID() },
    );
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const ps = (await createSession(ws, { customerId: cus, returnUrl: 'https://shop.example' })).json.data;
    const { id, token } = parts(ps.url);
    const state = await portal(id, '/state', token);
    expect(state.status, JSON.stringify(state.json)).toBe(200);
    expect(state.json.data.subscriptions[0].options.map((o: any) => o.priceId)).toEqual([bigger.priceId]);
    const change = await portal(id, `/subscriptions/${res.json.data.id}/change`, token, { priceId: huge.priceId });
    expectError(change, 403, 'insufficient_scope');
  });

  it('a purged session or customer is 404, an archived workspace 410; the page and API share the hosted rate limit', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const mk = async () =>
      parts((await createSession(ws, { customerId: cus, returnUrl: 'https://shop.example' })).json.data.url);
    const a = await mk();
    const b = await mk();
    expect((await portal(a.id, '/state', a.token)).status).toBe(200);
    await db().system.query(`DELETE FROM portal_sessions WHERE id = $1`, [a.id]);
    expectError(await portal(a.id, '/state', a.token), 404, 'not_found');
    await db().system.query(`UPDATE workspaces SET "archivedAt" = now() WHERE id = $1`, [ws.workspaceId]);
    try {
      expectError(await portal(b.id, '/state', b.token), 410, 'gone');
    } finally {
      await db().system.query(`UPDATE workspaces SET "archivedAt" = NULL WHERE id = $1`, [ws.workspaceId]);
    }

    const saved = { ...config.rateLimits.hosted };
    config.rateLimits.hosted = { perSec: 0.001, burst: 4 };
    try {
      const statuses = [
        (await fetch(`${server.url}/portal/${b.id}`)).status,
        (await portal(b.id, '/state', b.token)).status,
        (await portal(b.id, '/state', 'forged')).status,
        (await fetch(`${server.url}/portal/ps_01JCKZ3V6Q8Y2X4W5T7R9P0M1N`)).status,
        (await fetch(`${server.url}/portal/${b.id}`)).status,
        (await portal(b.id, '/state', b.token)).status,
      ];
      expect(statuses).toEqual([200, 200, 404, 404, 429, 429]);
    } finally {
      config.rateLimits.hosted = saved;
    }
  });
});
