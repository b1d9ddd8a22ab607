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
import type {
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
      payment_source: {
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

  // ---- transport ----

  /** A bearer call; a 401 with a cached token means it was revoked early: fetch a new one once. */
  private async api(
    method: 'GET' | 'POST',
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
      raw: order,
    };
  }
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
    case 'CHECKOUT.ORDER.APPROVED':
      return {
        type: 'charge',
        providerRef: r.id,
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
