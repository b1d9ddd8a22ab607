// provider_c: PayPal-style Orders v2. OAuth2 client credentials for a bearer token (cached until
// shortly before it expires, shared by every instance with the same credentials); orders are
// created with intent CAPTURE and `PayPal-Request-Id`, approved by the buyer on the provider's page,
// then captured by us. Webhooks are verified by the provider's verify-webhook-signature API. The
// client is here; its transport (token cache) and mapping are in provider_c/.
import { clock as systemClock, type Clock } from '../core/clock.ts';
import { currencyExponent } from '../core/money.ts';
import { sha256Hex } from '../core/crypto.ts';
import { toDecimalString } from './decimal.ts';
import { CallbackVerificationError, ProviderError } from './errors.ts';
import { failure, headerOf, parseCallbackJson, ProviderHttp } from './http.ts';
import { needSavable, refuseSandboxToken } from './saved.ts';
import type {
  CreateSetupInput,
  OffSessionChargeInput,
  OffSessionResult,
  SavedMethodType,
  SetupResult,
  SetupState,
  TokenStatus,
  CallbackEvent,
  CallbackRequest,
  Charge,
  ChargeRef,
  ChargeState,
  CreateChargeInput,
  PaymentMethod,
  Provider,
  ProviderCCredentials,
  ProviderOptions,
  RefundInput,
  RefundResult,
} from './types.ts';
import { ProviderCApi } from './provider_c/api.ts';
import {
  declinedAtCreate,
  mapEvent,
  merchantCustomerId,
  orderStatus,
  PROVIDER_C_URLS,
  refundStatus,
  stateOf,
  TRANSMISSION_HEADERS,
  vaultDisplay,
  vaultFailure,
  captureStatus,
} from './provider_c/mapping.ts';

export { clearProviderCTokens } from './provider_c/api.ts';
export {
  MERCHANT_CUSTOMER_ID_LENGTH,
  merchantCustomerId,
  PROVIDER_C_URLS,
  TRANSMISSION_HEADERS,
} from './provider_c/mapping.ts';

export class ProviderC implements Provider {
  readonly kind = 'provider_c' as const;
  private readonly api: ProviderCApi;
  private readonly clock: Clock;

  constructor(
    private readonly credentials: ProviderCCredentials,
    options: ProviderOptions = {},
  ) {
    const base = options.baseUrl ?? PROVIDER_C_URLS[credentials.mode === 'sandbox' ? 'sandbox' : 'live'];
    this.clock = options.clock ?? systemClock;
    const cacheKey = `${base}|${credentials.clientId}|${sha256Hex(credentials.secret).slice(0, 16)}`;
    this.api = new ProviderCApi(credentials, new ProviderHttp('provider_c', base, options), this.clock, cacheKey);
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
    const res = await this.api.request('POST', '/v2/checkout/orders', JSON.stringify(body), {
      'paypal-request-id': input.idempotencyKey,
      prefer: 'return=representation',
    });
    const order = this.api.ok('create order', res);
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
    const res = await this.api.request(
      'POST',
      `/v2/checkout/orders/${encodeURIComponent(ref.providerRef)}/capture`,
      '{}',
      {
        'paypal-request-id': opts.idempotencyKey,
        prefer: 'return=representation',
      },
    );
    if (res.status === 422) {
      const issue = res.json?.details?.[0]?.issue;
      // Already captured (a retry, or the other path got there first) or not yet approved: ask.
      if (issue === 'ORDER_ALREADY_CAPTURED' || issue === 'ORDER_NOT_APPROVED') return this.fetchStatus(ref);
      if (issue === 'INSTRUMENT_DECLINED') {
        const s = await this.fetchStatus(ref);
        return { ...s, status: 'failed', raw: res.json };
      }
    }
    return stateOf(ref, this.api.ok('capture order', res));
  }

  async fetchStatus(ref: ChargeRef): Promise<ChargeState> {
    const res = await this.api.request('GET', `/v2/checkout/orders/${encodeURIComponent(ref.providerRef)}`);
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
    return stateOf(ref, this.api.ok('get order', res));
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
    const res = await this.api.request('POST', '/v1/notifications/verify-webhook-signature', body);
    const verdict = this.api.ok('verify webhook signature', res).verification_status;
    if (verdict !== 'SUCCESS')
      throw new CallbackVerificationError(this.kind, 'rejected', `verification_status ${String(verdict)}`);
    return mapEvent(event);
  }

  async refund(input: RefundInput): Promise<RefundResult> {
    let captureId = input.providerPaymentId;
    if (!captureId) captureId = (await this.fetchStatus(input)).providerPaymentId;
    if (!captureId)
      throw new ProviderError(this.kind, 'unsupported', `order ${input.providerRef} has no capture to refund`);
    const res = await this.api.request(
      'POST',
      `/v2/payments/captures/${encodeURIComponent(captureId)}/refund`,
      JSON.stringify({
        amount: { currency_code: input.currency, value: toDecimalString(input.amount, input.currency) },
        ...(input.reason ? { note_to_payer: input.reason.slice(0, 255) } : {}),
      }),
      { 'paypal-request-id': input.idempotencyKey, prefer: 'return=representation' },
    );
    const r = this.api.ok('refund capture', res);
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
    const res = await this.api.request(
      'POST',
      '/v3/vault/setup-tokens',
      JSON.stringify({
        payment_source: source,
        customer: { merchant_customer_id: merchantCustomerId(input.customer.id) },
      }),
      { 'paypal-request-id': input.idempotencyKey },
    );
    const st = this.api.ok('create setup token', res);
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
    const res = await this.api.request(
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
    const pt = this.api.ok('create payment token', res);
    if (!pt.id) throw new ProviderError(this.kind, 'bad_response', 'create payment token: answer lacks id');
    return { providerRef: ref, status: 'active', token: pt.id, display: vaultDisplay(pt), failureCode: null, raw: pt };
  }

  /**
   * `GET /v3/vault/setup-tokens/{id}` while not exchanged (APPROVED: `confirmable`); a payment token
   * id answers from `GET /v3/vault/payment-tokens/{id}`. Neither known: expired (setup tokens lapse).
   */
  async fetchSetup(ref: string): Promise<SetupState> {
    const res = await this.api.request('GET', `/v3/vault/setup-tokens/${encodeURIComponent(ref)}`);
    if (res.status !== 404) {
      const st = this.api.ok('get setup token', res);
      const ready = ['APPROVED', 'VAULTED', 'TOKENIZED'].includes(st.status);
      return { providerRef: ref, status: 'pending', token: null, display: {}, confirmable: ready, raw: st };
    }
    const pt = await this.api.request('GET', `/v3/vault/payment-tokens/${encodeURIComponent(ref)}`);
    if (pt.status === 404) return { providerRef: ref, status: 'expired', token: null, display: {}, raw: pt.json };
    const token = this.api.ok('get payment token', pt);
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
    const res = await this.api.request('POST', '/v2/checkout/orders', JSON.stringify(body), {
      'paypal-request-id': input.idempotencyKey,
      prefer: 'return=representation',
    });
    if (res.status === 422) return declinedAtCreate(res.json, source);
    const order = this.api.ok('create order', res);
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
      const res = await this.api.request(
        'POST',
        '/v2/checkout/orders',
        JSON.stringify({ intent: 'CAPTURE', purchase_units: [] }),
        {
          'paypal-request-id': ref.idempotencyKey,
        },
      );
      if (res.status === 400 || res.status === 422) return null;
      id = this.api.ok('find order by request id', res).id as string;
    }
    const res = await this.api.request('GET', `/v2/checkout/orders/${encodeURIComponent(id)}`);
    if (res.status === 404) return null;
    const order = this.api.ok('get order', res);
    const source = order.payment_source?.card ? 'card' : 'paypal';
    return this.finishOrder(order, ref.idempotencyKey, source);
  }

  /**
   * `GET /v3/vault/payment-tokens/{id}`: a token the provider answers is active; 404 is deleted (revoked).
   * PayPal keeps no expiry on a payment token: a card that expires behind it shows at the next charge.
   */
  async fetchTokenStatus(tokenRef: string): Promise<TokenStatus> {
    const res = await this.api.request('GET', `/v3/vault/payment-tokens/${encodeURIComponent(tokenRef)}`);
    if (res.status === 404) return 'revoked';
    return this.api.ok('get payment token', res).id === tokenRef ? 'active' : 'unknown';
  }

  /** `DELETE /v3/vault/payment-tokens/{id}` (204); an unknown token is gone too. */
  async detachToken(token: string): Promise<boolean> {
    refuseSandboxToken(this.kind, token);
    const res = await this.api.request('DELETE', `/v3/vault/payment-tokens/${encodeURIComponent(token)}`);
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
      const res = await this.api.request('POST', `/v2/checkout/orders/${encodeURIComponent(order.id)}/capture`, '{}', {
        'paypal-request-id': `${key}:capture`,
        prefer: 'return=representation',
      });
      if (res.status === 422) {
        const issue = res.json?.details?.[0]?.issue;
        // The order moved on since the answer we hold (captured by a retry, voided by the payer): read it.
        if (issue === 'ORDER_ALREADY_CAPTURED' || issue === 'ORDER_NOT_APPROVED') {
          const now = this.api.ok(
            'get order',
            await this.api.request('GET', `/v2/checkout/orders/${encodeURIComponent(order.id)}`),
          );
          return this.finishOrder(now, key, source, false);
        }
        return { ...declinedAtCreate(res.json, source), providerRef: order.id };
      }
      order = this.api.ok('capture order', res);
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
}
