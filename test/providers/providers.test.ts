// The provider layer over real HTTP: each adapter against a simulator that speaks its provider's
// protocol, callbacks delivered to a tiny receiver that verifies them the way /v1/callbacks will.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import {
  CallbackVerificationError,
  clearProviderCTokens,
  createProvider,
  type ManualProvider,
  ProviderA,
  ProviderB,
  ProviderC,
  ProviderError,
  providerBSignature,
  settleCharge,
  type CallbackEvent,
  type ChargeEvent,
  type CreateChargeInput,
  type Provider,
  type ProviderCallRecord,
} from '../../src/providers/index.ts';
import { fromDecimalString, toDecimalString } from '../../src/providers/decimal.ts';
import { DomainError } from '../../src/core/errors.ts';
import { ProviderASim } from '../simulators/provider_a.ts';
import { ProviderBSim } from '../simulators/provider_b.ts';
import { ProviderCSim } from '../simulators/provider_c.ts';

// ---- a tiny callback receiver, like POST /v1/callbacks/<provider> ----

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  status: number;
  event?: CallbackEvent;
  error?: unknown;
}

class Receiver {
  url = '';
  readonly received: Received[] = [];
  readonly providers = new Map<string, Provider>();
  private server?: Server;

  async start() {
    this.server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const rec: Received = { path: req.url ?? '', headers: req.headers, rawBody: Buffer.concat(chunks), status: 0 };
      const provider = this.providers.get(rec.path);
      try {
        if (!provider) throw new Error(`no provider at ${rec.path}`);
        rec.event = await provider.verifyCallback({ headers: req.headers, rawBody: rec.rawBody });
        rec.status = 200;
      } catch (e) {
        rec.error = e;
        rec.status = e instanceof DomainError ? e.status : 500;
      }
      this.received.push(rec);
      res.writeHead(rec.status, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: rec.status === 200 }));
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  urlFor(kind: string) {
    return `${this.url}/v1/callbacks/${kind}`;
  }

  last(kind: string): Received {
    const r = this.received.filter((x) => x.path === `/v1/callbacks/${kind}`).at(-1);
    if (!r) throw new Error(`nothing received for ${kind}`);
    return r;
  }

  events(kind: string): CallbackEvent[] {
    return this.received.filter((x) => x.path === `/v1/callbacks/${kind}` && x.event).map((x) => x.event!);
  }

  async close() {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

const receiver = new Receiver();
beforeAll(() => receiver.start());
afterAll(() => receiver.close());

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

const rand = (n = 8) => randomBytes(n).toString('hex');
const inHours = (h: number) => new Date(Date.now() + h * 3600e3);

function chargeInput(over: Partial<CreateChargeInput> = {}): CreateChargeInput {
  const reference = `cs_${rand(13).toUpperCase()}`;
  return {
    reference,
    amount: 150_000,
    currency: 'IDR',
    method: 'qris',
    customer: { name: 'Budi Santoso', email: 'budi@example.com', phone: '+628123456789' },
    description: 'Order 42',
    expiresAt: inHours(1),
    successUrl: 'https://merchant.example/thanks',
    cancelUrl: 'https://merchant.example/cancel',
    callbackUrl: receiver.urlFor('x'),
    idempotencyKey: `${reference}:1`,
    ...over,
  };
}

async function expectProviderError(p: Promise<unknown>, reason: string): Promise<ProviderError> {
  const e = await p.then(
    () => null,
    (x) => x,
  );
  expect(e, 'expected a ProviderError').toBeInstanceOf(ProviderError);
  expect(e).toBeInstanceOf(DomainError);
  expect((e as ProviderError).reason).toBe(reason);
  expect((e as ProviderError).status).toBe(502);
  expect((e as ProviderError).extensions.code).toBe('PROVIDER_ERROR');
  return e as ProviderError;
}

const charged = (e: CallbackEvent | undefined): ChargeEvent => {
  expect(e?.type).toBe('charge');
  return e as ChargeEvent;
};

// ---------------------------------------------------------------------------------------------

describe('provider_a (Xendit-style)', () => {
  const creds = { secretKey: `xnd_development_${rand(20)}`, callbackToken: rand(24) };
  const sim = new ProviderASim({ secretKey: creds.secretKey, callbackToken: creds.callbackToken });
  const calls: ProviderCallRecord[] = [];
  let a: ProviderA;
  beforeAll(async () => {
    await sim.start();
    sim.callbackUrl = receiver.urlFor('provider_a');
    a = new ProviderA(creds, { baseUrl: sim.url, onCall: (c) => calls.push(c) });
    receiver.providers.set('/v1/callbacks/provider_a', a);
  });
  afterAll(() => sim.close());

  it('QRIS: a QR string, paid by callback with the token, confirmed by GET', async () => {
    const input = chargeInput({ method: 'qris', amount: 150_000 });
    const charge = await a.createCharge(input);
    expect(charge.status).toBe('pending');
    expect(charge.providerRef).toMatch(/^qris:qr_/);
    expect(charge.instructions).toMatchObject({ kind: 'qr', expiresAt: input.expiresAt.toISOString() });
    expect(charge.instructions.kind === 'qr' && charge.instructions.qrString).toContain('150000');
    const create = sim.requests.at(-1)!;
    expect(create.headers.authorization).toBe(`Basic ${Buffer.from(`${creds.secretKey}:`).toString('base64')}`);
    expect(create.headers['idempotency-key']).toBe(input.idempotencyKey);
    expect(create.headers['api-version']).toBe('2022-07-31');
    expect(JSON.parse(create.body)).toMatchObject({
      reference_id: input.reference,
      type: 'DYNAMIC',
      currency: 'IDR',
      amount: 150_000,
    });

    expect((await a.fetchStatus(charge)).status).toBe('pending');
    const [delivery] = await sim.pay(charge.providerRef);
    expect(delivery.status).toBe(200);
    const event = charged(receiver.last('provider_a').event);
    expect(event).toMatchObject({ providerRef: charge.providerRef, status: 'paid', amount: 150_000, currency: 'IDR' });
    expect(event.providerEventId).toMatch(/^qrpy_/);
    expect(event.providerPaymentId).toBe(event.providerEventId);

    const confirmed = await a.fetchStatus(event);
    expect(confirmed).toMatchObject({
      status: 'paid',
      amount: 150_000,
      currency: 'IDR',
      providerPaymentId: event.providerPaymentId,
    });
  });

  it('virtual account: bank and number; the payment id confirms it', async () => {
    const charge = await a.createCharge(chargeInput({ method: 'va', channel: 'bni', amount: 250_000 }));
    expect(charge.providerRef).toMatch(/^va:[0-9a-f]{24}$/);
    expect(charge.instructions).toMatchObject({ kind: 'va', bankCode: 'BNI', accountName: 'Budi Santoso' });
    expect(charge.instructions.kind === 'va' && charge.instructions.vaNumber).toMatch(/^88608\d{10}$/);
    const body = JSON.parse(sim.requests.at(-1)!.body);
    expect(body).toMatchObject({ bank_code: 'BNI', is_closed: true, is_single_use: true, expected_amount: 250_000 });

    await sim.pay(charge.providerRef);
    const event = charged(receiver.last('provider_a').event);
    expect(event).toMatchObject({ providerRef: charge.providerRef, status: 'paid', amount: 250_000 });
    expect(await a.fetchStatus(event)).toMatchObject({ status: 'paid', amount: 250_000 });
    // Without the payment id a paid single-use VA looks like any unexpired one.
    expect((await a.fetchStatus({ providerRef: charge.providerRef })).status).toBe('pending');
  });

  it('e-wallet: a redirect; a failed payment maps to failed', async () => {
    const input = chargeInput({ method: 'ewallet', channel: 'shopeepay', amount: 20_000 });
    const charge = await a.createCharge(input);
    expect(charge.instructions).toMatchObject({ kind: 'redirect' });
    expect(charge.instructions.kind === 'redirect' && charge.instructions.redirectUrl).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/web\/ewallet\/ewc_/,
    );
    expect(JSON.parse(sim.requests.at(-1)!.body)).toMatchObject({
      channel_code: 'ID_SHOPEEPAY',
      channel_properties: { success_redirect_url: input.successUrl },
    });
    await sim.fail(charge.providerRef);
    expect(charged(receiver.last('provider_a').event)).toMatchObject({
      providerRef: charge.providerRef,
      status: 'failed',
    });
    expect((await a.fetchStatus(charge)).status).toBe('failed');
  });

  it('retail: a payment code at the outlet; paid and confirmed', async () => {
    const charge = await a.createCharge(chargeInput({ method: 'retail', channel: 'indomaret', amount: 75_000 }));
    expect(charge.instructions).toMatchObject({ kind: 'retail', outlet: 'INDOMARET' });
    expect(charge.instructions.kind === 'retail' && charge.instructions.paymentCode).toMatch(/^TEST\d{8}$/);
    await sim.pay(charge.providerRef);
    const event = charged(receiver.last('provider_a').event);
    expect(event).toMatchObject({ providerRef: charge.providerRef, status: 'paid', amount: 75_000 });
    expect(await a.fetchStatus(charge)).toMatchObject({
      status: 'paid',
      amount: 75_000,
      providerPaymentId: event.providerPaymentId,
    });
  });

  it('card: an invoice redirect; the expiry callback maps to expired', async () => {
    const charge = await a.createCharge(chargeInput({ method: 'card', amount: 99_000 }));
    expect(charge.providerRef).toMatch(/^invoice:/);
    expect(charge.instructions.kind === 'redirect' && charge.instructions.redirectUrl).toContain('/web/invoices/');
    expect(JSON.parse(sim.requests.at(-1)!.body)).toMatchObject({ payment_methods: ['CREDIT_CARD'], amount: 99_000 });
    await sim.expire(charge.providerRef);
    expect(charged(receiver.last('provider_a').event)).toMatchObject({ status: 'expired', amount: 99_000 });
    expect((await a.fetchStatus(charge)).status).toBe('expired');
  });

  it('an expired QR code confirms as expired (no callback is sent)', async () => {
    const charge = await a.createCharge(chargeInput({ method: 'qris' }));
    const before = receiver.received.length;
    expect(await sim.expire(charge.providerRef)).toEqual([]);
    expect(receiver.received.length).toBe(before);
    expect((await a.fetchStatus(charge)).status).toBe('expired');
  });

  it('duplicates carry the same event id (the dedupe key); the VA-updated callback is authentic but ignored', async () => {
    const charge = await a.createCharge(chargeInput({ method: 'va' }));
    const deliveries = await sim.pay(charge.providerRef, { duplicates: 2 });
    expect(deliveries.map((d) => d.status)).toEqual([200, 200, 200]);
    const events = receiver.events('provider_a').slice(-3).map(charged);
    expect(new Set(events.map((e) => e.providerEventId)).size).toBe(1);

    const other = await a.createCharge(chargeInput({ method: 'va' }));
    await sim.expire(other.providerRef);
    expect(receiver.last('provider_a').event).toMatchObject({ type: 'ignored' });
    expect((await a.fetchStatus(other)).status).toBe('expired');
  });

  it('a forged, missing or unconfigured token is refused with 401 invalid_signature', async () => {
    const charge = await a.createCharge(chargeInput({ method: 'qris' }));
    const [d] = await sim.pay(charge.providerRef, { forge: true });
    expect(d.status).toBe(401);
    const err = receiver.last('provider_a').error as CallbackVerificationError;
    expect(err).toBeInstanceOf(CallbackVerificationError);
    expect(err.reason).toBe('mismatch');
    expect(err.extensions.code).toBe('invalid_signature');

    const raw = sim.sent.at(-1)!.body;
    await expect(a.verifyCallback({ headers: {}, rawBody: raw })).rejects.toMatchObject({ reason: 'missing' });
    await expect(
      a.verifyCallback({ headers: { 'X-Callback-Token': creds.callbackToken }, rawBody: raw }),
    ).resolves.toMatchObject({ type: 'charge' });
    const untokened = new ProviderA({ secretKey: creds.secretKey }, { baseUrl: sim.url });
    await expect(
      untokened.verifyCallback({ headers: { 'x-callback-token': creds.callbackToken }, rawBody: raw }),
    ).rejects.toMatchObject({ reason: 'not_configured' });
    await expect(
      a.verifyCallback({ headers: { 'x-callback-token': creds.callbackToken }, rawBody: 'not json' }),
    ).rejects.toMatchObject({ reason: 'malformed' });
  });

  it('a delayed callback: the state is already visible to fetchStatus; the callback arrives later', async () => {
    const charge = await a.createCharge(chargeInput({ method: 'retail' }));
    const before = receiver.received.length;
    const late = sim.pay(charge.providerRef, { delayMs: 400 });
    expect((await a.fetchStatus(charge)).status).toBe('paid');
    expect(receiver.received.length).toBe(before);
    expect((await late)[0].status).toBe(200);
    expect(charged(receiver.last('provider_a').event).providerRef).toBe(charge.providerRef);
  });

  it('refunds an invoice (card) payment; it settles by callback. VA payments cannot be refunded', async () => {
    const charge = await a.createCharge(chargeInput({ method: 'card', amount: 50_000 }));
    await sim.pay(charge.providerRef);
    const refund = await a.refund({
      providerRef: charge.providerRef,
      amount: 20_000,
      currency: 'IDR',
      reason: 'requested_by_customer',
      idempotencyKey: `rf_${rand()}`,
    });
    expect(refund.status).toBe('pending');
    await sim.settleRefund(refund.providerRefundId, 'SUCCEEDED');
    expect(receiver.last('provider_a').event).toMatchObject({
      type: 'refund',
      providerRefundId: refund.providerRefundId,
      status: 'succeeded',
      amount: 20_000,
    });

    const va = await a.createCharge(chargeInput({ method: 'va' }));
    await expectProviderError(
      a.refund({ providerRef: va.providerRef, amount: 1, currency: 'IDR', idempotencyKey: 'rf_x' }),
      'unsupported',
    );
  });

  it('the same idempotency key returns the same charge', async () => {
    const input = chargeInput({ method: 'qris' });
    const one = await a.createCharge(input);
    const two = await a.createCharge(input);
    expect(two.providerRef).toBe(one.providerRef);
  });

  it('typed errors: wrong secret key, a rejected request, an unsupported method, a hanging provider, a dead one', async () => {
    const wrong = new ProviderA({ secretKey: 'xnd_development_wrong' }, { baseUrl: sim.url });
    const e = await expectProviderError(wrong.createCharge(chargeInput()), 'invalid_credentials');
    expect(e).toMatchObject({ httpStatus: 401, providerCode: 'INVALID_API_KEY', retryable: false });

    // spec facts: QRIS up to 10,000,000 per transaction
    const big = await expectProviderError(a.createCharge(chargeInput({ amount: 10_000_001 })), 'rejected');
    expect(big.providerCode).toBe('API_VALIDATION_ERROR');
    await expectProviderError(a.createCharge(chargeInput({ currency: 'USD', amount: 100 })), 'unsupported');
    await expectProviderError(a.createCharge(chargeInput({ method: 'va', channel: 'nosuchbank' })), 'unsupported');

    const slow: ProviderCallRecord[] = [];
    const impatient = new ProviderA(creds, { baseUrl: sim.url, timeoutMs: 200, onCall: (c) => slow.push(c) });
    sim.hang = true;
    try {
      const started = Date.now();
      const t = await expectProviderError(impatient.createCharge(chargeInput()), 'timeout');
      expect(t.retryable).toBe(true);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      sim.hang = false;
    }
    expect(slow).toEqual([
      expect.objectContaining({
        provider: 'provider_a',
        method: 'POST',
        path: '/qr_codes',
        status: null,
        error: 'timeout',
      }),
    ]);

    const dead = new ProviderA(creds, { baseUrl: `http://127.0.0.1:${await closedPort()}` });
    const refused = await expectProviderError(dead.createCharge(chargeInput()), 'network');
    expect(refused.message).toContain('ECONNREFUSED');
  });

  it('every outbound call is recorded: provider, method, path, status, latency, request id', () => {
    expect(calls.length).toBeGreaterThan(10);
    for (const c of calls) {
      expect(c.provider).toBe('provider_a');
      expect(c.latencyMs).toBeGreaterThanOrEqual(0);
      expect(c.path.startsWith('/')).toBe(true);
      expect(c.providerRequestId).toMatch(/^[0-9a-f]{16}$/);
    }
    expect(calls).toContainEqual(expect.objectContaining({ method: 'POST', path: '/qr_codes', status: 200 }));
    expect(calls).toContainEqual(expect.objectContaining({ method: 'GET', status: 200 }));
  });
});

// ---------------------------------------------------------------------------------------------

describe('provider_b (Midtrans-style)', () => {
  const creds = {
    serverKey: `SB-Mid-server-${rand(12)}`,
    clientKey: `SB-Mid-client-${rand(8)}`,
    merchantId: 'G123456789',
    env: 'sandbox' as const,
  };
  const sim = new ProviderBSim({ serverKey: creds.serverKey, merchantId: creds.merchantId });
  let b: ProviderB;
  const input = (over: Partial<CreateChargeInput> = {}) =>
    chargeInput({ callbackUrl: receiver.urlFor('provider_b'), amount: 100_000, ...over });
  beforeAll(async () => {
    await sim.start();
    b = new ProviderB(creds, { baseUrl: sim.url });
    receiver.providers.set('/v1/callbacks/provider_b', b);
  });
  afterAll(() => sim.close());

  it('card through Snap: token and redirect_url; notification sent to X-Override-Notification; capture+accept is paid', async () => {
    const i = input({ method: 'card' });
    const charge = await b.createCharge(i);
    expect(charge.instructions.kind === 'redirect' && charge.instructions.redirectUrl).toMatch(
      /\/snap\/v4\/redirection\/[0-9a-f-]{36}$/,
    );
    expect(charge.raw).toMatchObject({ token: expect.any(String) });
    expect(charge.providerRef).toBe(b.orderIdFor(i));
    expect(charge.providerRef.length).toBeLessThanOrEqual(50);
    const req = sim.requests.at(-1)!;
    expect(req.path).toBe('/snap/v1/transactions');
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from(`${creds.serverKey}:`).toString('base64')}`);
    expect(req.headers['x-override-notification']).toBe(i.callbackUrl);
    expect(JSON.parse(req.body)).toMatchObject({
      transaction_details: { order_id: charge.providerRef, gross_amount: 100_000 },
      enabled_payments: ['credit_card'],
      callbacks: { finish: i.successUrl },
    });

    await sim.pay(charge.providerRef);
    const event = charged(receiver.last('provider_b').event);
    expect(event).toMatchObject({ providerRef: charge.providerRef, status: 'paid', amount: 100_000, currency: 'IDR' });
    expect((event.raw as any).transaction_status).toBe('capture');
    expect(await b.fetchStatus(event)).toMatchObject({
      status: 'paid',
      amount: 100_000,
      providerPaymentId: event.providerPaymentId,
    });
  });

  it('QRIS through the Core API: the QR string itself; settlement is paid', async () => {
    const charge = await b.createCharge(input({ method: 'qris' }));
    expect(charge.instructions).toMatchObject({ kind: 'qr' });
    expect(charge.instructions.kind === 'qr' && charge.instructions.qrString).toContain('100000');
    expect(charge.instructions.expiresAt).toMatch(/Z$/);
    expect(JSON.parse(sim.requests.at(-1)!.body)).toMatchObject({
      payment_type: 'qris',
      custom_expiry: { unit: 'minute', expiry_duration: 60 },
    });
    expect((await b.fetchStatus(charge)).status).toBe('pending');
    await sim.pay(charge.providerRef);
    expect(charged(receiver.last('provider_b').event)).toMatchObject({ status: 'paid', amount: 100_000 });
    expect((await b.fetchStatus(charge)).status).toBe('paid');
  });

  it('VA numbers per bank (permata and mandiri have their own shapes) and retail payment codes', async () => {
    const bca = await b.createCharge(input({ method: 'va' }));
    expect(bca.instructions).toMatchObject({
      kind: 'va',
      bankCode: 'bca',
      vaNumber: expect.stringMatching(/^\d{11}$/),
    });
    const permata = await b.createCharge(input({ method: 'va', channel: 'permata' }));
    expect(permata.instructions).toMatchObject({
      kind: 'va',
      bankCode: 'permata',
      vaNumber: expect.stringMatching(/^\d{11}$/),
    });
    const mandiri = await b.createCharge(input({ method: 'va', channel: 'mandiri' }));
    expect(mandiri.instructions).toMatchObject({ kind: 'va', bankCode: 'mandiri', billerCode: '70012' });
    const alfa = await b.createCharge(input({ method: 'retail', channel: 'alfamart' }));
    expect(alfa.instructions).toMatchObject({
      kind: 'retail',
      outlet: 'alfamart',
      paymentCode: expect.stringMatching(/^\d{12}$/),
    });
    await sim.pay(alfa.providerRef);
    expect(charged(receiver.last('provider_b').event)).toMatchObject({ providerRef: alfa.providerRef, status: 'paid' });
  });

  it('the trap: the signature is over the strings received, gross_amount "100000.00" for IDR', async () => {
    const charge = await b.createCharge(input({ method: 'qris' }));
    await sim.pay(charge.providerRef);
    const got = receiver.last('provider_b');
    const raw = got.rawBody.toString('utf8');
    expect(raw).toContain('"gross_amount":"100000.00"');
    expect(raw).toContain('"status_code":"200"');
    expect(got.event).toMatchObject({ type: 'charge', amount: 100_000 });
    const sig = JSON.parse(raw).signature_key;
    expect(sig).toBe(providerBSignature(charge.providerRef, '200', '100000.00', creds.serverKey));
    // Signing our own integer amount ("100000") is what the trap catches.
    expect(sig).not.toBe(providerBSignature(charge.providerRef, '200', '100000', creds.serverKey));
    await expect(
      b.verifyCallback({ headers: {}, rawBody: raw.replace('"gross_amount":"100000.00"', '"gross_amount":"100000"') }),
    ).rejects.toMatchObject({ reason: 'mismatch' });
    // Re-serialised as a number the exact spelling is gone: refused, never guessed back.
    await expect(
      b.verifyCallback({ headers: {}, rawBody: raw.replace('"gross_amount":"100000.00"', '"gross_amount":100000') }),
    ).rejects.toMatchObject({ reason: 'malformed' });
    // Whitespace and key order do not matter: the strings do.
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(JSON.parse(raw)).reverse()), null, 2);
    await expect(b.verifyCallback({ headers: {}, rawBody: Buffer.from(reordered) })).resolves.toMatchObject({
      type: 'charge',
      amount: 100_000,
    });
  });

  it('forged or tampered notifications are refused', async () => {
    const charge = await b.createCharge(input({ method: 'va' }));
    const [d] = await sim.pay(charge.providerRef, { forge: true });
    expect(d.status).toBe(401);
    expect(receiver.last('provider_b').error).toMatchObject({ reason: 'mismatch', provider: 'provider_b' });
    const genuine = JSON.stringify(sim.notificationFor(sim.txs.get(charge.providerRef)!));
    await expect(b.verifyCallback({ headers: {}, rawBody: genuine })).resolves.toMatchObject({ status: 'paid' });
    await expect(
      b.verifyCallback({ headers: {}, rawBody: genuine.replace('"100000.00"', '"1.00"') }),
    ).rejects.toMatchObject({ reason: 'mismatch' });
    await expect(
      b.verifyCallback({ headers: {}, rawBody: genuine.replace(/"signature_key":"[0-9a-f]+"/, '"signature_key":""') }),
    ).rejects.toMatchObject({ reason: 'missing' });
  });

  it('status mapping: fraud challenge pending, deny and cancel failed, expire expired', async () => {
    const challenged = await b.createCharge(input({ method: 'card' }));
    await sim.pay(challenged.providerRef, { fraud: 'challenge' });
    expect(charged(receiver.last('provider_b').event).status).toBe('pending');
    expect((await b.fetchStatus(challenged)).status).toBe('pending');

    const denied = await b.createCharge(input({ method: 'card' }));
    await sim.fail(denied.providerRef);
    expect(charged(receiver.last('provider_b').event).status).toBe('failed');
    expect((await b.fetchStatus(denied)).status).toBe('failed');

    const cancelled = await b.createCharge(input({ method: 'va' }));
    await sim.fail(cancelled.providerRef, { as: 'cancel' });
    expect(charged(receiver.last('provider_b').event).status).toBe('failed');

    const expired = await b.createCharge(input({ method: 'qris' }));
    await sim.expire(expired.providerRef);
    const e = charged(receiver.last('provider_b').event);
    expect(e.status).toBe('expired');
    expect((e.raw as any).status_code).toBe('407');
    expect((await b.fetchStatus(expired)).status).toBe('expired');
  });

  it('duplicate notifications share one event id; a pending then a settlement notification do not', async () => {
    const charge = await b.createCharge(input({ method: 'ewallet', channel: 'gopay' }));
    expect(JSON.parse(sim.requests.at(-1)!.body).enabled_payments).toEqual(['gopay']);
    await sim.pay(charge.providerRef, { duplicates: 1 });
    const [x, y] = receiver.events('provider_b').slice(-2).map(charged);
    expect(x.providerEventId).toBe(y.providerEventId);
    expect(x.providerEventId).toMatch(/:settlement:/);
  });

  it('refund: approved at once, and its notification maps to a refund event', async () => {
    const charge = await b.createCharge(input({ method: 'qris' }));
    await sim.pay(charge.providerRef);
    const key = `rf_${rand()}`;
    const refund = await b.refund({
      providerRef: charge.providerRef,
      amount: 40_000,
      currency: 'IDR',
      idempotencyKey: key,
    });
    expect(refund).toMatchObject({ providerRefundId: key, status: 'succeeded' });
    await sim.flush();
    expect(receiver.last('provider_b').event).toMatchObject({
      type: 'refund',
      providerRefundId: key,
      amount: 40_000,
      status: 'succeeded',
    });
    // The charge itself stays paid: refunds are their own records.
    expect((await b.fetchStatus(charge)).status).toBe('paid');
  });

  it('typed errors: wrong server key (Snap and Core API), unknown order, reused order id, hanging provider', async () => {
    const wrong = new ProviderB({ ...creds, serverKey: 'SB-Mid-server-wrong' }, { baseUrl: sim.url });
    await expectProviderError(wrong.createCharge(input({ method: 'card' })), 'invalid_credentials');
    const core = await expectProviderError(wrong.createCharge(input({ method: 'qris' })), 'invalid_credentials');
    expect(core.providerCode).toBe('401');
    await expectProviderError(b.fetchStatus({ providerRef: 'no-such-order' }), 'not_found');
    const i = input({ method: 'va' });
    await b.createCharge(i);
    expect((await expectProviderError(b.createCharge(i), 'rejected')).providerCode).toBe('406');

    sim.hang = true;
    try {
      await expectProviderError(
        new ProviderB(creds, { baseUrl: sim.url, timeoutMs: 150 }).fetchStatus({ providerRef: 'x' }),
        'timeout',
      );
    } finally {
      sim.hang = false;
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('provider_c (PayPal-style)', () => {
  const creds = {
    clientId: `AZ${rand(16)}`,
    secret: `EL${rand(16)}`,
    webhookId: `WH${rand(8).toUpperCase()}`,
    mode: 'sandbox' as const,
  };
  const sim = new ProviderCSim({ clientId: creds.clientId, secret: creds.secret, webhookId: creds.webhookId });
  let c: ProviderC;
  const input = (over: Partial<CreateChargeInput> = {}) =>
    chargeInput({ method: 'provider_c', currency: 'USD', amount: 1234, ...over });
  beforeAll(async () => {
    await sim.start();
    sim.webhookUrl = receiver.urlFor('provider_c');
    c = new ProviderC(creds, { baseUrl: sim.url });
    receiver.providers.set('/v1/callbacks/provider_c', c);
  });
  beforeEach(() => clearProviderCTokens());
  afterAll(() => sim.close());

  it('order (intent CAPTURE, "12.34") -> approve link -> buyer approves -> capture -> paid, each step by verified webhook', async () => {
    const i = input();
    const charge = await c.createCharge(i);
    expect(charge.status).toBe('pending');
    expect(charge.instructions.kind === 'redirect' && charge.instructions.redirectUrl).toBe(
      `${sim.url}/checkoutnow?token=${charge.providerRef}`,
    );
    const create = sim.requests.filter((r) => r.path === '/v2/checkout/orders').at(-1)!;
    expect(create.headers['paypal-request-id']).toBe(i.idempotencyKey);
    expect(create.headers.authorization).toMatch(/^Bearer A21AA/);
    expect(JSON.parse(create.body)).toMatchObject({
      intent: 'CAPTURE',
      purchase_units: [{ custom_id: i.reference, amount: { currency_code: 'USD', value: '12.34' } }],
    });

    await sim.pay(charge.providerRef);
    const approved = charged(receiver.last('provider_c').event);
    expect(approved).toMatchObject({
      providerRef: charge.providerRef,
      status: 'approved',
      amount: 1234,
      currency: 'USD',
    });
    const verifyCall = sim.requests.filter((r) => r.path === '/v1/notifications/verify-webhook-signature').at(-1)!;
    const sent = sim.sent.at(-1)!;
    // The event goes back byte for byte, with the five transmission headers and our webhook id.
    expect(verifyCall.body.endsWith(`"webhook_event":${sent.body}}`)).toBe(true);
    expect(JSON.parse(verifyCall.body)).toMatchObject({
      auth_algo: 'SHA256withRSA',
      webhook_id: creds.webhookId,
      transmission_id: sent.headers['paypal-transmission-id'],
      transmission_sig: sent.headers['paypal-transmission-sig'],
      transmission_time: sent.headers['paypal-transmission-time'],
      cert_url: sent.headers['paypal-cert-url'],
    });
    // Re-serialising the event ("Jos\u00e9" becomes "José") breaks the signature: bytes, not JSON.
    expect(sent.body).toContain('Jos\\u00e9');
    const reserialised = JSON.stringify(JSON.parse(sent.body));
    expect(reserialised).not.toBe(sent.body);
    await expect(c.verifyCallback({ headers: sent.headers, rawBody: reserialised })).rejects.toMatchObject({
      reason: 'rejected',
    });
    await expect(c.verifyCallback({ headers: sent.headers, rawBody: Buffer.from(sent.body) })).resolves.toMatchObject({
      status: 'approved',
    });

    const settled = await settleCharge(c, approved, { idempotencyKey: `${i.idempotencyKey}:capture` });
    expect(settled).toMatchObject({
      status: 'paid',
      amount: 1234,
      currency: 'USD',
      providerPaymentId: expect.stringMatching(/^[0-9A-F]{17}$/),
    });
    await sim.flush();
    const captured = charged(receiver.last('provider_c').event);
    expect(captured).toMatchObject({
      providerRef: charge.providerRef,
      providerPaymentId: settled.providerPaymentId,
      status: 'paid',
      amount: 1234,
    });
    expect(await c.fetchStatus(captured)).toMatchObject({ status: 'paid', amount: 1234 });
    // Capturing again (a retry, or the callback path after the return path) is harmless.
    expect(await c.capture!(charge, { idempotencyKey: `${i.idempotencyKey}:capture` })).toMatchObject({
      status: 'paid',
    });
    expect(await c.capture!(charge, { idempotencyKey: 'another-key' })).toMatchObject({
      status: 'paid',
      providerPaymentId: settled.providerPaymentId,
    });
  });

  it('the token is fetched once and cached until it nears expiry, shared across instances', async () => {
    const start = sim.tokenRequests;
    let offset = 0;
    const clock = { now: () => new Date(Date.now() + offset) };
    const one = new ProviderC(creds, { baseUrl: sim.url, clock });
    const two = new ProviderC(creds, { baseUrl: sim.url, clock });
    const charges = await Promise.all([
      one.createCharge(input()),
      one.createCharge(input()),
      two.createCharge(input()),
    ]);
    await Promise.all(charges.map((x) => two.fetchStatus(x)));
    expect(sim.tokenRequests - start).toBe(1);
    offset = 32400 * 1000 - 30_000; // inside the refresh margin
    await one.fetchStatus(charges[0]);
    expect(sim.tokenRequests - start).toBe(2);
    await two.fetchStatus(charges[0]);
    expect(sim.tokenRequests - start).toBe(2);
  });

  it('a token revoked early is replaced once on 401', async () => {
    const charge = await c.createCharge(input());
    const start = sim.tokenRequests;
    sim.revokeTokens();
    expect((await c.fetchStatus(charge)).status).toBe('pending');
    expect(sim.tokenRequests - start).toBe(1);
  });

  it('webhook verification failures: forged, tampered, headers missing, no webhook id', async () => {
    const charge = await c.createCharge(input());
    const [d] = await sim.pay(charge.providerRef, { forge: true });
    expect(d.status).toBe(401);
    expect(receiver.last('provider_c').error).toMatchObject({ reason: 'rejected', provider: 'provider_c' });

    const [t] = await sim.webhook(
      'CHECKOUT.ORDER.APPROVED',
      'checkout-order',
      {
        id: charge.providerRef,
        status: 'APPROVED',
        purchase_units: [{ amount: { currency_code: 'USD', value: '12.34' } }],
      },
      {
        tamper: (body) => body.replace('"12.34"', '"0.01"'),
      },
    );
    expect(t.status).toBe(401);

    const tampered = sim.sent.at(-1)!;
    const verifies = sim.requests.filter((r) => r.path.includes('verify-webhook')).length;
    const { 'paypal-transmission-sig': _sig, ...fewer } = tampered.headers;
    void _sig;
    await expect(c.verifyCallback({ headers: fewer, rawBody: tampered.body })).rejects.toMatchObject({
      reason: 'missing',
    });
    expect(sim.requests.filter((r) => r.path.includes('verify-webhook')).length).toBe(verifies);
    const noHook = new ProviderC({ ...creds, webhookId: null }, { baseUrl: sim.url });
    await expect(noHook.verifyCallback({ headers: tampered.headers, rawBody: tampered.body })).rejects.toMatchObject({
      reason: 'not_configured',
    });
    const otherHook = new ProviderC({ ...creds, webhookId: 'WH-SOMEONE-ELSE' }, { baseUrl: sim.url });
    const [ok] = await sim.pay(charge.providerRef);
    expect(ok.status).toBe(200);
    const real = sim.sent.at(-1)!;
    await expect(otherHook.verifyCallback({ headers: real.headers, rawBody: real.body })).rejects.toBeInstanceOf(
      CallbackVerificationError,
    );
  });

  it('same PayPal-Request-Id, same order; declined instrument fails; pending capture then denied', async () => {
    const i = input();
    const one = await c.createCharge(i);
    expect((await c.createCharge(i)).providerRef).toBe(one.providerRef);

    await sim.pay(one.providerRef, { capture: 'DECLINED' });
    expect((await settleCharge(c, one, { idempotencyKey: 'cap-1' })).status).toBe('failed');

    const two = await c.createCharge(input());
    await sim.pay(two.providerRef, { capture: 'PENDING' });
    expect((await settleCharge(c, two, { idempotencyKey: 'cap-2' })).status).toBe('pending');
    await sim.flush();
    expect(charged(receiver.last('provider_c').event)).toMatchObject({
      providerRef: two.providerRef,
      status: 'pending',
    });
    await sim.fail(two.providerRef);
    expect(charged(receiver.last('provider_c').event)).toMatchObject({
      providerRef: two.providerRef,
      status: 'failed',
    });
    expect((await c.fetchStatus(two)).status).toBe('failed');
  });

  it('an order never captured expires: the provider forgets it', async () => {
    const charge = await c.createCharge(input());
    await sim.expire(charge.providerRef);
    expect((await c.fetchStatus(charge)).status).toBe('expired');
  });

  it('refund a capture; the webhook maps to a refund event', async () => {
    const charge = await c.createCharge(input({ amount: 5000 }));
    await sim.pay(charge.providerRef);
    const paid = await settleCharge(c, charge, { idempotencyKey: 'cap-r' });
    const refund = await c.refund({ ...paid, amount: 1050, currency: 'USD', idempotencyKey: `rf_${rand()}` });
    expect(refund.status).toBe('succeeded');
    expect(JSON.parse(sim.requests.filter((r) => r.path.endsWith('/refund')).at(-1)!.body)).toMatchObject({
      amount: { currency_code: 'USD', value: '10.50' },
    });
    await sim.flush();
    expect(receiver.last('provider_c').event).toMatchObject({
      type: 'refund',
      providerRefundId: refund.providerRefundId,
      amount: 1050,
      currency: 'USD',
      status: 'succeeded',
    });
    // Without the capture id the adapter finds it on the order.
    const again = await c.refund({
      providerRef: charge.providerRef,
      amount: 50,
      currency: 'USD',
      idempotencyKey: `rf_${rand()}`,
    });
    expect(again.status).toBe('succeeded');
  });

  it('amounts are exact decimal strings per currency', async () => {
    for (const [amount, currency, value] of [
      [5, 'USD', '0.05'],
      [100, 'USD', '1.00'],
      [123456789, 'USD', '1234567.89'],
      [1500, 'JPY', '1500'],
    ] as const) {
      await c.createCharge(input({ amount, currency }));
      expect(
        JSON.parse(sim.requests.filter((r) => r.path === '/v2/checkout/orders').at(-1)!.body).purchase_units[0].amount,
      ).toEqual({ currency_code: currency, value });
    }
    expect(c.supports('provider_c', 'IDR')).toBe(false);
    await expectProviderError(c.createCharge(input({ currency: 'IDR' })), 'unsupported');
  });

  it('typed errors: wrong client secret, hanging provider', async () => {
    const wrong = new ProviderC({ ...creds, secret: 'nope' }, { baseUrl: sim.url });
    const e = await expectProviderError(wrong.createCharge(input()), 'invalid_credentials');
    expect(e.providerCode).toBe('invalid_client');
    sim.hang = true;
    try {
      await expectProviderError(
        new ProviderC(creds, { baseUrl: sim.url, timeoutMs: 150 }).createCharge(input()),
        'timeout',
      );
    } finally {
      sim.hang = false;
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe('manual', () => {
  const m = createProvider({
    kind: 'manual',
    config: {
      bankAccounts: [{ bankName: 'BCA', accountNumber: '1234567890', accountHolder: 'PT Contoh' }],
      staticQrImageUrl: 'https://merchant.example/qr.png',
      instructions: 'Put the order number in the transfer note.',
    },
  }) as ManualProvider;

  it('instructions from the public config, no HTTP, confirmed only by the merchant', async () => {
    expect(m.supports('va', 'IDR')).toBe(true);
    expect(m.supports('qris', 'IDR')).toBe(true);
    expect(m.supports('qris', 'USD')).toBe(false);
    expect(m.supports('card', 'IDR')).toBe(false);
    const bank = await m.createCharge(chargeInput({ method: 'va' }));
    expect(bank).toMatchObject({
      status: 'pending',
      instructions: {
        kind: 'manual',
        bankAccounts: [{ bankName: 'BCA', accountNumber: '1234567890' }],
        staticQrImageUrl: null,
        text: 'Put the order number in the transfer note.',
      },
    });
    const qr = await m.createCharge(chargeInput({ method: 'qris' }));
    expect(qr.instructions).toMatchObject({
      kind: 'manual',
      bankAccounts: [],
      staticQrImageUrl: 'https://merchant.example/qr.png',
    });
    expect((await m.fetchStatus(qr)).status).toBe('pending');
    await expect(m.verifyCallback()).rejects.toBeInstanceOf(CallbackVerificationError);
    await expectProviderError(m.createCharge(chargeInput({ method: 'card' })), 'unsupported');
    await expectProviderError(m.refund(), 'unsupported');
  });
});

describe('decimal amounts', () => {
  it('minor units <-> provider decimal strings, exactly', () => {
    expect(toDecimalString(100_000, 'IDR', 2)).toBe('100000.00');
    expect(toDecimalString(1234, 'USD')).toBe('12.34');
    expect(toDecimalString(7, 'USD')).toBe('0.07');
    expect(fromDecimalString('100000.00', 'IDR')).toBe(100_000);
    expect(fromDecimalString('100000.50', 'IDR')).toBeNull();
    expect(fromDecimalString('12.345', 'USD')).toBeNull();
    expect(fromDecimalString('12.340', 'USD')).toBe(1234);
    expect(fromDecimalString('12', 'USD')).toBe(1200);
    expect(fromDecimalString('1e3', 'USD')).toBeNull();
    expect(fromDecimalString(' 12.34', 'USD')).toBeNull();
  });

  it('round-trips every safe amount in every currency', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        fc.constantFrom('IDR', 'USD', 'JPY', 'SGD'),
        fc.integer({ min: 0, max: 2 }),
        (n, cur, extra) => {
          const places = (cur === 'IDR' || cur === 'JPY' ? 0 : 2) + extra;
          expect(fromDecimalString(toDecimalString(n, cur, places), cur)).toBe(n);
        },
      ),
    );
  });
});
