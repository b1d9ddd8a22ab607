// Saved methods and off-session charges over real HTTP (docs/providers.md, Saved methods): each
// adapter against its simulator, from the setup (the hosted form where the number is typed, the
// OTP, the vault approval) to merchant-initiated charges for every row of the scenario table, with
// the faults that must never become a decline or a second charge.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CallbackVerificationError,
  clearProviderCTokens,
  maskAccount,
  maskEmail,
  maskPhone,
  ProviderA,
  ProviderB,
  ProviderC,
  ProviderError,
  type CallbackEvent,
  type OffSessionChargeInput,
  type OffSessionResult,
  type Provider,
  type SavedMethodType,
  type TokenEvent,
} from '../../src/providers/index.ts';
import { DomainError } from '../../src/core/errors.ts';
import { scenarios, type Scenario } from '../../src/modules/payment-methods/scenarios.ts';
import { ProviderASim } from '../simulators/provider_a.ts';
import { ProviderBSim } from '../simulators/provider_b.ts';
import { ProviderCSim } from '../simulators/provider_c.ts';
import type { Simulator } from '../simulators/common.ts';

// ---- a callback receiver, like POST /v1/callbacks/<provider> ----

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
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
      const rec: Received = { path: req.url ?? '', headers: req.headers, status: 0 };
      const provider = this.providers.get(rec.path);
      try {
        if (!provider) throw new Error(`no provider at ${rec.path}`);
        rec.event = await provider.verifyCallback({ headers: req.headers, rawBody: Buffer.concat(chunks) });
        rec.status = 200;
      } catch (e) {
        rec.error = e;
        rec.status = e instanceof DomainError ? e.status : 500;
      }
      this.received.push(rec);
      res.writeHead(rec.status, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  urlFor(kind: string) {
    return `${this.url}/v1/callbacks/${kind}`;
  }

  at(kind: string) {
    return this.received.filter((x) => x.path === `/v1/callbacks/${kind}`);
  }

  tokenEvents(kind: string): TokenEvent[] {
    return this.at(kind)
      .map((x) => x.event)
      .filter((e): e is TokenEvent => e?.type === 'token');
  }

  async close() {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

const receiver = new Receiver();
beforeAll(() => receiver.start());
afterAll(() => receiver.close());

const rand = (n = 8) => randomBytes(n).toString('hex');
const customer = { id: 'cus_01TEST', name: 'Budi Santoso', email: 'budi@example.com', phone: '+6281234567890' };

function chargeInput(
  token: string,
  type: SavedMethodType,
  over: Partial<OffSessionChargeInput> = {},
): OffSessionChargeInput {
  const reference = `pay_${rand(10).toUpperCase()}`;
  return {
    reference,
    token,
    type,
    amount: 150_000,
    currency: 'IDR',
    customer,
    description: 'Pro plan, December',
    callbackUrl: receiver.urlFor('x'),
    idempotencyKey: reference,
    ...over,
  };
}

async function errorOf(p: Promise<unknown>): Promise<ProviderError> {
  const e = await p.then(
    () => null,
    (x) => x,
  );
  expect(e, 'expected a ProviderError').toBeInstanceOf(ProviderError);
  return e as ProviderError;
}

/** Submits a simulator's hosted form the way a browser does (urlencoded, no redirect following). */
async function submit(url: string, fields: Record<string, string>) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
  return { status: res.status, location: res.headers.get('location'), html: await res.text() };
}

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 3000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The normalised failure of each failing scenario (`declined` differs for cards). */
function expectedFailure(scenario: Scenario, declined: string): string | null {
  switch (scenarios[scenario].charge) {
    case 'declined':
      return declined;
    case 'insufficient_funds':
      return 'insufficient_funds';
    case 'expired_card':
      return 'expired_card';
    case 'payment_method_revoked':
      return 'payment_method_revoked';
    default:
      return null;
  }
}

const failing: Scenario[] = ['charge_declined', 'insufficient_funds', 'expired_card', 'revoked'];
const magic: [number, string][] = [
  [11001, 'limit_exceeded'],
  [11002, 'insufficient_funds'],
  [11004, 'account_blocked'],
];

/**
 * What every adapter must do with a token per scenario: the off-session answers, idempotency, the
 * lost answer, outages and sandbox tokens. `token(scenario)` makes an active token at the simulator.
 */
function offSessionSuite(ctx: {
  sim: () => Simulator & {
    charges: { byKey: Map<string, number>; byReference: Map<string, number> };
    offSession: { dropResponseAfterCharge: boolean | number; delayMs: number };
    completeAction(ref: string, ok: boolean): Promise<unknown>;
  };
  adapter: () => Provider;
  slow: () => Provider;
  token: (scenario: Scenario) => string;
  type: SavedMethodType;
  declined: string;
  currency?: string;
  /** The provider has no delete API for this token (provider_b cards): detach forgets it without a call. */
  detachForgets?: boolean;
}) {
  const input = (token: string, over: Partial<OffSessionChargeInput> = {}) =>
    chargeInput(token, ctx.type, { currency: ctx.currency ?? 'IDR', ...over });

  it('charges a success token: succeeded, with the provider reference', async () => {
    const r = await ctx.adapter().chargeOffSession!(input(ctx.token('success')));
    expect(r.status).toBe('succeeded');
    expect(r.providerRef).toBeTruthy();
    expect(r.failureCode ?? null).toBeNull();
  });

  it.each(failing)('scenario %s fails with its normalised code', async (scenario) => {
    const r = await ctx.adapter().chargeOffSession!(input(ctx.token(scenario)));
    expect(r.status).toBe('failed');
    expect(r.failureCode).toBe(expectedFailure(scenario, ctx.declined));
    expect(r.providerCode).toBeTruthy();
  });

  it.each(magic)('amount %i on a success token fails %s', async (amount, code) => {
    const r = await ctx.adapter().chargeOffSession!(input(ctx.token('success'), { amount }));
    expect(r).toMatchObject({ status: 'failed', failureCode: code });
  });

  it('an expired_card answer leaves the token unusable: the next charge fails too', async () => {
    const token = ctx.token('expired_card');
    await ctx.adapter().chargeOffSession!(input(token));
    const again = await ctx.adapter().chargeOffSession!(input(token));
    expect(again).toMatchObject({ status: 'failed', failureCode: 'expired_card' });
  });

  it('requires_action: a payer-action link, then the customer authenticates and the status says succeeded', async () => {
    const i = input(ctx.token('requires_action'));
    const r = await ctx.adapter().chargeOffSession!(i);
    expect(r.status).toBe('requires_action');
    expect(r.nextAction?.type).toBe('redirect');
    expect(r.nextAction?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    const page = await fetch(r.nextAction!.url);
    expect(page.status).toBe(200);
    await ctx.sim().completeAction(i.reference, true);
    const after = await ctx.adapter().fetchOffSession!({
      providerRef: r.providerRef,
      reference: i.reference,
      idempotencyKey: i.idempotencyKey,
    });
    expect(after?.status).toBe('succeeded');
  });

  it("requires_action through the simulator's page: its Authenticate button completes the charge", async () => {
    const i = input(ctx.token('requires_action'));
    const r = await ctx.adapter().chargeOffSession!(i);
    const page = await submit(r.nextAction!.url, { outcome: 'success' });
    expect(page.status).toBe(200);
    const after = await ctx.adapter().fetchOffSession!({
      providerRef: r.providerRef,
      reference: i.reference,
      idempotencyKey: i.idempotencyKey,
    });
    expect(after?.status).toBe('succeeded');
    expect(ctx.sim().charges.byReference.get(i.reference)).toBe(1);
  });

  it('requires_action abandoned: authentication_required', async () => {
    const i = input(ctx.token('requires_action'));
    const r = await ctx.adapter().chargeOffSession!(i);
    await ctx.sim().completeAction(i.reference, false);
    const after = await ctx.adapter().fetchOffSession!({
      providerRef: r.providerRef,
      reference: i.reference,
      idempotencyKey: i.idempotencyKey,
    });
    expect(after).toMatchObject({ status: 'failed', failureCode: 'authentication_required' });
  });

  it('async: pending at first, succeeded once the provider settles it', async () => {
    const i = input(ctx.token('async'));
    const r = await ctx.adapter().chargeOffSession!(i);
    expect(r.status).toBe('pending');
    const later = await until(
      () =>
        ctx.adapter().fetchOffSession!({
          providerRef: r.providerRef,
          reference: i.reference,
          idempotencyKey: i.idempotencyKey,
        }),
      (s) => s?.status === 'succeeded',
    );
    expect(later?.status).toBe('succeeded');
  });

  it('the same idempotency key twice: the same answer and one charge', async () => {
    const i = input(ctx.token('success'));
    const [a, b] = await Promise.all([ctx.adapter().chargeOffSession!(i), ctx.adapter().chargeOffSession!(i)]);
    const c = await ctx.adapter().chargeOffSession!(i);
    expect(b.providerRef).toBe(a.providerRef);
    expect(c.providerRef).toBe(a.providerRef);
    expect(c.status).toBe('succeeded');
    expect(ctx.sim().charges.byReference.get(i.reference)).toBe(1);
  });

  it('a response dropped after the charge: a retryable timeout, then the lookup by reference finds it succeeded (one charge)', async () => {
    const i = input(ctx.token('success'));
    ctx.sim().offSession.dropResponseAfterCharge = true;
    try {
      const e = await errorOf(ctx.slow().chargeOffSession!(i));
      expect(e.reason).toBe('timeout');
      expect(e.retryable).toBe(true);
    } finally {
      ctx.sim().offSession.dropResponseAfterCharge = false;
    }
    const found = (await ctx.adapter().fetchOffSession!({
      providerRef: null,
      reference: i.reference,
      idempotencyKey: i.idempotencyKey,
    })) as OffSessionResult;
    expect(found?.status).toBe('succeeded');
    // Retrying with the same key answers the same charge: still one.
    const again = await ctx.adapter().chargeOffSession!(i);
    expect(again.providerRef).toBe(found.providerRef);
    expect(ctx.sim().charges.byReference.get(i.reference)).toBe(1);
  });

  it('a lookup of a charge the provider never saw answers null', async () => {
    const i = input(ctx.token('success'));
    expect(
      await ctx.adapter().fetchOffSession!({
        providerRef: null,
        reference: i.reference,
        idempotencyKey: i.idempotencyKey,
      }),
    ).toBeNull();
  });

  it('a 5xx is a retryable ProviderError, never a decline', async () => {
    const token = ctx.token('success');
    const i = input(token);
    ctx.sim().errorStatus = 503;
    try {
      const e = await errorOf(ctx.adapter().chargeOffSession!(i));
      expect(e.reason).toBe('unavailable');
      expect(e.retryable).toBe(true);
    } finally {
      ctx.sim().errorStatus = null;
    }
    expect(ctx.sim().charges.byReference.get(i.reference)).toBeUndefined();
  });

  it('a timeout (no answer at all) is a retryable ProviderError', async () => {
    ctx.sim().hang = true;
    try {
      const e = await errorOf(ctx.slow().chargeOffSession!(input(ctx.token('success'))));
      expect(e.reason).toBe('timeout');
      expect(e.retryable).toBe(true);
    } finally {
      ctx.sim().hang = false;
    }
  });

  it('refuses a sandbox token without any HTTP call', async () => {
    const before = ctx.sim().requests.length;
    const e = await errorOf(ctx.adapter().chargeOffSession!(input('sbx_4242_0123456789')));
    expect(e.retryable).toBe(false);
    expect(e.providerCode).toBe('sandbox_token');
    const d = await errorOf(ctx.adapter().detachToken!('sbx_4242_0123456789'));
    expect(d.providerCode).toBe('sandbox_token');
    expect(ctx.sim().requests.length).toBe(before);
  });

  it.skipIf(ctx.detachForgets)('detaches a token: true, again true, and a charge of it then fails', async () => {
    const token = ctx.token('success');
    expect(await ctx.adapter().detachToken!(token)).toBe(true);
    expect(await ctx.adapter().detachToken!(token)).toBe(true);
    const r = await ctx.adapter().chargeOffSession!(input(token));
    expect(r.status).toBe('failed');
    expect(['expired_card', 'payment_method_revoked']).toContain(r.failureCode);
  });
}

// ---------------------------------------------------------------------------------------------
// provider_a (Xendit-style): payment methods and payment requests

describe('provider_a saved methods', () => {
  const secretKey = `xnd_development_${rand(16)}`;
  const callbackToken = rand(24);
  const sim = new ProviderASim({ secretKey, callbackToken });
  let a: ProviderA;
  let slow: ProviderA;

  beforeAll(async () => {
    await sim.start();
    sim.callbackUrl = receiver.urlFor('provider_a');
    a = new ProviderA({ secretKey, callbackToken }, { baseUrl: sim.url });
    slow = new ProviderA({ secretKey, callbackToken }, { baseUrl: sim.url, timeoutMs: 300 });
    receiver.providers.set('/v1/callbacks/provider_a', a);
  });
  afterAll(() => sim.close());

  const setupInput = (type: SavedMethodType, over: Record<string, unknown> = {}) => ({
    reference: `satt_${rand(10).toUpperCase()}`,
    type,
    customer,
    currency: 'IDR',
    returnUrl: 'https://pay.example/s/tok/return',
    cancelUrl: 'https://pay.example/s/tok',
    callbackUrl: receiver.urlFor('provider_a'),
    idempotencyKey: `satt_${rand(10)}`,
    ...over,
  });

  it('can save cards, e-wallets and direct debit in IDR only', () => {
    expect(a.savableTypes('IDR')).toEqual(['card', 'ewallet', 'direct_debit']);
    expect(a.savableTypes('USD')).toEqual([]);
  });

  it('card: the provider-hosted form, the number typed there, then fetchSetup is active with the token and display', async () => {
    const s = await a.createSetup(setupInput('card'));
    expect(s.status).toBe('pending');
    expect(s.instructions?.kind).toBe('redirect');
    const url = (s.instructions as { redirectUrl: string }).redirectUrl;
    const form = await fetch(url);
    expect(await form.text()).toContain('name="number"');
    expect(sim.requests.at(-1)?.body ?? '').not.toContain('4242424242424242');
    const done = await submit(url, { number: '4242 4242 4242 4242' });
    expect(done.status).toBe(303);
    expect(done.location).toBe('https://pay.example/s/tok/return');
    const state = await a.fetchSetup(s.providerRef);
    expect(state).toMatchObject({ status: 'active', token: s.providerRef });
    expect(state.display.card).toMatchObject({ brand: 'visa', last4: '4242', expMonth: 12, funding: 'credit' });
    await sim.flush();
    const ev = receiver.tokenEvents('provider_a').find((e) => e.tokenRef === s.providerRef);
    expect(ev?.status).toBe('active');
    const charged = await a.chargeOffSession(chargeInput(state.token!, 'card'));
    expect(charged.status).toBe('succeeded');
  });

  it('card with the requires_action number: one authentication step before it is active', async () => {
    const s = await a.createSetup(setupInput('card'));
    const url = (s.instructions as { redirectUrl: string }).redirectUrl;
    const step = await submit(url, { number: scenarios.requires_action.card });
    expect(step.status).toBe(200);
    expect(step.html).toContain('Authenticate');
    expect((await a.fetchSetup(s.providerRef)).status).toBe('pending');
    const done = await submit(`${url}/authenticate`, { outcome: 'success' });
    expect(done.status).toBe(303);
    expect((await a.fetchSetup(s.providerRef)).status).toBe('active');
  });

  it('card setup_declined: failed card_declined, the customer back on the failure URL', async () => {
    const s = await a.createSetup(setupInput('card'));
    const done = await submit((s.instructions as { redirectUrl: string }).redirectUrl, {
      number: scenarios.setup_declined.card,
    });
    expect(done.location).toBe('https://pay.example/s/tok');
    const state = await a.fetchSetup(s.providerRef);
    expect(state).toMatchObject({ status: 'failed', token: null, failureCode: 'card_declined' });
  });

  it('e-wallet (OVO): linking page with the phone, then active with a masked account', async () => {
    const s = await a.createSetup(setupInput('ewallet', { channel: 'ovo', account: '+62 812-3456-0000' }));
    const url = (s.instructions as { redirectUrl: string }).redirectUrl;
    expect(await (await fetch(url)).text()).toContain('name="phone"');
    await submit(url, { phone: '+62 812-3456-0000' });
    const state = await a.fetchSetup(s.providerRef);
    expect(state.status).toBe('active');
    expect(state.display.ewallet).toEqual({ provider: 'ovo', maskedAccount: '+62 812-****-0000' });
  });

  it('direct debit: the OTP step; a wrong OTP fails invalid_otp, 222000 activates', async () => {
    const bad = await a.createSetup(setupInput('direct_debit', { channel: 'bri', account: '081234560000' }));
    expect(bad.instructions).toEqual({ kind: 'otp' });
    expect((await a.fetchSetup(bad.providerRef)).confirmable).toBe(true);
    const wrong = await a.confirmSetup(bad.providerRef, { otp: '123456', idempotencyKey: rand() });
    expect(wrong).toMatchObject({ status: 'failed', failureCode: 'invalid_otp', token: null });

    const s = await a.createSetup(setupInput('direct_debit', { channel: 'bri', account: '081234560000' }));
    const ok = await a.confirmSetup(s.providerRef, { otp: '222000', idempotencyKey: rand() });
    expect(ok).toMatchObject({ status: 'active', token: s.providerRef });
    expect(ok.display.directDebit).toEqual({ bank: 'bri', maskedAccount: '****0000' });
  });

  it('refuses a type it cannot save, before any call', async () => {
    const before = sim.requests.length;
    expect((await errorOf(a.createSetup(setupInput('paypal')))).reason).toBe('unsupported');
    expect(sim.requests.length).toBe(before);
  });

  offSessionSuite({
    sim: () => sim,
    adapter: () => a,
    slow: () => slow,
    token: (scenario) => sim.seedToken({ digits: scenarios[scenario].card }),
    type: 'card',
    declined: 'card_declined',
  });

  it('an e-wallet decline is payment_declined', async () => {
    const token = sim.seedToken({ type: 'EWALLET', digits: '0812340341' });
    const r = await a.chargeOffSession(chargeInput(token, 'ewallet'));
    expect(r).toMatchObject({ status: 'failed', failureCode: 'payment_declined', providerCode: 'DECLINED_BY_ISSUER' });
  });

  it('payment callbacks carry our reference (routing when the answer was lost)', async () => {
    const i = chargeInput(sim.seedToken({ digits: '4242' }), 'card');
    const r = await a.chargeOffSession(i);
    await sim.flush();
    const ev = receiver
      .at('provider_a')
      .map((x) => x.event)
      .find((e) => e?.type === 'charge' && e.reference === i.reference);
    expect(ev).toMatchObject({ type: 'charge', providerRef: r.providerRef, status: 'paid', amount: 150_000 });
    expect((await a.fetchStatus(ev as { providerRef: string })).status).toBe('paid');
  });

  it('async settles with its callback after delayMs; duplicateRate 1 sends every callback twice (one event id)', async () => {
    sim.offSession.duplicateRate = 1;
    try {
      const i = chargeInput(sim.seedToken({ digits: scenarios.async.card }), 'card');
      const r = await a.chargeOffSession(i);
      expect(r.status).toBe('pending');
      await until(
        async () =>
          receiver.at('provider_a').filter((x) => x.event?.type === 'charge' && x.event.reference === i.reference),
        (l) => l.length === 2,
      );
      const copies = receiver
        .at('provider_a')
        .map((x) => x.event)
        .filter((e) => e?.type === 'charge' && e.reference === i.reference);
      expect(copies).toHaveLength(2);
      expect(copies.map((e) => (e as { status: string }).status)).toEqual(['paid', 'paid']);
      expect(copies[0]!.providerEventId).toBe(copies[1]!.providerEventId);
    } finally {
      sim.offSession.duplicateRate = 0;
    }
  });

  it('deliver: false changes the state and sends nothing (the sweep must ask)', async () => {
    sim.offSession.deliver = false;
    const sent = sim.sent.length;
    try {
      const i = chargeInput(sim.seedToken({ digits: '4242' }), 'card');
      expect((await a.chargeOffSession(i)).status).toBe('succeeded');
      await sim.flush();
      expect(sim.sent.length).toBe(sent);
    } finally {
      sim.offSession.deliver = true;
    }
  });

  it('token callbacks: revoked and expired map to TokenEvent; a forged one is refused', async () => {
    const revoked = sim.seedToken({ digits: '4242' });
    const expired = sim.seedToken({ digits: '4242' });
    await sim.revokeToken(revoked);
    await sim.expireToken(expired, { duplicates: 1 });
    const events = receiver.tokenEvents('provider_a');
    expect(events.find((e) => e.tokenRef === revoked)?.status).toBe('revoked');
    const copies = events.filter((e) => e.tokenRef === expired);
    expect(copies.map((e) => e.status)).toEqual(['expired', 'expired']);
    expect(copies[0].providerEventId).toBe(copies[1].providerEventId);
    const forged = sim.seedToken({ digits: '4242' });
    const [d] = await sim.revokeToken(forged, { forge: true });
    expect(d.status).toBe(401);
    const last = receiver.at('provider_a').at(-1)!;
    expect(last.error).toBeInstanceOf(CallbackVerificationError);
  });
});

// ---------------------------------------------------------------------------------------------
// provider_b (Midtrans-style): GoPay tokenization (pay accounts) and GoPay charges

describe('provider_b saved methods (GoPay tokenization)', () => {
  const serverKey = `SB-Mid-server-${rand(12)}`;
  const sim = new ProviderBSim({ serverKey });
  let b: ProviderB;
  let slow: ProviderB;

  beforeAll(async () => {
    await sim.start();
    sim.notificationUrl = receiver.urlFor('provider_b');
    b = new ProviderB({ serverKey, env: 'sandbox' }, { baseUrl: sim.url });
    slow = new ProviderB({ serverKey, env: 'sandbox' }, { baseUrl: sim.url, timeoutMs: 300 });
    receiver.providers.set('/v1/callbacks/provider_b', b);
  });
  afterAll(() => sim.close());

  const setupInput = (account: string) => ({
    reference: `satt_${rand(10).toUpperCase()}`,
    type: 'ewallet' as const,
    channel: 'gopay',
    account,
    customer,
    currency: 'IDR',
    returnUrl: 'https://pay.example/s/tok/return',
    cancelUrl: 'https://pay.example/s/tok',
    callbackUrl: receiver.urlFor('provider_b'),
    idempotencyKey: `satt_${rand(10)}`,
  });

  it('saves GoPay accounts only (cards on provider_b are saved at checkout)', () => {
    expect(b.savableTypes('IDR')).toEqual(['ewallet']);
    expect(b.savableTypes('USD')).toEqual([]);
  });

  it('links a GoPay account: activation page, phone typed, ENABLED; the token carries account and option token', async () => {
    const s = await b.createSetup(setupInput('+62 812-3456-0000'));
    expect(s.status).toBe('pending');
    const url = (s.instructions as { redirectUrl: string }).redirectUrl;
    const linkReq = sim.requests.find((r) => r.path === '/v2/pay/account');
    expect(JSON.parse(linkReq!.body).gopay_partner).toMatchObject({ phone_number: '81234560000', country_code: '62' });
    expect(await (await fetch(url)).text()).toContain('name="phone"');
    const done = await submit(url, { phone: '081234560000' });
    expect(done.status).toBe(303);
    expect(done.location).toContain('https://pay.example/s/tok/return');
    const state = await b.fetchSetup(s.providerRef);
    expect(state.status).toBe('active');
    const token = JSON.parse(state.token!);
    expect(token.account_id).toBe(s.providerRef);
    expect(token.payment_option_token).toBeTruthy();
    expect(state.display.ewallet?.provider).toBe('gopay');
    await sim.flush();
    expect(receiver.tokenEvents('provider_b').find((e) => e.tokenRef === s.providerRef)?.status).toBe('active');
    expect((await b.chargeOffSession(chargeInput(state.token!, 'ewallet'))).status).toBe('succeeded');
  });

  it('setup_declined: the account is not enabled (failed)', async () => {
    const s = await b.createSetup(setupInput('081234560002'));
    await submit((s.instructions as { redirectUrl: string }).redirectUrl, { phone: '081234560002' });
    expect((await b.fetchSetup(s.providerRef)).status).toBe('failed');
  });

  it('requires_action on linking: one PIN step', async () => {
    const s = await b.createSetup(setupInput('081234563184'));
    const url = (s.instructions as { redirectUrl: string }).redirectUrl;
    const step = await submit(url, { phone: '081234563184' });
    expect(step.html).toContain('Authenticate');
    expect((await b.fetchSetup(s.providerRef)).status).toBe('pending');
    await submit(`${url}/authenticate`, { outcome: 'success' });
    expect((await b.fetchSetup(s.providerRef)).status).toBe('active');
  });

  it('refuses other wallets and types', async () => {
    await expect(b.createSetup({ ...setupInput('081234560000'), channel: 'shopeepay' })).rejects.toBeInstanceOf(
      ProviderError,
    );
    await expect(b.createSetup({ ...setupInput('081234560000'), type: 'card' })).rejects.toBeInstanceOf(ProviderError);
  });

  offSessionSuite({
    sim: () => sim,
    adapter: () => b,
    slow: () => slow,
    token: (scenario) => sim.seedToken({ digits: scenarios[scenario].last4 }),
    type: 'ewallet',
    declined: 'payment_declined',
  });

  it('the charge uses the existing order id rule and names our reference in the notification', async () => {
    const i = chargeInput(sim.seedToken({ digits: '0000' }), 'ewallet', { callbackUrl: receiver.urlFor('provider_b') });
    const r = await b.chargeOffSession(i);
    expect(sim.requests.filter((x) => x.path === '/v2/charge').at(-1)!.headers['x-override-notification']).toBe(
      receiver.urlFor('provider_b'),
    );
    expect(r.providerRef).toBe(b.orderIdFor(i));
    const sent = JSON.parse(sim.requests.filter((x) => x.path === '/v2/charge').at(-1)!.body);
    expect(sent.gopay).toEqual(JSON.parse(i.token));
    await sim.flush();
    const ev = receiver
      .at('provider_b')
      .map((x) => x.event)
      .find((e) => e?.type === 'charge' && e.reference === i.reference);
    expect(ev).toMatchObject({ providerRef: r.providerRef, status: 'paid', amount: 150_000 });
  });

  it('pay-account notifications: unbound and expired map to TokenEvent; a forged one is refused', async () => {
    const revoked = JSON.parse(sim.seedToken({ digits: '0000' })).account_id;
    const expired = JSON.parse(sim.seedToken({ digits: '0000' })).account_id;
    await sim.revokeToken(revoked);
    await sim.expireToken(expired);
    const events = receiver.tokenEvents('provider_b');
    expect(events.find((e) => e.tokenRef === revoked)?.status).toBe('revoked');
    expect(events.find((e) => e.tokenRef === expired)?.status).toBe('expired');
    const [d] = await sim.revokeToken(JSON.parse(sim.seedToken({ digits: '0000' })).account_id, { forge: true });
    expect(d.status).toBe(401);
    expect(receiver.at('provider_b').at(-1)!.error).toBeInstanceOf(CallbackVerificationError);
  });
});

// ---------------------------------------------------------------------------------------------
// provider_b saved cards: the `saved_token_id` a Snap `save_card` payment left, charged one-click

describe('provider_b saved cards (Snap save_card, one-click charges)', () => {
  const serverKey = `SB-Mid-server-${rand(12)}`;
  const sim = new ProviderBSim({ serverKey });
  let b: ProviderB;
  let slow: ProviderB;

  beforeAll(async () => {
    await sim.start();
    sim.notificationUrl = receiver.urlFor('provider_b_cards');
    b = new ProviderB({ serverKey, env: 'sandbox' }, { baseUrl: sim.url });
    slow = new ProviderB({ serverKey, env: 'sandbox' }, { baseUrl: sim.url, timeoutMs: 300 });
    receiver.providers.set('/v1/callbacks/provider_b_cards', b);
  });
  afterAll(() => sim.close());

  offSessionSuite({
    sim: () => sim,
    adapter: () => b,
    slow: () => slow,
    token: (scenario) => sim.seedCard({ number: scenarios[scenario].card }),
    type: 'card',
    declined: 'card_declined',
    detachForgets: true,
  });

  it('saved on the Snap card form (4242), then charged off session: credit_card.token_id, same order id rule, our reference notified', async () => {
    const reference = `cs_${rand(10).toUpperCase()}`;
    const charge = await b.createCharge({
      reference,
      amount: 150_000,
      currency: 'IDR',
      method: 'card',
      customer,
      expiresAt: new Date(Date.now() + 3600_000),
      successUrl: 'https://pay.example/c/tok/return',
      callbackUrl: receiver.urlFor('provider_b_cards'),
      idempotencyKey: `att_${rand(8)}`,
      saveForFutureUse: true,
      customerId: customer.id,
    });
    const url = (charge.instructions as { redirectUrl: string }).redirectUrl;
    expect(await (await fetch(url)).text()).toContain('name="number"');
    const snapToken = url.split('/').at(-1)!;
    const done = await submit(`${sim.url}/sim/tokenize/${snapToken}`, { number: '4242 4242 4242 4242' });
    expect(done.status).toBe(303);
    expect(done.location).toContain('https://pay.example/c/tok/return?order_id=');
    const state = await b.fetchStatus({ providerRef: charge.providerRef });
    expect(state.status).toBe('paid');
    expect(state.savedMethod?.display.card).toMatchObject({ brand: 'visa', last4: '4242', funding: 'credit' });
    const token = state.savedMethod!.token;
    expect(JSON.stringify(state.raw)).not.toContain(token);

    const i = chargeInput(token, 'card', { callbackUrl: receiver.urlFor('provider_b_cards') });
    const r = await b.chargeOffSession(i);
    expect(r).toMatchObject({ status: 'succeeded', providerRef: b.orderIdFor(i) });
    const sent = sim.requests.filter((x) => x.path === '/v2/charge').at(-1)!;
    expect(sent.headers['x-override-notification']).toBe(receiver.urlFor('provider_b_cards'));
    expect(JSON.parse(sent.body)).toMatchObject({
      payment_type: 'credit_card',
      credit_card: { token_id: token },
      transaction_details: { order_id: b.orderIdFor(i), gross_amount: 150_000 },
      custom_field1: i.reference,
    });
    expect(JSON.stringify(r.raw)).not.toContain(token);
    await sim.flush();
    const ev = receiver
      .at('provider_b_cards')
      .map((x) => x.event)
      .find((e) => e?.type === 'charge' && e.reference === i.reference);
    expect(ev).toMatchObject({ providerRef: r.providerRef, status: 'paid', amount: 150_000 });
  });

  it('a setup_declined card on the Snap form is denied and leaves no token', async () => {
    const charge = await b.createCharge({
      reference: `cs_${rand(10).toUpperCase()}`,
      amount: 150_000,
      currency: 'IDR',
      method: 'card',
      customer,
      expiresAt: new Date(Date.now() + 3600_000),
      successUrl: 'https://pay.example/c/tok/return',
      callbackUrl: receiver.urlFor('provider_b_cards'),
      idempotencyKey: `att_${rand(8)}`,
      saveForFutureUse: true,
      customerId: customer.id,
    });
    const snapToken = (charge.instructions as { redirectUrl: string }).redirectUrl.split('/').at(-1)!;
    await submit(`${sim.url}/sim/tokenize/${snapToken}`, { number: scenarios.setup_declined.card });
    const state = await b.fetchStatus({ providerRef: charge.providerRef });
    expect(state.status).toBe('failed');
    expect(state.savedMethod ?? null).toBeNull();
  });

  it('a token the provider does not know answers 411: failed payment_method_revoked, nothing charged', async () => {
    const i = chargeInput('481111abcd-4242-00000000-0000-0000-0000-000000000000', 'card');
    const r = await b.chargeOffSession(i);
    expect(r).toMatchObject({ status: 'failed', failureCode: 'payment_method_revoked', providerCode: '411' });
    expect(sim.charges.byReference.get(i.reference)).toBeUndefined();
  });

  it('a token deleted at the provider (revokeToken) fails payment_method_revoked', async () => {
    const token = sim.seedCard({ number: scenarios.success.card });
    await sim.revokeToken(token);
    const r = await b.chargeOffSession(chargeInput(token, 'card'));
    expect(r).toMatchObject({ status: 'failed', failureCode: 'payment_method_revoked' });
  });

  it('told apart from GoPay tokens by their stored shape: a GoPay token is never sent as a card, nor a card as GoPay', async () => {
    const before = sim.requests.length;
    const gopay = sim.seedToken({ digits: '0000' });
    const e = await errorOf(b.chargeOffSession(chargeInput(gopay, 'card')));
    expect(e).toMatchObject({ reason: 'rejected', providerCode: 'invalid_token' });
    const card = sim.seedCard({ number: scenarios.success.card });
    expect(await errorOf(b.chargeOffSession(chargeInput(card, 'ewallet')))).toMatchObject({ reason: 'rejected' });
    expect(sim.requests.length).toBe(before);
    // The GoPay path is unchanged.
    expect((await b.chargeOffSession(chargeInput(gopay, 'ewallet'))).status).toBe('succeeded');
  });

  it('detach of a card: no API at Midtrans, forgotten here (true, no call)', async () => {
    const token = sim.seedCard({ number: scenarios.success.card });
    const before = sim.requests.length;
    expect(await b.detachToken(token)).toBe(true);
    expect(await b.detachToken(token)).toBe(true);
    expect(sim.requests.length).toBe(before);
  });

  it('deliver: false: the card is charged and no notification comes (the sweep must ask)', async () => {
    sim.offSession.deliver = false;
    try {
      const i = chargeInput(sim.seedCard({ number: scenarios.success.card }), 'card', {
        callbackUrl: receiver.urlFor('provider_b_cards'),
      });
      expect((await b.chargeOffSession(i)).status).toBe('succeeded');
      await sim.flush();
      expect(
        receiver
          .at('provider_b_cards')
          .some((x) => x.event?.type === 'charge' && (x.event as { reference?: string }).reference === i.reference),
      ).toBe(false);
    } finally {
      sim.offSession.deliver = true;
    }
  });
});

// ---------------------------------------------------------------------------------------------
// provider_c (PayPal-style): vault v3 setup and payment tokens, merchant-initiated orders

describe('provider_c saved methods (vault v3)', () => {
  const creds = {
    clientId: `client-${rand(6)}`,
    secret: rand(16),
    webhookId: `WH-${rand(6)}`,
    mode: 'sandbox' as const,
  };
  const sim = new ProviderCSim({ clientId: creds.clientId, secret: creds.secret, webhookId: creds.webhookId });
  let c: ProviderC;
  let slow: ProviderC;

  beforeAll(async () => {
    await sim.start();
    sim.webhookUrl = receiver.urlFor('provider_c');
    c = new ProviderC(creds, { baseUrl: sim.url });
    slow = new ProviderC(creds, { baseUrl: sim.url, timeoutMs: 300 });
    receiver.providers.set('/v1/callbacks/provider_c', c);
  });
  afterAll(async () => {
    await sim.close();
    clearProviderCTokens();
  });

  const setupInput = (type: SavedMethodType) => ({
    reference: `satt_${rand(10).toUpperCase()}`,
    type,
    customer,
    currency: 'USD',
    returnUrl: 'https://pay.example/s/tok/return',
    cancelUrl: 'https://pay.example/s/tok',
    callbackUrl: receiver.urlFor('provider_c'),
    idempotencyKey: `satt_${rand(10)}`,
  });

  it('saves cards and PayPal accounts in its currencies, nothing in IDR', () => {
    expect(c.savableTypes('USD')).toEqual(['card', 'paypal']);
    expect(c.savableTypes('IDR')).toEqual([]);
  });

  it('PayPal: setup token, approval with the sandbox email, exchange (replayed by its key), active with a masked email', async () => {
    const s = await c.createSetup(setupInput('paypal'));
    expect(s.status).toBe('pending');
    const sent = JSON.parse(sim.requests.filter((r) => r.path === '/v3/vault/setup-tokens').at(-1)!.body);
    expect(sent.payment_source.paypal).toMatchObject({ usage_type: 'MERCHANT' });
    const url = (s.instructions as { redirectUrl: string }).redirectUrl;
    expect(await (await fetch(url)).text()).toContain('name="email"');
    expect((await c.fetchSetup(s.providerRef)).confirmable).toBe(false);
    const done = await submit(url, { email: 's0000@example.com' });
    expect(done.location).toBe(`https://pay.example/s/tok/return?approval_token_id=${s.providerRef}`);
    expect(await c.fetchSetup(s.providerRef)).toMatchObject({ status: 'pending', confirmable: true });
    const key = rand();
    const ok = await c.confirmSetup(s.providerRef, { idempotencyKey: key });
    expect(ok).toMatchObject({ status: 'active', providerRef: s.providerRef });
    expect(ok.display.paypal).toEqual({ maskedEmail: 's***@example.com' });
    expect((await c.confirmSetup(s.providerRef, { idempotencyKey: key })).token).toBe(ok.token);
    expect(await c.fetchSetup(ok.token!)).toMatchObject({ status: 'active', token: ok.token });
    await sim.flush();
    expect(receiver.tokenEvents('provider_c').find((e) => e.tokenRef === ok.token)?.status).toBe('active');
    const charged = await c.chargeOffSession(chargeInput(ok.token!, 'paypal', { currency: 'USD', amount: 1999 }));
    expect(charged.status).toBe('succeeded');
    const order = JSON.parse(sim.requests.filter((r) => r.path === '/v2/checkout/orders').at(-1)!.body);
    expect(order.payment_source.paypal).toEqual({
      vault_id: ok.token,
      stored_credential: { payment_initiator: 'MERCHANT', usage: 'SUBSEQUENT' },
    });
    expect(order.purchase_units[0].amount).toEqual({ currency_code: 'USD', value: '19.99' });
  });

  it('card: the number typed on the provider page, then the card display', async () => {
    const s = await c.createSetup(setupInput('card'));
    await submit((s.instructions as { redirectUrl: string }).redirectUrl, { number: '4242424242424242' });
    const ok = await c.confirmSetup(s.providerRef, { idempotencyKey: rand() });
    expect(ok.status).toBe('active');
    expect(ok.display.card).toMatchObject({ brand: 'visa', last4: '4242', expMonth: 12, funding: 'credit' });
  });

  it('card setup_declined fails at the exchange: card_declined', async () => {
    const s = await c.createSetup(setupInput('card'));
    await submit((s.instructions as { redirectUrl: string }).redirectUrl, { number: scenarios.setup_declined.card });
    const r = await c.confirmSetup(s.providerRef, { idempotencyKey: rand() });
    expect(r).toMatchObject({ status: 'failed', failureCode: 'card_declined', token: null });
  });

  it('requires_action at approval: one authentication step; before approval the exchange answers pending', async () => {
    const s = await c.createSetup(setupInput('card'));
    const url = (s.instructions as { redirectUrl: string }).redirectUrl;
    const step = await submit(url, { number: scenarios.requires_action.card });
    expect(step.html).toContain('Authenticate');
    expect((await c.confirmSetup(s.providerRef, { idempotencyKey: rand() })).status).toBe('pending');
    await submit(`${url}/authenticate`, { outcome: 'success' });
    expect((await c.confirmSetup(s.providerRef, { idempotencyKey: rand() })).status).toBe('active');
  });

  it('an exchange under another key after the token was vaulted is an error, not a decline', async () => {
    const s = await c.createSetup(setupInput('paypal'));
    await submit((s.instructions as { redirectUrl: string }).redirectUrl, { email: 's0000@example.com' });
    expect((await c.confirmSetup(s.providerRef, { idempotencyKey: rand() })).status).toBe('active');
    const e = await errorOf(c.confirmSetup(s.providerRef, { idempotencyKey: rand() }));
    expect(e).toMatchObject({ reason: 'rejected', providerCode: 'SETUP_TOKEN_ALREADY_USED', retryable: false });
  });

  offSessionSuite({
    sim: () => sim,
    adapter: () => c,
    slow: () => slow,
    token: (scenario) => sim.seedToken({ type: 'paypal', digits: scenarios[scenario].last4 }),
    type: 'paypal',
    declined: 'payment_declined',
    currency: 'USD',
  });

  it('a vaulted card decline is card_declined', async () => {
    const r = await c.chargeOffSession(
      chargeInput(sim.seedToken({ type: 'card', digits: '0341' }), 'card', { currency: 'USD' }),
    );
    expect(r).toMatchObject({ status: 'failed', failureCode: 'card_declined', providerCode: '0500' });
  });

  it('capture webhooks name our reference; VAULT.PAYMENT-TOKEN.DELETED is a revoked TokenEvent; a forged one is refused', async () => {
    const i = chargeInput(sim.seedToken({ digits: '0000' }), 'paypal', { currency: 'USD' });
    const r = await c.chargeOffSession(i);
    const revoked = sim.seedToken({ digits: '0000' });
    await sim.revokeToken(revoked);
    await sim.flush();
    const ev = receiver
      .at('provider_c')
      .map((x) => x.event)
      .find((e) => e?.type === 'charge' && e.reference === i.reference);
    expect(ev).toMatchObject({ providerRef: r.providerRef, status: 'paid' });
    expect(receiver.tokenEvents('provider_c').find((e) => e.tokenRef === revoked)?.status).toBe('revoked');
    const [d] = await sim.revokeToken(sim.seedToken({ digits: '0000' }), { forge: true });
    expect(d.status).toBe(401);
    expect(receiver.at('provider_c').at(-1)!.error).toBeInstanceOf(CallbackVerificationError);
  });
});

describe('display masking', () => {
  it('masks phones, accounts and emails to what the service may show', () => {
    expect(maskPhone('+62 812-3456-7890')).toBe('+62 812-****-7890');
    expect(maskPhone('081234567890')).toBe('+62 812-****-7890');
    expect(maskPhone('12')).toBe('****');
    expect(maskAccount('XXXXXX1234')).toBe('****1234');
    expect(maskEmail('john@example.com')).toBe('j***@example.com');
    expect(maskEmail('nope')).toBe('***');
  });
});
