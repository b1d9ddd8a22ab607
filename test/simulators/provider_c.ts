// A provider_c (PayPal-style) simulator: OAuth2 client-credentials tokens, Orders v2 (create with
// intent CAPTURE and PayPal-Request-Id, get, capture), capture refunds, webhooks with the five
// PAYPAL-* transmission headers, and the verify-webhook-signature API that checks them. The
// signature is an HMAC under the simulator's own key (the real one is RSA with a certificate):
// only the simulator can tell whether a transmission is genuine, as with the real provider.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';
import {
  basicCredentials,
  hex,
  nowIso,
  Simulator,
  uuid,
  type Delivery,
  type DeliveryOptions,
  type SimRequest,
  type SimResponse,
} from './common.ts';

export interface ProviderCSimOptions {
  clientId: string;
  secret: string;
  webhookId: string;
  /** The URL registered for `webhookId`. */
  webhookUrl?: string;
  /** Lifetime of issued tokens, seconds (the provider's default is 32400). */
  tokenTtlSec?: number;
}

const EXPONENT: Record<string, number> = { USD: 2, SGD: 2, EUR: 2, JPY: 0 };
const id17 = () => hex(9).toUpperCase().slice(0, 17);
const issue = (status: number, name: string, issueCode: string, message: string): SimResponse => ({
  status,
  body: { name, message, debug_id: hex(7), details: [{ issue: issueCode, description: message }] },
});

export class ProviderCSim extends Simulator {
  webhookUrl?: string;
  tokenTtlSec: number;
  /** How many tokens were issued (token caching is visible here). */
  tokenRequests = 0;
  readonly orders = new Map<string, any>();
  private tokens = new Map<string, number>();
  private replays = new Map<string, SimResponse>();
  private captureOutcome = new Map<string, 'COMPLETED' | 'PENDING' | 'DECLINED'>();
  private readonly signingKey = hex(32);

  constructor(private readonly opts: ProviderCSimOptions) {
    super();
    this.webhookUrl = opts.webhookUrl;
    this.tokenTtlSec = opts.tokenTtlSec ?? 32400;
    this.route('POST', /^\/v1\/oauth2\/token$/, (r) => this.token(r));
    this.bearer('POST', /^\/v2\/checkout\/orders$/, (r) => this.idempotent(r, () => this.createOrder(r)));
    this.bearer('GET', /^\/v2\/checkout\/orders\/([^/]+)$/, (r) => this.getOrder(r.params[0]));
    this.bearer('POST', /^\/v2\/checkout\/orders\/([^/]+)\/capture$/, (r) =>
      this.idempotent(r, () => this.capture(r.params[0])),
    );
    this.bearer('POST', /^\/v2\/payments\/captures\/([^/]+)\/refund$/, (r) =>
      this.idempotent(r, () => this.refund(r.params[0], r.json)),
    );
    this.bearer('POST', /^\/v1\/notifications\/verify-webhook-signature$/, (r) => this.verify(r));
  }

  /** Invalidate every issued token (the provider may revoke early). */
  revokeTokens() {
    this.tokens.clear();
  }

  private token(r: SimRequest): SimResponse {
    const c = basicCredentials(r.headers.authorization);
    if (!c || c.user !== this.opts.clientId || c.password !== this.opts.secret) {
      return { status: 401, body: { error: 'invalid_client', error_description: 'Client Authentication failed' } };
    }
    if (new URLSearchParams(r.text).get('grant_type') !== 'client_credentials')
      return { status: 400, body: { error: 'unsupported_grant_type', error_description: 'grant_type is invalid' } };
    this.tokenRequests++;
    const token = `A21AA${hex(24)}`;
    this.tokens.set(token, Date.now() + this.tokenTtlSec * 1000);
    return {
      status: 200,
      body: {
        scope: 'https://uri.paypal.com/services/payments/payment',
        access_token: token,
        token_type: 'Bearer',
        app_id: 'APP-80W284485P519543T',
        expires_in: this.tokenTtlSec,
        nonce: `${nowIso()}${hex(8)}`,
      },
    };
  }

  private bearer(method: string, pattern: RegExp, handler: (r: SimRequest) => SimResponse) {
    this.route(method, pattern, (r) => {
      const m = /^Bearer (.+)$/.exec(r.headers.authorization ?? '');
      const exp = m ? this.tokens.get(m[1]) : undefined;
      if (!exp || exp < Date.now())
        return {
          status: 401,
          body: { error: 'invalid_token', error_description: 'Token signature verification failed' },
        };
      return handler(r);
    });
  }

  /** PayPal-Request-Id: the same id on the same path answers the first result again (200). */
  private idempotent(r: SimRequest, handler: () => SimResponse): SimResponse {
    const id = r.headers['paypal-request-id'];
    const key = typeof id === 'string' ? `${r.path}|${id}` : null;
    const seen = key ? this.replays.get(key) : undefined;
    if (seen) return { ...seen, status: seen.status === 201 ? 200 : seen.status };
    const out = handler();
    if (key && out.status < 300) this.replays.set(key, out);
    return out;
  }

  private createOrder(r: SimRequest): SimResponse {
    const b = r.json;
    if (b?.intent !== 'CAPTURE')
      return issue(400, 'INVALID_REQUEST', 'INVALID_PARAMETER_VALUE', 'intent must be CAPTURE');
    const unit = b.purchase_units?.[0];
    const amt = unit?.amount;
    const exp = EXPONENT[amt?.currency_code];
    if (exp === undefined)
      return issue(422, 'UNPROCESSABLE_ENTITY', 'CURRENCY_NOT_SUPPORTED', 'currency_code is not supported');
    const pattern = exp === 0 ? /^\d{1,10}$/ : new RegExp(`^\\d{1,10}\\.\\d{${exp}}$`);
    if (typeof amt.value !== 'string' || !pattern.test(amt.value))
      return issue(422, 'UNPROCESSABLE_ENTITY', 'DECIMAL_PRECISION', 'amount.value has the wrong precision');
    const id = id17();
    const ctx = b.payment_source?.paypal?.experience_context ?? {};
    const order = {
      id,
      intent: 'CAPTURE',
      status: 'PAYER_ACTION_REQUIRED',
      payment_source: { paypal: {} },
      purchase_units: [
        {
          reference_id: unit.reference_id ?? 'default',
          custom_id: unit.custom_id,
          description: unit.description,
          amount: amt,
          payee: { merchant_id: 'SIMMERCHANT01' },
        },
      ],
      create_time: nowIso(),
      links: [
        { href: `${this.url}/v2/checkout/orders/${id}`, rel: 'self', method: 'GET' },
        { href: `${this.url}/checkoutnow?token=${id}`, rel: 'payer-action', method: 'GET' },
      ],
      _returnUrl: ctx.return_url,
    };
    this.orders.set(id, order);
    return { status: 201, body: publicOrder(order) };
  }

  private getOrder(id: string): SimResponse {
    const o = this.orders.get(id);
    return o
      ? { status: 200, body: publicOrder(o) }
      : issue(404, 'RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID', 'Specified resource ID does not exist.');
  }

  private capture(id: string): SimResponse {
    const o = this.orders.get(id);
    if (!o) return issue(404, 'RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID', 'Specified resource ID does not exist.');
    if (o.status === 'COMPLETED')
      return issue(422, 'UNPROCESSABLE_ENTITY', 'ORDER_ALREADY_CAPTURED', 'Order already captured.');
    if (o.status !== 'APPROVED')
      return issue(
        422,
        'UNPROCESSABLE_ENTITY',
        'ORDER_NOT_APPROVED',
        'Payer has not yet approved the Order for payment.',
      );
    const outcome = this.captureOutcome.get(id) ?? 'COMPLETED';
    if (outcome === 'DECLINED')
      return issue(
        422,
        'UNPROCESSABLE_ENTITY',
        'INSTRUMENT_DECLINED',
        'The instrument presented was either declined by the processor or bank.',
      );
    const unit = o.purchase_units[0];
    const capture = {
      id: id17(),
      status: outcome,
      amount: unit.amount,
      final_capture: true,
      custom_id: unit.custom_id,
      ...(outcome === 'PENDING' ? { status_details: { reason: 'PENDING_REVIEW' } } : {}),
      supplementary_data: { related_ids: { order_id: id } },
      create_time: nowIso(),
      update_time: nowIso(),
      links: [
        { href: `${this.url}/v2/payments/captures/CAP`, rel: 'self', method: 'GET' },
        { href: `${this.url}/v2/checkout/orders/${id}`, rel: 'up', method: 'GET' },
      ],
    };
    capture.links[0].href = `${this.url}/v2/payments/captures/${capture.id}`;
    o.status = 'COMPLETED';
    unit.payments = { captures: [capture] };
    void this.webhook(
      outcome === 'PENDING' ? 'PAYMENT.CAPTURE.PENDING' : 'PAYMENT.CAPTURE.COMPLETED',
      'capture',
      capture,
      {},
    );
    return { status: 201, body: publicOrder(o) };
  }

  private refund(captureId: string, b: any): SimResponse {
    const o = [...this.orders.values()].find((x) => x.purchase_units[0].payments?.captures?.[0]?.id === captureId);
    const capture = o?.purchase_units[0].payments.captures[0];
    if (!capture)
      return issue(404, 'RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID', 'Specified resource ID does not exist.');
    if (capture.status !== 'COMPLETED' && capture.status !== 'PARTIALLY_REFUNDED')
      return issue(422, 'UNPROCESSABLE_ENTITY', 'CAPTURE_FULLY_REFUNDED', 'The capture cannot be refunded.');
    const amount = b?.amount ?? capture.amount;
    const refund = {
      id: id17(),
      status: 'COMPLETED',
      amount,
      note_to_payer: b?.note_to_payer,
      create_time: nowIso(),
      update_time: nowIso(),
      links: [{ href: `${this.url}/v2/payments/captures/${captureId}`, rel: 'up', method: 'GET' }],
    };
    capture.status = amount.value === capture.amount.value ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
    void this.webhook('PAYMENT.CAPTURE.REFUNDED', 'refund', refund, {});
    return { status: 201, body: refund };
  }

  // ---- webhooks and their verification ----

  private sign(transmissionId: string, time: string, webhookId: string, body: string): string {
    return createHmac('sha256', this.signingKey)
      .update(`${transmissionId}|${time}|${webhookId}|${crc32(body)}`)
      .digest('base64');
  }

  private verify(r: SimRequest): SimResponse {
    const b = r.json;
    const fields = ['auth_algo', 'cert_url', 'transmission_id', 'transmission_sig', 'transmission_time', 'webhook_id'];
    if (!b || fields.some((f) => typeof b[f] !== 'string') || !b.webhook_event || typeof b.webhook_event !== 'object') {
      return issue(400, 'VALIDATION_ERROR', 'MISSING_REQUIRED_PARAMETER', 'Invalid request - see details');
    }
    // The signature covers the event's bytes as sent: a re-serialised copy (other escaping,
    // spacing or key order) no longer matches, as with the real provider.
    const raw = rawMember(r.text, 'webhook_event');
    if (raw === null) return issue(400, 'VALIDATION_ERROR', 'INVALID_PARAMETER_SYNTAX', 'webhook_event is unreadable');
    const expected = Buffer.from(this.sign(b.transmission_id, b.transmission_time, b.webhook_id, raw));
    const given = Buffer.from(b.transmission_sig);
    const genuine =
      b.webhook_id === this.opts.webhookId &&
      b.cert_url.startsWith(`${this.url}/`) &&
      given.length === expected.length &&
      timingSafeEqual(given, expected);
    return { status: 200, body: { verification_status: genuine ? 'SUCCESS' : 'FAILURE' } };
  }

  /** Sends one webhook event the provider's way; `forge` signs it with the wrong key, `tamper` edits it after signing. */
  webhook(
    eventType: string,
    resourceType: string,
    resource: unknown,
    opts: DeliveryOptions & { tamper?: (body: string) => string },
  ): Promise<Delivery[]> {
    const event = {
      id: `WH-${hex(8).toUpperCase()}-${hex(8).toUpperCase()}`,
      event_version: '1.0',
      create_time: nowIso(),
      resource_type: resourceType,
      resource_version: '2.0',
      event_type: eventType,
      summary: eventType.toLowerCase().replace(/\./g, ' '),
      resource,
      links: [{ href: `${this.url}/v1/notifications/webhooks-events/WH`, rel: 'self', method: 'GET' }],
    };
    // Non-ASCII goes out \u-escaped (as the provider does): JSON.stringify of the parsed event differs.
    const body = JSON.stringify(event).replace(
      /[\u0080-\uffff]/g,
      (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
    const sent = opts.tamper ? opts.tamper(body) : body;
    const headers = () => {
      const transmissionId = uuid();
      const time = nowIso();
      const sig = opts.forge
        ? createHmac('sha256', 'forged').update(body).digest('base64')
        : this.sign(transmissionId, time, this.opts.webhookId, body);
      return {
        'paypal-auth-algo': 'SHA256withRSA',
        'paypal-cert-url': `${this.url}/v1/notifications/certs/CERT-360caa42-fca2a594-a5cafa77`,
        'paypal-transmission-id': transmissionId,
        'paypal-transmission-sig': sig,
        'paypal-transmission-time': time,
      };
    };
    return this.deliver(this.webhookUrl, headers, sent, opts);
  }

  // ---- controls ----

  private order(id: string) {
    const o = this.orders.get(id);
    if (!o) throw new Error(`simulator: no order ${id}`);
    return o;
  }

  /**
   * The buyer approves on the provider's page (CHECKOUT.ORDER.APPROVED). `capture` decides what the
   * merchant's capture will meet: COMPLETED (default), PENDING (review; settles by fail() or
   * later), or DECLINED (422 INSTRUMENT_DECLINED).
   */
  pay(
    id: string,
    opts: DeliveryOptions & { capture?: 'COMPLETED' | 'PENDING' | 'DECLINED' } = {},
  ): Promise<Delivery[]> {
    const o = this.order(id);
    o.status = 'APPROVED';
    o.payer = {
      payer_id: hex(6).toUpperCase(),
      email_address: 'buyer@example.com',
      name: { given_name: 'José', surname: 'Müller' },
    };
    this.captureOutcome.set(id, opts.capture ?? 'COMPLETED');
    return this.webhook('CHECKOUT.ORDER.APPROVED', 'checkout-order', publicOrder(o), opts);
  }

  /** A PENDING capture is denied (PAYMENT.CAPTURE.DENIED). */
  fail(id: string, opts: DeliveryOptions = {}): Promise<Delivery[]> {
    const capture = this.order(id).purchase_units[0].payments?.captures?.[0];
    if (!capture || capture.status !== 'PENDING') throw new Error('simulator: only a PENDING capture can be denied');
    capture.status = 'DECLINED';
    return this.webhook('PAYMENT.CAPTURE.DENIED', 'capture', capture, opts);
  }

  /** The order was never captured and runs out: the provider forgets it (GET answers 404). */
  expire(id: string): Promise<Delivery[]> {
    this.order(id);
    this.orders.delete(id);
    return Promise.resolve([]);
  }
}

function publicOrder(o: any) {
  const { _returnUrl, ...rest } = o;
  void _returnUrl;
  return structuredClone(rest);
}

/** The exact text of a top-level member's value in a JSON object text (string-aware bracket matching). */
export function rawMember(text: string, key: string): string | null {
  const m = new RegExp(`"${key}"\\s*:\\s*`).exec(text);
  if (!m) return null;
  const start = m.index + m[0].length;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') {
      depth--;
      if (depth === 0) return text.slice(start, i + 1);
    }
  }
  return null;
}
