// provider_a: Xendit-style. Basic auth (secret key, empty password); one product endpoint per
// method; callbacks carry the account's static `x-callback-token`, which proves origin but not
// freshness, so callers dedupe on the payment id and confirm with a GET (fetchStatus).
import { clock as systemClock } from '../core/clock.ts';
import { safeEqual, sha256Hex } from '../core/crypto.ts';
import { CallbackVerificationError, ProviderError } from './errors.ts';
import { basicAuth, failure, headerOf, parseCallbackJson, ProviderHttp, type HttpResponse } from './http.ts';
import { fundingOf, maskAccount, maskPhone, needSavable, refuseSandboxToken } from './saved.ts';
import type {
  OffSessionChargeInput,
  OffSessionResult,
  SavedMethodDisplay,
  SavedMethodType,
  SetupResult,
  SetupState,
  SetupStatus,
  TokenStatus,
  CreateSetupInput,
  CallbackEvent,
  CallbackRequest,
  Charge,
  ChargeRef,
  ChargeState,
  ChargeStatus,
  CreateChargeInput,
  Instructions,
  PaymentMethod,
  Provider,
  ProviderACredentials,
  ProviderOptions,
  RefundInput,
  RefundResult,
  RefundStatus,
} from './types.ts';

export const PROVIDER_A_BASE_URL = 'https://api.xendit.co';
const QR_API_VERSION = '2022-07-31';

/** Our channel words to the provider's codes; the first entry is the default. */
export const providerAChannels = {
  va: { bca: 'BCA', bni: 'BNI', bri: 'BRI', mandiri: 'MANDIRI', permata: 'PERMATA', bsi: 'BSI', cimb: 'CIMB' },
  ewallet: { dana: 'ID_DANA', shopeepay: 'ID_SHOPEEPAY', linkaja: 'ID_LINKAJA', astrapay: 'ID_ASTRAPAY' },
  retail: { alfamart: 'ALFAMART', indomaret: 'INDOMARET' },
} as const;

/** Saved methods (`POST /v2/payment_methods`, MULTIPLE_USE): our words to the provider's channel codes. */
export const providerASavedChannels = {
  ewallet: { ovo: 'OVO', dana: 'DANA', shopeepay: 'SHOPEEPAY', linkaja: 'LINKAJA' },
  direct_debit: { bri: 'BRI', mandiri: 'MANDIRI', bca: 'BCA_ONEKLIK', bni: 'BNI' },
} as const;
const SAVABLE: SavedMethodType[] = ['card', 'ewallet', 'direct_debit'];
const PM_TYPES = { card: 'CARD', ewallet: 'EWALLET', direct_debit: 'DIRECT_DEBIT' } as const;

/**
 * `providerRef` is `<product>:<provider id>`: the product decides which endpoint confirms it.
 * Off-session charges are payment requests (`payment_request:pr-...`).
 */
type Product = 'qris' | 'va' | 'ewallet' | 'retail' | 'invoice' | 'payment_request';
const METHODS: readonly PaymentMethod[] = ['qris', 'va', 'ewallet', 'retail', 'card'];

export class ProviderA implements Provider {
  readonly kind = 'provider_a' as const;
  private readonly http: ProviderHttp;
  private readonly clock;

  constructor(
    private readonly credentials: ProviderACredentials,
    options: ProviderOptions = {},
  ) {
    this.http = new ProviderHttp('provider_a', options.baseUrl ?? PROVIDER_A_BASE_URL, options);
    this.clock = options.clock ?? systemClock;
  }

  supports(method: PaymentMethod, currency: string): boolean {
    return currency === 'IDR' && METHODS.includes(method);
  }

  async createCharge(input: CreateChargeInput): Promise<Charge> {
    if (!this.supports(input.method, input.currency)) {
      throw new ProviderError(this.kind, 'unsupported', `cannot take ${input.method} in ${input.currency}`);
    }
    if (input.saveForFutureUse && payAndSaveType(input)) return this.payAndSave(input);
    const expiresAt = input.expiresAt.toISOString();
    const name = displayName(input.customer?.name);
    switch (input.method) {
      case 'qris': {
        const qr = await this.post(
          'create QR code',
          '/qr_codes',
          input.idempotencyKey,
          {
            reference_id: input.reference,
            type: 'DYNAMIC',
            currency: input.currency,
            amount: input.amount,
            expires_at: expiresAt,
            metadata: { reference: input.reference },
          },
          { 'api-version': QR_API_VERSION },
        );
        need(qr.qr_string, 'qr_string');
        return charge('qris', qr, { kind: 'qr', qrString: qr.qr_string, expiresAt: qr.expires_at ?? expiresAt });
      }
      case 'va': {
        const bank = channelCode('va', input.channel);
        const va = await this.post('create virtual account', '/callback_virtual_accounts', input.idempotencyKey, {
          external_id: input.reference,
          bank_code: bank,
          name,
          is_closed: true,
          expected_amount: input.amount,
          is_single_use: true,
          expiration_date: expiresAt,
        });
        need(va.account_number, 'account_number');
        return charge('va', va, {
          kind: 'va',
          bankCode: va.bank_code ?? bank,
          vaNumber: va.account_number,
          accountName: va.name ?? name,
          billerCode: null,
          expiresAt: va.expiration_date ?? expiresAt,
        });
      }
      case 'ewallet': {
        const wallet = channelCode('ewallet', input.channel);
        const ew = await this.post('create e-wallet charge', '/ewallets/charges', input.idempotencyKey, {
          reference_id: input.reference,
          currency: input.currency,
          amount: input.amount,
          checkout_method: 'ONE_TIME_PAYMENT',
          channel_code: wallet,
          channel_properties: {
            success_redirect_url: input.successUrl,
            ...(input.cancelUrl ? { failure_redirect_url: input.cancelUrl } : {}),
          },
          metadata: { reference: input.reference },
        });
        const a = ew.actions ?? {};
        const url = a.desktop_web_checkout_url ?? a.mobile_web_checkout_url ?? a.mobile_deeplink_checkout_url;
        need(url, 'actions.*_checkout_url');
        return charge('ewallet', ew, {
          kind: 'redirect',
          redirectUrl: url,
          qrString: a.qr_checkout_string ?? null,
          expiresAt,
        });
      }
      case 'retail': {
        const outlet = channelCode('retail', input.channel);
        const fpc = await this.post('create payment code', '/fixed_payment_code', input.idempotencyKey, {
          external_id: input.reference,
          retail_outlet_name: outlet,
          name,
          expected_amount: input.amount,
          is_single_use: true,
          expiration_date: expiresAt,
        });
        need(fpc.payment_code, 'payment_code');
        return charge('retail', fpc, {
          kind: 'retail',
          outlet: fpc.retail_outlet_name ?? outlet,
          paymentCode: fpc.payment_code,
          expiresAt: fpc.expiration_date ?? expiresAt,
        });
      }
      case 'card': {
        const seconds = Math.max(1, Math.floor((input.expiresAt.getTime() - this.clock.now().getTime()) / 1000));
        const c = input.customer ?? {};
        const inv = await this.post('create invoice', '/v2/invoices', input.idempotencyKey, {
          external_id: input.reference,
          amount: input.amount,
          currency: input.currency,
          description: input.description ?? input.reference,
          invoice_duration: seconds,
          payment_methods: ['CREDIT_CARD'],
          success_redirect_url: input.successUrl,
          ...(input.cancelUrl ? { failure_redirect_url: input.cancelUrl } : {}),
          ...(c.email ? { payer_email: c.email } : {}),
          ...(c.name || c.email || c.phone
            ? {
                customer: {
                  ...(c.name ? { given_names: c.name } : {}),
                  ...(c.email ? { email: c.email } : {}),
                  ...(c.phone ? { mobile_number: c.phone } : {}),
                },
              }
            : {}),
        });
        need(inv.invoice_url, 'invoice_url');
        return charge('invoice', inv, {
          kind: 'redirect',
          redirectUrl: inv.invoice_url,
          expiresAt: inv.expiry_date ?? expiresAt,
        });
      }
      default:
        throw new ProviderError(this.kind, 'unsupported', `cannot take ${input.method}`);
    }
  }

  /**
   * A payment that also saves the method (docs/providers.md, Saving at checkout): one `POST /payment_requests`
   * whose inline `payment_method` is MULTIPLE_USE (Xendit's PAY_AND_SAVE). The customer pays on the
   * provider's page (card form, wallet linking); once paid, `fetchStatus` carries the new token.
   */
  private async payAndSave(input: CreateChargeInput): Promise<Charge> {
    const type = payAndSaveType(input)!;
    const urls = {
      success_return_url: input.successUrl,
      failure_return_url: input.cancelUrl ?? input.successUrl,
      ...(input.cancelUrl ? { cancel_return_url: input.cancelUrl } : {}),
    };
    const c = input.customer ?? {};
    const pr = await this.post('create payment request', '/payment_requests', input.idempotencyKey, {
      reference_id: input.reference,
      amount: input.amount,
      currency: input.currency,
      country: 'ID',
      capture_method: 'AUTOMATIC',
      description: (input.description ?? input.reference).slice(0, 255),
      payment_method: {
        type: PM_TYPES[type],
        reusability: 'MULTIPLE_USE',
        reference_id: input.reference,
        ...(type === 'ewallet'
          ? { ewallet: { channel_code: savedChannel('ewallet', input.channel ?? 'dana'), channel_properties: urls } }
          : { card: { currency: input.currency, channel_properties: { ...urls, skip_three_d_secure: false } } }),
      },
      ...(input.customerId || c.email
        ? {
            customer: {
              reference_id: input.customerId ?? input.reference,
              type: 'INDIVIDUAL',
              individual_detail: { given_names: displayName(c.name) },
              ...(c.email ? { email: c.email } : {}),
            },
          }
        : {}),
      metadata: { reference: input.reference },
    });
    const action = pmAction(pr);
    need(action?.url, 'actions[].url');
    return charge('payment_request', withoutToken(pr), {
      kind: 'redirect',
      redirectUrl: action.url,
      expiresAt: input.expiresAt.toISOString(),
    });
  }

  async verifyCallback(request: CallbackRequest): Promise<CallbackEvent> {
    const expected = this.credentials.callbackToken;
    if (!expected) throw new CallbackVerificationError(this.kind, 'not_configured', 'no callback token is configured');
    const token = headerOf(request.headers, 'x-callback-token');
    if (!token) throw new CallbackVerificationError(this.kind, 'missing', 'x-callback-token header is missing');
    // Hash first so the comparison takes the same time whatever the lengths.
    if (!safeEqual(sha256Hex(token), sha256Hex(expected)))
      throw new CallbackVerificationError(this.kind, 'mismatch', 'x-callback-token does not match');
    const body = parseCallbackJson(this.kind, request.rawBody);
    return mapCallback(body);
  }

  async fetchStatus(ref: ChargeRef): Promise<ChargeState> {
    const [product, id] = splitRef(ref.providerRef);
    const now = this.clock.now().getTime();
    const expired = (iso: unknown) => typeof iso === 'string' && Date.parse(iso) <= now;
    switch (product) {
      case 'qris': {
        const v = { 'api-version': QR_API_VERSION };
        const payments = await this.get('list QR payments', `/qr_codes/${enc(id)}/payments`, v);
        const paid = (payments.data ?? []).find((p: any) => p.status === 'SUCCEEDED');
        if (paid) return state(ref, 'paid', paid.amount, paid.currency, paid, paid.id, paid.created);
        const qr = await this.get('get QR code', `/qr_codes/${enc(id)}`, v);
        const status: ChargeStatus = qr.status === 'ACTIVE' && !expired(qr.expires_at) ? 'pending' : 'expired';
        return state(ref, status, qr.amount, qr.currency, qr);
      }
      case 'va': {
        if (ref.providerPaymentId) {
          const p = await this.get(
            'get VA payment',
            `/callback_virtual_account_payments/payment_id=${enc(ref.providerPaymentId)}`,
            {},
            true,
          );
          if (p && p.callback_virtual_account_id === id)
            return state(ref, 'paid', p.amount, p.currency ?? 'IDR', p, p.payment_id, p.transaction_timestamp);
        }
        const va = await this.get('get virtual account', `/callback_virtual_accounts/${enc(id)}`);
        // A single-use VA also turns INACTIVE once paid: without the payment id, only expiry is certain.
        return state(
          ref,
          expired(va.expiration_date) ? 'expired' : 'pending',
          va.expected_amount,
          va.currency ?? 'IDR',
          va,
        );
      }
      case 'ewallet': {
        const ew = await this.get('get e-wallet charge', `/ewallets/charges/${enc(id)}`);
        return state(
          ref,
          ewalletStatus(ew.status),
          ew.capture_amount ?? ew.charge_amount,
          ew.currency,
          ew,
          ew.id,
          ew.status === 'SUCCEEDED' ? ew.updated : null,
        );
      }
      case 'retail': {
        const payments = await this.get('list payment-code payments', `/fixed_payment_code/${enc(id)}/payments`);
        const paid = (payments.data ?? []).find((p: any) => p.status === 'COMPLETED' || p.status === 'SETTLED');
        if (paid)
          return state(
            ref,
            'paid',
            paid.amount,
            paid.currency ?? 'IDR',
            paid,
            paid.payment_id ?? paid.id,
            paid.transaction_timestamp,
          );
        const fpc = await this.get('get payment code', `/fixed_payment_code/${enc(id)}`);
        return state(
          ref,
          expired(fpc.expiration_date) ? 'expired' : 'pending',
          fpc.expected_amount,
          fpc.currency ?? 'IDR',
          fpc,
        );
      }
      case 'payment_request': {
        const pr = await this.get('get payment request', `/payment_requests/${enc(id)}`);
        const status: ChargeStatus =
          pr.status === 'SUCCEEDED'
            ? 'paid'
            : ['FAILED', 'CANCELED', 'VOIDED', 'EXPIRED'].includes(pr.status)
              ? 'failed'
              : 'pending';
        const paid = state(
          ref,
          status,
          pr.amount,
          pr.currency,
          withoutToken(pr),
          pr.id,
          status === 'paid' ? pr.updated : null,
        );
        // A paid PAY_AND_SAVE request left a reusable method: its id is the token (read for its display fields).
        const pm = pr.payment_method;
        if (status !== 'paid' || pm?.reusability !== 'MULTIPLE_USE' || typeof pm.id !== 'string') return paid;
        const method = await this.get('get payment method', `/v2/payment_methods/${enc(pm.id)}`, {}, true);
        if (!method || method.status !== 'ACTIVE' || !(method.type in SAVED_TYPES)) return paid;
        return {
          ...paid,
          savedMethod: { token: method.id, type: SAVED_TYPES[method.type], display: displayOf(method) },
        };
      }
      case 'invoice': {
        const inv = await this.get('get invoice', `/v2/invoices/${enc(id)}`);
        return state(
          ref,
          invoiceStatus(inv.status),
          inv.paid_amount ?? inv.amount,
          inv.currency,
          inv,
          inv.id,
          inv.paid_at ?? null,
        );
      }
    }
  }

  /**
   * Withdraws an unpaid charge: a VA or payment code is updated to expire now, an invoice is
   * expired (`POST /invoices/{id}/expire!`). QR codes and e-wallet charges have no such call: they
   * stay until they expire (false).
   */
  async voidCharge(ref: ChargeRef): Promise<boolean> {
    const [product, id] = splitRef(ref.providerRef);
    const now = { expiration_date: this.clock.now().toISOString() };
    const call = async (method: 'PATCH' | 'POST', path: string, body?: unknown) => {
      const res = await this.http.request({
        method,
        path,
        headers: this.headers(),
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      if (res.status === 404 || (res.status >= 400 && res.status < 500 && res.status !== 401 && res.status !== 403))
        return false;
      this.ok('void charge', res);
      return true;
    };
    switch (product) {
      case 'va':
        return call('PATCH', `/callback_virtual_accounts/${enc(id)}`, now);
      case 'retail':
        return call('PATCH', `/fixed_payment_code/${enc(id)}`, now);
      case 'invoice':
        return call('POST', `/invoices/${enc(id)}/expire!`);
      default:
        return false;
    }
  }

  async refund(input: RefundInput): Promise<RefundResult> {
    const [product, id] = splitRef(input.providerRef);
    if (product === 'payment_request') {
      const r = await this.post('create refund', '/refunds', input.idempotencyKey, {
        payment_request_id: id,
        reference_id: input.idempotencyKey,
        amount: input.amount,
        currency: input.currency,
        reason: refundReason(input.reason),
      });
      need(r.id, 'id');
      return { providerRefundId: r.id, status: refundStatus(r.status), raw: r };
    }
    // Bank transfers (VA, retail) are not refundable through the API; QRIS refunds depend on the issuer.
    if (product !== 'invoice')
      throw new ProviderError(this.kind, 'unsupported', `${product} payments cannot be refunded through the API`);
    const r = await this.post('create refund', '/refunds', input.idempotencyKey, {
      invoice_id: id,
      reference_id: input.idempotencyKey,
      amount: input.amount,
      currency: input.currency,
      reason: refundReason(input.reason),
    });
    need(r.id, 'id');
    return { providerRefundId: r.id, status: refundStatus(r.status), raw: r };
  }

  // ---- saved methods and off-session charges (docs/providers.md, Saved methods) ----

  savableTypes(currency: string): SavedMethodType[] {
    return currency === 'IDR' ? [...SAVABLE] : [];
  }

  /**
   * `POST /v2/payment_methods`, reusability MULTIPLE_USE. E-wallets and cards answer a provider page
   * to visit (linking, the hosted card form); direct debit waits for the OTP sent to the customer
   * (`confirmSetup`).
   */
  async createSetup(input: CreateSetupInput): Promise<SetupResult> {
    needSavable(this.kind, this.savableTypes(input.currency), input.type, input.currency);
    const urls = {
      success_return_url: input.returnUrl,
      failure_return_url: input.cancelUrl,
      cancel_return_url: input.cancelUrl,
    };
    const c = input.customer;
    const body: Record<string, unknown> = {
      type: PM_TYPES[input.type as keyof typeof PM_TYPES],
      reusability: 'MULTIPLE_USE',
      reference_id: input.reference,
      customer: {
        reference_id: c.id,
        type: 'INDIVIDUAL',
        individual_detail: { given_names: displayName(c.name) },
        ...(c.email ? { email: c.email } : {}),
        ...(c.phone ? { mobile_number: c.phone } : {}),
      },
      metadata: { reference: input.reference },
    };
    if (input.type === 'ewallet') {
      body.ewallet = {
        channel_code: savedChannel('ewallet', input.channel),
        channel_properties: { ...urls, ...(input.account ? { mobile_number: input.account } : {}) },
      };
    } else if (input.type === 'direct_debit') {
      if (!input.account)
        throw new ProviderError(this.kind, 'unsupported', 'direct debit needs the account (mobile number)');
      body.direct_debit = {
        channel_code: savedChannel('direct_debit', input.channel),
        channel_properties: { ...urls, mobile_number: input.account },
      };
    } else {
      body.card = { currency: input.currency, channel_properties: { ...urls, skip_three_d_secure: false } };
    }
    const pm = await this.post('create payment method', '/v2/payment_methods', input.idempotencyKey, body);
    need(pm.id, 'id');
    const status = setupStatus(pm.status);
    const action = pmAction(pm);
    return {
      providerRef: pm.id,
      status,
      instructions:
        status !== 'pending'
          ? null
          : action?.url_type === 'API'
            ? { kind: 'otp' }
            : action
              ? { kind: 'redirect', redirectUrl: action.url }
              : null,
      raw: pm,
    };
  }

  /** Direct debit: `POST /v2/payment_methods/{id}/auth` with the OTP. A wrong OTP answers `failed` `invalid_otp`. */
  async confirmSetup(ref: string, input: { otp?: string; idempotencyKey: string }): Promise<SetupState> {
    if (!input.otp) throw new ProviderError(this.kind, 'unsupported', 'confirming a payment method needs the OTP');
    try {
      const pm = await this.post(
        'authorise payment method',
        `/v2/payment_methods/${enc(ref)}/auth`,
        input.idempotencyKey,
        {
          auth_code: input.otp,
        },
      );
      return setupState(pm);
    } catch (e) {
      if (e instanceof ProviderError && e.reason === 'rejected' && e.providerCode === 'INVALID_OTP_ERROR') {
        const now = await this.fetchSetup(ref);
        return { ...now, status: now.status === 'active' ? 'active' : 'failed', failureCode: 'invalid_otp' };
      }
      throw e;
    }
  }

  /** `GET /v2/payment_methods/{id}`: ACTIVE is the token (the payment method id itself). */
  async fetchSetup(ref: string): Promise<SetupState> {
    return setupState(await this.get('get payment method', `/v2/payment_methods/${enc(ref)}`));
  }

  /** `GET /v2/payment_methods/{id}`: `ACTIVE`, `EXPIRED`, `INACTIVE` revoked; unknown to the provider is gone. */
  async fetchTokenStatus(tokenRef: string): Promise<TokenStatus> {
    const pm = await this.get('get payment method', `/v2/payment_methods/${enc(tokenRef)}`, {}, true);
    if (!pm) return 'revoked';
    return pm.status === 'ACTIVE'
      ? 'active'
      : pm.status === 'EXPIRED'
        ? 'expired'
        : pm.status === 'INACTIVE'
          ? 'revoked'
          : 'unknown';
  }

  /**
   * `POST /payment_requests` with `payment_method_id`, merchant-initiated, `Idempotency-key` = our key:
   * the same key answers the same payment request and never charges twice.
   */
  async chargeOffSession(input: OffSessionChargeInput): Promise<OffSessionResult> {
    refuseSandboxToken(this.kind, input.token);
    const pr = await this.post('create payment request', '/payment_requests', input.idempotencyKey, {
      reference_id: input.reference,
      amount: input.amount,
      currency: input.currency,
      payment_method_id: input.token,
      initiator: 'MERCHANT',
      capture_method: 'AUTOMATIC',
      ...(input.description ? { description: input.description.slice(0, 255) } : {}),
      metadata: { reference: input.reference },
    });
    need(pr.id, 'id');
    return offSessionResult(pr, input.type);
  }

  /**
   * `GET /payment_requests/{id}`; without a `providerRef` (the answer was lost) by our reference,
   * `GET /payment_requests?reference_id=`. null when the provider has none.
   */
  async fetchOffSession(ref: { providerRef?: string | null; reference: string; idempotencyKey: string }) {
    if (ref.providerRef) {
      const [, id] = splitRef(ref.providerRef);
      const pr = await this.get('get payment request', `/payment_requests/${enc(id)}`, {}, true);
      return pr ? offSessionResult(pr) : null;
    }
    const list = await this.get('list payment requests', `/payment_requests?reference_id=${enc(ref.reference)}`);
    const found = (Array.isArray(list.data) ? list.data : []).filter((p: any) => p?.reference_id === ref.reference);
    // One key makes one request; should several exist, a succeeded one is the truth about money.
    const pr = found.find((p: any) => p.status === 'SUCCEEDED') ?? found.at(-1);
    return pr ? offSessionResult(pr) : null;
  }

  /** `POST /v2/payment_methods/{id}/expire`; one already expired or unknown is gone too. */
  async detachToken(token: string): Promise<boolean> {
    refuseSandboxToken(this.kind, token);
    const res = await this.http.request({
      method: 'POST',
      path: `/v2/payment_methods/${enc(token)}/expire`,
      headers: this.headers({ 'idempotency-key': `expire-${token}`.slice(0, 64) }),
      body: '{}',
    });
    if (res.status === 404) return true;
    if (res.status >= 400 && res.status < 500 && res.status !== 401 && res.status !== 403) {
      const pm = await this.get('get payment method', `/v2/payment_methods/${enc(token)}`, {}, true);
      if (!pm || ['EXPIRED', 'INACTIVE', 'FAILED'].includes(pm.status)) return true;
    }
    const pm = this.ok('expire payment method', res);
    return ['EXPIRED', 'INACTIVE'].includes(pm.status);
  }

  // ---- disbursements (payout rail `provider_a_disbursement`) ----

  /** Sends money to a bank account; settles later (COMPLETED or FAILED). Idempotent per key. */
  async disburse(input: DisbursementInput): Promise<Disbursement> {
    const d = await this.post('create disbursement', '/disbursements', input.idempotencyKey, {
      external_id: input.reference,
      amount: input.amount,
      bank_code: input.bankCode,
      account_holder_name: input.accountHolder,
      account_number: input.accountNumber,
      description: input.description ?? input.reference,
    });
    need(d.id, 'id');
    return disbursement(d);
  }

  async fetchDisbursement(id: string): Promise<Disbursement> {
    return disbursement(await this.get('get disbursement', `/disbursements/${encodeURIComponent(id)}`));
  }

  // ---- transport ----

  private headers(extra: Record<string, string> = {}) {
    return { authorization: basicAuth(this.credentials.secretKey, ''), ...extra };
  }

  private async post(
    what: string,
    path: string,
    idempotencyKey: string,
    body: unknown,
    extra: Record<string, string> = {},
  ) {
    const res = await this.http.request({
      method: 'POST',
      path,
      headers: this.headers({ 'idempotency-key': idempotencyKey, ...extra }),
      body: JSON.stringify(body),
    });
    return this.ok(what, res);
  }

  private async get(what: string, path: string, extra?: Record<string, string>): Promise<any>;
  private async get(what: string, path: string, extra: Record<string, string>, allowMissing: true): Promise<any | null>;
  private async get(what: string, path: string, extra: Record<string, string> = {}, allowMissing = false) {
    const res = await this.http.request({ method: 'GET', path, headers: this.headers(extra) });
    if (allowMissing && res.status === 404) return null;
    return this.ok(what, res);
  }

  private ok(what: string, res: HttpResponse): any {
    if (res.status >= 200 && res.status < 300 && res.json && typeof res.json === 'object') return res.json;
    throw failure(this.kind, what, res, res.json?.error_code, res.json?.message);
  }
}

// ---- mapping ----

/** The saved-method type a PAY_AND_SAVE charge would keep: cards, and the wallets that can be linked. */
function payAndSaveType(input: CreateChargeInput): 'card' | 'ewallet' | null {
  if (input.method === 'card') return 'card';
  if (input.method !== 'ewallet') return null;
  return (input.channel ?? 'dana').toLowerCase() in providerASavedChannels.ewallet ? 'ewallet' : null;
}

const SAVED_TYPES: Record<string, SavedMethodType> = { CARD: 'card', EWALLET: 'ewallet', DIRECT_DEBIT: 'direct_debit' };

/** A payment request as kept for support: the payment method's id is a token and never leaves the adapter. */
function withoutToken(pr: any): any {
  if (!pr?.payment_method?.id && !pr?.payment_method_id) return pr;
  return {
    ...pr,
    ...(pr.payment_method_id ? { payment_method_id: '[sealed]' } : {}),
    ...(pr.payment_method ? { payment_method: { ...pr.payment_method, id: '[sealed]' } } : {}),
  };
}

function charge(product: Product, raw: any, instructions: Instructions): Charge {
  need(raw.id, 'id');
  return { providerRef: `${product}:${raw.id}`, status: 'pending', instructions, raw };
}

function splitRef(ref: string): [Product, string] {
  const i = ref.indexOf(':');
  const product = ref.slice(0, i) as Product;
  if (i < 1 || !['qris', 'va', 'ewallet', 'retail', 'invoice', 'payment_request'].includes(product)) {
    throw new ProviderError('provider_a', 'not_found', `unknown charge reference ${ref}`);
  }
  return [product, ref.slice(i + 1)];
}

function state(
  ref: ChargeRef,
  status: ChargeStatus,
  amount: unknown,
  currency: unknown,
  raw: unknown,
  paymentId?: string | null,
  paidAt?: string | null,
): ChargeState {
  return {
    providerRef: ref.providerRef,
    providerPaymentId: paymentId ?? ref.providerPaymentId ?? null,
    status,
    amount: toAmount(amount),
    currency: typeof currency === 'string' ? currency : 'IDR',
    paidAt: status === 'paid' ? (paidAt ?? null) : null,
    raw,
  };
}

function mapCallback(b: any): CallbackEvent {
  const d = b.data ?? {};
  switch (b.event) {
    case 'qr.payment':
      return chargeEvent(
        `qris:${d.qr_id}`,
        d.id,
        d.id,
        d.status === 'SUCCEEDED' ? 'paid' : d.status === 'FAILED' ? 'failed' : 'pending',
        d.amount,
        d.currency,
        b,
      );
    case 'ewallet.capture':
      return chargeEvent(
        `ewallet:${d.id}`,
        d.id,
        `${d.id}:${d.status}`,
        ewalletStatus(d.status),
        d.capture_amount ?? d.charge_amount,
        d.currency,
        b,
      );
    case 'payment_method.activated':
    case 'payment_method.expired':
    case 'payment_method.failed_activation': {
      if (typeof d.id !== 'string' || !d.id)
        throw new CallbackVerificationError('provider_a', 'malformed', 'payment method callback lacks its id');
      const status =
        b.event === 'payment_method.activated'
          ? 'active'
          : b.event === 'payment_method.failed_activation'
            ? 'failed'
            : d.status === 'INACTIVE'
              ? 'revoked'
              : 'expired';
      return {
        type: 'token',
        providerEventId: `${b.event}:${d.id}:${d.status ?? ''}:${d.updated ?? ''}`,
        tokenRef: d.id,
        status,
        raw: b,
      };
    }
    case 'payment.succeeded':
    case 'payment.failed':
    case 'payment.pending': {
      if (typeof d.payment_request_id !== 'string' || !d.payment_request_id)
        throw new CallbackVerificationError('provider_a', 'malformed', 'payment callback lacks payment_request_id');
      const event = chargeEvent(
        `payment_request:${d.payment_request_id}`,
        d.id,
        `${d.id}:${d.status}`,
        d.status === 'SUCCEEDED' ? 'paid' : d.status === 'FAILED' ? 'failed' : 'pending',
        d.amount,
        d.currency,
        // Stored with the provider event: the payment method's id is a token, masked here.
        { ...b, data: withoutToken(d) },
      );
      return { ...event, reference: typeof d.reference_id === 'string' ? d.reference_id : null } as CallbackEvent;
    }
    case 'refund.succeeded':
    case 'refund.failed':
      return {
        type: 'refund',
        providerEventId: `${d.id}:${d.status}`,
        providerRefundId: d.id,
        reference: typeof d.reference_id === 'string' ? d.reference_id : null,
        status: refundStatus(d.status),
        amount: toAmount(d.amount),
        currency: d.currency ?? 'IDR',
        raw: b,
      };
  }
  if (typeof b.event === 'string')
    return { type: 'ignored', providerEventId: `${b.event}:${d.id ?? b.created}`, description: b.event, raw: b };
  if (b.callback_virtual_account_id && b.payment_id) {
    return chargeEvent(
      `va:${b.callback_virtual_account_id}`,
      b.payment_id,
      b.payment_id,
      'paid',
      b.amount,
      b.currency,
      b,
    );
  }
  if (b.fixed_payment_code_id && b.payment_id) {
    const status = b.status === 'COMPLETED' || b.status === 'SETTLED' ? 'paid' : 'pending';
    return chargeEvent(
      `retail:${b.fixed_payment_code_id}`,
      b.payment_id,
      b.payment_id,
      status,
      b.amount,
      b.currency,
      b,
    );
  }
  if (b.id && b.external_id && b.user_id && ['PAID', 'SETTLED', 'EXPIRED'].includes(b.status)) {
    return chargeEvent(
      `invoice:${b.id}`,
      b.id,
      `${b.id}:${b.status}`,
      invoiceStatus(b.status),
      b.paid_amount ?? b.amount,
      b.currency,
      b,
    );
  }
  if (b.id && b.account_number && b.bank_code) {
    // VA created or updated: no money moved.
    return {
      type: 'ignored',
      providerEventId: `va:${b.id}:${b.status}:${b.updated ?? ''}`,
      description: `virtual account ${b.status ?? 'updated'}`,
      raw: b,
    };
  }
  throw new CallbackVerificationError('provider_a', 'malformed', 'unrecognised callback body');
}

function chargeEvent(
  providerRef: string,
  paymentId: unknown,
  eventId: unknown,
  status: ChargeStatus,
  amount: unknown,
  currency: unknown,
  raw: unknown,
): CallbackEvent {
  if (typeof eventId !== 'string' || !eventId || providerRef.endsWith(':undefined')) {
    throw new CallbackVerificationError('provider_a', 'malformed', 'callback lacks its ids');
  }
  return {
    type: 'charge',
    providerRef,
    providerPaymentId: typeof paymentId === 'string' ? paymentId : null,
    providerEventId: eventId,
    status,
    amount: toAmount(amount),
    currency: typeof currency === 'string' ? currency : 'IDR',
    raw,
  };
}

const ewalletStatus = (s: unknown): ChargeStatus =>
  s === 'SUCCEEDED' ? 'paid' : s === 'FAILED' || s === 'VOIDED' ? 'failed' : 'pending';
const invoiceStatus = (s: unknown): ChargeStatus =>
  s === 'PAID' || s === 'SETTLED' ? 'paid' : s === 'EXPIRED' ? 'expired' : 'pending';
const refundStatus = (s: unknown): RefundStatus =>
  s === 'SUCCEEDED' ? 'succeeded' : s === 'FAILED' ? 'failed' : 'pending';
const refundReason = (r: string | null | undefined) =>
  ({ requested_by_customer: 'REQUESTED_BY_CUSTOMER', duplicate: 'DUPLICATE', fraudulent: 'FRAUDULENT' })[
    r ?? 'requested_by_customer'
  ] ?? 'OTHERS';

/** IDR amounts arrive as JSON numbers (integers); anything else is not an amount we can book. */
function toAmount(v: unknown): number {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
  throw new ProviderError('provider_a', 'bad_response', `amount ${String(v)} is not an integer`);
}

function channelCode(method: keyof typeof providerAChannels, channel: string | undefined): string {
  const table = providerAChannels[method] as Record<string, string>;
  const key = channel ? channel.toLowerCase() : Object.keys(table)[0];
  const code = table[key];
  if (!code) throw new ProviderError('provider_a', 'unsupported', `${method} channel ${channel} is not offered`);
  return code;
}

/** VA and payment-code holder names: letters and spaces only at the provider. */
function displayName(name: string | null | undefined): string {
  const clean = (name ?? '')
    .replace(/[^A-Za-z ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 50);
  return clean.length >= 2 ? clean : 'Customer';
}

function need(value: unknown, field: string): asserts value {
  if (value === undefined || value === null || value === '')
    throw new ProviderError('provider_a', 'bad_response', `answer lacks ${field}`);
}

const enc = encodeURIComponent;

function savedChannel(type: keyof typeof providerASavedChannels, channel: string | undefined): string {
  const table = providerASavedChannels[type] as Record<string, string>;
  const key = channel ? channel.toLowerCase() : Object.keys(table)[0];
  const code = table[key];
  if (!code) throw new ProviderError('provider_a', 'unsupported', `${type} channel ${channel} cannot be saved`);
  return code;
}

const setupStatus = (s: unknown): SetupStatus =>
  s === 'ACTIVE' ? 'active' : s === 'FAILED' ? 'failed' : s === 'EXPIRED' || s === 'INACTIVE' ? 'expired' : 'pending';

/** The customer's next step on a payment method or request: a page (WEB, MOBILE, DEEPLINK) or an API call (OTP). */
function pmAction(o: any): { url: string; url_type: string } | null {
  const actions: any[] = Array.isArray(o?.actions) ? o.actions : [];
  const api = actions.find((a) => a?.url_type === 'API');
  const web = actions.find((a) => a?.url && a.url_type !== 'API');
  return web ?? api ?? null;
}

/** Xendit failure codes to ours (docs/providers.md, Saved methods); `declined` depends on the method type. */
const FAILURES: Record<string, string> = {
  INSUFFICIENT_BALANCE: 'insufficient_funds',
  INSUFFICIENT_FUNDS: 'insufficient_funds',
  MAX_AMOUNT_LIMIT_ERROR: 'limit_exceeded',
  ACCOUNT_ACCESS_BLOCKED: 'account_blocked',
  EXPIRED_CARD: 'expired_card',
  PAYMENT_METHOD_EXPIRED: 'expired_card',
  EXPIRED: 'expired_card',
  PAYMENT_METHOD_INACTIVE: 'payment_method_revoked',
  INACTIVE: 'payment_method_revoked',
  ACCOUNT_UNLINKED: 'payment_method_revoked',
  AUTHENTICATION_FAILED: 'authentication_required',
  REQUIRES_ACTION: 'authentication_required',
  INVALID_OTP: 'invalid_otp',
};

function failureOf(code: unknown, type: unknown): string {
  const known = typeof code === 'string' ? FAILURES[code] : undefined;
  if (known) return known;
  return type === 'CARD' || type === 'card' ? 'card_declined' : 'payment_declined';
}

function setupState(pm: any): SetupState {
  need(pm?.id, 'id');
  const status = setupStatus(pm.status);
  const action = pmAction(pm);
  return {
    providerRef: pm.id,
    status,
    token: status === 'active' ? pm.id : null,
    display: displayOf(pm),
    failureCode: status === 'failed' ? failureOf(pm.failure_code, pm.type) : null,
    confirmable: status === 'pending' && action?.url_type === 'API',
    raw: pm,
  };
}

function displayOf(pm: any): SavedMethodDisplay {
  if (pm.type === 'CARD') {
    const info = pm.card?.card_information ?? {};
    const masked = String(info.masked_card_number ?? '');
    if (!masked) return {};
    return {
      card: {
        brand: String(info.network ?? 'unknown').toLowerCase(),
        last4: masked.replace(/\D/g, '').slice(-4),
        expMonth: Number(info.expiry_month) || 0,
        expYear: Number(info.expiry_year) || 0,
        funding: fundingOf(info.type),
      },
    };
  }
  if (pm.type === 'EWALLET') {
    const code = String(pm.ewallet?.channel_code ?? '');
    const provider = (Object.entries(providerASavedChannels.ewallet).find(([, v]) => v === code)?.[0] ?? 'ovo') as
      | 'ovo'
      | 'dana'
      | 'shopeepay'
      | 'linkaja';
    const account = pm.ewallet?.account?.account_details ?? pm.ewallet?.channel_properties?.mobile_number;
    return { ewallet: { provider, maskedAccount: maskPhone(account) } };
  }
  if (pm.type === 'DIRECT_DEBIT') {
    const code = String(pm.direct_debit?.channel_code ?? '');
    const bank = (Object.entries(providerASavedChannels.direct_debit).find(([, v]) => v === code)?.[0] ?? 'bri') as
      | 'bri'
      | 'mandiri'
      | 'bca'
      | 'bni';
    const account =
      pm.direct_debit?.bank_account?.masked_bank_account_number ??
      pm.direct_debit?.debit_card?.masked_card_number ??
      pm.direct_debit?.channel_properties?.mobile_number;
    return { directDebit: { bank, maskedAccount: maskAccount(account) } };
  }
  return {};
}

function offSessionResult(pr: any, type?: string): OffSessionResult {
  need(pr?.id, 'id');
  const base = { providerRef: `payment_request:${pr.id}`, raw: pr };
  const methodType = pr.payment_method?.type ?? type;
  switch (pr.status) {
    case 'SUCCEEDED':
      return { ...base, status: 'succeeded' };
    case 'REQUIRES_ACTION': {
      const action = pmAction(pr);
      if (!action?.url) return { ...base, status: 'pending' };
      return { ...base, status: 'requires_action', nextAction: { type: 'redirect', url: action.url, expiresAt: null } };
    }
    case 'FAILED':
    case 'CANCELED':
    case 'VOIDED':
    case 'EXPIRED': {
      const providerCode = pr.failure_code ?? pr.status;
      return {
        ...base,
        status: 'failed',
        failureCode: pr.status === 'EXPIRED' ? 'authentication_required' : failureOf(providerCode, methodType),
        providerCode,
        failureMessage: typeof pr.failure_message === 'string' ? pr.failure_message : String(providerCode),
      };
    }
    default:
      return { ...base, status: 'pending' }; // PENDING, AWAITING_CAPTURE
  }
}

export interface DisbursementInput {
  /** Our `po_` id. */
  reference: string;
  amount: number;
  bankCode: string;
  accountHolder: string;
  accountNumber: string;
  description?: string | null;
  idempotencyKey: string;
}

export type DisbursementStatus = 'pending' | 'completed' | 'failed';
/** The disbursement's words as values (src/providers/types.ts, chargeStatus). */
export const disbursementStatus = {
  pending: 'pending',
  completed: 'completed',
  failed: 'failed',
} as const satisfies { [K in DisbursementStatus]: K };

export interface Disbursement {
  id: string;
  status: DisbursementStatus;
  failureCode: string | null;
  raw: unknown;
}

const disbursement = (d: any): Disbursement => ({
  id: String(d.id),
  status: d.status === 'COMPLETED' ? 'completed' : d.status === 'FAILED' ? 'failed' : 'pending',
  failureCode: d.failure_code ?? null,
  raw: d,
});
