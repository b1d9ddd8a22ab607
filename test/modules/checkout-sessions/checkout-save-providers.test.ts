// Saving at checkout through a provider (docs/guides/checkout-sessions.md, Saving the payment method;
// docs/providers.md, Saving at checkout): provider_a's PAY_AND_SAVE payment request on its simulator.
// The customer types the card on the simulator's hosted form; the payment callback makes us ask
// fetchStatus, whose answer carries the new token: sealed into a `pm_`, and never in an API answer,
// an event, a stored provider event or a log line.
import { randomBytes, randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { db, useServer, type Workspace } from '../../helpers/server.ts';
import { useSimulators } from '../../helpers/simulators.ts';
import { hostedToken } from '../../helpers/payments.ts';
import { ProviderASim } from '../../simulators/provider_a.ts';
import { ProviderBSim } from '../../simulators/provider_b.ts';
import { ProviderCSim } from '../../simulators/provider_c.ts';
import { logger } from '../../../src/core/logger.ts';

const server = useServer();
const simulators = useSimulators(server);
const rand = (n: number) => randomBytes(n).toString('hex').slice(0, n);
const key = () => ({ 'idempotency-key': randomUUID() });

/** Every log line written meanwhile (the logger's own stream), at every level. */
function captureLogs() {
  const stream = (logger as any)[pino.symbols.streamSym];
  const write = stream.write;
  const level = logger.level;
  const lines: string[] = [];
  stream.write = (s: string) => (lines.push(String(s)), true);
  logger.level = 'trace';
  return {
    lines,
    stop: () => {
      stream.write = write;
      logger.level = level;
    },
  };
}
let stopLogs: (() => void) | undefined;
afterEach(() => stopLogs?.());

async function attempt(id: string, body: Record<string, unknown>) {
  const res = await fetch(`${server.url}/c/${await hostedToken(id)}/attempt`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'accept-language': 'en' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as any };
}
const waitFor = async (check: () => Promise<boolean>, ms = 5000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('provider_a (simulator): PAY_AND_SAVE at checkout', () => {
  const creds = { secretKey: `xnd_development_${rand(20)}`, callbackToken: rand(24) };
  const sim = simulators.track(new ProviderASim(creds));
  beforeAll(async () => {
    await sim.start();
    process.env.PROVIDER_A_BASE_URL = sim.url;
    sim.callbackUrl = `${server.url}/v1/callbacks/provider_a`;
  });

  async function setup() {
    const ws = await server.workspace();
    expect((await ws.client.put('/v1/adapters/provider_a', creds, key())).status).toBe(200);
    const cus = (await ws.client.post('/v1/customers', { name: 'Budi', email: 'budi@example.com' })).json.data.id;
    return { ws, cus };
  }
  const session = async (ws: Workspace, cus: string, extra: Record<string, unknown> = {}) => {
    const res = await ws.client.post(
      '/v1/checkout-sessions',
      {
        amount: 150000,
        currency: 'IDR',
        methods: ['card', 'ewallet'],
        customerId: cus,
        savePaymentMethod: 'optional',
        successUrl: 'https://shop.example/thanks',
        cancelUrl: 'https://shop.example/cart',
        ...extra,
      },
      key(),
    );
    expect(res.status, res.text).toBe(201);
    return res.json.data;
  };
  /** The customer types the card number on the provider's hosted form (the only PAN in tests). */
  const typeCard = async (url: string, number: string) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ number }).toString(),
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
  };

  it('box ticked: the token from fetchStatus is sealed into a pm_ and appears in no answer, event or log', async () => {
    const logs = captureLogs();
    stopLogs = logs.stop;
    const { ws, cus } = await setup();
    const s = await session(ws, cus);
    const a = await attempt(s.id, { method: 'card', savePaymentMethod: true });
    expect(a.status, JSON.stringify(a.json)).toBe(200);
    expect(a.json.data.redirectUrl).toMatch(/\/sim\/tokenize\/pali-/);
    // The provider was asked for a payment that saves (one payment request with an inline MULTIPLE_USE method).
    const [pr] = [...sim.paymentRequests.values()].filter((p) => p.reference_id === s.id);
    expect(pr.payment_method).toMatchObject({ type: 'CARD', reusability: 'MULTIPLE_USE' });
    const token = pr.payment_method.id as string;

    await typeCard(a.json.data.redirectUrl, '4242 4242 4242 4242');
    await waitFor(async () => (await ws.client.get(`/v1/checkout-sessions/${s.id}`)).json.data.status === 'completed');
    const done = (await ws.client.get(`/v1/checkout-sessions/${s.id}`)).json.data;
    expect(done.savedPaymentMethodId).toMatch(/^pm_[0-9A-Z]{26}$/);
    const pmRes = await ws.client.get(`/v1/payment-methods/${done.savedPaymentMethodId}`);
    expect(pmRes.json.data).toMatchObject({
      customerId: cus,
      type: 'card',
      adapter: 'provider_a',
      status: 'active',
      isDefault: true,
      card: { brand: 'visa', last4: '4242', funding: 'credit' },
      consent: { source: 'checkout_session', sourceId: s.id },
    });
    const payment = (await ws.client.get(`/v1/payments/${done.paymentId}`)).json.data;
    expect(payment).toMatchObject({
      paymentMethodId: done.savedPaymentMethodId,
      adapter: 'provider_a',
      amount: 150000,
    });

    // Sealed to its row: the column does not hold the token, and the routing hash is not it either.
    const { rows } = await db().system.query(
      `SELECT "providerToken", "providerTokenHash" FROM payment_methods WHERE id = $1`,
      [done.savedPaymentMethodId],
    );
    expect(Buffer.from(rows[0].providerToken).toString('latin1')).not.toContain(token);
    expect(rows[0].providerTokenHash).not.toContain(token);
    // Nowhere else: API answers, events, stored provider events, the attempt, log lines.
    const answers = [
      pmRes.text,
      (await ws.client.get(`/v1/checkout-sessions/${s.id}`)).text,
      (await ws.client.get(`/v1/payments/${done.paymentId}`)).text,
      (await ws.client.get(`/v1/payment-methods?customerId=${cus}`)).text,
      (await ws.client.get(`/v1/events?limit=100`)).text,
    ];
    for (const text of answers) expect(text).not.toContain(token);
    const stored = await db().system.query(
      `SELECT (SELECT coalesce(jsonb_agg(data), '[]') FROM events WHERE "workspaceId" = $1)::text AS events,
              (SELECT coalesce(jsonb_agg(payload), '[]') FROM provider_events WHERE "workspaceId" = $1)::text AS provider,
              (SELECT coalesce(jsonb_agg(a), '[]') FROM checkout_attempts a WHERE "workspaceId" = $1)::text AS attempts`,
      [ws.workspaceId],
    );
    expect(stored.rows[0].events).toContain(done.savedPaymentMethodId);
    expect(stored.rows[0].events).not.toContain(token);
    expect(stored.rows[0].provider).not.toContain(token);
    expect(stored.rows[0].attempts).not.toContain(token);
    expect(logs.lines.length).toBeGreaterThan(0);
    expect(logs.lines.join('')).not.toContain(token);
    const types = (
      await db().system.query(`SELECT type FROM events WHERE "objectId" = $1`, [done.savedPaymentMethodId])
    ).rows.map((r) => r.type);
    expect(types).toEqual(['payment_method.attached']);
  });

  it('box unticked: a one-off card payment (an invoice at the provider), nothing saved', async () => {
    const { ws, cus } = await setup();
    const s = await session(ws, cus);
    const a = await attempt(s.id, { method: 'card', savePaymentMethod: false });
    expect(a.status).toBe(200);
    expect([...sim.paymentRequests.values()].filter((p) => p.reference_id === s.id)).toEqual([]);
    const ref = (await db().system.query(`SELECT "providerReference" FROM checkout_sessions WHERE id = $1`, [s.id]))
      .rows[0].providerReference as string;
    expect(ref).toMatch(/^invoice:/);
    await sim.pay(ref);
    const done = (await ws.client.get(`/v1/checkout-sessions/${s.id}`)).json.data;
    expect(done).toMatchObject({ status: 'completed', savedPaymentMethodId: null });
    expect((await ws.client.get(`/v1/payment-methods?customerId=${cus}`)).json.data).toEqual([]);
  });

  it('a linkable e-wallet is linked while paying; a card declined at the first payment saves nothing', async () => {
    const { ws, cus } = await setup();
    const s = await session(ws, cus, { savePaymentMethod: 'required', methods: ['ewallet'] });
    const a = await attempt(s.id, { method: 'ewallet' });
    expect(a.status, JSON.stringify(a.json)).toBe(200);
    const res = await fetch(a.json.data.redirectUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ phone: '081234560000' }).toString(),
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    await waitFor(async () => (await ws.client.get(`/v1/checkout-sessions/${s.id}`)).json.data.status === 'completed');
    const done = (await ws.client.get(`/v1/checkout-sessions/${s.id}`)).json.data;
    expect((await ws.client.get(`/v1/payment-methods/${done.savedPaymentMethodId}`)).json.data).toMatchObject({
      type: 'ewallet',
      adapter: 'provider_a',
      ewallet: { provider: 'dana', maskedAccount: '+62 812-****-0000' },
    });

    const declined = await session(ws, cus);
    const b = await attempt(declined.id, { method: 'card', savePaymentMethod: true });
    await typeCard(b.json.data.redirectUrl, '4000 0000 0000 0341');
    await waitFor(
      async () => (await ws.client.get(`/v1/checkout-sessions/${declined.id}`)).json.data.status === 'open',
    );
    const after = (await ws.client.get(`/v1/checkout-sessions/${declined.id}`)).json.data;
    expect(after).toMatchObject({ status: 'open', savedPaymentMethodId: null });
    expect((await ws.client.get(`/v1/payment-methods?customerId=${cus}`)).json.data).toHaveLength(1);
  });

  it('the redaction: a token-shaped field in a log line is censored', () => {
    const logs = captureLogs();
    stopLogs = logs.stop;
    logger.info(
      { providerToken: 'tok-secret-1', savedMethod: { token: 'tok-secret-2' }, saved_token_id: 'tok-3' },
      'x',
    );
    const text = logs.lines.join('');
    expect(text).toContain('[sealed]');
    expect(text).not.toMatch(/tok-secret-1|tok-secret-2|tok-3/);
  });
});

describe('provider_b (simulator): Snap save_card at checkout', () => {
  const creds = {
    serverKey: `SB-Mid-server-${rand(12)}`,
    clientKey: `SB-Mid-client-${rand(8)}`,
    merchantId: 'G123456789',
  };
  const sim = simulators.track(new ProviderBSim({ serverKey: creds.serverKey, merchantId: creds.merchantId }));
  beforeAll(async () => {
    await sim.start();
    process.env.PROVIDER_B_BASE_URL = sim.url;
  });

  it('a card paid with the box ticked leaves saved_token_id: sealed into a pm_, masked in the stored notification', async () => {
    const ws = await server.workspace();
    expect((await ws.client.put('/v1/adapters/provider_b', creds, key())).status).toBe(200);
    const cus = (await ws.client.post('/v1/customers', { name: 'Sari' })).json.data.id;
    const res = await ws.client.post(
      '/v1/checkout-sessions',
      {
        amount: 150000,
        currency: 'IDR',
        methods: ['card'],
        customerId: cus,
        savePaymentMethod: 'optional',
        successUrl: 'https://shop.example/thanks',
        cancelUrl: 'https://shop.example/cart',
      },
      key(),
    );
    const s = res.json.data;
    expect((await attempt(s.id, { method: 'card', savePaymentMethod: true })).status).toBe(200);
    const orderId = (await db().system.query(`SELECT "providerReference" FROM checkout_sessions WHERE id = $1`, [s.id]))
      .rows[0].providerReference as string;
    await sim.pay(orderId);
    const done = (await ws.client.get(`/v1/checkout-sessions/${s.id}`)).json.data;
    expect(done.status).toBe('completed');
    const pm = await ws.client.get(`/v1/payment-methods/${done.savedPaymentMethodId}`);
    expect(pm.json.data).toMatchObject({
      adapter: 'provider_b',
      type: 'card',
      card: { brand: 'visa', last4: '1114', funding: 'credit' },
      consent: { source: 'checkout_session', sourceId: s.id },
    });
    expect(pm.json.data.expiresAt).not.toBeNull();
    const token = sim.txs.get(orderId)!.extra.saved_token_id as string;
    expect(token).toMatch(/-1114-/);
    const stored = await db().system.query(
      `SELECT (SELECT coalesce(jsonb_agg(payload), '[]') FROM provider_events WHERE "workspaceId" = $1)::text AS provider,
              (SELECT coalesce(jsonb_agg(data), '[]') FROM events WHERE "workspaceId" = $1)::text AS events`,
      [ws.workspaceId],
    );
    expect(stored.rows[0].provider).not.toContain(token);
    expect(stored.rows[0].events).not.toContain(token);
    expect(pm.text).not.toContain(token);
  });
});

describe('provider_c (simulator): a card stored on success', () => {
  const creds = { clientId: `AZ${rand(16)}`, secret: `EL${rand(16)}`, webhookId: `WH${rand(8).toUpperCase()}` };
  const sim = simulators.track(new ProviderCSim(creds));
  beforeAll(async () => {
    await sim.start();
    process.env.PROVIDER_C_BASE_URL = sim.url;
    process.env.PROVIDER_C_WEBHOOK_ID = creds.webhookId;
    sim.webhookUrl = `${server.url}/v1/callbacks/provider_c`;
  });

  it('store_in_vault ON_SUCCESS: the captured order carries the vault id, sealed into a pm_', async () => {
    const ws = await server.workspace();
    const put = await ws.client.put(
      '/v1/adapters/provider_c',
      { clientId: creds.clientId, secret: creds.secret, mode: 'sandbox' },
      key(),
    );
    expect(put.status).toBe(200);
    const cus = (await ws.client.post('/v1/customers', { name: 'Jo' })).json.data.id;
    const res = await ws.client.post(
      '/v1/checkout-sessions',
      {
        amount: 1234,
        currency: 'USD',
        methods: ['card'],
        customerId: cus,
        savePaymentMethod: 'required',
        successUrl: 'https://shop.example/thanks',
        cancelUrl: 'https://shop.example/cart',
      },
      key(),
    );
    const s = res.json.data;
    expect((await attempt(s.id, { method: 'card' })).status).toBe(200);
    const orderId = (await db().system.query(`SELECT "providerReference" FROM checkout_sessions WHERE id = $1`, [s.id]))
      .rows[0].providerReference as string;
    await sim.pay(orderId, { cardNumber: '5555555555554444' });
    await waitFor(async () => (await ws.client.get(`/v1/checkout-sessions/${s.id}`)).json.data.status === 'completed');
    const done = (await ws.client.get(`/v1/checkout-sessions/${s.id}`)).json.data;
    const pm = await ws.client.get(`/v1/payment-methods/${done.savedPaymentMethodId}`);
    expect(pm.json.data).toMatchObject({
      adapter: 'provider_c',
      type: 'card',
      card: { brand: 'mastercard', last4: '4444' },
      consent: { source: 'checkout_session', sourceId: s.id },
    });
    const token = [...sim.paymentTokens.keys()].at(-1)!;
    expect(pm.text).not.toContain(token);
    const stored = await db().system.query(
      `SELECT (SELECT coalesce(jsonb_agg(payload), '[]') FROM provider_events WHERE "workspaceId" = $1)::text AS provider`,
      [ws.workspaceId],
    );
    expect(stored.rows[0].provider).not.toContain(`"${token}"`);
  });
});
