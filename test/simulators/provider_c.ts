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
import {
  actionPage,
  ChargeCounter,
  defaultOffSession,
  deliveryOf,
  digitsOf,
  formOf,
  outcomeOf,
  redirectTo,
  scenarioOf,
  scenarios,
  shouldDrop,
  tokenizePage,
  type FailReason,
  type Outcome,
  type Scenario,
  type TokenStatus,
} from './saved.ts';

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
  /** Vault v3: setup tokens and payment tokens (with the scenario of the number or email typed). */
  readonly setupTokens = new Map<string, any>();
  readonly paymentTokens = new Map<string, { body: any; status: TokenStatus; scenario: Scenario }>();
  /** Merchant-initiated orders actually created: per PayPal-Request-Id and per our reference (custom_id). */
  readonly charges = new ChargeCounter();
  readonly offSession = defaultOffSession();

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
    this.bearer('POST', /^\/v3\/vault\/setup-tokens$/, (r) => this.idempotent(r, () => this.createSetupToken(r.json)));
    this.bearer('GET', /^\/v3\/vault\/setup-tokens\/([^/]+)$/, (r) => {
      const st = this.setupTokens.get(r.params[0]);
      return st ? { status: 200, body: publicOrder(st) } : notFound();
    });
    this.bearer('POST', /^\/v3\/vault\/payment-tokens$/, (r) => this.idempotent(r, () => this.exchange(r.json)));
    this.bearer('GET', /^\/v3\/vault\/payment-tokens\/([^/]+)$/, (r) => {
      const pt = this.paymentTokens.get(r.params[0]);
      return pt && pt.status !== 'revoked' ? { status: 200, body: pt.body } : notFound();
    });
    this.bearer('DELETE', /^\/v3\/vault\/payment-tokens\/([^/]+)$/, (r) => {
      const pt = this.paymentTokens.get(r.params[0]);
      if (!pt || pt.status === 'revoked') return notFound();
      pt.status = 'revoked';
      return { status: 204 };
    });
    this.route('GET', /^\/sim\/tokenize\/([^/]+)$/, (r) => {
      const st = this.setupTokens.get(r.params[0]);
      if (!st || st.status !== 'PAYER_ACTION_REQUIRED') return { status: 404, html: 'not found' };
      return {
        status: 200,
        html: tokenizePage({ provider: 'provider_c', ref: st.id, field: st.payment_source.card ? 'number' : 'email' }),
      };
    });
    this.route('POST', /^\/sim\/tokenize\/([^/]+)$/, (r) => this.approveSetup(r.params[0], formOf(r.text)));
    this.route('POST', /^\/sim\/tokenize\/([^/]+)\/authenticate$/, (r) =>
      this.setupAuthenticated(r.params[0], formOf(r.text).get('outcome') === 'success'),
    );
    this.route('GET', /^\/sim\/action\/([^/]+)$/, (r) =>
      this.orders.has(r.params[0])
        ? { status: 200, html: actionPage(`/sim/action/${r.params[0]}`) }
        : { status: 404, html: 'not found' },
    );
    this.route('POST', /^\/sim\/action\/([^/]+)$/, async (r) => {
      await this.completeAction(r.params[0], formOf(r.text).get('outcome') === 'success');
      return { status: 200, html: '<p>Done</p>' };
    });
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
    if (key && out.status < 300) this.replays.set(key, { ...out, drop: false });
    return out;
  }

  private createOrder(r: SimRequest): SimResponse {
    const b = r.json;
    if (b?.intent !== 'CAPTURE')
      return issue(400, 'INVALID_REQUEST', 'INVALID_PARAMETER_VALUE', 'intent must be CAPTURE');
    if (!Array.isArray(b.purchase_units) || b.purchase_units.length === 0)
      return issue(400, 'INVALID_REQUEST', 'MISSING_REQUIRED_PARAMETER', 'purchase_units is required');
    const unit = b.purchase_units?.[0];
    const amt = unit?.amount;
    const exp = EXPONENT[amt?.currency_code];
    if (exp === undefined)
      return issue(422, 'UNPROCESSABLE_ENTITY', 'CURRENCY_NOT_SUPPORTED', 'currency_code is not supported');
    const pattern = exp === 0 ? /^\d{1,10}$/ : new RegExp(`^\\d{1,10}\\.\\d{${exp}}$`);
    if (typeof amt.value !== 'string' || !pattern.test(amt.value))
      return issue(422, 'UNPROCESSABLE_ENTITY', 'DECIMAL_PRECISION', 'amount.value has the wrong precision');
    const vaultSource = b.payment_source?.card?.vault_id
      ? 'card'
      : b.payment_source?.paypal?.vault_id
        ? 'paypal'
        : null;
    if (vaultSource) return this.vaultOrder(r, b, vaultSource);
    const id = id17();
    // A card to store once captured (`attributes.vault.store_in_vault: ON_SUCCESS`): typed on the provider's page.
    const storeCard = b.payment_source?.card?.attributes?.vault?.store_in_vault === 'ON_SUCCESS';
    const ctx = (storeCard ? b.payment_source.card : b.payment_source?.paypal)?.experience_context ?? {};
    const order = {
      id,
      intent: 'CAPTURE',
      status: 'PAYER_ACTION_REQUIRED',
      payment_source: storeCard ? { card: {} } : { paypal: {} },
      _storeCard: storeCard ? { customer: b.payment_source.card.attributes.customer ?? null } : undefined,
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
    if (o._vault) return this.captureVault(o);
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
    if (o._storeCard) {
      // Stored on success: the card becomes a payment token of the (new) vault customer.
      const typed = o._storeCard.number ?? '4111111111111111';
      const tokenId = this.vault('card', typed, { id: `cust_${hex(5)}`, ...o._storeCard.customer });
      const card = this.paymentTokens.get(tokenId)!.body.payment_source.card;
      o.payment_source = {
        card: {
          ...card,
          attributes: { vault: { id: tokenId, status: 'VAULTED', customer: { id: `cust_${hex(5)}` } } },
        },
      };
    }
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

  // ---- vault v3: setup tokens, payment tokens ----

  private createSetupToken(b: any): SimResponse {
    const src = b?.payment_source;
    const paypal = src?.paypal;
    const card = src?.card;
    if (!paypal && !card)
      return issue(400, 'INVALID_REQUEST', 'MISSING_REQUIRED_PARAMETER', 'payment_source is required');
    if (paypal && paypal.usage_type !== 'MERCHANT')
      return issue(422, 'UNPROCESSABLE_ENTITY', 'INVALID_PARAMETER_VALUE', 'usage_type must be MERCHANT here');
    const ctx = (paypal ?? card).experience_context ?? {};
    if (!ctx.return_url || !ctx.cancel_url)
      return issue(
        400,
        'INVALID_REQUEST',
        'MISSING_REQUIRED_PARAMETER',
        'experience_context return_url and cancel_url are required',
      );
    const id = `${hex(8).toUpperCase()}`;
    const st = {
      id,
      customer: { id: `SIMCUS${hex(5).toUpperCase()}`, merchant_customer_id: b.customer?.merchant_customer_id },
      status: 'PAYER_ACTION_REQUIRED',
      payment_source: paypal ? { paypal: { usage_type: 'MERCHANT', experience_context: ctx } } : { card: {} },
      links: [
        { href: `${this.url}/sim/tokenize/${id}`, rel: 'approve', method: 'GET' },
        { href: `${this.url}/v3/vault/payment-tokens`, rel: 'confirm', method: 'POST' },
        { href: `${this.url}/v3/vault/setup-tokens/${id}`, rel: 'self', method: 'GET' },
      ],
      _ctx: ctx,
      _scenario: 'success' as Scenario,
      _typed: '',
    };
    this.setupTokens.set(id, st);
    return { status: 201, body: publicOrder(st) };
  }

  /** The payer approves on the provider's page: a card number, or the PayPal login's email (`s9995@...`). */
  private approveSetup(id: string, form: URLSearchParams): SimResponse {
    const st = this.setupTokens.get(id);
    if (!st || st.status !== 'PAYER_ACTION_REQUIRED') return { status: 404, html: 'not found' };
    const typed = (st.payment_source.card ? form.get('number') : form.get('email')) ?? '';
    if (!typed || (st.payment_source.card && digitsOf(typed).length < 12)) return { status: 400, html: 'enter it' };
    st._typed = typed;
    st._scenario = scenarioOf(digitsOf(typed));
    if (st._scenario === 'requires_action')
      return { status: 200, html: actionPage(`/sim/tokenize/${id}/authenticate`) };
    st.status = 'APPROVED';
    return redirectTo(
      `${st._ctx.return_url}${String(st._ctx.return_url).includes('?') ? '&' : '?'}approval_token_id=${id}`,
    );
  }

  private setupAuthenticated(id: string, ok: boolean): SimResponse {
    const st = this.setupTokens.get(id);
    if (!st || st.status !== 'PAYER_ACTION_REQUIRED') return { status: 404, html: 'not found' };
    if (!ok) return redirectTo(st._ctx.cancel_url);
    st.status = 'APPROVED';
    return redirectTo(`${st._ctx.return_url}?approval_token_id=${id}`);
  }

  /** `POST /v3/vault/payment-tokens` from an approved setup token (a declined card fails here). */
  private exchange(b: any): SimResponse {
    const ref = b?.payment_source?.token;
    if (ref?.type !== 'SETUP_TOKEN' || typeof ref.id !== 'string')
      return issue(400, 'INVALID_REQUEST', 'MISSING_REQUIRED_PARAMETER', 'payment_source.token is required');
    const st = this.setupTokens.get(ref.id);
    if (!st) return notFound();
    if (st.status === 'PAYER_ACTION_REQUIRED' || st.status === 'CREATED')
      return issue(422, 'UNPROCESSABLE_ENTITY', 'SETUP_TOKEN_NOT_APPROVED', 'The setup token has not been approved.');
    if (st.status !== 'APPROVED')
      return issue(422, 'UNPROCESSABLE_ENTITY', 'SETUP_TOKEN_ALREADY_USED', 'The setup token was already used.');
    if (scenarios[st._scenario as Scenario].setupFails) {
      st.status = 'DECLINED';
      return issue(422, 'UNPROCESSABLE_ENTITY', 'INSTRUMENT_DECLINED', 'The instrument presented was declined.');
    }
    st.status = 'VAULTED';
    const id = this.vault(st.payment_source.card ? 'card' : 'paypal', st._typed, st.customer);
    void this.tokenCreated(id);
    const out: SimResponse = { status: 201, body: this.paymentTokens.get(id)!.body };
    // `dropResponseAfterCharge` loses this answer too: the token is vaulted, the merchant never hears.
    return shouldDrop(this.offSession) ? { ...out, drop: true } : out;
  }

  /** VAULT.PAYMENT-TOKEN.CREATED of a vaulted token (sent at the exchange; again when a test re-sends it). */
  tokenCreated(id: string, opts: DeliveryOptions = {}): Promise<Delivery[]> {
    const pt = this.paymentTokens.get(id);
    if (!pt) throw new Error(`simulator: no payment token ${id}`);
    return this.webhook('VAULT.PAYMENT-TOKEN.CREATED', 'payment_token', pt.body, {
      ...deliveryOf(this.offSession),
      ...opts,
    });
  }

  private vault(kind: 'card' | 'paypal', typed: string, customer: any): string {
    const id = hex(4).toLowerCase();
    const digits = digitsOf(typed);
    const payment_source =
      kind === 'card'
        ? {
            card: {
              brand: digits.startsWith('5') ? 'MASTERCARD' : 'VISA',
              last_digits: digits.slice(-4),
              expiry: `${new Date().getUTCFullYear() + 3}-12`,
              type: 'CREDIT',
            },
          }
        : {
            paypal: {
              email_address: typed,
              payer_id: hex(6).toUpperCase(),
              usage_type: 'MERCHANT',
              customer_type: 'CONSUMER',
            },
          };
    this.paymentTokens.set(id, {
      status: 'active',
      scenario: scenarioOf(digits),
      body: {
        id,
        customer,
        payment_source,
        links: [
          { href: `${this.url}/v3/vault/payment-tokens/${id}`, rel: 'self', method: 'GET' },
          { href: `${this.url}/v3/vault/payment-tokens/${id}`, rel: 'delete', method: 'DELETE' },
        ],
      },
    });
    return id;
  }

  /** A payment token already vaulted (tests and benches that skip approval): a card number or a sandbox email. */
  seedToken(opts: { type?: 'card' | 'paypal'; digits: string }): string {
    const type = opts.type ?? 'paypal';
    return this.vault(type, type === 'card' ? `400000000000${opts.digits}` : `s${opts.digits}@example.com`, {
      id: 'SIMCUS',
    });
  }

  /** The payer removes the saved method at the provider: VAULT.PAYMENT-TOKEN.DELETED. */
  revokeToken(id: string, opts: DeliveryOptions = {}): Promise<Delivery[]> {
    const pt = this.paymentTokens.get(id);
    if (!pt) throw new Error(`simulator: no payment token ${id}`);
    pt.status = 'revoked';
    return this.webhook(
      'VAULT.PAYMENT-TOKEN.DELETED',
      'payment_token',
      { id, customer: pt.body.customer },
      { ...deliveryOf(this.offSession), ...opts },
    );
  }

  /** The card behind the token expires. PayPal sends no vault event for that: the state changes only. */
  expireToken(id: string): Promise<Delivery[]> {
    const pt = this.paymentTokens.get(id);
    if (!pt) throw new Error(`simulator: no payment token ${id}`);
    pt.status = 'expired';
    return Promise.resolve([]);
  }

  // ---- merchant-initiated orders (vault_id + stored_credential) ----

  private vaultOrder(r: SimRequest, b: any, source: 'card' | 'paypal'): SimResponse {
    const src = b.payment_source[source];
    if (src.stored_credential?.payment_initiator !== 'MERCHANT')
      return issue(
        422,
        'UNPROCESSABLE_ENTITY',
        'INVALID_PARAMETER_VALUE',
        'stored_credential.payment_initiator must be MERCHANT',
      );
    const unit = b.purchase_units[0];
    const amt = unit?.amount;
    const exp = EXPONENT[amt?.currency_code];
    if (exp === undefined)
      return issue(422, 'UNPROCESSABLE_ENTITY', 'CURRENCY_NOT_SUPPORTED', 'currency_code is not supported');
    const minor = Math.round(Number(amt.value) * 10 ** exp);
    const reference = String(unit.custom_id ?? unit.reference_id ?? '');
    const key = String(r.headers['paypal-request-id'] ?? '');
    const pt = this.paymentTokens.get(src.vault_id);
    const outcome: Outcome = pt ? outcomeOf(pt.scenario, minor, pt.status) : { kind: 'failed', reason: 'revoked' };
    this.charges.record(key, reference);
    if (outcome.kind === 'failed' && outcome.reason === 'revoked') {
      if (pt) pt.status = 'revoked';
      return issue(422, 'UNPROCESSABLE_ENTITY', 'INVALID_RESOURCE_ID', 'The vault_id does not exist or was deleted.');
    }
    if (pt && outcome.kind === 'failed' && outcome.reason === 'expired') pt.status = 'expired';
    const id = id17();
    const order: any = {
      id,
      intent: 'CAPTURE',
      status: outcome.kind === 'requires_action' ? 'PAYER_ACTION_REQUIRED' : 'APPROVED',
      payment_source: {
        [source]: {
          ...(pt ? pt.body.payment_source[source] : {}),
          vault_id: src.vault_id,
          stored_credential: src.stored_credential,
        },
      },
      purchase_units: [
        {
          reference_id: unit.reference_id ?? 'default',
          custom_id: unit.custom_id,
          description: unit.description,
          amount: amt,
        },
      ],
      create_time: nowIso(),
      links: [
        { href: `${this.url}/v2/checkout/orders/${id}`, rel: 'self', method: 'GET' },
        ...(outcome.kind === 'requires_action'
          ? [{ href: `${this.url}/sim/action/${id}`, rel: 'payer-action', method: 'GET' }]
          : []),
      ],
      _vault: outcome,
    };
    this.orders.set(id, order);
    return { status: 201, body: publicOrder(order) };
  }

  private captureVault(o: any): SimResponse {
    const outcome = o._vault as Outcome;
    const unit = o.purchase_units[0];
    const failed = outcome.kind === 'failed';
    const capture: any = {
      id: id17(),
      status: failed ? 'DECLINED' : outcome.kind === 'pending' ? 'PENDING' : 'COMPLETED',
      amount: unit.amount,
      final_capture: true,
      custom_id: unit.custom_id,
      ...(failed
        ? { processor_response: { response_code: failureC(outcome.reason), avs_code: 'Y', cvv_code: 'X' } }
        : {}),
      supplementary_data: { related_ids: { order_id: o.id } },
      create_time: nowIso(),
      update_time: nowIso(),
      links: [{ href: `${this.url}/v2/checkout/orders/${o.id}`, rel: 'up', method: 'GET' }],
    };
    o.status = 'COMPLETED';
    unit.payments = { captures: [capture] };
    const delivery = deliveryOf(this.offSession);
    if (outcome.kind === 'pending') {
      this.later(this.offSession.delayMs, () => {
        if (capture.status !== 'PENDING') return;
        capture.status = 'COMPLETED';
        return this.webhook('PAYMENT.CAPTURE.COMPLETED', 'capture', capture, delivery);
      });
    } else {
      void this.webhook(
        failed ? 'PAYMENT.CAPTURE.DECLINED' : 'PAYMENT.CAPTURE.COMPLETED',
        'capture',
        capture,
        delivery,
      );
    }
    const out: SimResponse = { status: 201, body: publicOrder(o) };
    return shouldDrop(this.offSession) ? { ...out, drop: true } : out;
  }

  /** The payer finishes (approved: the order can be captured) or abandons (VOIDED) a payer action. By order id or our reference. */
  completeAction(ref: string, ok: boolean, opts: DeliveryOptions = {}): Promise<Delivery[]> {
    const o = this.orders.get(ref) ?? [...this.orders.values()].find((x) => x.purchase_units[0].custom_id === ref);
    if (!o) throw new Error(`simulator: no order ${ref}`);
    if (o.status !== 'PAYER_ACTION_REQUIRED') return Promise.resolve([]);
    o.links = o.links.filter((l: any) => l.rel !== 'payer-action');
    if (!ok) {
      o.status = 'VOIDED';
      return Promise.resolve([]);
    }
    o.status = 'APPROVED';
    o._vault = { kind: 'succeeded' };
    return this.webhook('CHECKOUT.ORDER.APPROVED', 'checkout-order', publicOrder(o), {
      ...deliveryOf(this.offSession),
      ...opts,
    });
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
    opts: DeliveryOptions & { capture?: 'COMPLETED' | 'PENDING' | 'DECLINED'; cardNumber?: string } = {},
  ): Promise<Delivery[]> {
    const o = this.order(id);
    o.status = 'APPROVED';
    if (o._storeCard && opts.cardNumber) o._storeCard.number = opts.cardNumber;
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

/** The provider's view of an order or token: the simulator's own fields (`_...`) left out. */
function publicOrder(o: any) {
  return structuredClone(Object.fromEntries(Object.entries(o).filter(([k]) => !k.startsWith('_'))));
}

const notFound = () => issue(404, 'RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID', 'Specified resource ID does not exist.');

/** PayPal processor response codes for each failure reason of the scenario table. */
function failureC(reason: FailReason): string {
  switch (reason) {
    case 'declined':
      return '0500';
    case 'insufficient_funds':
      return '5120';
    case 'limit_exceeded':
      return '5710';
    case 'account_blocked':
      return '5180';
    case 'expired':
      return '5400';
    case 'revoked':
      return '5140';
  }
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
