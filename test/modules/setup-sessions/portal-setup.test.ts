/**
 * The portal's payment methods (docs/guides/setup-sessions.md, Portal): a setup session from the portal
 * (`consent.source: portal`, back to the portal page), the default, a detach with its last-method guard, a
 * subscription taking a saved method, the state's display fields, another customer's method 404 and the
 * workspace toggle.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../../src/core/config.ts';
import { planBody, postPlan } from '../../helpers/plans.ts';
import { useServer, type Workspace } from '../../helpers/server.ts';

const server = useServer();
const previousBase = config.hostedBaseUrl;
beforeAll(() => {
  config.hostedBaseUrl = server.url;
});
afterAll(() => {
  config.hostedBaseUrl = previousBase;
});

type Res = { status: number; json: any };
const key = () => ({ 'idempotency-key': randomUUID() });
const fails = (res: Res, status: number, code: string) =>
  expect({ status: res.status, code: res.json?.error?.code }, JSON.stringify(res.json)).toEqual({ status, code });
function ok(res: Res, status = 200) {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  return res.json.data;
}
const customer = async (ws: Workspace) => ok(await ws.client.post('/v1/customers', { name: 'Sari' }), 201).id as string;
function parts(url: string) {
  const u = new URL(url);
  return { id: u.pathname.split('/')[2], token: u.hash.slice('#t='.length) };
}
const portal = (id: string, path: string, token: string, body?: unknown) =>
  fetch(`${server.url}/portal/${id}/api${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'x-portal-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, json: await r.json().catch(() => null) }));
const hosted = (url: string, path: string, body: unknown) =>
  fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, json: await r.json().catch(() => null) }));

async function setup(ws: Workspace) {
  const plan = ok(
    await postPlan(ws, planBody({ prices: [{ currency: 'IDR', model: 'flat', unitAmount: 90_000 }] })),
    201,
  );
  const cus = await customer(ws);
  const sub = ok(
    await ws.client.post('/v1/subscriptions', { customerId: cus, priceId: plan.prices[0].id, trialDays: 14 }, key()),
    201,
  );
  const ps = ok(
    await ws.client.post('/v1/portal-sessions', { customerId: cus, returnUrl: 'https://shop.example' }),
    201,
  );
  return { cus, sub, ps, ...parts(ps.url) };
}

describe('portal payment methods', () => {
  it('setup from the portal: a setup session back to the portal page; completed, it is the subscription method (consent portal)', async () => {
    const ws = await server.workspace();
    const { cus, sub, ps, id, token } = await setup(ws);
    const before = ok(await portal(id, '/state', token));
    expect(before).toMatchObject({ paymentMethods: [], defaultPaymentMethodId: null });
    expect(before.subscriptions[0].actions.updatePaymentMethod).toBe(true);
    const made = ok(await portal(id, '/payment-methods/setup', token, { subscriptionId: sub.id }));
    expect(made.url).toMatch(new RegExp(`^${server.url}/s/ss_[0-9A-Z]{26}_[0-9a-f]{40}$`));
    const ss = ok(await ws.client.get(`/v1/setup-sessions/${made.id}`));
    expect(ss).toMatchObject({ customerId: cus, subscriptionId: sub.id, successUrl: ps.url, cancelUrl: ps.url });
    ok(await hosted(made.url, '/attempt', { type: 'card' }));
    const done = ok(await hosted(made.url, '/simulate', { outcome: 'success' }));
    // Back to the portal page, its token in the fragment still.
    expect(done.redirectUrl).toBe(`${server.url}/portal/${id}?setup_session_id=${made.id}#t=${token}`);
    const pmId = ok(await ws.client.get(`/v1/setup-sessions/${made.id}`)).paymentMethodId;
    const pm = ok(await ws.client.get(`/v1/payment-methods/${pmId}`));
    expect(pm.consent).toMatchObject({ source: 'portal', sourceId: made.id });
    expect(ok(await ws.client.get(`/v1/subscriptions/${sub.id}`)).paymentMethod).toBe(pmId);
    const after = ok(await portal(id, '/state', token));
    expect(after.defaultPaymentMethodId).toBe(pmId);
    expect(after.paymentMethods).toEqual([
      {
        id: pmId,
        type: 'card',
        status: 'active',
        card: pm.card,
        ewallet: null,
        directDebit: null,
        paypal: null,
        isDefault: true,
        expiresAt: pm.expiresAt,
      },
    ]);
    expect(JSON.stringify(after)).not.toContain('sbx_');
  });

  it('default and detach: the services run (events from the portal); the last active method of a collecting subscription is 409', async () => {
    const ws = await server.workspace();
    const { cus, sub, id, token } = await setup(ws);
    const a = ok(await ws.client.post('/v1/payment-methods', { customerId: cus }, key()), 201);
    const b = ok(await ws.client.post('/v1/payment-methods', { customerId: cus, type: 'paypal' }, key()), 201);
    // The subscription collects from the default (it names none).
    const state = ok(await portal(id, `/payment-methods/${b.id}/default`, token, {}));
    expect(state.defaultPaymentMethodId).toBe(b.id);
    const events = ok(await ws.client.get(`/v1/events?objectId=${cus}&order=asc&limit=100`)) as any[];
    expect(events.map((e) => [e.type, e.metadata.source])).toEqual([
      ['customer.created', 'api'],
      ['customer.updated', 'api'],
      ['customer.updated', 'portal'],
    ]);
    // Assign a saved method to the subscription from the portal.
    const assigned = ok(await portal(id, `/subscriptions/${sub.id}/payment-method`, token, { paymentMethodId: a.id }));
    expect(assigned.subscriptions[0].paymentMethod).toBe(a.id);
    ok(await portal(id, `/payment-methods/${b.id}/detach`, token, {}));
    expect(ok(await ws.client.get(`/v1/payment-methods/${b.id}`)).status).toBe('detached');
    // `a` is now the only active method and the live subscription charges it.
    fails(await portal(id, `/payment-methods/${a.id}/detach`, token, {}), 409, 'conflict');
    expect(ok(await ws.client.get(`/v1/payment-methods/${a.id}`)).status).toBe('active');
    // The API's detach has no such guard.
    expect(ok(await ws.client.post(`/v1/payment-methods/${a.id}/detach`, {}, key())).status).toBe('detached');
  });

  it("another customer's method or subscription is 404; the workspace toggle off is 403", async () => {
    const ws = await server.workspace();
    const { id, token, sub } = await setup(ws);
    const stranger = ok(await ws.client.post('/v1/payment-methods', { customerId: await customer(ws) }, key()), 201);
    fails(await portal(id, `/payment-methods/${stranger.id}/default`, token, {}), 404, 'not_found');
    fails(await portal(id, `/payment-methods/${stranger.id}/detach`, token, {}), 404, 'not_found');
    fails(
      await portal(id, `/subscriptions/${sub.id}/payment-method`, token, { paymentMethodId: stranger.id }),
      404,
      'not_found',
    );
    expect(ok(await ws.client.get(`/v1/payment-methods/${stranger.id}`)).status).toBe('active');
    fails(
      await portal(id, '/payment-methods/setup', token, { subscriptionId: 'sub_01JCKZ3V6Q8Y2X4W5T7R9P0M1N' }),
      404,
      'not_found',
    );
    const patched = await ws.client.patch(`/v1/workspaces/${ws.workspaceId}`, {
      portalSettings: { updatePaymentMethod: false },
    });
    expect(patched.status).toBe(200);
    fails(await portal(id, '/payment-methods/setup', token, {}), 403, 'insufficient_scope');
  });
});
