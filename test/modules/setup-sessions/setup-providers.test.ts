/**
 * Setup sessions through the provider simulators (docs/guides/setup-sessions.md, Hosted page): the card
 * typed on provider_a's own form, the return URL asking the provider, direct debit's OTP, PayPal's vault
 * approval and exchange in live mode, a declined card, and the live sandbox refusal. Token callbacks alone
 * complete a setup: provider_b's pay-account notification (GoPay), provider_c's VAULT.PAYMENT-TOKEN.CREATED
 * after an exchange whose answer was lost; forged ones are 401.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../../src/core/config.ts';
import { scenarios } from '../../../src/modules/payment-methods/scenarios.ts';
import { providerTokenHash } from '../../../src/modules/payment-methods/service.ts';
import { mintLiveKey } from '../../helpers/keys.ts';
import { createClient, db, useServer, type Workspace } from '../../helpers/server.ts';
import { useSimulators } from '../../helpers/simulators.ts';
import { ProviderASim } from '../../simulators/provider_a.ts';
import { ProviderBSim } from '../../simulators/provider_b.ts';
import { ProviderCSim } from '../../simulators/provider_c.ts';

const server = useServer();
const simulators = useSimulators(server);
const previousBase = config.hostedBaseUrl;
beforeAll(() => {
  config.hostedBaseUrl = server.url;
});
afterAll(() => {
  config.hostedBaseUrl = previousBase;
});

type Res = { status: number; json: any; text?: string };
const rand = (n: number) => randomBytes(n).toString('hex').slice(0, n);
const key = () => ({ 'idempotency-key': randomUUID() });
function ok(res: Res, status = 200) {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  return res.json.data;
}
const tokenOf = (ss: { hostedUrl: string }) => ss.hostedUrl.slice(ss.hostedUrl.lastIndexOf('/s/') + 3);
async function page(token: string, path: string, payload: unknown) {
  const res = await fetch(`${server.url}/s/${token}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  });
  return { status: res.status, json: (await res.json()) as any };
}
/** The customer's browser on the provider's page: submits its form, answers where it sends them. */
async function submit(url: string, fields: Record<string, string>) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
  return { status: res.status, location: res.headers.get('location') };
}
/** GET of our return URL, not followed: where the service sends the customer next. */
const follow = async (url: string) => {
  const res = await fetch(url, { redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location') };
};
const create = (client: Workspace['client'], customerId: string, extra: Record<string, unknown> = {}) =>
  client.post(
    '/v1/setup-sessions',
    { customerId, successUrl: 'https://shop.example/saved', cancelUrl: 'https://shop.example/account', ...extra },
    key(),
  );

describe('provider_a (simulator): card and direct debit', () => {
  const creds = { secretKey: `xnd_development_${rand(20)}`, callbackToken: rand(24) };
  const sim = simulators.track(new ProviderASim(creds));
  beforeAll(async () => {
    await sim.start();
    process.env.PROVIDER_A_BASE_URL = sim.url;
    sim.callbackUrl = `${server.url}/v1/callbacks/provider_a`;
  });

  async function connected() {
    const ws = await server.workspace();
    expect((await ws.client.put('/v1/adapters/provider_a', creds, key())).status).toBe(200);
    const cus = ok(await ws.client.post('/v1/customers', { name: 'Rina', email: 'rina@example.com' }), 201).id;
    return { ws, cus };
  }

  it('card: typed on the provider form only; the return asks the provider; completed on successUrl', async () => {
    const { ws, cus } = await connected();
    // The merchant's adapter comes first: provider_a saves cards in IDR (the sandbox is not used).
    const ss = ok(await create(ws.client, cus, { types: ['card'] }), 201);
    const a = ok(await page(tokenOf(ss), '/attempt', { type: 'card' }));
    expect(a).toMatchObject({ status: 'pending', next: { kind: 'redirect' } });
    expect(a.next.redirectUrl.startsWith(sim.url)).toBe(true);
    expect(ok(await ws.client.get(`/v1/setup-sessions/${ss.id}`)).adapter).toBe('provider_a');
    // The setup's reference is the payment method id, which is the charge token once active (and the
    // provider's page address carries it).
    const stored = () =>
      db().system.query(`SELECT "providerRef", instructions FROM setup_attempts WHERE "setupSessionId" = $1`, [ss.id]);
    const token = (await stored()).rows[0].providerRef as string;
    expect(token.startsWith('pm-')).toBe(true);
    expect(JSON.stringify((await stored()).rows[0].instructions)).toContain(token);
    // A return before the customer finished: the provider says pending, nothing moves.
    const early = await follow(`${server.url}/s/${tokenOf(ss)}/return`);
    expect(early).toEqual({ status: 303, location: `${server.url}/s/${tokenOf(ss)}` });
    const done = await submit(a.next.redirectUrl, { number: scenarios.success.card });
    expect(done.location).toBe(`${server.url}/s/${tokenOf(ss)}/return`);
    const back = await follow(done.location!);
    expect(back).toEqual({ status: 303, location: `https://shop.example/saved?setup_session_id=${ss.id}` });
    const after = ok(await ws.client.get(`/v1/setup-sessions/${ss.id}`));
    expect(after.status).toBe('completed');
    const pm = ok(await ws.client.get(`/v1/payment-methods/${after.paymentMethodId}`));
    expect(pm).toMatchObject({ adapter: 'provider_a', type: 'card', card: { brand: 'visa', last4: '4242' } });
    // The card number never reached the service, and the token never leaves it.
    const { rows } = await db().system.query(
      `SELECT count(*)::int AS n FROM provider_calls WHERE "workspaceId" = $1
         AND (convert_from(coalesce("requestBody", ''), 'UTF8') LIKE '%4242424242424242%')`,
      [ws.workspaceId],
    );
    expect(rows[0].n).toBe(0);
    const events = ok(await ws.client.get(`/v1/events?limit=100`));
    expect(JSON.stringify([after, pm, events])).not.toContain(token);
    // Once saved, the attempt keeps only the reference's hash and its instructions' kind: no token at rest.
    const saved = (await stored()).rows[0];
    expect(JSON.stringify(saved)).not.toContain(token);
    expect(saved).toEqual({ providerRef: providerTokenHash('provider_a', token), instructions: { kind: 'redirect' } });
    // A second return changes nothing.
    expect((await follow(done.location!)).location).toBe(`https://shop.example/saved?setup_session_id=${ss.id}`);
    expect(ok(await ws.client.get(`/v1/payment-methods?customerId=${cus}`))).toHaveLength(1);
    // Routing still finds the method by the hash: the provider revokes it, its callback moves it.
    expect((await sim.revokeToken(token))[0].status).toBe(200);
    expect(ok(await ws.client.get(`/v1/payment-methods/${pm.id}`)).status).toBe('revoked');
  });

  it("the provider's token callback alone completes the session (the customer never comes back)", async () => {
    const { ws, cus } = await connected();
    const ss = ok(await create(ws.client, cus, { types: ['ewallet'] }), 201);
    const a = ok(await page(tokenOf(ss), '/attempt', { type: 'ewallet', channel: 'ovo', phone: '+62 812-3456-0000' }));
    await submit(a.next.redirectUrl, { phone: '+62 812-3456-0000' });
    await sim.flush();
    let after = ok(await ws.client.get(`/v1/setup-sessions/${ss.id}`));
    for (let i = 0; i < 50 && after.status !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      after = ok(await ws.client.get(`/v1/setup-sessions/${ss.id}`));
    }
    expect(after.status).toBe('completed');
    expect(ok(await ws.client.get(`/v1/payment-methods/${after.paymentMethodId}`)).ewallet).toEqual({
      provider: 'ovo',
      maskedAccount: '+62 812-****-0000',
    });
    const { rows } = await db().system.query(
      `SELECT count(*)::int AS n FROM payment_methods WHERE "workspaceId" = $1 AND "customerId" = $2`,
      [ws.workspaceId, cus],
    );
    expect(rows[0].n).toBe(1);
  });

  it('a declined card: back on the page, the session open with lastError; no method', async () => {
    const { ws, cus } = await connected();
    const ss = ok(await create(ws.client, cus, { types: ['card'] }), 201);
    const a = ok(await page(tokenOf(ss), '/attempt', { type: 'card' }));
    await submit(a.next.redirectUrl, { number: scenarios.setup_declined.card });
    expect((await follow(`${server.url}/s/${tokenOf(ss)}/return`)).location).toBe(`${server.url}/s/${tokenOf(ss)}`);
    expect(ok(await ws.client.get(`/v1/setup-sessions/${ss.id}`))).toMatchObject({
      status: 'open',
      paymentMethodId: null,
      lastError: { code: 'card_declined' },
    });
    expect(ok(await ws.client.get(`/v1/payment-methods?customerId=${cus}`))).toEqual([]);
  });

  it('direct debit: a wrong OTP fails invalid_otp; 222000 at the provider saves the account', async () => {
    const { ws, cus } = await connected();
    const ss = ok(await create(ws.client, cus, { types: ['direct_debit'] }), 201);
    const t = tokenOf(ss);
    const first = ok(await page(t, '/attempt', { type: 'direct_debit', channel: 'bri', phone: '081234560000' }));
    expect(first.next).toEqual({ kind: 'otp' });
    expect(ok(await page(t, '/attempt/otp', { otp: '123456' })).status).toBe('open');
    expect(ok(await ws.client.get(`/v1/setup-sessions/${ss.id}`)).lastError.code).toBe('invalid_otp');
    ok(await page(t, '/attempt', { type: 'direct_debit', channel: 'bri', phone: '081234560000' }));
    const done = ok(await page(t, '/attempt/otp', { otp: '222000' }));
    expect(done).toMatchObject({
      status: 'completed',
      redirectUrl: `https://shop.example/saved?setup_session_id=${ss.id}`,
    });
    const pmId = ok(await ws.client.get(`/v1/setup-sessions/${ss.id}`)).paymentMethodId;
    expect(ok(await ws.client.get(`/v1/payment-methods/${pmId}`))).toMatchObject({
      adapter: 'provider_a',
      directDebit: { bank: 'bri', maskedAccount: '****0000' },
      consent: { source: 'setup_session', sourceId: ss.id },
    });
  });
});

describe('provider_c (simulator), live mode: PayPal vault', () => {
  const creds = { clientId: `AZ${rand(16)}`, secret: `EL${rand(16)}`, webhookId: `WH${rand(8).toUpperCase()}` };
  const sim = simulators.track(new ProviderCSim(creds));
  beforeAll(async () => {
    await sim.start();
    process.env.PROVIDER_C_BASE_URL = sim.url;
    process.env.PROVIDER_C_WEBHOOK_ID = creds.webhookId;
    sim.webhookUrl = `${server.url}/v1/callbacks/provider_c`;
  });

  it('approval on the provider page, the return claims and exchanges the setup token; simulate is 403 in live mode', async () => {
    const ws = await server.workspace();
    const live = await mintLiveKey(ws.workspaceId);
    const client = createClient({ baseUrl: server.url, keyId: live.keyId, secret: live.secret });
    const put = await client.put(
      '/v1/adapters/provider_c',
      { clientId: creds.clientId, secret: creds.secret, mode: 'live' },
      key(),
    );
    expect(put.status, put.text).toBe(200);
    const cus = ok(await client.post('/v1/customers', { name: 'Jon', email: 'jon@example.com' }), 201).id;
    // Live: only the merchant's adapters; provider_c saves cards and PayPal in USD, nothing in IDR.
    expect((await create(client, cus, { currency: 'IDR' })).status).toBe(422);
    const ss = ok(await create(client, cus, { currency: 'USD' }), 201);
    expect(ss).toMatchObject({ mode: 'live', types: ['card', 'paypal'] });
    const t = tokenOf(ss);
    const a = ok(await page(t, '/attempt', { type: 'paypal' }));
    expect(a.next.kind).toBe('redirect');
    expect((await page(t, '/simulate', { outcome: 'success' })).json.error.code).toBe('forbidden_in_live_mode');
    const approved = await submit(a.next.redirectUrl, { email: 's0000@example.com' });
    expect(approved.location?.startsWith(`${server.url}/s/${t}/return`)).toBe(true);
    const back = await follow(approved.location!);
    expect(back.location).toBe(`https://shop.example/saved?setup_session_id=${ss.id}`);
    const after = ok(await client.get(`/v1/setup-sessions/${ss.id}`));
    expect(after).toMatchObject({ status: 'completed', adapter: 'provider_c' });
    const pm = ok(await client.get(`/v1/payment-methods/${after.paymentMethodId}`));
    expect(pm).toMatchObject({ type: 'paypal', adapter: 'provider_c', paypal: { maskedEmail: 's***@example.com' } });
    const { rows } = await db().system.query(`SELECT status FROM setup_attempts WHERE "setupSessionId" = $1`, [ss.id]);
    expect(rows.map((r) => r.status)).toEqual(['completed']);
  });
});

describe('provider_b (simulator): GoPay linking completed by the pay-account notification', () => {
  const creds = {
    serverKey: `SB-Mid-server-${rand(12)}`,
    clientKey: `SB-Mid-client-${rand(8)}`,
    merchantId: 'G123456789',
  };
  const sim = simulators.track(new ProviderBSim({ serverKey: creds.serverKey, merchantId: creds.merchantId }));
  beforeAll(async () => {
    await sim.start();
    process.env.PROVIDER_B_BASE_URL = sim.url;
    sim.notificationUrl = `${server.url}/v1/callbacks/provider_b`;
  });

  it('the notification alone (the customer never comes back) completes the session; forged ones are 401', async () => {
    const ws = await server.workspace();
    expect((await ws.client.put('/v1/adapters/provider_b', creds, key())).status).toBe(200);
    const cus = ok(await ws.client.post('/v1/customers', { name: 'Sari', phone: '081234560000' }), 201).id;
    const ss = ok(await create(ws.client, cus, { types: ['ewallet'] }), 201);
    const a = ok(await page(tokenOf(ss), '/attempt', { type: 'ewallet', channel: 'gopay', phone: '081234560000' }));
    expect(a.next.redirectUrl.startsWith(sim.url)).toBe(true);
    const accountId = (
      await db().system.query(`SELECT "providerRef" FROM setup_attempts WHERE "setupSessionId" = $1`, [ss.id])
    ).rows[0].providerRef as string;
    // A forged notification naming the account (signed with another key) is refused before anything is asked.
    const forged = await fetch(`${server.url}/v1/callbacks/provider_b`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        ...sim.accountNotificationFor(sim.accounts.get(accountId)!, 'not-the-key'),
        account_status: 'ENABLED',
      }),
    });
    expect(forged.status).toBe(401);
    expect(ok(await ws.client.get(`/v1/setup-sessions/${ss.id}`)).status).not.toBe('completed');
    const linked = await submit(a.next.redirectUrl, { phone: '081234560000' });
    // The GoPay page would send the customer to our return URL: never visited here.
    expect(linked.status).toBe(303);
    await sim.flush();
    let after = ok(await ws.client.get(`/v1/setup-sessions/${ss.id}`));
    for (let i = 0; i < 50 && after.status !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      after = ok(await ws.client.get(`/v1/setup-sessions/${ss.id}`));
    }
    expect(after).toMatchObject({ status: 'completed', adapter: 'provider_b' });
    expect(ok(await ws.client.get(`/v1/payment-methods/${after.paymentMethodId}`))).toMatchObject({
      adapter: 'provider_b',
      type: 'ewallet',
      ewallet: { provider: 'gopay' },
      consent: { source: 'setup_session', sourceId: ss.id },
    });
    // The customer unlinks GoPay later: the notification reaches the workspace (200, not 401).
    const [unlinked] = await sim.revokeToken(accountId);
    expect(unlinked.status).toBe(200);
    // ...and the method is revoked there (found by the link's setup attempt): never charged again.
    expect(ok(await ws.client.get(`/v1/payment-methods/${after.paymentMethodId}`)).status).toBe('revoked');
    const revokedEvents = await db().system.query(
      `SELECT count(*)::int AS n FROM events WHERE "objectId" = $1 AND type = 'payment_method.revoked'`,
      [after.paymentMethodId],
    );
    expect(revokedEvents.rows[0].n).toBe(1);
    // The same notification again changes nothing.
    expect((await sim.revokeToken(accountId))[0].status).toBe(200);
    expect(ok(await ws.client.get(`/v1/payment-methods/${after.paymentMethodId}`)).status).toBe('revoked');
    // A notification of an account nobody set up is not routed anywhere: 401 as any unknown callback.
    const [unknown] = await sim.revokeToken(JSON.parse(sim.seedToken({ digits: '0000' })).account_id);
    expect(unknown.status).toBe(401);
  });
});

describe('provider_c (simulator), live mode: VAULT.PAYMENT-TOKEN webhooks', () => {
  const creds = { clientId: `AZ${rand(16)}`, secret: `EL${rand(16)}`, webhookId: `WH${rand(8).toUpperCase()}` };
  const sim = simulators.track(new ProviderCSim(creds));
  beforeAll(async () => {
    await sim.start();
    process.env.PROVIDER_C_BASE_URL = sim.url;
    process.env.PROVIDER_C_WEBHOOK_ID = creds.webhookId;
    sim.webhookUrl = `${server.url}/v1/callbacks/provider_c`;
  });

  it("the exchange's answer is lost: VAULT.PAYMENT-TOKEN.CREATED alone completes the setup; DELETED reaches the method's workspace; forged is 401", async () => {
    const ws = await server.workspace();
    const live = await mintLiveKey(ws.workspaceId);
    const client = createClient({ baseUrl: server.url, keyId: live.keyId, secret: live.secret });
    const put = await client.put(
      '/v1/adapters/provider_c',
      { clientId: creds.clientId, secret: creds.secret, mode: 'live' },
      key(),
    );
    expect(put.status, put.text).toBe(200);
    const cus = ok(await client.post('/v1/customers', { name: 'Jon', email: 'jon@example.com' }), 201).id;
    const ss = ok(await create(client, cus, { currency: 'USD' }), 201);
    const t = tokenOf(ss);
    const a = ok(await page(t, '/attempt', { type: 'paypal' }));
    const approved = await submit(a.next.redirectUrl, { email: 's0000@example.com' });
    // The return exchanges the setup token; PayPal vaults it but the answer never arrives (a timeout), and
    // its webhook is not sent yet.
    sim.offSession.dropResponseAfterCharge = true;
    sim.offSession.deliver = false;
    try {
      await follow(approved.location!);
    } finally {
      sim.offSession.dropResponseAfterCharge = false;
      sim.offSession.deliver = true;
    }
    expect(ok(await client.get(`/v1/setup-sessions/${ss.id}`)).status).not.toBe('completed');
    const tokenId = [...sim.paymentTokens.keys()].at(-1)!;
    const [forged] = await sim.tokenCreated(tokenId, { forge: true });
    expect(forged.status).toBe(401);
    // The webhook names the payment token and our customer only: the customer's open setup is asked and
    // exchanged again with its own key, which answers the token already vaulted.
    const [d] = await sim.tokenCreated(tokenId);
    expect(d.status).toBe(200);
    const after = ok(await client.get(`/v1/setup-sessions/${ss.id}`));
    expect(after).toMatchObject({ status: 'completed', adapter: 'provider_c' });
    expect(ok(await client.get(`/v1/payment-methods/${after.paymentMethodId}`))).toMatchObject({
      type: 'paypal',
      adapter: 'provider_c',
    });
    expect([...sim.paymentTokens.keys()].at(-1)).toBe(tokenId);
    // A genuinely signed DELETED for a token still vaulted (a replay, or PayPal's word changed since): the
    // provider is asked (GET the payment token) and the method stays active.
    const customer = sim.paymentTokens.get(tokenId)!.body.customer;
    const [stale] = await sim.webhook('VAULT.PAYMENT-TOKEN.DELETED', 'payment_token', { id: tokenId, customer }, {});
    expect(stale.status).toBe(200);
    expect(JSON.parse(stale.body).data.outcome).toBe('not_confirmed');
    expect(ok(await client.get(`/v1/payment-methods/${after.paymentMethodId}`)).status).toBe('active');
    // The payer deletes the saved method at PayPal: routed to this workspace by the token's hash (200),
    // where before no workspace was found (401).
    const [deleted] = await sim.revokeToken(tokenId);
    expect(deleted.status).toBe(200);
    expect(ok(await client.get(`/v1/payment-methods/${after.paymentMethodId}`)).status).toBe('revoked');
  }, 60_000);
});
