/**
 * Live-mode off-session charges of provider_b saved cards through its simulator (docs/providers.md, Saved
 * methods; docs/guides/payment-methods.md, Off-session charges): a customer pays a live checkout with the
 * consent box ticked and types the card on the Snap card form; the `saved_token_id` becomes a `pm_`, which
 * then pays a subscription's first invoice and its renewal off session (`payment_type: credit_card`,
 * `credit_card.token_id`), declines as its last four say, and a dropped answer is reconciled by a status
 * lookup without a second charge.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { processDue } from '../../../src/modules/subscriptions/renewals.ts';
import { mintLiveKey } from '../../helpers/keys.ts';
import { hostedToken } from '../../helpers/payments.ts';
import { until } from '../../helpers/receiver.ts';
import { plan } from '../../helpers/renewals.ts';
import { createClient, db, useServer, type Workspace } from '../../helpers/server.ts';
import { useSimulators } from '../../helpers/simulators.ts';
import { ProviderBSim } from '../../simulators/provider_b.ts';

const server = useServer();
const simulators = useSimulators(server);
const key = () => ({ 'idempotency-key': randomUUID() });
const creds = {
  serverKey: `Mid-server-${randomBytes(6).toString('hex')}`,
  clientKey: `Mid-client-${randomBytes(4).toString('hex')}`,
  merchantId: 'G123456789',
  env: 'production',
};
const sim = simulators.track(new ProviderBSim({ serverKey: creds.serverKey, merchantId: creds.merchantId }));

beforeAll(async () => {
  await sim.start();
  process.env.PROVIDER_B_BASE_URL = sim.url;
  sim.notificationUrl = `${server.url}/v1/callbacks/provider_b`;
});

/** A live workspace with provider_b connected to the simulator, and a customer. */
async function liveWorkspace(): Promise<{ ws: Workspace; cus: string }> {
  const ws = await server.workspace();
  const live = await mintLiveKey(ws.workspaceId);
  const client = createClient({ baseUrl: server.url, keyId: live.keyId, secret: live.secret });
  const put = await client.put('/v1/adapters/provider_b', creds, key());
  expect(put.status, put.text).toBe(200);
  const cus = (await client.post('/v1/customers', { name: 'Sari', email: 'sari@example.com' })).json.data.id;
  return { ws: { ...ws, client }, cus };
}

/** The customer pays a live checkout with consent and types `number` on the Snap card form: the saved `pm_`. */
async function saveAtCheckout(ws: Workspace, cus: string, number: string) {
  const res = await ws.client.post(
    '/v1/checkout-sessions',
    {
      amount: 50_000,
      currency: 'IDR',
      methods: ['card'],
      customerId: cus,
      savePaymentMethod: 'optional',
      successUrl: 'https://shop.example/thanks',
      cancelUrl: 'https://shop.example/cart',
    },
    key(),
  );
  expect(res.status, res.text).toBe(201);
  const s = res.json.data;
  expect(s.mode).toBe('live');
  const attempt = await fetch(`${server.url}/c/${await hostedToken(s.id)}/attempt`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'accept-language': 'en' },
    body: JSON.stringify({ method: 'card', savePaymentMethod: true }),
  });
  const a = (await attempt.json()) as any;
  expect(attempt.status, JSON.stringify(a)).toBe(200);
  const snap = a.data.redirectUrl as string;
  expect(await (await fetch(snap)).text()).toContain('name="number"');
  const typed = await fetch(`${sim.url}/sim/tokenize/${snap.split('/').at(-1)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ number }).toString(),
    redirect: 'manual',
  });
  expect(typed.status).toBe(303);
  await until(
    async () => (await ws.client.get(`/v1/checkout-sessions/${s.id}`)).json.data.status === 'completed',
    'the payment notification to complete the checkout',
  );
  const done = (await ws.client.get(`/v1/checkout-sessions/${s.id}`)).json.data;
  const pm = (await ws.client.get(`/v1/payment-methods/${done.savedPaymentMethodId}`)).json.data;
  expect(pm).toMatchObject({
    adapter: 'provider_b',
    type: 'card',
    status: 'active',
    card: { last4: number.replace(/\D/g, '').slice(-4) },
  });
  return pm.id as string;
}

async function subscribe(ws: Workspace, cus: string, pm: string) {
  const { priceId } = await plan(ws, { prices: [{ currency: 'IDR', model: 'flat', unitAmount: 120_000 }] });
  const res = await ws.client.post('/v1/subscriptions', { customerId: cus, priceId, paymentMethod: pm }, key());
  expect(res.status, res.text).toBe(201);
  const sub = res.json.data;
  const invoices = async () =>
    (await db().system.query(`SELECT * FROM invoices WHERE "subscriptionId" = $1 ORDER BY "periodStart"`, [sub.id]))
      .rows;
  const payments = async (invoiceId: string) =>
    (await db().system.query(`SELECT * FROM payments WHERE "invoiceId" = $1 ORDER BY "createdAt"`, [invoiceId])).rows;
  return { sub, invoices, payments };
}

/** The card charges the simulator received for our payment id (the charge body as sent). */
const cardCharges = (paymentId: string) =>
  sim.requests
    .filter((r) => r.method === 'POST' && r.path === '/v2/charge')
    .map((r) => JSON.parse(r.body))
    .filter((b) => b.custom_field1 === paymentId);

describe('live mode: provider_b saved cards charged off session', () => {
  it('saved at checkout (4242), then the first invoice and the renewal are paid off session, once each', async () => {
    const { ws, cus } = await liveWorkspace();
    const pm = await saveAtCheckout(ws, cus, '4242 4242 4242 4242');
    const { sub, invoices, payments } = await subscribe(ws, cus, pm);
    expect(sub.status).toBe('active');
    const [first] = await invoices();
    const [p1] = await payments(first.id);
    expect(p1).toMatchObject({ status: 'succeeded', adapter: 'provider_b', method: 'card', paymentMethodId: pm });
    expect(cardCharges(p1.id)).toEqual([
      expect.objectContaining({ payment_type: 'credit_card', credit_card: { token_id: expect.any(String) } }),
    ]);

    // The renewal at the period's end: charged in the renewal batch, off session, with the same card.
    const periodEnd = new Date(sub.currentPeriodEnd);
    const r = await processDue({
      scope: { workspaceId: ws.workspaceId, mode: 'live' },
      at: new Date(periodEnd.getTime() + 60_000),
      testClockId: null,
    });
    expect(r.renewed).toBe(1);
    await until(async () => {
      const all = await invoices();
      return all.length === 2 && all[1].status === 'paid';
    }, 'the renewal invoice to be paid');
    const renewal = (await invoices())[1];
    const [p2] = await payments(renewal.id);
    expect(p2).toMatchObject({ status: 'succeeded', adapter: 'provider_b', method: 'card', paymentMethodId: pm });
    expect(sim.charges.byReference.get(p2.id)).toBe(1);
    expect(cardCharges(p2.id)).toHaveLength(1);
    expect(cardCharges(p2.id)[0].credit_card.token_id).toBe(cardCharges(p1.id)[0].credit_card.token_id);
    const { rows } = await db().system.query(
      `SELECT code, direction, amount FROM ledger_entries WHERE "txId" = $1 ORDER BY code, direction`,
      [p2.id],
    );
    expect(rows.map((x) => `${x.direction} ${x.code} ${x.amount}`)).toContain('debit settlement:provider_b 120000');
  });

  it('a 0341 card (attached at checkout, charges fail): failed card_declined, the subscription incomplete', async () => {
    const { ws, cus } = await liveWorkspace();
    const pm = await saveAtCheckout(ws, cus, '4000 0000 0000 0341');
    const { sub, invoices, payments } = await subscribe(ws, cus, pm);
    expect(sub.status).toBe('incomplete');
    const [p] = await payments((await invoices())[0].id);
    expect(p).toMatchObject({ status: 'failed', failureCode: 'card_declined' });
    expect(p.metadata?.providerCode ?? null).toBe('05');
  });

  it('a dropped answer after the charge is never a decline: the status lookup by our order id finds it paid, one charge', async () => {
    const { ws, cus } = await liveWorkspace();
    const pm = await saveAtCheckout(ws, cus, '4242424242424242');
    // The charge is made, its answer never comes, and no notification either: only a lookup can find it.
    sim.offSession.dropResponseAfterCharge = true;
    sim.offSession.deliver = false;
    let out: Awaited<ReturnType<typeof subscribe>>;
    try {
      out = await subscribe(ws, cus, pm);
    } finally {
      sim.offSession.dropResponseAfterCharge = false;
      sim.offSession.deliver = true;
    }
    const invoiceId = (await out.invoices())[0].id;
    const [p] = await out.payments(invoiceId);
    expect(p).toMatchObject({ status: 'succeeded', failureCode: null });
    // Looked up by GET /v2/{order_id}/status right after the unanswered call, not charged again.
    expect(sim.charges.byReference.get(p.id)).toBe(1);
    expect(cardCharges(p.id)).toHaveLength(1);
    expect(
      sim.requests.some((r) => r.method === 'GET' && r.path.startsWith('/v2/') && r.path.endsWith('/status')),
    ).toBe(true);
    expect(
      (await db().system.query(`SELECT status FROM subscriptions WHERE id = $1`, [out.sub.id])).rows[0].status,
    ).toBe('active');
  }, 60_000);
});
