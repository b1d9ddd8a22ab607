// provider_c: PayPal-style Orders v2. OAuth2 client credentials for a bearer token (cached until
// shortly before it expires, shared by every instance with the same credentials); orders are
// created with intent CAPTURE and `PayPal-Request-Id`, approved by the buyer on the provider's page,
// then captured by us. Webhooks are verified by the provider's verify-webhook-signature API.
import { clock as systemClock, type Clock } from '../core/clock.ts';
import { currencyExponent } from '../core/money.ts';
import { sha256Hex } from '../core/crypto.ts';
import { fromDecimalString, toDecimalString } from './decimal.ts';
import { CallbackVerificationError, ProviderError } from './errors.ts';
import { basicAuth, failure, headerOf, parseCallbackJson, ProviderHttp, type HttpResponse } from './http.ts';
import { fundingOf, maskEmail, needSavable, refuseSandboxToken } from './saved.ts';
import type {
  CreateSetupInput,
  OffSessionChargeInput,
  OffSessionResult,
  SavedMethod,
  SavedMethodDisplay,
  SavedMethodType,
  SetupResult,
  SetupState,
  TokenStatus,
  CallbackEvent,
  CallbackRequest,
  Charge,
  ChargeRef,
  ChargeState,
  ChargeStatus,
  CreateChargeInput,
  PaymentMethod,
  Provider,
  ProviderCCredentials,
  ProviderOptions,
  RefundInput,
  RefundResult,
  RefundStatus,
} from './types.ts';

export const PROVIDER_C_URLS = {
  live: 'https://api-m.paypal.com',
  sandbox: 'https://api-m.sandbox.paypal.com',
} as const;

/** The five transmission headers the verification API needs, and its field for each. */
export const TRANSMISSION_HEADERS = {
  auth_algo: 'paypal-auth-algo',
  cert_url: 'paypal-cert-url',
  transmission_id: 'paypal-transmission-id',
  transmission_sig: 'paypal-transmission-sig',
  transmission_time: 'paypal-transmission-time',
} as const;

/** Refresh this long before the provider's expiry, so a token never dies in flight. */
const TOKEN_MARGIN_MS = 60_000;

interface CachedToken {
  token: string;
  expiresAtMs: number;
}
const tokens = new Map<string, CachedToken>();
const inflight = new Map<string, Promise<CachedToken>>();

/**
 * Our customer id as sent in `customer.merchant_customer_id` (the provider keeps 22 characters): the
 * exact key a vault webhook naming only the customer is routed by (docs/providers.md, Saved methods).
 */
export const MERCHANT_CUSTOMER_ID_LENGTH = 22;
export const merchantCustomerId = (customerId: string) => customerId.slice(0, MERCHANT_CUSTOMER_ID_LENGTH);

/** Forget every cached token (tests). */
export function clearProviderCTokens() {
  tokens.clear();
  inflight.clear();
}

export class ProviderC implements Provider {
  readonly kind = 'provider_c' as const;
  private readonly http: ProviderHttp;
  private readonly clock: Clock;
  private readonly cacheKey: string;

  constructor(
    private readonly credentials: ProviderCCredentials,
    options: ProviderOptions = {},
  ) {
    const base = options.baseUrl ?? PROVIDER_C_URLS[credentials.mode === 'sandbox' ? 'sandbox' : 'live'];
    this.http = new ProviderHttp('provider_c', base, options);
    this.clock = options.clock ?? systemClock;
    this.cacheKey = `${base}|${credentials.clientId}|${sha256Hex(credentials.secret).slice(0, 16)}`;
  }

  supports(method: PaymentMethod, currency: string): boolean {
    return (method === 'provider_c' || method === 'card') && currency !== 'IDR' && currency in currencyExponent;
  }

  async createCharge(input: CreateChargeInput): Promise<Charge> {
    if (!this.supports(input.method, input.currency)) {
      throw new ProviderError(this.kind, 'unsupported', `cannot take ${input.method} in ${input.currency}`);
    }
    const body = {
      intent: 'CAPTURE',
      purchase_units: [
        {
          reference_id: input.reference.slice(0, 256),
          custom_id: input.reference.slice(0, 127),
          ...(input.description ? { description: input.description.slice(0, 127) } : {}),
          amount: { currency_code: input.currency, value: toDecimalString(input.amount, input.currency) },
        },
      ],
      payment_source:
        // A card the customer consented to keep is vaulted once the capture succeeds (docs/providers.md,
        // Saving at checkout); the PayPal wallet is never saved during a purchase (a setup session does).
        input.saveForFutureUse && input.method === 'card'
          ? {
              card: {
                experience_context: {
                  return_url: input.successUrl,
                  cancel_url: input.cancelUrl ?? input.successUrl,
                },
                attributes: {
                  vault: { store_in_vault: 'ON_SUCCESS' },
                  ...(input.customerId
                    ? { customer: { merchant_customer_id: merchantCustomerId(input.customerId) } }
                    : {}),
                },
              },
            }
          : {
              paypal: {
                experience_context: {
                  return_url: input.successUrl,
                  cancel_url: input.cancelUrl ?? input.successUrl,
                  user_action: 'PAY_NOW',
                  shipping_preference: 'NO_SHIPPING',
                  landing_page: input.method === 'card' ? 'GUEST_CHECKOUT' : 'LOGIN',
                },
              },
            },
    };
    const res = await this.api('POST', '/v2/checkout/orders', JSON.stringify(body), {
      'paypal-request-id': input.idempotencyKey,
      prefer: 'return=representation',
    });
    const order = this.ok('create order', res);
    const link = (order.links ?? []).find((l: any) => l.rel === 'payer-action' || l.rel === 'approve');
    if (!order.id || !link?.href)
      throw new ProviderError(this.kind, 'bad_response', 'create order: answer lacks id or approve link');
    return {
      providerRef: order.id,
      status: orderStatus(order),
      instructions: { kind: 'redirect', redirectUrl: link.href, expiresAt: input.expiresAt.toISOString() },
      raw: order,
    };
  }

  async capture(ref: ChargeRef, opts: { idempotencyKey: string }): Promise<ChargeState> {
    const res = await this.api('POST', `/v2/checkout/orders/${encodeURIComponent(ref.providerRef)}/capture`, '{}', {
      'paypal-request-id': opts.idempotencyKey,
      prefer: 'return=representation',
    });
    if (res.status === 422) {
      const issue = res.json?.details?.[0]?.issue;
      // Already captured (a retry, or the other path got there first) or not yet approved: ask.
      if (issue === 'ORDER_ALREADY_CAPTURED' || issue === 'ORDER_NOT_APPROVED') return this.fetchStatus(ref);
      if (issue === 'INSTRUMENT_DECLINED') {
        const s = await this.fetchStatus(ref);
        return { ...s, status: 'failed', raw: res.json };
      }
    }
    return this.stateOf(ref, this.ok('capture order', res));
  }

  async fetchStatus(ref: ChargeRef): Promise<ChargeState> {
    const res = await this.api('GET', `/v2/checkout/orders/${encodeURIComponent(ref.providerRef)}`);
    // The provider drops orders that were never captured once they expire.
    if (res.status === 404 && res.json?.name === 'RESOURCE_NOT_FOUND') {
      return {
        providerRef: ref.providerRef,
        providerPaymentId: ref.providerPaymentId ?? null,
        status: 'expired',
        amount: 0,
        currency: '',
        paidAt: null,
        raw: res.json,
      };
    }
    return this.stateOf(ref, this.ok('get order', res));
  }

  async verifyCallback(request: CallbackRequest): Promise<CallbackEvent> {
    const webhookId = this.credentials.webhookId;
    if (!webhookId) throw new CallbackVerificationError(this.kind, 'not_configured', 'no webhook id is configured');
    const fields: Record<string, string> = {};
    for (const [field, header] of Object.entries(TRANSMISSION_HEADERS)) {
      const v = headerOf(request.headers, header);
      if (!v) throw new CallbackVerificationError(this.kind, 'missing', `${header} header is missing`);
      fields[field] = v;
    }
    const event = parseCallbackJson(this.kind, request.rawBody);
    // The event goes back byte for byte (spliced in, never re-serialised): the signature covers the bytes.
    const raw = typeof request.rawBody === 'string' ? request.rawBody : request.rawBody.toString('utf8');
    const body = `${JSON.stringify({ ...fields, webhook_id: webhookId }).slice(0, -1)},"webhook_event":${raw}}`;
    const res = await this.api('POST', '/v1/notifications/verify-webhook-signature', body);
    const verdict = this.ok('verify webhook signature', res).verification_status;
    if (verdict !== 'SUCCESS')
      throw new CallbackVerificationError(this.kind, 'rejected', `verification_status ${String(verdict)}`);
    return mapEvent(event);
  }

  async refund(input: RefundInput): Promise<RefundResult> {
    let captureId = input.providerPaymentId;
    if (!captureId) captureId = (await this.fetchStatus(input)).providerPaymentId;
    if (!captureId)
      throw new ProviderError(this.kind, 'unsupported', `order ${input.providerRef} has no capture to refund`);
    const res = await this.api(
      'POST',
      `/v2/payments/captures/${encodeURIComponent(captureId)}/refund`,
      JSON.stringify({
        amount: { currency_code: input.currency, value: toDecimalString(input.amount, input.currency) },
        ...(input.reason ? { note_to_payer: input.reason.slice(0, 255) } : {}),
      }),
      { 'paypal-request-id': input.idempotencyKey, prefer: 'return=representation' },
    );
    const r = this.ok('refund capture', res);
    return { providerRefundId: r.id, status: refundStatus(r.status), raw: r };
  }

  // ---- saved methods: vault v3 and merchant-initiated orders (docs/providers.md, Saved methods) ----

  savableTypes(currency: string): SavedMethodType[] {
    return this.supports('card', currency) ? ['card', 'paypal'] : [];
  }

  /**
   * `POST /v3/vault/setup-tokens` (`PayPal-Request-Id` = key): a PayPal account for merchant-initiated
   * use (`usage_type: MERCHANT`), or a card entered on the provider's page; answers the approve link.
   */
  async createSetup(input: CreateSetupInput): Promise<SetupResult> {
    needSavable(this.kind, this.savableTypes(input.currency), input.type, input.currency);
    const experience = {
      return_url: input.returnUrl,
      cancel_url: input.cancelUrl,
      shipping_preference: 'NO_SHIPPING',
    };
    const source =
      input.type === 'paypal'
        ? {
            paypal: {
              usage_type: 'MERCHANT',
              customer_type: 'CONSUMER',
              permit_multiple_payment_tokens: false,
              experience_context: experience,
            },
          }
        : { card: { verification_method: 'SCA_WHEN_REQUIRED', experience_context: experience } };
    const res = await this.api(
      'POST',
      '/v3/vault/setup-tokens',
      JSON.stringify({
        payment_source: source,
        customer: { merchant_customer_id: merchantCustomerId(input.customer.id) },
      }),
      { 'paypal-request-id': input.idempotencyKey },
    );
    const st = this.ok('create setup token', res);
    const link = (st.links ?? []).find((l: any) => l.rel === 'approve' || l.rel === 'payer-action');
    if (!st.id || !link?.href)
      throw new ProviderError(this.kind, 'bad_response', 'create setup token: answer lacks id or approve link');
    return {
      providerRef: st.id,
      status: 'pending',
      instructions: { kind: 'redirect', redirectUrl: link.href },
      raw: st,
    };
  }

  /**
   * Exchanges an approved setup token: `POST /v3/vault/payment-tokens` with `PayPal-Request-Id` = key.
   * The same key answers the same payment token again (a crash after the exchange is recovered so).
   * `providerRef` stays the setup token; `token` is the payment token (the `vault_id` of charges).
   */
  async confirmSetup(ref: string, input: { otp?: string; idempotencyKey: string }): Promise<SetupState> {
    const res = await this.api(
      'POST',
      '/v3/vault/payment-tokens',
      JSON.stringify({ payment_source: { token: { id: ref, type: 'SETUP_TOKEN' } } }),
      { 'paypal-request-id': input.idempotencyKey },
    );
    if (res.status === 422) {
      const issue = res.json?.details?.[0]?.issue;
      // Exchanged before under another key: a payment token exists that this key cannot name. Not a decline.
      if (issue === 'SETUP_TOKEN_ALREADY_USED')
        throw failure(this.kind, 'create payment token', res, issue, 'exchange again with the key that vaulted it');
      const setup = await this.fetchSetup(ref);
      if (issue === 'SETUP_TOKEN_NOT_APPROVED') return setup;
      const card =
        setup.raw &&
        typeof setup.raw === 'object' &&
        'payment_source' in setup.raw &&
        (setup.raw as any).payment_source?.card;
      return {
        ...setup,
        status: 'failed',
        token: null,
        confirmable: false,
        failureCode: card ? 'card_declined' : 'payment_declined',
      };
    }
    const pt = this.ok('create payment token', res);
    if (!pt.id) throw new ProviderError(this.kind, 'bad_response', 'create payment token: answer lacks id');
    return { providerRef: ref, status: 'active', token: pt.id, display: vaultDisplay(pt), failureCode: null, raw: pt };
  }

  /**
   * `GET /v3/vault/setup-tokens/{id}` while not exchanged (APPROVED: `confirmable`); a payment token
   * id answers from `GET /v3/vault/payment-tokens/{id}`. Neither known: expired (setup tokens lapse).
   */
  async fetchSetup(ref: string): Promise<SetupState> {
    const res = await this.api('GET', `/v3/vault/setup-tokens/${encodeURIComponent(ref)}`);
    if (res.status !== 404) {
      const st = this.ok('get setup token', res);
      const ready = ['APPROVED', 'VAULTED', 'TOKENIZED'].includes(st.status);
      return { providerRef: ref, status: 'pending', token: null, display: {}, confirmable: ready, raw: st };
    }
    const pt = await this.api('GET', `/v3/vault/payment-tokens/${encodeURIComponent(ref)}`);
    if (pt.status === 404) return { providerRef: ref, status: 'expired', token: null, display: {}, raw: pt.json };
    const token = this.ok('get payment token', pt);
    return { providerRef: ref, status: 'active', token: token.id, display: vaultDisplay(token), raw: token };
  }

  /**
   * A merchant-initiated order: `POST /v2/checkout/orders` with `payment_source.{paypal|card}.vault_id`
   * and `stored_credential` (MERCHANT, SUBSEQUENT), `PayPal-Request-Id` = key; then the capture
   * (`PayPal-Request-Id` = key + `:capture`). Both replay on a retry with the same key.
   */
  async chargeOffSession(input: OffSessionChargeInput): Promise<OffSessionResult> {
    refuseSandboxToken(this.kind, input.token);
    const source = input.type === 'card' ? 'card' : 'paypal';
    const body = {
      intent: 'CAPTURE',
      purchase_units: [
        {
          reference_id: input.reference.slice(0, 256),
          custom_id: input.reference.slice(0, 127),
          ...(input.description ? { description: input.description.slice(0, 127) } : {}),
          amount: { currency_code: input.currency, value: toDecimalString(input.amount, input.currency) },
        },
      ],
      payment_source: {
        [source]: {
          vault_id: input.token,
          stored_credential: { payment_initiator: 'MERCHANT', usage: 'SUBSEQUENT' },
        },
      },
    };
    const res = await this.api('POST', '/v2/checkout/orders', JSON.stringify(body), {
      'paypal-request-id': input.idempotencyKey,
      prefer: 'return=representation',
    });
    if (res.status === 422) return declinedAtCreate(res.json, source);
    const order = this.ok('create order', res);
    return this.finishOrder(order, input.idempotencyKey, source);
  }

  /**
   * `GET /v2/checkout/orders/{id}`. Without an order id (the answer was lost) a create with the same
   * `PayPal-Request-Id` and no purchase units replays the order if one was made (PayPal has no search
   * by reference); refused means there is none (null). An order the payer has just approved is
   * captured with the charge's capture key: the charge the caller started completes.
   */
  async fetchOffSession(ref: { providerRef?: string | null; reference: string; idempotencyKey: string }) {
    let id = ref.providerRef || null;
    if (!id) {
      const res = await this.api(
        'POST',
        '/v2/checkout/orders',
        JSON.stringify({ intent: 'CAPTURE', purchase_units: [] }),
        {
          'paypal-request-id': ref.idempotencyKey,
        },
      );
      if (res.status === 400 || res.status === 422) return null;
      id = this.ok('find order by request id', res).id as string;
    }
    const res = await this.api('GET', `/v2/checkout/orders/${encodeURIComponent(id)}`);
    if (res.status === 404) return null;
    const order = this.ok('get order', res);
    const source = order.payment_source?.card ? 'card' : 'paypal';
    return this.finishOrder(order, ref.idempotencyKey, source);
  }

  /**
   * `GET /v3/vault/payment-tokens/{id}`: a token the provider answers is active; 404 is deleted (revoked).
   * PayPal keeps no expiry on a payment token: a card that expires behind it shows at the next charge.
   */
  async fetchTokenStatus(tokenRef: string): Promise<TokenStatus> {
    const res = await this.api('GET', `/v3/vault/payment-tokens/${encodeURIComponent(tokenRef)}`);
    if (res.status === 404) return 'revoked';
    return this.ok('get payment token', res).id === tokenRef ? 'active' : 'unknown';
  }

  /** `DELETE /v3/vault/payment-tokens/{id}` (204); an unknown token is gone too. */
  async detachToken(token: string): Promise<boolean> {
    refuseSandboxToken(this.kind, token);
    const res = await this.api('DELETE', `/v3/vault/payment-tokens/${encodeURIComponent(token)}`);
    if (res.status === 204 || res.status === 404) return true;
    if (res.status >= 200 && res.status < 300) return true;
    throw failure(
      this.kind,
      'delete payment token',
      res,
      res.json?.details?.[0]?.issue ?? res.json?.name,
      res.json?.message,
    );
  }

  /** An order of a merchant-initiated charge to its outcome: captured when approved, else as it stands. */
  private async finishOrder(
    order: any,
    key: string,
    source: 'card' | 'paypal',
    mayCapture = true,
  ): Promise<OffSessionResult> {
    if (!order.id) throw new ProviderError(this.kind, 'bad_response', 'order lacks its id');
    if (order.status === 'APPROVED' && !mayCapture) return { providerRef: order.id, status: 'pending', raw: order };
    if (order.status === 'APPROVED') {
      const res = await this.api('POST', `/v2/checkout/orders/${encodeURIComponent(order.id)}/capture`, '{}', {
        'paypal-request-id': `${key}:capture`,
        prefer: 'return=representation',
      });
      if (res.status === 422) {
        const issue = res.json?.details?.[0]?.issue;
        // The order moved on since the answer we hold (captured by a retry, voided by the payer): read it.
        if (issue === 'ORDER_ALREADY_CAPTURED' || issue === 'ORDER_NOT_APPROVED') {
          const now = this.ok(
            'get order',
            await this.api('GET', `/v2/checkout/orders/${encodeURIComponent(order.id)}`),
          );
          return this.finishOrder(now, key, source, false);
        }
        return { ...declinedAtCreate(res.json, source), providerRef: order.id };
      }
      order = this.ok('capture order', res);
    }
    const base = { providerRef: order.id as string, raw: order };
    if (order.status === 'PAYER_ACTION_REQUIRED') {
      const link = (order.links ?? []).find((l: any) => l.rel === 'payer-action' || l.rel === 'approve');
      if (link?.href)
        return {
          ...base,
          status: 'requires_action',
          nextAction: { type: 'redirect', url: link.href, expiresAt: null },
        };
      return { ...base, status: 'pending' };
    }
    if (order.status === 'VOIDED')
      return {
        ...base,
        status: 'failed',
        failureCode: 'authentication_required',
        providerCode: 'VOIDED',
        failureMessage: 'the payer did not approve the order',
      };
    if (order.status !== 'COMPLETED') return { ...base, status: 'pending' };
    const capture = order.purchase_units?.[0]?.payments?.captures?.[0];
    const s = captureStatus(capture?.status ?? 'COMPLETED');
    if (s === 'paid') return { ...base, status: 'succeeded' };
    if (s === 'pending') return { ...base, status: 'pending' };
    const code = String(capture?.processor_response?.response_code ?? capture?.status ?? 'DECLINED');
    return {
      ...base,
      status: 'failed',
      failureCode: vaultFailure(code, source),
      providerCode: code,
      failureMessage: `capture ${String(capture?.status ?? 'DECLINED').toLowerCase()} (${code})`,
    };
  }

  // ---- transport ----

  /** A bearer call; a 401 with a cached token means it was revoked early: fetch a new one once. */
  private async api(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body?: string,
    headers: Record<string, string> = {},
  ): Promise<HttpResponse> {
    for (let attempt = 0; ; attempt++) {
      const token = await this.token();
      const res = await this.http.request({
        method,
        path,
        body,
        headers: { authorization: `Bearer ${token}`, ...headers },
      });
      if (res.status !== 401 || attempt > 0) return res;
      tokens.delete(this.cacheKey);
    }
  }

  private async token(): Promise<string> {
    const cached = tokens.get(this.cacheKey);
    if (cached && cached.expiresAtMs > this.clock.now().getTime()) return cached.token;
    let pending = inflight.get(this.cacheKey);
    if (!pending) {
      pending = this.fetchToken().finally(() => inflight.delete(this.cacheKey));
      inflight.set(this.cacheKey, pending);
    }
    return (await pending).token;
  }

  private async fetchToken(): Promise<CachedToken> {
    const res = await this.http.request({
      method: 'POST',
      path: '/v1/oauth2/token',
      headers: {
        authorization: basicAuth(this.credentials.clientId, this.credentials.secret),
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    if (res.status !== 200 || typeof res.json?.access_token !== 'string') {
      throw failure(this.kind, 'get access token', res, res.json?.error, res.json?.error_description);
    }
    const lifetimeMs = Math.max(0, Number(res.json.expires_in) || 0) * 1000;
    const entry = {
      token: res.json.access_token as string,
      expiresAtMs: this.clock.now().getTime() + Math.max(lifetimeMs - TOKEN_MARGIN_MS, lifetimeMs / 2),
    };
    tokens.set(this.cacheKey, entry);
    return entry;
  }

  private ok(what: string, res: HttpResponse): any {
    if (res.status >= 200 && res.status < 300 && res.json && typeof res.json === 'object') return res.json;
    const b = res.json;
    throw failure(
      this.kind,
      what,
      res,
      b?.details?.[0]?.issue ?? b?.name ?? b?.error,
      b?.message ?? b?.error_description,
    );
  }

  private stateOf(ref: ChargeRef, order: any): ChargeState {
    const unit = order.purchase_units?.[0] ?? {};
    const capture = unit.payments?.captures?.[0];
    const money = capture?.amount ?? unit.amount;
    const amount = money ? fromDecimalString(String(money.value), money.currency_code) : null;
    if (amount === null)
      throw new ProviderError(this.kind, 'bad_response', 'order amount is not a decimal in its currency');
    const status = orderStatus(order);
    return {
      providerRef: ref.providerRef,
      providerPaymentId: capture?.id ?? ref.providerPaymentId ?? null,
      status,
      amount,
      currency: money.currency_code,
      paidAt: status === 'paid' ? (capture?.create_time ?? null) : null,
      ...(status === 'paid' ? vaultedCard(order) : {}),
      raw: withoutVaultId(order),
    };
  }
}

/** A captured order whose card was stored (`store_in_vault: ON_SUCCESS`): its `vault.id` is the token. */
function vaultedCard(order: any): { savedMethod?: SavedMethod } {
  const card = order?.payment_source?.card;
  const vault = card?.attributes?.vault;
  if (!card || vault?.status !== 'VAULTED' || typeof vault.id !== 'string') return {};
  const [year, month] = String(card.expiry ?? '')
    .split('-')
    .map(Number);
  return {
    savedMethod: {
      token: vault.id,
      type: 'card',
      display: {
        card: {
          brand: String(card.brand ?? 'unknown').toLowerCase(),
          last4: String(card.last_digits ?? '').slice(-4),
          expMonth: month || 0,
          expYear: year || 0,
          funding: fundingOf(card.type),
        },
      },
    },
  };
}

/** An order as kept for support: a vault id never leaves the adapter. */
function withoutVaultId(order: any): any {
  const vault = order?.payment_source?.card?.attributes?.vault;
  if (!vault?.id) return order;
  const card = order.payment_source.card;
  return {
    ...order,
    payment_source: {
      ...order.payment_source,
      card: { ...card, attributes: { ...card.attributes, vault: { ...vault, id: '[sealed]' } } },
    },
  };
}

/**
 * PayPal processor response codes of declined captures (docs/providers.md, Saved methods); anything
 * else declined is `card_declined` (cards) or `payment_declined` (PayPal accounts).
 */
const VAULT_FAILURES: Record<string, string> = {
  '5120': 'insufficient_funds',
  '5710': 'limit_exceeded',
  '5180': 'account_blocked',
  '9520': 'account_blocked',
  '5400': 'expired_card',
  '5140': 'payment_method_revoked',
  '7710': 'authentication_required',
  INVALID_RESOURCE_ID: 'payment_method_revoked',
  PAYER_ACTION_REQUIRED: 'authentication_required',
};

function vaultFailure(code: string, source: 'card' | 'paypal'): string {
  return VAULT_FAILURES[code] ?? (source === 'card' ? 'card_declined' : 'payment_declined');
}

/** A 422 at order create or capture: a deleted vault token, an instrument declined. */
function declinedAtCreate(body: any, source: 'card' | 'paypal'): OffSessionResult {
  const issue = String(body?.details?.[0]?.issue ?? body?.name ?? 'UNPROCESSABLE_ENTITY');
  return {
    providerRef: '',
    status: 'failed',
    failureCode: vaultFailure(issue, source),
    providerCode: issue,
    failureMessage: String(body?.details?.[0]?.description ?? body?.message ?? issue),
    raw: body,
  };
}

function vaultDisplay(pt: any): SavedMethodDisplay {
  const src = pt.payment_source ?? {};
  if (src.card) {
    const [year, month] = String(src.card.expiry ?? '').split('-');
    return {
      card: {
        brand: String(src.card.brand ?? 'unknown').toLowerCase(),
        last4: String(src.card.last_digits ?? '').slice(-4),
        expMonth: Number(month) || 0,
        expYear: Number(year) || 0,
        funding: fundingOf(src.card.type),
      },
    };
  }
  if (src.paypal) return { paypal: { maskedEmail: maskEmail(src.paypal.email_address) } };
  return {};
}

function orderStatus(order: any): ChargeStatus {
  switch (order.status) {
    case 'APPROVED':
      return 'approved';
    case 'COMPLETED':
      return captureStatus(order.purchase_units?.[0]?.payments?.captures?.[0]?.status ?? 'COMPLETED');
    case 'VOIDED':
      return 'failed';
    default:
      return 'pending'; // CREATED, SAVED, PAYER_ACTION_REQUIRED
  }
}

/** A refunded capture was paid: refunds are their own records. */
function captureStatus(s: unknown): ChargeStatus {
  if (s === 'COMPLETED' || s === 'REFUNDED' || s === 'PARTIALLY_REFUNDED') return 'paid';
  if (s === 'DECLINED' || s === 'FAILED') return 'failed';
  return 'pending';
}

const refundStatus = (s: unknown): RefundStatus =>
  s === 'COMPLETED' ? 'succeeded' : s === 'FAILED' || s === 'CANCELLED' ? 'failed' : 'pending';

function mapEvent(e: any): CallbackEvent {
  const id = e.id;
  const r = e.resource ?? {};
  if (typeof id !== 'string' || !id) throw new CallbackVerificationError('provider_c', 'malformed', 'event lacks id');
  const money = (m: any) => {
    const amount = m ? fromDecimalString(String(m.value), m.currency_code) : null;
    if (amount === null)
      throw new CallbackVerificationError('provider_c', 'malformed', 'amount is not a decimal in its currency');
    return { amount, currency: m.currency_code as string };
  };
  switch (e.event_type) {
    case 'VAULT.PAYMENT-TOKEN.CREATED':
    case 'VAULT.PAYMENT-TOKEN.DELETED':
      if (typeof r.id !== 'string' || !r.id)
        throw new CallbackVerificationError('provider_c', 'malformed', 'payment token event lacks the token id');
      return {
        type: 'token',
        providerEventId: id,
        tokenRef: r.id,
        status: e.event_type === 'VAULT.PAYMENT-TOKEN.CREATED' ? 'active' : 'revoked',
        customerRef: typeof r.customer?.merchant_customer_id === 'string' ? r.customer.merchant_customer_id : null,
        raw: e,
      };
    case 'CHECKOUT.ORDER.APPROVED':
      return {
        type: 'charge',
        providerRef: r.id,
        reference: r.purchase_units?.[0]?.custom_id ?? null,
        providerPaymentId: null,
        providerEventId: id,
        status: 'approved',
        ...money(r.purchase_units?.[0]?.amount),
        raw: e,
      };
    case 'PAYMENT.CAPTURE.COMPLETED':
    case 'PAYMENT.CAPTURE.PENDING':
    case 'PAYMENT.CAPTURE.DENIED':
    case 'PAYMENT.CAPTURE.DECLINED': {
      const orderId = r.supplementary_data?.related_ids?.order_id ?? upLink(r, 'checkout/orders');
      if (!orderId) throw new CallbackVerificationError('provider_c', 'malformed', 'capture event lacks its order id');
      return {
        type: 'charge',
        providerRef: orderId,
        reference: typeof r.custom_id === 'string' ? r.custom_id : null,
        providerPaymentId: r.id ?? null,
        providerEventId: id,
        status: captureStatus(r.status),
        ...money(r.amount),
        raw: e,
      };
    }
    case 'PAYMENT.CAPTURE.REFUNDED':
      return {
        type: 'refund',
        providerEventId: id,
        providerRefundId: r.id,
        status: refundStatus(r.status),
        ...money(r.amount),
        raw: e,
      };
    default:
      return { type: 'ignored', providerEventId: id, description: String(e.event_type), raw: e };
  }
}

function upLink(resource: any, segment: string): string | null {
  const href: string | undefined = (resource.links ?? []).find(
    (l: any) => l.rel === 'up' && String(l.href).includes(segment),
  )?.href;
  return href ? (href.replace(/\/+$/, '').split('/').pop() ?? null) : null;
}
