// Saving the payment method at checkout, with consent (docs/guides/checkout-sessions.md, Saving the
// payment method): create validation, the sandbox's consent box (ticked, unticked, required), the
// token sealed to its `pm_` and never in an answer or an event, the invoice-backed session that
// gives a subscription its method, and another workspace's customer.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { db, useServer, type Workspace } from '../../helpers/server.ts';
import { hostedToken } from '../../helpers/payments.ts';
import { plan } from '../../helpers/renewals.ts';
import { SANDBOX_TOKEN_PREFIX } from '../../../src/providers/saved.ts';

const server = useServer();
type Res = { status: number; json: any; text: string };
const key = () => ({ 'idempotency-key': randomUUID() });

function fails(res: Res, status: number, code: string, field: string) {
  expect({ status: res.status, code: res.json?.error?.code, field: res.json?.error?.field }, res.text).toEqual({
    status,
    code,
    field,
  });
}
function ok(res: Res, status = 200) {
  expect(res.status, res.text).toBe(status);
  return res.json.data;
}
const customer = async (ws: Workspace) => ok(await ws.client.post('/v1/customers', { name: 'Budi' }), 201).id as string;
const body = (extra: Record<string, unknown>) => ({
  amount: 150000,
  currency: 'IDR',
  methods: ['card', 'qris'],
  successUrl: 'https://shop.example/thanks',
  cancelUrl: 'https://shop.example/cart',
  ...extra,
});
const create = (ws: Workspace, extra: Record<string, unknown>) =>
  ws.client.post('/v1/checkout-sessions', body(extra), key());

/** The hosted page's own calls: public, unsigned. */
async function page(id: string, path: string, payload: unknown): Promise<Res> {
  const res = await fetch(`${server.url}/c/${await hostedToken(id)}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'accept-language': 'en' },
    body: JSON.stringify(payload),
  });
  const text = await res.text();
  return { status: res.status, json: JSON.parse(text), text };
}
const eventsOf = async (objectId: string) =>
  (
    await db().system.query(`SELECT type, data FROM events WHERE "objectId" = $1 ORDER BY "createdAt", sequence`, [
      objectId,
    ])
  ).rows as { type: string; data: unknown }[];
/** Every event row of the workspace, as text: no provider token may be in any of them. */
const allEventText = async (workspaceId: string) =>
  JSON.stringify(
    (await db().system.query(`SELECT data, metadata FROM events WHERE "workspaceId" = $1`, [workspaceId])).rows,
  );

describe('POST /v1/checkout-sessions savePaymentMethod', () => {
  it('defaults to none; answers savePaymentMethod and savedPaymentMethodId on REST and GraphQL', async () => {
    const ws = await server.workspace();
    const s = ok(await create(ws, {}), 201);
    expect(s).toMatchObject({ savePaymentMethod: 'none', savedPaymentMethodId: null });
    const cus = await customer(ws);
    const o = ok(await create(ws, { customerId: cus, savePaymentMethod: 'optional' }), 201);
    expect(o).toMatchObject({ savePaymentMethod: 'optional', savedPaymentMethodId: null, customerId: cus });
    const gql = await ws.client.graphql(
      `query($id: ID!) { checkoutSession(id: $id) { savePaymentMethod savedPaymentMethodId } }`,
      { id: o.id },
    );
    expect(gql.json.data.checkoutSession).toEqual({ savePaymentMethod: 'optional', savedPaymentMethodId: null });
  });

  it('refuses: not none without customerId, required without a savable method, an unknown value', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    fails(await create(ws, { savePaymentMethod: 'optional' }), 400, 'VALIDATION_ERROR', 'customerId');
    fails(await create(ws, { savePaymentMethod: 'required' }), 400, 'VALIDATION_ERROR', 'customerId');
    fails(
      await create(ws, { customerId: cus, savePaymentMethod: 'required', methods: ['qris', 'va'] }),
      400,
      'VALIDATION_ERROR',
      'methods',
    );
    fails(
      await create(ws, { customerId: cus, savePaymentMethod: 'always' }),
      400,
      'VALIDATION_ERROR',
      'savePaymentMethod',
    );
    // One savable method is enough for required.
    ok(await create(ws, { customerId: cus, savePaymentMethod: 'required', methods: ['qris', 'ewallet'] }), 201);
  });

  it("another workspace's customer is 404 (nothing created)", async () => {
    const ws = await server.workspace();
    const other = await server.workspace();
    const theirs = await customer(other);
    const res = await create(ws, { customerId: theirs, savePaymentMethod: 'optional' });
    expect({ status: res.status, code: res.json.error?.code }).toEqual({ status: 404, code: 'not_found' });
  });
});

describe('the sandbox with the consent box', () => {
  it('optional, box ticked: a pm_ (consent checkout_session) is attached, the default, on the session and the payment', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const s = ok(await create(ws, { customerId: cus, savePaymentMethod: 'optional' }), 201);
    ok(await page(s.id, '/attempt', { method: 'card', savePaymentMethod: true }));
    ok(await page(s.id, '/simulate', { outcome: 'success' }));
    const done = ok(await ws.client.get(`/v1/checkout-sessions/${s.id}`));
    expect(done.status).toBe('completed');
    expect(done.savedPaymentMethodId).toMatch(/^pm_[0-9A-Z]{26}$/);
    const pm = ok(await ws.client.get(`/v1/payment-methods/${done.savedPaymentMethodId}`));
    expect(pm).toMatchObject({
      customerId: cus,
      type: 'card',
      status: 'active',
      adapter: 'provider_a_platform',
      isDefault: true,
      card: { brand: 'visa', last4: '4242' },
      consent: { source: 'checkout_session', sourceId: s.id },
    });
    expect(JSON.stringify(pm)).not.toContain(SANDBOX_TOKEN_PREFIX);
    const payment = ok(await ws.client.get(`/v1/payments/${done.paymentId}`));
    expect(payment.paymentMethodId).toBe(pm.id);
    const edges = await ws.client.graphql(
      `query($id: ID!) { checkoutSession(id: $id) { savedPaymentMethod { id consent } payment { paymentMethod { id } } } }`,
      { id: s.id },
    );
    expect(edges.json.data.checkoutSession).toEqual({
      savedPaymentMethod: { id: pm.id, consent: pm.consent },
      payment: { paymentMethod: { id: pm.id } },
    });
    expect((await ws.client.get(`/v1/customers/${cus}`)).json.data.defaultPaymentMethodId).toBe(pm.id);
    const types = (await eventsOf(pm.id)).map((e) => e.type);
    expect(types).toEqual(['payment_method.attached']);
    const completed = (await eventsOf(s.id)).find((e) => e.type === 'svc.checkout_session.completed.v1');
    expect((completed!.data as any).object.savedPaymentMethodId).toBe(pm.id);
    // The token is sealed: no sandbox token in any event, and the column is not the token.
    expect(await allEventText(ws.workspaceId)).not.toContain(SANDBOX_TOKEN_PREFIX);
    const { rows } = await db().system.query(`SELECT "providerToken" FROM payment_methods WHERE id = $1`, [pm.id]);
    expect(Buffer.from(rows[0].providerToken).toString('latin1')).not.toContain(SANDBOX_TOKEN_PREFIX);
    // A second method saved the same way is attached but is not the default.
    const s2 = ok(await create(ws, { customerId: cus, savePaymentMethod: 'optional' }), 201);
    ok(await page(s2.id, '/attempt', { method: 'card', savePaymentMethod: true }));
    ok(await page(s2.id, '/simulate', { outcome: 'success', scenario: 'charge_declined' }));
    const second = ok(
      await ws.client.get(
        `/v1/payment-methods/${(await ws.client.get(`/v1/checkout-sessions/${s2.id}`)).json.data.savedPaymentMethodId}`,
      ),
    );
    expect(second).toMatchObject({ isDefault: false, card: { last4: '0341' } });
  });

  it('optional, box unticked: the payment completes and nothing is saved', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const s = ok(await create(ws, { customerId: cus, savePaymentMethod: 'optional' }), 201);
    ok(await page(s.id, '/attempt', { method: 'card', savePaymentMethod: false }));
    ok(await page(s.id, '/simulate', { outcome: 'success' }));
    const done = ok(await ws.client.get(`/v1/checkout-sessions/${s.id}`));
    expect(done).toMatchObject({ status: 'completed', savedPaymentMethodId: null });
    expect(ok(await ws.client.get(`/v1/payments/${done.paymentId}`)).paymentMethodId).toBeNull();
    expect(ok(await ws.client.get(`/v1/payment-methods?customerId=${cus}`))).toEqual([]);
  });

  it('the box on a method that cannot be saved, or on a session that does not save, is refused', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const s = ok(await create(ws, { customerId: cus, savePaymentMethod: 'optional' }), 201);
    fails(
      await page(s.id, '/attempt', { method: 'qris', savePaymentMethod: true }),
      400,
      'VALIDATION_ERROR',
      'savePaymentMethod',
    );
    fails(
      await page(s.id, '/attempt', { method: 'card', savePaymentMethod: 'yes' }),
      400,
      'VALIDATION_ERROR',
      'savePaymentMethod',
    );
    const none = ok(await create(ws, { customerId: cus }), 201);
    fails(
      await page(none.id, '/attempt', { method: 'card', savePaymentMethod: true }),
      400,
      'VALIDATION_ERROR',
      'savePaymentMethod',
    );
  });

  it('required: only savable methods are offered; the method is saved without a box; setup_declined saves none', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const s = ok(
      await create(ws, { customerId: cus, savePaymentMethod: 'required', methods: ['qris', 'ewallet'] }),
      201,
    );
    fails(await page(s.id, '/attempt', { method: 'qris' }), 400, 'VALIDATION_ERROR', 'method');
    const html = await (
      await fetch(`${server.url}/c/${await hostedToken(s.id)}`, { headers: { 'accept-language': 'en' } })
    ).text();
    expect(html).toContain('id="save-notice"');
    expect(html).not.toContain('data-method="qris"');
    ok(await page(s.id, '/attempt', { method: 'ewallet' }));
    ok(await page(s.id, '/simulate', { outcome: 'success' }));
    const done = ok(await ws.client.get(`/v1/checkout-sessions/${s.id}`));
    const pm = ok(await ws.client.get(`/v1/payment-methods/${done.savedPaymentMethodId}`));
    expect(pm).toMatchObject({
      type: 'ewallet',
      ewallet: { provider: 'dana' },
      consent: { source: 'checkout_session' },
    });

    const declined = ok(await create(ws, { customerId: cus, savePaymentMethod: 'required' }), 201);
    ok(await page(declined.id, '/attempt', { method: 'card' }));
    ok(await page(declined.id, '/simulate', { outcome: 'success', scenario: 'setup_declined' }));
    expect(ok(await ws.client.get(`/v1/checkout-sessions/${declined.id}`))).toMatchObject({
      status: 'completed',
      savedPaymentMethodId: null,
    });
  });

  it('the simulate call may carry the box; an unknown scenario is refused', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const s = ok(await create(ws, { customerId: cus, savePaymentMethod: 'optional' }), 201);
    ok(await page(s.id, '/attempt', { method: 'card' }));
    fails(
      await page(s.id, '/simulate', { outcome: 'success', savePaymentMethod: true, scenario: 'nope' }),
      400,
      'VALIDATION_ERROR',
      'scenario',
    );
    ok(await page(s.id, '/simulate', { outcome: 'success', savePaymentMethod: true, scenario: 'insufficient_funds' }));
    const done = ok(await ws.client.get(`/v1/checkout-sessions/${s.id}`));
    expect(ok(await ws.client.get(`/v1/payment-methods/${done.savedPaymentMethodId}`)).card.last4).toBe('9995');
  });
});

describe('invoice-backed sessions', () => {
  it("a subscription invoice's page offers the box; the method saved there becomes the subscription's paymentMethod", async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const { priceId } = await plan(ws);
    const sub = ok(await ws.client.post('/v1/subscriptions', { customerId: cus, priceId }, key()), 201);
    expect(sub.paymentMethod).toBeNull();
    const { rows } = await db().system.query(
      `SELECT id, "hostedSecret" FROM invoices WHERE "subscriptionId" = $1 AND status = 'open'`,
      [sub.id],
    );
    const res = await fetch(`${server.url}/i/${rows[0].id}_${rows[0].hostedSecret}/pay`, {
      method: 'POST',
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    const sessionId = /\/c\/(cs_[0-9A-Z]+)_/.exec(res.headers.get('location')!)![1];
    const session = ok(await ws.client.get(`/v1/checkout-sessions/${sessionId}`));
    expect(session).toMatchObject({ savePaymentMethod: 'optional', customerId: cus });
    const html = await (
      await fetch(`${server.url}${res.headers.get('location')}`, { headers: { 'accept-language': 'id' } })
    ).text();
    expect(html).toContain('Simpan metode pembayaran untuk pembayaran berikutnya');
    ok(await page(sessionId, '/attempt', { method: 'card', savePaymentMethod: true }));
    ok(await page(sessionId, '/simulate', { outcome: 'success' }));
    const done = ok(await ws.client.get(`/v1/checkout-sessions/${sessionId}`));
    expect(done.savedPaymentMethodId).toMatch(/^pm_/);
    const after = ok(await ws.client.get(`/v1/subscriptions/${sub.id}`));
    expect(after.paymentMethod).toBe(done.savedPaymentMethodId);
    const updated = (await eventsOf(sub.id)).filter((e) => e.type === 'subscription.updated');
    expect(updated.some((e) => (e.data as any).previousAttributes?.paymentMethod === null)).toBe(true);
    expect(ok(await ws.client.get(`/v1/invoices/${rows[0].id}`)).status).toBe('paid');
  });
});
