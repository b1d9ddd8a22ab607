// A provider_a (Xendit-style) simulator: Basic auth with the secret key; QR codes (api-version
// 2022-07-31), callback virtual accounts, e-wallet charges, fixed payment codes (retail), invoices
// (cards) and refunds; callbacks POSTed with the account's static x-callback-token to the callback
// URL set "in the dashboard" (the constructor).
import {
  basicCredentials,
  hex,
  nowIso,
  qrisString,
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
  GOOD_OTP,
  outcomeOf,
  redirectTo,
  scenarioOf,
  scenarios,
  shouldDrop,
  tokenizePage,
  type FailReason,
  type Scenario,
  type TokenStatus,
} from './saved.ts';

export interface ProviderASimOptions {
  secretKey: string;
  callbackToken: string;
  /** The dashboard's callback URL (one for every product here). */
  callbackUrl?: string;
}

type Product = 'qris' | 'va' | 'ewallet' | 'retail' | 'invoice';
interface Record_ {
  product: Product;
  body: any;
  payments: any[];
}

const BUSINESS_ID = '5f27a14a9bf05c73dd040bc8';
const err = (status: number, error_code: string, message: string): SimResponse => ({
  status,
  body: { error_code, message },
});

export class ProviderASim extends Simulator {
  callbackUrl?: string;
  readonly records = new Map<string, Record_>();
  readonly refunds = new Map<string, any>();
  readonly disbursements = new Map<string, any>();
  private idempotent = new Map<string, SimResponse>();
  /** Saved payment methods (`pm-...`) and their scenario (from the typed number or account). */
  readonly methods = new Map<string, { body: any; scenario: Scenario }>();
  /** Off-session payment requests (`pr-...`). */
  readonly paymentRequests = new Map<string, any>();
  /** Charges actually made, per idempotency key and per reference (replays are not counted). */
  readonly charges = new ChargeCounter();
  /** Off-session behaviour: async delay, callback duplicates and loss, dropped answers. */
  readonly offSession = defaultOffSession();
  private prReplays = new Map<string, SimResponse>();

  constructor(private readonly opts: ProviderASimOptions) {
    super();
    this.callbackUrl = opts.callbackUrl;
    this.create('POST', /^\/v2\/payment_methods$/, (r) => this.createMethod(r));
    this.authed('GET', /^\/v2\/payment_methods\/([^/]+)$/, (r) => this.showMethod(r.params[0]));
    this.create('POST', /^\/v2\/payment_methods\/([^/]+)\/auth$/, (r) => this.authMethod(r.params[0], r.json));
    this.authed('POST', /^\/v2\/payment_methods\/([^/]+)\/expire$/, (r) => this.expireMethod(r.params[0]));
    this.authed('POST', /^\/payment_requests$/, (r) => this.createPaymentRequest(r));
    this.authed('GET', /^\/payment_requests$/, (r) => this.listPaymentRequests(r.query.get('reference_id')));
    this.authed('GET', /^\/payment_requests\/([^/]+)$/, (r) =>
      this.paymentRequests.has(r.params[0])
        ? { status: 200, body: this.paymentRequests.get(r.params[0]) }
        : err(404, 'DATA_NOT_FOUND', 'payment request not found'),
    );
    // A PAY_AND_SAVE page is addressed by an opaque action id (as the provider's linking URLs are), never the token.
    this.route('GET', /^\/sim\/tokenize\/([^/]+)$/, (r) => this.tokenizeForm(this.methodOf(r.params[0]), r.params[0]));
    this.route('POST', /^\/sim\/tokenize\/([^/]+)$/, (r) =>
      this.tokenizeSubmit(this.methodOf(r.params[0]), formOf(r.text), r.params[0]),
    );
    this.route('POST', /^\/sim\/tokenize\/([^/]+)\/authenticate$/, (r) =>
      this.tokenizeAuthenticate(this.methodOf(r.params[0]), formOf(r.text).get('outcome') === 'success'),
    );
    this.route('GET', /^\/sim\/action\/([^/]+)$/, (r) =>
      this.paymentRequests.has(r.params[0])
        ? { status: 200, html: actionPage(`/sim/action/${r.params[0]}`) }
        : { status: 404, html: 'not found' },
    );
    this.route('POST', /^\/sim\/action\/([^/]+)$/, async (r) => {
      await this.completeAction(r.params[0], formOf(r.text).get('outcome') === 'success');
      return { status: 200, html: '<p>Done</p>' };
    });
    this.create('POST', /^\/qr_codes$/, (r) => this.createQr(r));
    this.authed('GET', /^\/qr_codes\/([^/]+)$/, (r) => this.show('qris', r.params[0]));
    this.authed('GET', /^\/qr_codes\/([^/]+)\/payments$/, (r) => this.payments('qris', r.params[0]));
    this.create('POST', /^\/callback_virtual_accounts$/, (r) => this.createVa(r));
    this.authed('GET', /^\/callback_virtual_accounts\/([^/]+)$/, (r) => this.show('va', r.params[0]));
    this.authed('GET', /^\/callback_virtual_account_payments\/payment_id=([^/]+)$/, (r) => this.vaPayment(r.params[0]));
    this.create('POST', /^\/ewallets\/charges$/, (r) => this.createEwallet(r));
    this.authed('GET', /^\/ewallets\/charges\/([^/]+)$/, (r) => this.show('ewallet', r.params[0]));
    this.create('POST', /^\/fixed_payment_code$/, (r) => this.createRetail(r));
    this.authed('GET', /^\/fixed_payment_code\/([^/]+)$/, (r) => this.show('retail', r.params[0]));
    this.authed('GET', /^\/fixed_payment_code\/([^/]+)\/payments$/, (r) => this.payments('retail', r.params[0]));
    this.create('POST', /^\/v2\/invoices$/, (r) => this.createInvoice(r));
    this.authed('GET', /^\/v2\/invoices\/([^/]+)$/, (r) => this.show('invoice', r.params[0]));
    this.create('POST', /^\/refunds$/, (r) => this.createRefund(r));
    // Voiding: VAs and payment codes are updated to expire now; invoices have an expire action.
    this.authed('PATCH', /^\/callback_virtual_accounts\/([^/]+)$/, (r) => this.update('va', r.params[0], r.json));
    this.authed('PATCH', /^\/fixed_payment_code\/([^/]+)$/, (r) => this.update('retail', r.params[0], r.json));
    this.authed('POST', /^\/invoices\/([^/]+)\/expire!$/, (r) => this.expireInvoice(r.params[0]));
    this.create('POST', /^\/disbursements$/, (r) => this.createDisbursement(r));
    this.authed('GET', /^\/disbursements\/([^/]+)$/, (r) =>
      this.disbursements.has(r.params[0])
        ? { status: 200, body: this.disbursements.get(r.params[0]) }
        : err(404, 'DATA_NOT_FOUND', 'disbursement not found'),
    );
  }

  // ---- routing with auth and idempotency ----

  private authed(method: string, pattern: RegExp, handler: (r: SimRequest) => SimResponse) {
    this.route(method, pattern, (r) => {
      const c = basicCredentials(r.headers.authorization);
      if (!c || c.user !== this.opts.secretKey || c.password !== '')
        return err(401, 'INVALID_API_KEY', 'API key is invalid');
      return handler(r);
    });
  }

  /** Creates honour `idempotency-key`: the same key answers the first result again. */
  private create(method: string, pattern: RegExp, handler: (r: SimRequest) => SimResponse) {
    this.authed(method, pattern, (r) => {
      if (!r.json || typeof r.json !== 'object') return err(400, 'API_VALIDATION_ERROR', 'body must be JSON');
      const key = r.headers['idempotency-key'];
      const k = typeof key === 'string' ? `${r.path}|${key}` : null;
      if (k && this.idempotent.has(k)) return this.idempotent.get(k)!;
      const out = handler(r);
      if (k && out.status < 300) this.idempotent.set(k, out);
      return out;
    });
  }

  private amountOk(v: unknown, max = 1_000_000_000) {
    return typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= max;
  }

  private save(product: Product, body: any): SimResponse {
    this.records.set(body.id, { product, body, payments: [] });
    return { status: 200, body };
  }

  /** Ids voided through the API (expiration moved to now, or invoice expired). */
  readonly voided = new Set<string>();
  private update(product: Product, id: string, b: any): SimResponse {
    const rec = this.records.get(id);
    if (!rec || rec.product !== product) return err(404, 'DATA_NOT_FOUND', `${product} ${id} not found`);
    if (typeof b?.expiration_date !== 'string') return err(400, 'API_VALIDATION_ERROR', 'expiration_date is required');
    rec.body.expiration_date = b.expiration_date;
    if (Date.parse(b.expiration_date) <= Date.now()) (rec.body.status = 'INACTIVE'), this.voided.add(id);
    return { status: 200, body: rec.body };
  }

  private expireInvoice(id: string): SimResponse {
    const rec = this.records.get(id);
    if (!rec || rec.product !== 'invoice') return err(404, 'DATA_NOT_FOUND', `invoice ${id} not found`);
    if (rec.body.status !== 'PENDING')
      return err(400, 'INVOICE_NOT_FOUND_ERROR', 'only a pending invoice can be expired');
    Object.assign(rec.body, { status: 'EXPIRED', updated: nowIso() });
    this.voided.add(id);
    return { status: 200, body: rec.body };
  }

  private createQr(r: SimRequest): SimResponse {
    const b = r.json;
    if (r.headers['api-version'] !== '2022-07-31')
      return err(400, 'API_VALIDATION_ERROR', 'api-version header must be 2022-07-31');
    if (b.currency !== 'IDR') return err(400, 'API_VALIDATION_ERROR', 'currency must be IDR');
    // spec facts: QRIS amount 1 to 10,000,000
    if (!this.amountOk(b.amount, 10_000_000))
      return err(400, 'API_VALIDATION_ERROR', 'amount must be between 1 and 10000000');
    if (!b.reference_id || b.type !== 'DYNAMIC')
      return err(400, 'API_VALIDATION_ERROR', 'reference_id and type DYNAMIC are required');
    const id = `qr_${uuid()}`;
    return this.save('qris', {
      id,
      business_id: BUSINESS_ID,
      reference_id: b.reference_id,
      type: b.type,
      currency: b.currency,
      amount: b.amount,
      channel_code: 'ID_DANA',
      status: 'ACTIVE',
      qr_string: qrisString(b.amount, id),
      expires_at: b.expires_at ?? new Date(Date.now() + 48 * 3600e3).toISOString(),
      created: nowIso(),
      updated: nowIso(),
      metadata: b.metadata ?? null,
    });
  }

  private createVa(r: SimRequest): SimResponse {
    const b = r.json;
    if (!b.external_id || !b.bank_code || !b.name)
      return err(400, 'API_VALIDATION_ERROR', 'external_id, bank_code and name are required');
    if (b.is_closed && !this.amountOk(b.expected_amount))
      return err(400, 'API_VALIDATION_ERROR', 'expected_amount is required for closed VAs');
    const merchantCode = '88608';
    return this.save('va', {
      id: hex(12),
      owner_id: BUSINESS_ID,
      external_id: b.external_id,
      bank_code: b.bank_code,
      merchant_code: merchantCode,
      name: b.name,
      account_number: merchantCode + String(Math.floor(Math.random() * 1e10)).padStart(10, '0'),
      is_closed: Boolean(b.is_closed),
      expected_amount: b.expected_amount,
      expiration_date: b.expiration_date,
      is_single_use: Boolean(b.is_single_use),
      status: 'PENDING',
      currency: 'IDR',
      country: 'ID',
    });
  }

  private createEwallet(r: SimRequest): SimResponse {
    const b = r.json;
    if (!b.reference_id || b.checkout_method !== 'ONE_TIME_PAYMENT' || !String(b.channel_code).startsWith('ID_'))
      return err(400, 'API_VALIDATION_ERROR', 'bad e-wallet charge');
    if (!this.amountOk(b.amount)) return err(400, 'API_VALIDATION_ERROR', 'amount is invalid');
    if (!b.channel_properties?.success_redirect_url)
      return err(400, 'API_VALIDATION_ERROR', 'channel_properties.success_redirect_url is required');
    const id = `ewc_${uuid()}`;
    const checkout = `${this.url}/web/ewallet/${id}`;
    return this.save('ewallet', {
      id,
      business_id: BUSINESS_ID,
      reference_id: b.reference_id,
      status: 'PENDING',
      currency: b.currency,
      charge_amount: b.amount,
      capture_amount: null,
      refunded_amount: null,
      checkout_method: b.checkout_method,
      channel_code: b.channel_code,
      channel_properties: b.channel_properties,
      actions: {
        desktop_web_checkout_url: checkout,
        mobile_web_checkout_url: checkout,
        mobile_deeplink_checkout_url: null,
        qr_checkout_string: null,
      },
      is_redirect_required: true,
      callback_url: this.callbackUrl ?? null,
      created: nowIso(),
      updated: nowIso(),
      voided_at: null,
      capture_now: true,
      customer_id: null,
      payment_method_id: null,
      failure_code: null,
      basket: null,
      metadata: b.metadata ?? null,
    });
  }

  private createRetail(r: SimRequest): SimResponse {
    const b = r.json;
    if (!['ALFAMART', 'INDOMARET'].includes(b.retail_outlet_name))
      return err(400, 'API_VALIDATION_ERROR', 'retail_outlet_name is invalid');
    if (!b.external_id || !b.name || !this.amountOk(b.expected_amount))
      return err(400, 'API_VALIDATION_ERROR', 'external_id, name and expected_amount are required');
    const prefix = 'TEST';
    return this.save('retail', {
      id: hex(12),
      owner_id: BUSINESS_ID,
      external_id: b.external_id,
      retail_outlet_name: b.retail_outlet_name,
      prefix,
      name: b.name,
      payment_code: prefix + String(Math.floor(Math.random() * 1e8)).padStart(8, '0'),
      expected_amount: b.expected_amount,
      is_single_use: Boolean(b.is_single_use),
      expiration_date: b.expiration_date,
      status: 'ACTIVE',
    });
  }

  private createInvoice(r: SimRequest): SimResponse {
    const b = r.json;
    if (!b.external_id || !this.amountOk(b.amount))
      return err(400, 'API_VALIDATION_ERROR', 'external_id and amount are required');
    const id = hex(12);
    return this.save('invoice', {
      id,
      external_id: b.external_id,
      user_id: BUSINESS_ID,
      status: 'PENDING',
      merchant_name: 'Simulated Merchant',
      amount: b.amount,
      currency: b.currency ?? 'IDR',
      description: b.description,
      invoice_url: `${this.url}/web/invoices/${id}`,
      expiry_date: new Date(Date.now() + (b.invoice_duration ?? 86400) * 1000).toISOString(),
      available_banks: [],
      available_retail_outlets: [],
      should_exclude_credit_card: false,
      success_redirect_url: b.success_redirect_url,
      failure_redirect_url: b.failure_redirect_url,
      payment_methods: b.payment_methods ?? [],
      created: nowIso(),
      updated: nowIso(),
    });
  }

  private createRefund(r: SimRequest): SimResponse {
    const b = r.json;
    if (b.payment_request_id) return this.refundPaymentRequest(b);
    const inv = this.records.get(b.invoice_id);
    if (!inv || inv.product !== 'invoice') return err(404, 'DATA_NOT_FOUND', 'invoice not found');
    if (inv.body.status !== 'PAID') return err(400, 'INELIGIBLE_TRANSACTION', 'invoice is not paid');
    const refunded = [...this.refunds.values()]
      .filter((x) => x.invoice_id === b.invoice_id && x.status !== 'FAILED')
      .reduce((s, x) => s + x.amount, 0);
    if (!this.amountOk(b.amount) || b.amount > inv.body.paid_amount - refunded)
      return err(400, 'REFUND_AMOUNT_EXCEEDED', 'amount exceeds the refundable amount');
    const refund = {
      id: `rfd-${uuid()}`,
      invoice_id: b.invoice_id,
      payment_request_id: null,
      reference_id: b.reference_id,
      amount: b.amount,
      currency: b.currency ?? 'IDR',
      status: 'PENDING',
      reason: b.reason,
      country: 'ID',
      channel_code: 'CREDIT_CARD',
      created: nowIso(),
      updated: nowIso(),
      failure_code: null,
    };
    this.refunds.set(refund.id, refund);
    return { status: 200, body: refund };
  }

  private refundPaymentRequest(b: any): SimResponse {
    const pr = this.paymentRequests.get(b.payment_request_id);
    if (!pr) return err(404, 'DATA_NOT_FOUND', 'payment request not found');
    if (pr.status !== 'SUCCEEDED') return err(400, 'INELIGIBLE_TRANSACTION', 'payment request is not succeeded');
    const refunded = [...this.refunds.values()]
      .filter((x) => x.payment_request_id === pr.id && x.status !== 'FAILED')
      .reduce((sum, x) => sum + x.amount, 0);
    if (!this.amountOk(b.amount) || b.amount > pr.amount - refunded)
      return err(400, 'REFUND_AMOUNT_EXCEEDED', 'amount exceeds the refundable amount');
    const refund = {
      id: `rfd-${uuid()}`,
      invoice_id: null,
      payment_request_id: pr.id,
      reference_id: b.reference_id,
      amount: b.amount,
      currency: b.currency ?? pr.currency,
      status: 'PENDING',
      reason: b.reason,
      country: 'ID',
      channel_code: pr.payment_method.type,
      created: nowIso(),
      updated: nowIso(),
      failure_code: null,
    };
    this.refunds.set(refund.id, refund);
    return { status: 200, body: refund };
  }

  // ---- saved payment methods (POST /v2/payment_methods, MULTIPLE_USE) ----

  private createMethod(r: SimRequest): SimResponse {
    const b = r.json;
    if (b.reusability !== 'MULTIPLE_USE')
      return err(400, 'API_VALIDATION_ERROR', 'reusability must be MULTIPLE_USE here');
    if (!['CARD', 'EWALLET', 'DIRECT_DEBIT'].includes(b.type))
      return err(400, 'API_VALIDATION_ERROR', 'type is invalid');
    const id = `pm-${uuid()}`;
    const at = nowIso();
    const body: any = {
      id,
      type: b.type,
      country: 'ID',
      business_id: BUSINESS_ID,
      customer_id: `cust-${uuid()}`,
      customer: b.customer ?? null,
      reference_id: b.reference_id,
      reusability: b.reusability,
      status: 'REQUIRES_ACTION',
      actions: [{ action: 'AUTH', url: `${this.url}/sim/tokenize/${id}`, url_type: 'WEB', method: 'GET' }],
      card: null,
      ewallet: null,
      direct_debit: null,
      description: b.description ?? null,
      failure_code: null,
      created: at,
      updated: at,
      metadata: b.metadata ?? null,
    };
    let scenario: Scenario = 'success';
    if (b.type === 'EWALLET') {
      const code = b.ewallet?.channel_code;
      if (!['OVO', 'DANA', 'SHOPEEPAY', 'LINKAJA'].includes(code))
        return err(400, 'API_VALIDATION_ERROR', 'ewallet.channel_code is invalid');
      const props = b.ewallet.channel_properties ?? {};
      if (!props.success_return_url) return err(400, 'API_VALIDATION_ERROR', 'success_return_url is required');
      body.ewallet = {
        channel_code: code,
        channel_properties: props,
        account: { name: null, account_details: null, balance: null },
      };
    } else if (b.type === 'DIRECT_DEBIT') {
      const code = b.direct_debit?.channel_code;
      if (!['BRI', 'MANDIRI', 'BCA_ONEKLIK', 'BNI'].includes(code))
        return err(400, 'API_VALIDATION_ERROR', 'direct_debit.channel_code is invalid');
      const props = b.direct_debit.channel_properties ?? {};
      if (typeof props.mobile_number !== 'string') return err(400, 'API_VALIDATION_ERROR', 'mobile_number is required');
      scenario = scenarioOf(digitsOf(props.mobile_number));
      const last4 = digitsOf(props.mobile_number).slice(-4);
      body.direct_debit = {
        channel_code: code,
        channel_properties: props,
        type: 'BANK_ACCOUNT',
        bank_account: { masked_bank_account_number: `XXXXXX${last4}`, bank_account_hash: hex(16) },
      };
      // The OTP goes to the customer's phone; the merchant posts it to the auth action.
      body.actions = [{ action: 'AUTH', url: `/v2/payment_methods/${id}/auth`, url_type: 'API', method: 'POST' }];
    } else {
      if (!b.card?.channel_properties?.success_return_url)
        return err(400, 'API_VALIDATION_ERROR', 'card.channel_properties is required');
      body.card = {
        currency: b.card.currency ?? 'IDR',
        channel_properties: b.card.channel_properties,
        card_information: null,
      };
    }
    this.methods.set(id, { body, scenario });
    return { status: 201, body };
  }

  private showMethod(id: string): SimResponse {
    const m = this.methods.get(id);
    return m ? { status: 200, body: m.body } : err(404, 'DATA_NOT_FOUND', 'payment method not found');
  }

  private authMethod(id: string, b: any): SimResponse {
    const m = this.methods.get(id);
    if (!m) return err(404, 'DATA_NOT_FOUND', 'payment method not found');
    if (m.body.type !== 'DIRECT_DEBIT' || m.body.status !== 'REQUIRES_ACTION')
      return err(400, 'INVALID_PAYMENT_METHOD_STATUS', 'payment method is not waiting for an OTP');
    if (String(b?.auth_code ?? '') !== GOOD_OTP) {
      this.settleMethod(m, 'FAILED', 'INVALID_OTP');
      return err(400, 'INVALID_OTP_ERROR', 'The OTP is invalid');
    }
    if (scenarios[m.scenario].setupFails) this.settleMethod(m, 'FAILED', 'DECLINED_BY_ISSUER');
    else this.settleMethod(m, 'ACTIVE');
    return { status: 200, body: m.body };
  }

  private expireMethod(id: string): SimResponse {
    const m = this.methods.get(id);
    if (!m) return err(404, 'DATA_NOT_FOUND', 'payment method not found');
    if (m.body.status !== 'ACTIVE' && m.body.status !== 'REQUIRES_ACTION' && m.body.status !== 'PENDING')
      return err(400, 'INVALID_PAYMENT_METHOD_STATUS', `payment method is ${m.body.status}`);
    Object.assign(m.body, { status: 'EXPIRED', actions: [], updated: nowIso() });
    return { status: 200, body: m.body };
  }

  /** Moves a payment method and sends its callback (activated, failed_activation, expired). */
  private settleMethod(
    m: { body: any },
    status: 'ACTIVE' | 'FAILED' | 'EXPIRED' | 'INACTIVE',
    failure?: string,
    opts: DeliveryOptions = {},
  ) {
    Object.assign(m.body, { status, actions: [], failure_code: failure ?? null, updated: nowIso() });
    if (status === 'ACTIVE' || status === 'FAILED') this.settlePayAndSave(m as { body: any; scenario: Scenario });
    const event =
      status === 'ACTIVE'
        ? 'payment_method.activated'
        : status === 'FAILED'
          ? 'payment_method.failed_activation'
          : 'payment_method.expired';
    return this.callback(
      { event, business_id: BUSINESS_ID, created: nowIso(), data: { ...m.body } },
      { ...deliveryOf(this.offSession), ...opts },
    );
  }

  /** PAY_AND_SAVE action ids (`pali-...`) to the payment method they complete. */
  private readonly actionIds = new Map<string, string>();
  private methodOf(ref: string): string {
    return this.actionIds.get(ref) ?? ref;
  }

  private tokenizeForm(id: string, ref = id): SimResponse {
    const m = this.methods.get(id);
    if (!m || m.body.type === 'DIRECT_DEBIT') return { status: 404, html: 'not found' };
    const isCard = m.body.type === 'CARD';
    return {
      status: 200,
      html: tokenizePage({
        provider: 'provider_a',
        ref,
        field: isCard ? 'number' : 'phone',
        value: isCard ? '' : (m.body.ewallet?.channel_properties?.mobile_number ?? ''),
      }),
    };
  }

  private returnUrls(m: { body: any }) {
    const p =
      m.body.card?.channel_properties ??
      m.body.ewallet?.channel_properties ??
      m.body.direct_debit?.channel_properties ??
      {};
    return { ok: p.success_return_url as string, fail: (p.failure_return_url ?? p.success_return_url) as string };
  }

  private tokenizeSubmit(id: string, form: URLSearchParams, ref = id): SimResponse {
    const m = this.methods.get(id);
    if (!m || m.body.status !== 'REQUIRES_ACTION' || m.body.type === 'DIRECT_DEBIT')
      return { status: 404, html: 'not found' };
    const typed = form.get(m.body.type === 'CARD' ? 'number' : 'phone') ?? '';
    const digits = digitsOf(typed);
    if (digits.length < 8) return { status: 400, html: 'enter the number' };
    m.scenario = scenarioOf(digits);
    if (m.body.type === 'CARD') {
      m.body.card.card_information = {
        token_id: hex(12),
        masked_card_number: `${digits.slice(0, 6)}XXXXXX${digits.slice(-4)}`,
        cardholder_name: null,
        expiry_month: '12',
        expiry_year: String(new Date().getUTCFullYear() + 3),
        fingerprint: hex(12),
        type: 'CREDIT',
        network: digits.startsWith('5') ? 'MASTERCARD' : digits.startsWith('3') ? 'JCB' : 'VISA',
        country: 'ID',
        issuer: 'SIMULATED BANK',
      };
    } else {
      m.body.ewallet.channel_properties = { ...m.body.ewallet.channel_properties, mobile_number: typed };
      m.body.ewallet.account = { name: 'Budi', account_details: typed, balance: null };
    }
    const urls = this.returnUrls(m);
    if (scenarios[m.scenario].setupFails) {
      void this.settleMethod(m, 'FAILED', m.body.type === 'CARD' ? 'CARD_DECLINED' : 'DECLINED_BY_ISSUER');
      return redirectTo(urls.fail);
    }
    if (m.scenario === 'requires_action') return { status: 200, html: actionPage(`/sim/tokenize/${ref}/authenticate`) };
    void this.settleMethod(m, 'ACTIVE');
    return redirectTo(urls.ok);
  }

  private tokenizeAuthenticate(id: string, ok: boolean): SimResponse {
    const m = this.methods.get(id);
    if (!m || m.body.status !== 'REQUIRES_ACTION') return { status: 404, html: 'not found' };
    const urls = this.returnUrls(m);
    void this.settleMethod(m, ok ? 'ACTIVE' : 'FAILED', ok ? undefined : 'AUTHENTICATION_FAILED');
    return redirectTo(ok ? urls.ok : urls.fail);
  }

  /** A method already active (tests and benches that do not need the setup steps). */
  seedToken(opts: { type?: 'CARD' | 'EWALLET' | 'DIRECT_DEBIT'; digits: string; channel?: string }): string {
    const id = `pm-${uuid()}`;
    const type = opts.type ?? 'CARD';
    const last4 = opts.digits.slice(-4);
    this.methods.set(id, {
      scenario: scenarioOf(opts.digits),
      body: {
        id,
        type,
        reusability: 'MULTIPLE_USE',
        status: 'ACTIVE',
        actions: [],
        card:
          type === 'CARD'
            ? {
                card_information: {
                  masked_card_number: `400000XXXXXX${last4}`,
                  expiry_month: '12',
                  expiry_year: '2030',
                  network: 'VISA',
                  type: 'CREDIT',
                },
              }
            : null,
        ewallet:
          type === 'EWALLET'
            ? { channel_code: opts.channel ?? 'OVO', account: { account_details: `0812${opts.digits}` } }
            : null,
        direct_debit:
          type === 'DIRECT_DEBIT'
            ? { channel_code: opts.channel ?? 'BRI', bank_account: { masked_bank_account_number: `XXXXXX${last4}` } }
            : null,
        created: nowIso(),
        updated: nowIso(),
      },
    });
    return id;
  }

  /** The provider revokes the method (unlinked by the customer or the channel): INACTIVE, and its callback. */
  revokeToken(id: string, opts: DeliveryOptions = {}): Promise<Delivery[]> {
    const m = this.methods.get(id);
    if (!m) throw new Error(`simulator: no payment method ${id}`);
    return this.settleMethod(m, 'INACTIVE', undefined, opts);
  }

  /** The method runs out (card expiry, linking expiry): EXPIRED, and its callback. */
  expireToken(id: string, opts: DeliveryOptions = {}): Promise<Delivery[]> {
    const m = this.methods.get(id);
    if (!m) throw new Error(`simulator: no payment method ${id}`);
    return this.settleMethod(m, 'EXPIRED', undefined, opts);
  }

  /**
   * Sends `payment_method.expired` claiming `status` (INACTIVE: revoked) with the account's real callback token,
   * while the method stays as it is here (a replayed, stale or forged-with-a-leaked-token callback): the
   * status lookup (`GET /v2/payment_methods/{id}`) still answers the method's own state.
   */
  claimTokenState(id: string, status: 'EXPIRED' | 'INACTIVE', opts: DeliveryOptions = {}): Promise<Delivery[]> {
    const m = this.methods.get(id);
    if (!m) throw new Error(`simulator: no payment method ${id}`);
    return this.callback(
      {
        event: 'payment_method.expired',
        business_id: BUSINESS_ID,
        created: nowIso(),
        data: { ...m.body, status, updated: nowIso() },
      },
      { ...deliveryOf(this.offSession), ...opts },
    );
  }

  // ---- off-session charges (POST /payment_requests) ----

  private createPaymentRequest(r: SimRequest): SimResponse {
    const b = r.json;
    const key = typeof r.headers['idempotency-key'] === 'string' ? r.headers['idempotency-key'] : null;
    if (!key) return err(400, 'API_VALIDATION_ERROR', 'Idempotency-key header is required for payment requests here');
    const seen = this.prReplays.get(key);
    if (seen) return seen;
    if (!b || typeof b.reference_id !== 'string' || !this.amountOk(b.amount) || typeof b.currency !== 'string')
      return err(400, 'API_VALIDATION_ERROR', 'reference_id, amount and currency are required');
    if (b.payment_method && !b.payment_method_id) return this.payAndSave(r, key);
    const m = this.methods.get(b.payment_method_id);
    if (!m) return err(404, 'DATA_NOT_FOUND', 'payment_method_id not found');
    this.charges.record(key, b.reference_id);
    const id = `pr-${uuid()}`;
    const at = nowIso();
    const pr: any = {
      id,
      business_id: BUSINESS_ID,
      reference_id: b.reference_id,
      amount: b.amount,
      currency: b.currency,
      country: 'ID',
      description: b.description ?? null,
      capture_method: b.capture_method ?? 'AUTOMATIC',
      initiator: b.initiator ?? null,
      payment_method: { id: m.body.id, type: m.body.type, reusability: m.body.reusability, status: m.body.status },
      status: 'PENDING',
      actions: [],
      failure_code: null,
      metadata: b.metadata ?? null,
      created: at,
      updated: at,
      _paymentId: `py-${uuid()}`,
    };
    const tokenStatus: TokenStatus =
      m.body.status === 'ACTIVE' ? 'active' : m.body.status === 'EXPIRED' ? 'expired' : 'revoked';
    const outcome = outcomeOf(m.scenario, b.amount, tokenStatus);
    this.paymentRequests.set(id, pr);
    if (outcome.kind === 'succeeded') this.finish(pr, 'SUCCEEDED');
    else if (outcome.kind === 'failed') {
      if (outcome.reason === 'expired' && m.body.status === 'ACTIVE')
        Object.assign(m.body, { status: 'EXPIRED', updated: at });
      if (outcome.reason === 'revoked' && m.body.status === 'ACTIVE')
        Object.assign(m.body, { status: 'INACTIVE', updated: at });
      this.finish(pr, 'FAILED', failureCodeA(outcome.reason, m.body.type));
    } else if (outcome.kind === 'requires_action') {
      Object.assign(pr, {
        status: 'REQUIRES_ACTION',
        actions: [{ action: 'AUTH', url: `${this.url}/sim/action/${id}`, url_type: 'WEB', method: 'GET' }],
      });
    } else this.later(this.offSession.delayMs, () => pr.status === 'PENDING' && this.finish(pr, 'SUCCEEDED'));
    const out: SimResponse = { status: 201, body: publicPr(pr) };
    this.prReplays.set(key, out);
    return shouldDrop(this.offSession) ? { ...out, drop: true } : out;
  }

  /**
   * PAY_AND_SAVE: a payment request with an inline MULTIPLE_USE `payment_method` (checkout with consent).
   * The method is created waiting for the customer (the hosted card or linking page); once it
   * activates there, the payment settles by the scenario of the number typed (settleMethod).
   */
  private payAndSave(r: SimRequest, key: string): SimResponse {
    const b = r.json;
    const made = this.createMethod({ ...r, json: { ...b.payment_method, customer: b.customer ?? null } });
    if (made.status !== 201) return made;
    const m = this.methods.get((made.body as any).id)!;
    this.charges.record(key, b.reference_id);
    const id = `pr-${uuid()}`;
    const at = nowIso();
    const action = `pali-${hex(16)}`;
    this.actionIds.set(action, m.body.id);
    const pr: any = {
      id,
      business_id: BUSINESS_ID,
      reference_id: b.reference_id,
      amount: b.amount,
      currency: b.currency,
      country: 'ID',
      description: b.description ?? null,
      capture_method: b.capture_method ?? 'AUTOMATIC',
      initiator: null,
      payment_method: { ...structuredClone(m.body), actions: undefined },
      status: 'REQUIRES_ACTION',
      actions: [{ action: 'AUTH', url: `${this.url}/sim/tokenize/${action}`, url_type: 'WEB', method: 'GET' }],
      failure_code: null,
      metadata: b.metadata ?? null,
      created: at,
      updated: at,
      _paymentId: `py-${uuid()}`,
    };
    this.paymentRequests.set(id, pr);
    const out: SimResponse = { status: 201, body: publicPr(pr) };
    this.prReplays.set(key, out);
    return out;
  }

  /** The PAY_AND_SAVE request waiting on method `m`, settled once the method activates or fails. */
  private settlePayAndSave(m: { body: any; scenario: Scenario }) {
    const pr = [...this.paymentRequests.values()].find(
      (p) => p.status === 'REQUIRES_ACTION' && p.payment_method?.id === m.body.id && p.initiator === null,
    );
    if (!pr) return;
    pr.payment_method = { ...structuredClone(m.body), actions: undefined };
    if (m.body.status !== 'ACTIVE') return void this.finish(pr, 'FAILED', m.body.failure_code ?? 'DECLINED_BY_ISSUER');
    // The first payment answers the card's charge scenario (0341 declines, 9995 lacks funds); 3DS was the setup's.
    const outcome = outcomeOf(m.scenario, pr.amount, 'active');
    if (outcome.kind === 'failed') return void this.finish(pr, 'FAILED', failureCodeA(outcome.reason, m.body.type));
    void this.finish(pr, 'SUCCEEDED');
  }

  private listPaymentRequests(referenceId: string | null): SimResponse {
    const data = [...this.paymentRequests.values()]
      .filter((p) => !referenceId || p.reference_id === referenceId)
      .map(publicPr);
    return { status: 200, body: { data, has_more: false } };
  }

  /** Settles a payment request and sends `payment.succeeded` / `payment.failed`. */
  private finish(pr: any, status: 'SUCCEEDED' | 'FAILED', failureCode?: string, opts: DeliveryOptions = {}) {
    Object.assign(pr, { status, actions: [], failure_code: failureCode ?? null, updated: nowIso() });
    const data = {
      id: pr._paymentId,
      payment_request_id: pr.id,
      reference_id: pr.reference_id,
      business_id: BUSINESS_ID,
      status,
      amount: pr.amount,
      currency: pr.currency,
      country: 'ID',
      payment_method: pr.payment_method,
      failure_code: pr.failure_code,
      created: pr.created,
      updated: pr.updated,
    };
    return this.callback(
      {
        event: status === 'SUCCEEDED' ? 'payment.succeeded' : 'payment.failed',
        business_id: BUSINESS_ID,
        created: nowIso(),
        data,
      },
      { ...deliveryOf(this.offSession), ...opts },
    );
  }

  private paymentRequest(ref: string): any {
    const id = ref.startsWith('payment_request:') ? ref.slice('payment_request:'.length) : ref;
    const pr = this.paymentRequests.get(id) ?? [...this.paymentRequests.values()].find((p) => p.reference_id === ref);
    if (!pr) throw new Error(`simulator: no payment request ${ref}`);
    return pr;
  }

  /** The customer finishes (or fails) the action a REQUIRES_ACTION charge waits for; by pr id or our reference. */
  completeAction(ref: string, ok: boolean, opts: DeliveryOptions = {}): Promise<Delivery[]> {
    const pr = this.paymentRequest(ref);
    if (pr.status !== 'REQUIRES_ACTION') return Promise.resolve([]);
    return this.finish(pr, ok ? 'SUCCEEDED' : 'FAILED', ok ? undefined : 'AUTHENTICATION_FAILED', opts);
  }

  private createDisbursement(r: SimRequest): SimResponse {
    const b = r.json;
    if (
      !this.amountOk(b.amount) ||
      typeof b.bank_code !== 'string' ||
      typeof b.account_number !== 'string' ||
      typeof b.account_holder_name !== 'string'
    ) {
      return err(400, 'API_VALIDATION_ERROR', 'amount, bank_code, account_number and account_holder_name are required');
    }
    const d = {
      id: `disb-${hex(12)}`,
      user_id: BUSINESS_ID,
      external_id: b.external_id,
      amount: b.amount,
      bank_code: b.bank_code,
      account_number: b.account_number,
      account_holder_name: b.account_holder_name,
      disbursement_description: b.description,
      status: 'PENDING',
      failure_code: null,
      created: nowIso(),
      updated: nowIso(),
    };
    this.disbursements.set(d.id, d);
    return { status: 200, body: d };
  }

  /** The bank answers a disbursement (read back by the status GET; no callback here). */
  settleDisbursement(id: string, outcome: 'COMPLETED' | 'FAILED') {
    const d = this.disbursements.get(id);
    if (!d) throw new Error(`simulator: no disbursement ${id}`);
    Object.assign(d, {
      status: outcome,
      updated: nowIso(),
      ...(outcome === 'FAILED' ? { failure_code: 'INVALID_DESTINATION' } : {}),
    });
  }

  private show(product: Product, id: string): SimResponse {
    const rec = this.records.get(id);
    return rec && rec.product === product
      ? { status: 200, body: rec.body }
      : err(404, 'DATA_NOT_FOUND', `${product} ${id} not found`);
  }

  private payments(product: Product, id: string): SimResponse {
    const rec = this.records.get(id);
    return rec && rec.product === product
      ? { status: 200, body: { data: rec.payments, has_more: false, links: [] } }
      : err(404, 'DATA_NOT_FOUND', 'not found');
  }

  private vaPayment(paymentId: string): SimResponse {
    for (const rec of this.records.values()) {
      const p = rec.product === 'va' && rec.payments.find((x) => x.payment_id === paymentId);
      if (p) return { status: 200, body: p };
    }
    return err(404, 'CALLBACK_VIRTUAL_ACCOUNT_PAYMENT_NOT_FOUND_ERROR', 'payment not found');
  }

  // ---- controls: change state, then send the provider's real callback ----

  private find(ref: string): Record_ {
    const id = ref.includes(':') ? ref.slice(ref.indexOf(':') + 1) : ref;
    const rec = this.records.get(id);
    if (!rec) throw new Error(`simulator: no charge ${ref}`);
    return rec;
  }

  /** The buyer pays in full (or `amount`). */
  pay(ref: string, opts: DeliveryOptions & { amount?: number } = {}): Promise<Delivery[]> {
    const rec = this.find(ref);
    const b = rec.body;
    const at = nowIso();
    switch (rec.product) {
      case 'qris': {
        const payment = {
          id: `qrpy_${uuid()}`,
          business_id: BUSINESS_ID,
          currency: b.currency,
          amount: opts.amount ?? b.amount,
          status: 'SUCCEEDED',
          created: at,
          qr_id: b.id,
          qr_string: b.qr_string,
          reference_id: b.reference_id,
          type: b.type,
          channel_code: b.channel_code,
          expires_at: b.expires_at,
          metadata: b.metadata,
          payment_detail: { receipt_id: hex(6), source: 'DANA', name: 'Budi', account_details: null },
        };
        rec.payments.push(payment);
        b.status = 'INACTIVE';
        return this.callback(
          { event: 'qr.payment', api_version: '2022-07-31', business_id: BUSINESS_ID, created: at, data: payment },
          opts,
        );
      }
      case 'va': {
        const payment = {
          id: uuid(),
          payment_id: hex(12),
          callback_virtual_account_id: b.id,
          owner_id: BUSINESS_ID,
          external_id: b.external_id,
          account_number: b.account_number,
          bank_code: b.bank_code,
          amount: opts.amount ?? b.expected_amount,
          merchant_code: b.merchant_code,
          transaction_timestamp: at,
          currency: 'IDR',
          sender_name: 'BUDI SANTOSO',
          created: at,
          updated: at,
        };
        rec.payments.push(payment);
        if (b.is_single_use) b.status = 'INACTIVE';
        return this.callback(payment, opts);
      }
      case 'ewallet':
        Object.assign(b, { status: 'SUCCEEDED', capture_amount: opts.amount ?? b.charge_amount, updated: at });
        return this.callback({ event: 'ewallet.capture', business_id: BUSINESS_ID, created: at, data: { ...b } }, opts);
      case 'retail': {
        const payment = {
          id: uuid(),
          fixed_payment_code_payment_id: hex(12),
          fixed_payment_code_id: b.id,
          owner_id: BUSINESS_ID,
          external_id: b.external_id,
          retail_outlet_name: b.retail_outlet_name,
          prefix: b.prefix,
          payment_code: b.payment_code,
          name: b.name,
          amount: opts.amount ?? b.expected_amount,
          status: 'COMPLETED',
          transaction_timestamp: at,
          payment_id: hex(12),
          created: at,
          updated: at,
        };
        rec.payments.push(payment);
        if (b.is_single_use) b.status = 'INACTIVE';
        return this.callback(payment, opts);
      }
      case 'invoice':
        Object.assign(b, {
          status: 'PAID',
          paid_amount: opts.amount ?? b.amount,
          paid_at: at,
          payment_method: 'CREDIT_CARD',
          payment_channel: 'CREDIT_CARD',
          payment_id: hex(12),
          updated: at,
        });
        return this.callback(invoiceCallback(b), opts);
    }
  }

  /** The charge runs out. QR codes and payment codes expire silently; invoices and VAs call back. */
  expire(ref: string, opts: DeliveryOptions = {}): Promise<Delivery[]> {
    const rec = this.find(ref);
    const b = rec.body;
    const past = new Date(Date.now() - 1000).toISOString();
    switch (rec.product) {
      case 'qris':
        Object.assign(b, { status: 'INACTIVE', expires_at: past });
        return Promise.resolve([]);
      case 'retail':
        Object.assign(b, { status: 'INACTIVE', expiration_date: past });
        return Promise.resolve([]);
      case 'va':
        Object.assign(b, { status: 'INACTIVE', expiration_date: past, updated: nowIso() });
        return this.callback({ ...b }, opts);
      case 'ewallet':
        Object.assign(b, { status: 'FAILED', failure_code: 'PAYMENT_EXPIRED', updated: nowIso() });
        return this.callback(
          { event: 'ewallet.capture', business_id: BUSINESS_ID, created: nowIso(), data: { ...b } },
          opts,
        );
      case 'invoice':
        Object.assign(b, { status: 'EXPIRED', updated: nowIso() });
        return this.callback(invoiceCallback(b), opts);
    }
  }

  /** The payment fails (e-wallets only: the others have no failure callback). */
  fail(ref: string, opts: DeliveryOptions = {}): Promise<Delivery[]> {
    const rec = this.find(ref);
    if (rec.product !== 'ewallet') throw new Error(`simulator: ${rec.product} payments do not fail by callback`);
    Object.assign(rec.body, { status: 'FAILED', failure_code: 'INSUFFICIENT_BALANCE', updated: nowIso() });
    return this.callback(
      { event: 'ewallet.capture', business_id: BUSINESS_ID, created: nowIso(), data: { ...rec.body } },
      opts,
    );
  }

  /** The refund settles, by callback. */
  settleRefund(id: string, outcome: 'SUCCEEDED' | 'FAILED', opts: DeliveryOptions = {}): Promise<Delivery[]> {
    const r = this.refunds.get(id);
    if (!r) throw new Error(`simulator: no refund ${id}`);
    Object.assign(r, {
      status: outcome,
      updated: nowIso(),
      ...(outcome === 'FAILED' ? { failure_code: 'REFUND_FAILED' } : {}),
    });
    return this.callback(
      {
        event: outcome === 'SUCCEEDED' ? 'refund.succeeded' : 'refund.failed',
        business_id: BUSINESS_ID,
        created: nowIso(),
        data: { ...r },
      },
      opts,
    );
  }

  private callback(body: unknown, opts: DeliveryOptions): Promise<Delivery[]> {
    const token = opts.forge ? `forged-${hex(8)}` : this.opts.callbackToken;
    return this.deliver(
      this.callbackUrl,
      () => ({ 'x-callback-token': token, 'webhook-id': uuid() }),
      JSON.stringify(body),
      opts,
    );
  }
}

/** The provider's failure code for each reason of the scenario table. */
function failureCodeA(reason: FailReason, type: string): string {
  switch (reason) {
    case 'declined':
      return type === 'CARD' ? 'CARD_DECLINED' : 'DECLINED_BY_ISSUER';
    case 'insufficient_funds':
      return 'INSUFFICIENT_BALANCE';
    case 'limit_exceeded':
      return 'MAX_AMOUNT_LIMIT_ERROR';
    case 'account_blocked':
      return 'ACCOUNT_ACCESS_BLOCKED';
    case 'expired':
      return type === 'CARD' ? 'EXPIRED_CARD' : 'PAYMENT_METHOD_EXPIRED';
    case 'revoked':
      return 'PAYMENT_METHOD_INACTIVE';
  }
}

function publicPr(pr: any) {
  const { _paymentId, ...rest } = pr;
  void _paymentId;
  return structuredClone(rest);
}

function invoiceCallback(b: any) {
  return {
    id: b.id,
    external_id: b.external_id,
    user_id: b.user_id,
    is_high: false,
    payment_method: b.payment_method ?? null,
    status: b.status,
    merchant_name: b.merchant_name,
    amount: b.amount,
    paid_amount: b.paid_amount ?? null,
    paid_at: b.paid_at ?? null,
    currency: b.currency,
    payment_channel: b.payment_channel ?? null,
    payment_id: b.payment_id ?? null,
    description: b.description,
    created: b.created,
    updated: b.updated,
  };
}
