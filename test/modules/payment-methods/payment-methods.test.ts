/**
 * Payment methods (docs/guides/payment-methods.md) over real HTTP: the test create from a scenario,
 * the wire shape (display fields only, never the provider token), the customer default, detach and
 * the provider-driven moves clearing defaults and subscriptions, tenancy and mode isolation, scopes,
 * and the sealed token bound to its row.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { unseal } from '../../../src/core/sealed.ts';
import { expireDueMethods } from '../../../src/modules/payment-methods/expiry.ts';
import { mintKey, mintLiveKey } from '../../helpers/keys.ts';
import { until } from '../../helpers/receiver.ts';
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
  expect(res.json.data).toBeNull();
}
function ok(res: Res, status = 200) {
  expect(res.status, res.text).toBe(status);
  return res.json.data;
}
const customer = async (ws: Workspace) => ok(await ws.client.post('/v1/customers', { name: 'Budi' }), 201).id as string;
const createPm = (ws: Workspace, body: Record<string, unknown>) => ws.client.post('/v1/payment-methods', body, key());
const detach = (ws: Workspace, id: string) => ws.client.post(`/v1/payment-methods/${id}/detach`, {}, key());
const eventsOf = async (ws: Workspace, objectId: string) =>
  ok(await ws.client.get(`/v1/events?objectId=${objectId}&order=asc&limit=100`)) as any[];

const wireFields = [
  'accountId',
  'adapter',
  'arn',
  'card',
  'consent',
  'createdAt',
  'customerId',
  'detachedAt',
  'directDebit',
  'ewallet',
  'expiresAt',
  'id',
  'isDefault',
  'metadata',
  'paypal',
  'status',
  'type',
  'updatedAt',
];

describe('POST /v1/payment-methods (test mode)', () => {
  it('creates a sandbox card (201) with display fields only; the first active method becomes the default', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const pm = ok(await createPm(ws, { customerId: cus, scenario: 'success', expMonth: 7, expYear: 2040 }), 201);
    expect(Object.keys(pm).sort()).toEqual(wireFields);
    expect(pm).toMatchObject({
      id: expect.stringMatching(/^pm_[0-9A-HJKMNP-TV-Z]{26}$/),
      arn: `arn:svc:${ws.accountId}:payment-method:${pm.id}`,
      customerId: cus,
      type: 'card',
      status: 'active',
      adapter: 'provider_a_platform',
      card: { brand: 'visa', last4: '4242', expMonth: 7, expYear: 2040, funding: 'credit' },
      ewallet: null,
      isDefault: true,
      expiresAt: '2040-08-01T00:00:00.000Z',
      consent: { source: 'test', sourceId: null, at: expect.any(String) },
      detachedAt: null,
    });
    const c = ok(await ws.client.get(`/v1/customers/${cus}`));
    expect(c.defaultPaymentMethodId).toBe(pm.id);
    // A second method does not take the default unless asked.
    const wallet = ok(
      await createPm(ws, { customerId: cus, type: 'ewallet', ewalletProvider: 'ovo', scenario: 'insufficient_funds' }),
      201,
    );
    expect(wallet).toMatchObject({
      isDefault: false,
      ewallet: { provider: 'ovo', maskedAccount: '+62 812-****-9995' },
    });
    const third = ok(await createPm(ws, { customerId: cus, type: 'direct_debit', bank: 'bri', setDefault: true }), 201);
    expect(third).toMatchObject({ isDefault: true, directDebit: { bank: 'bri', maskedAccount: '****4242' } });
    expect(ok(await ws.client.get(`/v1/payment-methods/${pm.id}`)).isDefault).toBe(false);
    expect(ok(await ws.client.get(`/v1/customers/${cus}`)).defaultPaymentMethodId).toBe(third.id);
    const events = await eventsOf(ws, pm.id);
    expect(events.map((e) => e.type)).toEqual(['payment_method.attached', 'payment_method.updated']);
    expect(events[0].data.object).toEqual(pm);
    expect(events[1].data.previousAttributes).toEqual({ isDefault: true });
    // The token is nowhere on the wire, in events or in stored replays.
    const { rows } = await db().system.query(
      `SELECT "providerToken", "providerTokenHash" FROM payment_methods WHERE id = $1`,
      [pm.id],
    );
    const token = unseal(
      'payment_methods',
      { id: pm.id, workspaceId: ws.workspaceId, mode: 'test' },
      rows[0].providerToken,
    ).toString();
    expect(token).toMatch(/^sbx_4242_[0-9a-f]{32}$/);
    const everything = JSON.stringify(
      (await db().system.query(`SELECT data FROM events WHERE "workspaceId" = $1`, [ws.workspaceId])).rows,
    );
    expect(everything).not.toContain(token);
    expect(everything).not.toContain(rows[0].providerTokenHash);
    expect(everything).not.toContain('providerToken');
  });

  it('the sealed token does not decrypt on another row, workspace or mode', async () => {
    const ws = await server.workspace();
    const pm = ok(await createPm(ws, { customerId: await customer(ws) }), 201);
    const { rows } = await db().system.query(`SELECT "providerToken" FROM payment_methods WHERE id = $1`, [pm.id]);
    const sealed = rows[0].providerToken;
    expect(() =>
      unseal('payment_methods', { id: 'pm_other', workspaceId: ws.workspaceId, mode: 'test' }, sealed),
    ).toThrow();
    expect(() => unseal('payment_methods', { id: pm.id, workspaceId: 'ws_other', mode: 'test' }, sealed)).toThrow();
    expect(() => unseal('payment_methods', { id: pm.id, workspaceId: ws.workspaceId, mode: 'live' }, sealed)).toThrow();
  });

  it('bad input: 400 validation_error naming the field; 404 for a customer of another workspace; 422 setup_declined', async () => {
    const ws = await server.workspace();
    const other = await server.workspace();
    const cus = await customer(ws);
    fails(await createPm(ws, {}), 400, 'validation_error', 'customerId');
    fails(await createPm(ws, { customerId: cus, type: 'bitcoin' }), 400, 'validation_error', 'type');
    fails(await createPm(ws, { customerId: cus, scenario: 'lucky' }), 400, 'validation_error', 'scenario');
    fails(await createPm(ws, { customerId: cus, type: 'ewallet' }), 400, 'validation_error', 'ewalletProvider');
    fails(await createPm(ws, { customerId: cus, type: 'direct_debit', bank: 'xyz' }), 400, 'validation_error', 'bank');
    fails(await createPm(ws, { customerId: cus, expMonth: 13 }), 400, 'validation_error', 'expMonth');
    fails(await createPm(ws, { customerId: cus, expYear: 2001 }), 400, 'validation_error', 'expYear');
    fails(
      await createPm(ws, { customerId: cus, metadata: { note: 'card 4242 4242 4242 4242' } }),
      400,
      'validation_error',
      'metadata.note',
    );
    fails(await createPm(other, { customerId: cus }), 404, 'not_found');
    fails(await createPm(ws, { customerId: cus, scenario: 'setup_declined' }), 422, 'gateway_error');
    expect(ok(await ws.client.get(`/v1/payment-methods?customerId=${cus}`))).toEqual([]);
  });

  it('a live key cannot create a sandbox method (403 forbidden_in_live_mode) nor simulate', async () => {
    const ws = await server.workspace();
    const live = await mintLiveKey(ws.workspaceId);
    const liveClient = createClient({ baseUrl: server.url, keyId: live.keyId, secret: live.secret });
    const cus = ok(await liveClient.post('/v1/customers', { name: 'Live' }), 201).id;
    fails(await liveClient.post('/v1/payment-methods', { customerId: cus }, key()), 403, 'forbidden_in_live_mode');
    fails(
      await liveClient.post('/v1/payment-methods/pm_01ABC/simulate', { event: 'expire' }, key()),
      403,
      'forbidden_in_live_mode',
    );
  });
});

describe('reading payment methods', () => {
  it('another workspace or mode reads 404; fixed test tokens are not resources; lists filter and page', async () => {
    const ws = await server.workspace();
    const other = await server.workspace();
    const cus = await customer(ws);
    const a = ok(await createPm(ws, { customerId: cus }), 201);
    const b = ok(await createPm(ws, { customerId: cus, type: 'paypal' }), 201);
    fails(await other.client.get(`/v1/payment-methods/${a.id}`), 404, 'not_found');
    fails(await ws.client.get('/v1/payment-methods/pm_test_success'), 404, 'not_found');
    const live = await mintLiveKey(ws.workspaceId);
    const liveClient = createClient({ baseUrl: server.url, keyId: live.keyId, secret: live.secret });
    fails(await liveClient.get(`/v1/payment-methods/${a.id}`), 404, 'not_found');
    expect(ok(await liveClient.get('/v1/payment-methods'))).toEqual([]);
    expect(ok(await other.client.get('/v1/payment-methods'))).toEqual([]);
    expect(ok(await ws.client.get('/v1/payment-methods')).map((p: any) => p.id)).toEqual([b.id, a.id]);
    expect(ok(await ws.client.get('/v1/payment-methods?type=paypal')).map((p: any) => p.id)).toEqual([b.id]);
    const page = await ws.client.get('/v1/payment-methods?limit=1');
    expect(page.json.meta.page.hasMore).toBe(true);
    const next = ok(await ws.client.get(`/v1/payment-methods?limit=1&cursor=${page.json.meta.page.nextCursor}`));
    expect(next.map((p: any) => p.id)).toEqual([a.id]);
    fails(await ws.client.get('/v1/payment-methods?status=broken'), 400, 'validation_error', 'status');
    fails(await ws.client.get('/v1/payment-methods?limit=500'), 400, 'invalid_limit');
    // GraphQL edges: Customer.paymentMethods and Customer.defaultPaymentMethod.
    const g = await ws.client.graphql(
      `query($id: ID!) { customer(id: $id) { defaultPaymentMethod { id } paymentMethods(first: 10) { edges { node { id type } } } } }`,
      { id: cus },
    );
    expect(g.json.errors).toBeUndefined();
    expect(g.json.data.customer.defaultPaymentMethod).toEqual({ id: a.id });
    expect(g.json.data.customer.paymentMethods.edges.map((e: any) => e.node.id)).toEqual([b.id, a.id]);
  });

  it('scopes: payment_method:read lists, write is needed to create and detach', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const pm = ok(await createPm(ws, { customerId: cus }), 201);
    const reader = await mintKey(ws.workspaceId, 'test', { role: 'restricted', scopes: ['svc:payment_method:read'] });
    const client = createClient({ baseUrl: server.url, keyId: reader.keyId, secret: reader.secret });
    expect(ok(await client.get(`/v1/payment-methods/${pm.id}`)).id).toBe(pm.id);
    fails(await client.post('/v1/payment-methods', { customerId: cus }, key()), 403, 'insufficient_scope');
    fails(await client.post(`/v1/payment-methods/${pm.id}/detach`, {}, key()), 403, 'insufficient_scope');
    const none = await mintKey(ws.workspaceId, 'test', { role: 'restricted', scopes: ['svc:customer:read'] });
    const noneClient = createClient({ baseUrl: server.url, keyId: none.keyId, secret: none.secret });
    fails(await noneClient.get('/v1/payment-methods'), 403, 'insufficient_scope');
  });
});

describe('default, detach and provider-driven moves', () => {
  async function subscribed(ws: Workspace) {
    const plan = ok(
      await postPlan(ws, planBody({ prices: [{ currency: 'IDR', model: 'flat', unitAmount: 100_000 }] })),
      201,
    );
    const cus = await customer(ws);
    const pm = ok(await createPm(ws, { customerId: cus }), 201);
    const sub = ok(
      await ws.client.post(
        '/v1/subscriptions',
        { customerId: cus, priceId: plan.prices[0].id, paymentMethod: pm.id, trialDays: 7 },
        key(),
      ),
      201,
    );
    return { cus, pm, sub, priceId: plan.prices[0].id as string };
  }

  it('PATCH /v1/customers defaultPaymentMethodId: an active method of this customer, else 400 naming the field', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const cus2 = await customer(ws);
    const a = ok(await createPm(ws, { customerId: cus }), 201);
    const b = ok(await createPm(ws, { customerId: cus }), 201);
    const foreign = ok(await createPm(ws, { customerId: cus2 }), 201);
    const patched = ok(await ws.client.patch(`/v1/customers/${cus}`, { defaultPaymentMethodId: b.id }));
    expect(patched.defaultPaymentMethodId).toBe(b.id);
    expect(ok(await ws.client.get(`/v1/payment-methods/${a.id}`)).isDefault).toBe(false);
    expect(ok(await ws.client.get(`/v1/payment-methods/${b.id}`)).isDefault).toBe(true);
    const bad = (id: string) => ws.client.patch(`/v1/customers/${cus}`, { defaultPaymentMethodId: id });
    fails(await bad(foreign.id), 400, 'validation_error', 'defaultPaymentMethodId');
    fails(await bad('pm_test_success'), 400, 'validation_error', 'defaultPaymentMethodId');
    fails(await bad('pm_01NOTHERE'), 400, 'validation_error', 'defaultPaymentMethodId');
    ok(await ws.client.post(`/v1/payment-methods/${a.id}/simulate`, { event: 'require_action' }, key()));
    fails(await bad(a.id), 400, 'validation_error', 'defaultPaymentMethodId');
    const cleared = ok(await ws.client.patch(`/v1/customers/${cus}`, { defaultPaymentMethodId: null }));
    expect(cleared.defaultPaymentMethodId).toBeNull();
    expect(ok(await ws.client.get(`/v1/payment-methods/${b.id}`)).isDefault).toBe(false);
    const ev = (await eventsOf(ws, cus)).filter((e) => e.type === 'customer.updated');
    expect(ev.map((e) => e.data.previousAttributes)).toEqual([
      { defaultPaymentMethodId: null },
      { defaultPaymentMethodId: a.id },
      { defaultPaymentMethodId: b.id },
    ]);
  });

  it('detach (idempotency key required): clears the default and the subscriptions naming it; again → 200 unchanged, no event', async () => {
    const ws = await server.workspace();
    const { cus, pm, sub } = await subscribed(ws);
    expect(sub.paymentMethod).toBe(pm.id);
    fails(await ws.client.post(`/v1/payment-methods/${pm.id}/detach`, {}), 400, 'idempotency_required');
    const d = ok(await detach(ws, pm.id));
    expect(d).toMatchObject({ status: 'detached', isDefault: false, detachedAt: expect.any(String) });
    expect(ok(await ws.client.get(`/v1/customers/${cus}`)).defaultPaymentMethodId).toBeNull();
    expect(ok(await ws.client.get(`/v1/subscriptions/${sub.id}`)).paymentMethod).toBeNull();
    const subEvents = (await eventsOf(ws, sub.id)).filter((e) => e.type === 'subscription.updated');
    expect(subEvents.at(-1).data.previousAttributes).toEqual({ paymentMethod: pm.id });
    const again = ok(await detach(ws, pm.id));
    expect(again).toEqual(d);
    expect((await eventsOf(ws, pm.id)).map((e) => e.type)).toEqual([
      'payment_method.attached',
      'payment_method.detached',
    ]);
    // Terminal for charging: a detached method cannot be named again, nor patched.
    fails(
      await ws.client.patch(`/v1/subscriptions/${sub.id}`, { paymentMethod: pm.id }),
      400,
      'validation_error',
      'paymentMethod',
    );
    fails(await ws.client.patch(`/v1/payment-methods/${pm.id}`, { metadata: { a: 'b' } }), 409, 'conflict');
    const other = await server.workspace();
    fails(await detach(other, pm.id), 404, 'not_found');
  });

  it('simulate: expire and revoke leave active (default and subscriptions cleared); require_action → reactivate; moves not drawn are 409', async () => {
    const ws = await server.workspace();
    const { cus, pm, sub } = await subscribed(ws);
    const sim = (id: string, event: string) => ws.client.post(`/v1/payment-methods/${id}/simulate`, { event }, key());
    expect(ok(await sim(pm.id, 'require_action')).status).toBe('requires_action');
    expect(ok(await ws.client.get(`/v1/subscriptions/${sub.id}`)).paymentMethod).toBeNull();
    expect(ok(await sim(pm.id, 'reactivate'))).toMatchObject({ status: 'active', isDefault: false });
    fails(await sim(pm.id, 'reactivate'), 409, 'conflict');
    fails(await sim(pm.id, 'explode'), 400, 'validation_error', 'event');
    expect(ok(await sim(pm.id, 'expire')).status).toBe('expired');
    fails(await sim(pm.id, 'revoke'), 409, 'conflict');
    const pm2 = ok(await createPm(ws, { customerId: cus }), 201);
    expect(pm2.isDefault).toBe(true);
    expect(ok(await sim(pm2.id, 'revoke'))).toMatchObject({ status: 'revoked', isDefault: false });
    expect((await eventsOf(ws, pm.id)).map((e) => e.type)).toEqual([
      'payment_method.attached',
      'payment_method.updated',
      'payment_method.updated',
      'payment_method.expired',
    ]);
    expect(ok(await detach(ws, pm.id)).status).toBe('detached');
  });

  it('a subscription takes only an active pm_ of its own customer in a currency its adapter charges', async () => {
    const ws = await server.workspace();
    const { priceId } = await subscribed(ws);
    const cus = await customer(ws);
    const mine = ok(await createPm(ws, { customerId: cus }), 201);
    const theirs = ok(await createPm(ws, { customerId: await customer(ws) }), 201);
    const create = (paymentMethod: string) =>
      ws.client.post('/v1/subscriptions', { customerId: cus, priceId, paymentMethod, trialDays: 3 }, key());
    fails(await create(theirs.id), 400, 'validation_error', 'paymentMethod');
    fails(await create('pm_01NOSUCHMETHOD0000000000000'), 400, 'validation_error', 'paymentMethod');
    const ok201 = ok(await create(mine.id), 201);
    const g = await ws.client.graphql(
      `query($id: ID!) { subscription(id: $id) { savedPaymentMethod { id status } } }`,
      {
        id: ok201.id,
      },
    );
    expect(g.json.errors).toBeUndefined();
    expect(g.json.data.subscription.savedPaymentMethod).toEqual({ id: mine.id, status: 'active' });
  });
});

describe('card expiry sweep', () => {
  it('expires active cards past expiresAt on the real clock, clears them as default; leaves others', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const due = ok(await createPm(ws, { customerId: cus }), 201);
    const later = ok(await createPm(ws, { customerId: cus }), 201);
    const wallet = ok(await createPm(ws, { customerId: cus, type: 'ewallet', ewalletProvider: 'ovo' }), 201);
    await db().system.query(`UPDATE payment_methods SET "expiresAt" = now() - interval '1 minute' WHERE id = $1`, [
      due.id,
    ]);
    expect(await expireDueMethods()).toBeGreaterThanOrEqual(1);
    expect(ok(await ws.client.get(`/v1/payment-methods/${due.id}`))).toMatchObject({
      status: 'expired',
      isDefault: false,
    });
    expect(ok(await ws.client.get(`/v1/payment-methods/${later.id}`)).status).toBe('active');
    expect(ok(await ws.client.get(`/v1/payment-methods/${wallet.id}`)).status).toBe('active');
    expect(ok(await ws.client.get(`/v1/customers/${cus}`)).defaultPaymentMethodId).toBeNull();
    expect((await eventsOf(ws, due.id)).map((e) => e.type)).toEqual([
      'payment_method.attached',
      'payment_method.expired',
    ]);
    // Run again: nothing more to do for this workspace.
    await expireDueMethods();
    expect((await eventsOf(ws, due.id)).length).toBe(2);
  });
});

describe('card expiry on a test clock', () => {
  it("a clocked customer's card expires when its clock passes expiresAt, at the clock's time", async () => {
    const ws = await server.workspace();
    const clockRes = ok(
      await ws.client.post('/v1/test-clocks', { frozenTime: '2027-03-15T00:00:00.000Z' }, key()),
      201,
    );
    const cus = ok(await ws.client.post('/v1/customers', { name: 'Clocked', testClockId: clockRes.id }), 201).id;
    const card = ok(await createPm(ws, { customerId: cus, expMonth: 4, expYear: 2027 }), 201);
    expect(card.expiresAt).toBe('2027-05-01T00:00:00.000Z');
    // The real-clock sweep leaves clocked methods alone, even past their expiry on the real clock.
    const setExpiry = (sqlTime: string) =>
      db().system.query(`UPDATE payment_methods SET "expiresAt" = ${sqlTime} WHERE id = $1`, [card.id]);
    await setExpiry(`now() - interval '1 minute'`);
    await expireDueMethods();
    expect(ok(await ws.client.get(`/v1/payment-methods/${card.id}`)).status).toBe('active');
    await setExpiry(`'2027-05-01T00:00:00Z'`);
    const adv = await ws.client.post(
      `/v1/test-clocks/${clockRes.id}/advance`,
      { frozenTime: '2027-06-01T00:00:00.000Z' },
      key(),
    );
    expect(adv.status, adv.text).toBe(200);
    await until(
      async () => ok(await ws.client.get(`/v1/test-clocks/${clockRes.id}`)).status === 'ready',
      'the clock to be ready',
    );
    expect(ok(await ws.client.get(`/v1/payment-methods/${card.id}`))).toMatchObject({
      status: 'expired',
      updatedAt: '2027-05-01T00:00:00.000Z',
    });
    const [expired] = (await eventsOf(ws, card.id)).filter((e) => e.type === 'payment_method.expired');
    expect(expired.occurredAt).toBe('2027-05-01T00:00:00.000Z');
  });
});
