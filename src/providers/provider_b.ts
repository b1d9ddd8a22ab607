// provider_b: Midtrans-style. Basic auth with the server key (empty password). Redirect methods
// (card, e-wallets) go through Snap (token + redirect_url); QRIS, VA and retail through the Core
// API charge so our page shows the QR string, VA number or payment code itself. Notifications are
// authenticated by signature_key = hex SHA-512(order_id + status_code + gross_amount + server_key)
// over the exact strings received ("100000.00" even for IDR), then confirmed by GET status.
import { createHash } from 'node:crypto';
import { clock as systemClock } from '../core/clock.ts';
import { safeEqual, sha256Hex } from '../core/crypto.ts';
import { fromDecimalString } from './decimal.ts';
import { CallbackVerificationError, ProviderError } from './errors.ts';
import { basicAuth, failure, parseCallbackJson, ProviderHttp, type HttpResponse } from './http.ts';
import { fundingOf, needSavable, refuseSandboxToken } from './saved.ts';
import type {
  SavedMethod,
  CreateSetupInput,
  OffSessionChargeInput,
  OffSessionResult,
  SavedMethodType,
  SetupResult,
  SetupState,
  SetupStatus,
  TokenStatus,
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
  ProviderBCredentials,
  ProviderOptions,
  RefundEvent,
  RefundInput,
  RefundResult,
} from './types.ts';

export const PROVIDER_B_URLS = {
  sandbox: { api: 'https://api.sandbox.midtrans.com', snap: 'https://app.sandbox.midtrans.com' },
  production: { api: 'https://api.midtrans.com', snap: 'https://app.midtrans.com' },
} as const;

/** Our channel words; the first entry is the default. */
export const providerBChannels = {
  va: ['bca', 'bni', 'bri', 'cimb', 'permata', 'mandiri'],
  ewallet: ['gopay', 'shopeepay'],
  retail: ['alfamart', 'indomaret'],
} as const;

const METHODS: readonly PaymentMethod[] = ['qris', 'va', 'ewallet', 'retail', 'card'];

/** The notification signature: hex SHA-512 over the strings exactly as received. */
export function providerBSignature(
  orderId: string,
  statusCode: string,
  grossAmount: string,
  serverKey: string,
): string {
  return createHash('sha512')
    .update(orderId + statusCode + grossAmount + serverKey)
    .digest('hex');
}

/**
 * Pay-account (GoPay linking) notifications: the same SHA-512 scheme with `account_id` in the place of
 * `order_id` and `account_status` in that of `gross_amount` (docs/providers.md, Saved methods).
 */
export function providerBAccountSignature(
  accountId: string,
  statusCode: string,
  accountStatus: string,
  serverKey: string,
): string {
  return providerBSignature(accountId, statusCode, accountStatus, serverKey);
}

/** A GoPay token as the adapter stores it: both halves the charge needs. */
interface GopayToken {
  account_id: string;
  payment_option_token: string;
}

export class ProviderB implements Provider {
  readonly kind = 'provider_b' as const;
  private readonly http: ProviderHttp;
  private readonly snapBase: string;
  private readonly clock;

  constructor(
    private readonly credentials: ProviderBCredentials,
    options: ProviderOptions = {},
  ) {
    const urls = PROVIDER_B_URLS[credentials.env === 'production' ? 'production' : 'sandbox'];
    this.http = new ProviderHttp('provider_b', options.baseUrl ?? urls.api, options);
    this.snapBase = options.snapBaseUrl ?? options.baseUrl ?? urls.snap;
    this.clock = options.clock ?? systemClock;
  }

  supports(method: PaymentMethod, currency: string): boolean {
    return currency === 'IDR' && METHODS.includes(method);
  }

  /** `order_id`: our reference plus a digest of the attempt's key: unique per attempt, stable on retry, <= 50 chars. */
  orderIdFor(input: Pick<CreateChargeInput, 'reference' | 'idempotencyKey'>): string {
    const reference = input.reference.replace(/[^A-Za-z0-9_~.-]/g, '').slice(0, 39);
    return `${reference}-${sha256Hex(input.idempotencyKey).slice(0, 10)}`;
  }

  async createCharge(input: CreateChargeInput): Promise<Charge> {
    if (!this.supports(input.method, input.currency)) {
      throw new ProviderError(this.kind, 'unsupported', `cannot take ${input.method} in ${input.currency}`);
    }
    const orderId = this.orderIdFor(input);
    const minutes = Math.max(1, Math.ceil((input.expiresAt.getTime() - this.clock.now().getTime()) / 60_000));
    const common = {
      transaction_details: { order_id: orderId, gross_amount: input.amount },
      customer_details: customerDetails(input),
      custom_field1: input.reference,
    };
    const notify = { 'x-override-notification': input.callbackUrl };
    const fallbackExpiry = input.expiresAt.toISOString();

    if (input.method === 'card' || input.method === 'ewallet') {
      const enabled =
        input.method === 'card'
          ? ['credit_card']
          : input.channel
            ? [pick('ewallet', input.channel)]
            : [...providerBChannels.ewallet];
      const res = await this.http.request({
        method: 'POST',
        base: this.snapBase,
        path: '/snap/v1/transactions',
        headers: { ...this.auth(), ...notify },
        body: JSON.stringify({
          ...common,
          enabled_payments: enabled,
          // Consent to keep the card (docs/providers.md, Saving at checkout): a one-click token for this customer.
          ...(input.saveForFutureUse && input.method === 'card' && input.customerId
            ? { credit_card: { secure: true, save_card: true }, user_id: input.customerId }
            : {}),
          callbacks: { finish: input.successUrl },
          expiry: { start_time: jakartaTime(this.clock.now()), unit: 'minute', duration: minutes },
        }),
      });
      const snap = res.json;
      if (res.status !== 201 && res.status !== 200)
        throw failure(this.kind, 'create Snap transaction', res, null, snap?.error_messages?.join('; '));
      if (!snap?.token || !snap?.redirect_url) throw failure(this.kind, 'create Snap transaction', res);
      return {
        providerRef: orderId,
        status: 'pending',
        instructions: { kind: 'redirect', redirectUrl: snap.redirect_url, expiresAt: fallbackExpiry },
        raw: { token: snap.token, redirect_url: snap.redirect_url },
      };
    }

    const expiry = {
      custom_expiry: { order_time: jakartaTime(this.clock.now()), expiry_duration: minutes, unit: 'minute' },
    };
    let body: Record<string, unknown>;
    if (input.method === 'qris') body = { payment_type: 'qris', qris: { acquirer: 'gopay' } };
    else if (input.method === 'retail') {
      body = {
        payment_type: 'cstore',
        cstore: { store: pick('retail', input.channel), message: (input.description ?? input.reference).slice(0, 20) },
      };
    } else {
      const bank = pick('va', input.channel);
      body =
        bank === 'mandiri'
          ? {
              payment_type: 'echannel',
              echannel: { bill_info1: 'Payment:', bill_info2: (input.description ?? input.reference).slice(0, 10) },
            }
          : { payment_type: 'bank_transfer', bank_transfer: { bank } };
    }
    const res = await this.http.request({
      method: 'POST',
      path: '/v2/charge',
      headers: { ...this.auth(), ...notify },
      body: JSON.stringify({ ...body, ...common, ...expiry }),
    });
    const c = this.ok('charge', res, ['200', '201']);
    const expiresAt = jakartaToIso(c.expiry_time) ?? fallbackExpiry;
    let instructions: Instructions;
    if (input.method === 'qris') {
      need(c.qr_string, 'qr_string');
      instructions = { kind: 'qr', qrString: c.qr_string, expiresAt };
    } else if (input.method === 'retail') {
      need(c.payment_code, 'payment_code');
      instructions = {
        kind: 'retail',
        outlet: c.store ?? pick('retail', input.channel),
        paymentCode: c.payment_code,
        expiresAt,
      };
    } else if (c.payment_type === 'echannel') {
      need(c.bill_key, 'bill_key');
      instructions = {
        kind: 'va',
        bankCode: 'mandiri',
        vaNumber: c.bill_key,
        billerCode: c.biller_code ?? null,
        expiresAt,
      };
    } else {
      const va =
        c.va_numbers?.[0] ?? (c.permata_va_number ? { bank: 'permata', va_number: c.permata_va_number } : null);
      need(va?.va_number, 'va_numbers');
      instructions = { kind: 'va', bankCode: va.bank, vaNumber: va.va_number, billerCode: null, expiresAt };
    }
    return { providerRef: orderId, status: statusOf(c.transaction_status, c.fraud_status), instructions, raw: c };
  }

  async verifyCallback(request: CallbackRequest): Promise<CallbackEvent> {
    const n = parseCallbackJson(this.kind, request.rawBody);
    if (typeof n.account_id === 'string' && n.order_id === undefined) return this.accountNotification(n);
    const { order_id: orderId, status_code: statusCode, gross_amount: gross, signature_key: signature } = n;
    if (typeof signature !== 'string' || !signature)
      throw new CallbackVerificationError(this.kind, 'missing', 'signature_key is missing');
    // The exact strings received: a number would already have lost its "100000.00" spelling.
    if (typeof orderId !== 'string' || typeof statusCode !== 'string' || typeof gross !== 'string') {
      throw new CallbackVerificationError(
        this.kind,
        'malformed',
        'order_id, status_code and gross_amount must be strings',
      );
    }
    const expected = providerBSignature(orderId, statusCode, gross, this.credentials.serverKey);
    if (!safeEqual(signature.toLowerCase(), expected))
      throw new CallbackVerificationError(this.kind, 'mismatch', 'signature_key does not match');

    const currency = typeof n.currency === 'string' ? n.currency : 'IDR';
    const status = n.transaction_status;
    if (status === 'refund' || status === 'partial_refund') {
      const last = Array.isArray(n.refunds) && n.refunds.length ? n.refunds[n.refunds.length - 1] : null;
      const refundId = String(last?.refund_key ?? last?.refund_chargeback_id ?? n.transaction_id);
      const amount = fromDecimalString(String(last?.refund_amount ?? n.refund_amount ?? ''), currency);
      if (amount === null)
        throw new CallbackVerificationError(this.kind, 'malformed', 'refund amount is not a decimal');
      return {
        type: 'refund',
        providerEventId: `${n.transaction_id}:refund:${refundId}`,
        providerRefundId: refundId,
        reference: last?.refund_key ?? null,
        providerRef: orderId,
        status: 'succeeded',
        amount,
        currency,
        raw: n,
      };
    }
    const amount = fromDecimalString(gross, currency);
    if (amount === null)
      throw new CallbackVerificationError(
        this.kind,
        'malformed',
        `gross_amount ${gross} is not an amount in ${currency}`,
      );
    return {
      type: 'charge',
      providerRef: orderId,
      reference: typeof n.custom_field1 === 'string' ? n.custom_field1 : null,
      providerPaymentId: typeof n.transaction_id === 'string' ? n.transaction_id : null,
      providerEventId: `${n.transaction_id ?? orderId}:${status}:${n.fraud_status ?? ''}`,
      status: statusOf(status, n.fraud_status),
      amount,
      currency,
      raw: withoutToken(n),
    };
  }

  async fetchStatus(ref: ChargeRef): Promise<ChargeState> {
    const res = await this.http.request({
      method: 'GET',
      path: `/v2/${encodeURIComponent(ref.providerRef)}/status`,
      headers: this.auth(),
    });
    // 202 (denied) and 407 (expired) still describe a transaction; 404 does not.
    const s =
      res.json && typeof res.json.transaction_status === 'string' && res.status < 300
        ? res.json
        : this.ok('get status', res, ['200', '201', '202', '407']);
    const currency = typeof s.currency === 'string' ? s.currency : 'IDR';
    const amount = fromDecimalString(String(s.gross_amount), currency);
    if (amount === null)
      throw new ProviderError(this.kind, 'bad_response', `gross_amount ${s.gross_amount} is not an amount`);
    const status = statusOf(s.transaction_status, s.fraud_status);
    return {
      providerRef: ref.providerRef,
      providerPaymentId: s.transaction_id ?? ref.providerPaymentId ?? null,
      status,
      amount,
      currency,
      paidAt: status === 'paid' ? (jakartaToIso(s.settlement_time ?? s.transaction_time) ?? null) : null,
      ...(status === 'paid' ? savedCard(s) : {}),
      raw: withoutToken(s),
    };
  }

  /**
   * A refund notification is confirmed like a charge's: GET status of its order, and the refund must
   * be listed there (`refunds[]`, by `refund_key` or `refund_chargeback_id`). Listed means done
   * (the provider lists approved refunds only); not listed means the notification is not acted on.
   */
  async confirmRefund(event: RefundEvent): Promise<RefundEvent> {
    if (!event.providerRef) return { ...event, status: 'pending' };
    const res = await this.http.request({
      method: 'GET',
      path: `/v2/${encodeURIComponent(event.providerRef)}/status`,
      headers: this.auth(),
    });
    const s =
      res.json && typeof res.json.transaction_status === 'string' && res.status < 300
        ? res.json
        : this.ok('get status', res, ['200', '201', '202', '407']);
    const listed = (Array.isArray(s.refunds) ? s.refunds : []).find(
      (r: any) =>
        (event.reference && r?.refund_key === event.reference) ||
        String(r?.refund_chargeback_id) === event.providerRefundId ||
        r?.refund_key === event.providerRefundId,
    );
    if (!listed) return { ...event, status: 'pending', raw: s };
    const amount = fromDecimalString(String(listed.refund_amount), event.currency);
    return { ...event, status: 'succeeded', amount: amount ?? event.amount, raw: s };
  }

  /**
   * Core API `POST /v2/{order_id}/expire`: a pending transaction expires at once (407); 412 when it is no longer
   * pending.
   */
  async voidCharge(ref: ChargeRef): Promise<boolean> {
    const res = await this.http.request({
      method: 'POST',
      path: `/v2/${encodeURIComponent(ref.providerRef)}/expire`,
      headers: this.auth(),
    });
    const code = typeof res.json?.status_code === 'string' ? res.json.status_code : String(res.status);
    if (code === '412' || code === '404') return false;
    this.ok('expire', res, ['200', '407']);
    return true;
  }

  async refund(input: RefundInput): Promise<RefundResult> {
    const res = await this.http.request({
      method: 'POST',
      path: `/v2/${encodeURIComponent(input.providerRef)}/refund`,
      headers: this.auth(),
      body: JSON.stringify({
        refund_key: input.idempotencyKey,
        amount: input.amount,
        reason: input.reason ?? 'requested_by_customer',
      }),
    });
    const r = this.ok('refund', res, ['200', '201']);
    return {
      providerRefundId: String(r.refund_key ?? input.idempotencyKey),
      status: r.status_code === '201' ? 'pending' : 'succeeded',
      raw: r,
    };
  }

  // ---- saved methods: GoPay tokenization (docs/providers.md, Saved methods) ----

  /** GoPay accounts only: cards on provider_b are saved at checkout (Snap `save_card`), never by a setup. */
  savableTypes(currency: string): SavedMethodType[] {
    return currency === 'IDR' ? ['ewallet'] : [];
  }

  /** `POST /v2/pay/account` (gopay_partner phone, country code, redirect URL) → the activation link. */
  async createSetup(input: CreateSetupInput): Promise<SetupResult> {
    needSavable(this.kind, this.savableTypes(input.currency), input.type, input.currency);
    if (input.channel && input.channel.toLowerCase() !== 'gopay')
      throw new ProviderError(this.kind, 'unsupported', `ewallet channel ${input.channel} cannot be saved here`);
    const phone = nationalPhone(input.account ?? input.customer.phone);
    if (!phone) throw new ProviderError(this.kind, 'unsupported', 'GoPay linking needs the phone number');
    const res = await this.http.request({
      method: 'POST',
      path: '/v2/pay/account',
      headers: this.auth(),
      body: JSON.stringify({
        payment_type: 'gopay',
        gopay_partner: { phone_number: phone, country_code: '62', redirect_url: input.returnUrl },
      }),
    });
    const a = this.ok('create pay account', res, ['200', '201']);
    need(a.account_id, 'account_id');
    const status = accountStatus(a.account_status);
    const link = actionUrl(a.actions, ['activation-link-url', 'activation-deeplink', 'activation-link-app']);
    return {
      providerRef: a.account_id,
      status,
      instructions: status === 'pending' && link ? { kind: 'redirect', redirectUrl: link } : null,
      raw: a,
    };
  }

  /**
   * `GET /v2/pay/account/{account_id}`: ENABLED is active; the token is the account id with the
   * GoPay wallet's `payment_option_token` (JSON). The answer carries no phone number: `maskedAccount`
   * is `****` (the caller masks the number the customer typed, if it kept it).
   */
  async fetchSetup(ref: string): Promise<SetupState> {
    const res = await this.http.request({
      method: 'GET',
      path: `/v2/pay/account/${encodeURIComponent(ref)}`,
      headers: this.auth(),
    });
    const a = this.ok('get pay account', res, ['200', '201']);
    const status = accountStatus(a.account_status);
    let token: string | null = null;
    if (status === 'active') {
      const options: any[] = Array.isArray(a.metadata?.payment_options) ? a.metadata.payment_options : [];
      const wallet =
        options.find((o) => o?.name === 'GOPAY_WALLET' && o.active !== false) ?? options.find((o) => o?.token);
      if (!wallet?.token)
        throw new ProviderError(this.kind, 'bad_response', 'an enabled account lacks its payment_option_token');
      token = JSON.stringify({
        account_id: a.account_id ?? ref,
        payment_option_token: wallet.token,
      } satisfies GopayToken);
    }
    return {
      providerRef: ref,
      status,
      token,
      display: { ewallet: { provider: 'gopay', maskedAccount: '****' } },
      failureCode: status === 'failed' ? 'payment_declined' : null,
      raw: a,
    };
  }

  /**
   * GoPay: `GET /v2/pay/account/{account_id}`: `ENABLED` active, `EXPIRED` expired, `DISABLED` revoked, an
   * account the provider does not know is gone. Saved cards have no status API (and no token callbacks).
   */
  async fetchTokenStatus(tokenRef: string): Promise<TokenStatus> {
    const res = await this.http.request({
      method: 'GET',
      path: `/v2/pay/account/${encodeURIComponent(tokenRef)}`,
      headers: this.auth(),
    });
    const code = typeof res.json?.status_code === 'string' ? res.json.status_code : String(res.status);
    if (code === '404') return 'revoked';
    const a = this.ok('get pay account', res, ['200', '201']);
    return a.account_status === 'ENABLED'
      ? 'active'
      : a.account_status === 'EXPIRED'
        ? 'expired'
        : a.account_status === 'DISABLED'
          ? 'revoked'
          : 'unknown';
  }

  /**
   * `POST /v2/charge`: a GoPay token (JSON, `fetchSetup`) as `payment_type: gopay` with `gopay.account_id` +
   * `payment_option_token`; a saved card (the bare `saved_token_id` a `save_card` payment left) as
   * `payment_type: credit_card` with `credit_card.token_id` (Midtrans one-click). The `order_id` is
   * `orderIdFor(reference, key)`, so a retry with the same key reuses the order (406 when it exists: the
   * status call answers instead) and never charges twice.
   */
  async chargeOffSession(input: OffSessionChargeInput): Promise<OffSessionResult> {
    refuseSandboxToken(this.kind, input.token);
    const token = savedToken(input.token, input.type);
    const orderId = this.orderIdFor(input);
    const res = await this.http.request({
      method: 'POST',
      path: '/v2/charge',
      headers: { ...this.auth(), 'x-override-notification': input.callbackUrl },
      body: JSON.stringify({
        ...(token.kind === 'card'
          ? { payment_type: 'credit_card', credit_card: { token_id: token.tokenId } }
          : {
              payment_type: 'gopay',
              gopay: { account_id: token.account_id, payment_option_token: token.payment_option_token },
            }),
        transaction_details: { order_id: orderId, gross_amount: input.amount },
        customer_details: customerDetails({ customer: input.customer }),
        ...(input.description
          ? {
              item_details: [{ id: 'invoice', price: input.amount, quantity: 1, name: input.description.slice(0, 50) }],
            }
          : {}),
        custom_field1: input.reference,
      }),
    });
    const code = typeof res.json?.status_code === 'string' ? res.json.status_code : String(res.status);
    if (code === '406') {
      const existing = await this.fetchOffSession({
        providerRef: orderId,
        reference: input.reference,
        idempotencyKey: input.idempotencyKey,
      });
      if (existing) return existing;
    }
    // 411: the saved card token is unknown, expired or deleted at Midtrans; no transaction was made.
    if (token.kind === 'card' && code === '411')
      return {
        providerRef: orderId,
        status: 'failed',
        failureCode: 'payment_method_revoked',
        providerCode: '411',
        failureMessage: String(res.json?.status_message ?? 'The saved card token is not valid'),
        raw: res.json,
      };
    return offSessionOf(orderId, this.ok('charge', res, ['200', '201', '202']));
  }

  /** `GET /v2/{order_id}/status`, the order id derived from the key when no answer came back; null when unknown. */
  async fetchOffSession(ref: { providerRef?: string | null; reference: string; idempotencyKey: string }) {
    const orderId = ref.providerRef ?? this.orderIdFor(ref);
    const res = await this.http.request({
      method: 'GET',
      path: `/v2/${encodeURIComponent(orderId)}/status`,
      headers: this.auth(),
    });
    const code = typeof res.json?.status_code === 'string' ? res.json.status_code : String(res.status);
    if (code === '404' && typeof res.json?.transaction_status !== 'string') return null;
    const s =
      res.json && typeof res.json.transaction_status === 'string' && res.status < 300
        ? res.json
        : this.ok('get status', res, ['200', '201', '202', '407']);
    return offSessionOf(orderId, s);
  }

  /**
   * GoPay: `POST /v2/pay/account/{account_id}/unbind`; an unknown account is gone too. A saved card has
   * no delete API at Midtrans (docs/providers.md, Saved methods): it is forgotten here (the sealed row is
   * never charged again) and answers true without a call.
   */
  async detachToken(token: string): Promise<boolean> {
    refuseSandboxToken(this.kind, token);
    const saved = savedToken(token);
    if (saved.kind === 'card') return true;
    const res = await this.http.request({
      method: 'POST',
      path: `/v2/pay/account/${encodeURIComponent(saved.account_id)}/unbind`,
      headers: this.auth(),
    });
    const code = typeof res.json?.status_code === 'string' ? res.json.status_code : String(res.status);
    if (code === '404') return true;
    const a = this.ok('unbind pay account', res, ['200', '204']);
    return a.account_status === 'DISABLED';
  }

  private accountNotification(n: any): CallbackEvent {
    const { account_id: accountId, status_code: statusCode, account_status: status, signature_key: signature } = n;
    if (typeof signature !== 'string' || !signature)
      throw new CallbackVerificationError(this.kind, 'missing', 'signature_key is missing');
    if (typeof statusCode !== 'string' || typeof status !== 'string')
      throw new CallbackVerificationError(this.kind, 'malformed', 'status_code and account_status must be strings');
    const expected = providerBAccountSignature(accountId, statusCode, status, this.credentials.serverKey);
    if (!safeEqual(signature.toLowerCase(), expected))
      throw new CallbackVerificationError(this.kind, 'mismatch', 'signature_key does not match');
    const providerEventId = `account:${accountId}:${status}`;
    if (status === 'PENDING') return { type: 'ignored', providerEventId, description: 'pay account pending', raw: n };
    return {
      type: 'token',
      providerEventId,
      tokenRef: accountId,
      status: status === 'ENABLED' ? 'active' : status === 'EXPIRED' ? 'expired' : 'revoked',
      raw: n,
    };
  }

  // ---- transport ----

  private auth() {
    return { authorization: basicAuth(this.credentials.serverKey, '') };
  }

  /** Core API answers carry their own status_code, which may disagree with the HTTP status. */
  private ok(what: string, res: HttpResponse, accepted: string[]): any {
    const b = res.json;
    const code = typeof b?.status_code === 'string' ? b.status_code : String(res.status);
    if (res.status >= 200 && res.status < 300 && b && typeof b === 'object' && accepted.includes(code)) return b;
    const effective =
      res.status >= 200 && res.status < 300 && /^\d{3}$/.test(code) ? { ...res, status: Number(code) } : res;
    throw failure(this.kind, what, effective, code, b?.status_message ?? b?.error_messages?.join('; '));
  }
}

/**
 * settlement/capture paid (capture only once the fraud check accepts), deny/cancel/failure failed, expire expired,
 * refunded still paid.
 */
function statusOf(transactionStatus: unknown, fraudStatus: unknown): ChargeStatus {
  switch (transactionStatus) {
    case 'settlement':
      return 'paid';
    case 'capture':
      return fraudStatus === 'challenge' ? 'pending' : fraudStatus === 'deny' ? 'failed' : 'paid';
    case 'deny':
    case 'cancel':
    case 'failure':
      return 'failed';
    case 'expire':
      return 'expired';
    case 'refund':
    case 'partial_refund':
      return 'paid'; // it was paid; refunds are their own records
    default:
      return 'pending'; // pending, authorize
  }
}

const accountStatus = (s: unknown): SetupStatus =>
  s === 'ENABLED' ? 'active' : s === 'EXPIRED' ? 'expired' : s === 'DISABLED' ? 'failed' : 'pending';

/** `81234567890` (no country code, no leading 0) from any spelling of an Indonesian mobile number. */
function nationalPhone(phone: string | null | undefined): string | null {
  const digits = String(phone ?? '').replace(/\D/g, '');
  const national = digits.startsWith('62') ? digits.slice(2) : digits.startsWith('0') ? digits.slice(1) : digits;
  return national.length >= 9 && national.length <= 12 ? national : null;
}

function actionUrl(actions: unknown, names: string[]): string | null {
  const list: any[] = Array.isArray(actions) ? actions : [];
  for (const name of names) {
    const a = list.find((x) => x?.name === name && typeof x.url === 'string');
    if (a) return a.url;
  }
  return null;
}

/**
 * A card paid with `save_card` leaves `saved_token_id` (Midtrans one-click; docs/providers.md, Saving at
 * checkout): the token, its expiry (`saved_token_id_expired_at`, taken as the card's), `masked_card`.
 */
function savedCard(s: any): { savedMethod?: SavedMethod } {
  if (s.payment_type !== 'credit_card' || typeof s.saved_token_id !== 'string' || !s.saved_token_id) return {};
  const expiresAt = jakartaToIso(s.saved_token_id_expired_at) ?? null;
  const until = expiresAt ? new Date(expiresAt) : null;
  const masked = String(s.masked_card ?? '').replace(/\D/g, '');
  const brand = masked.startsWith('4')
    ? 'visa'
    : masked.startsWith('5')
      ? 'mastercard'
      : masked.startsWith('3')
        ? 'jcb'
        : 'unknown';
  return {
    savedMethod: {
      token: s.saved_token_id,
      type: 'card',
      display: {
        card: {
          brand: String(s.card_brand ?? brand).toLowerCase(),
          last4: masked.slice(-4).padStart(4, '*'),
          expMonth: until ? until.getUTCMonth() + 1 : 0,
          expYear: until ? until.getUTCFullYear() : 0,
          funding: fundingOf(s.card_type),
        },
        expiresAt,
      },
    },
  };
}

/** A status or notification as kept for support: a saved card token never leaves the adapter. */
export function withoutToken<T>(s: T): T {
  if (!s || typeof s !== 'object' || !('saved_token_id' in s)) return s;
  return { ...s, saved_token_id: '[sealed]' };
}

/**
 * The two token shapes stored (unchanged since they were first saved): a GoPay token is the JSON of
 * `fetchSetup`; a card token is the bare `saved_token_id` of a `save_card` payment (`savedCard`).
 */
function savedToken(
  token: string,
  type?: SavedMethodType,
): ({ kind: 'gopay' } & GopayToken) | { kind: 'card'; tokenId: string } {
  if (token.startsWith('{')) {
    try {
      const t = JSON.parse(token);
      if (type !== 'card' && typeof t?.account_id === 'string' && typeof t?.payment_option_token === 'string')
        return { kind: 'gopay', account_id: t.account_id, payment_option_token: t.payment_option_token };
    } catch {
      // not JSON: below
    }
  } else if (type === undefined || type === 'card') return { kind: 'card', tokenId: token };
  throw new ProviderError('provider_b', 'rejected', `the token is not a saved ${type ?? 'card or GoPay'} token`, {
    providerCode: 'invalid_token',
  });
}

/**
 * The card-network response codes Midtrans passes through (`channel_response_code`), and the account
 * states a GoPay charge can meet (docs/providers.md, Saved methods). Anything else is a decline
 * (`card_declined` for cards).
 */
const FAILURES: Record<string, string> = {
  '51': 'insufficient_funds',
  '61': 'limit_exceeded',
  '62': 'account_blocked',
  '54': 'expired_card',
  EXPIRED: 'expired_card',
  DISABLED: 'payment_method_revoked',
};

function offSessionOf(orderId: string, c: any): OffSessionResult {
  const base = { providerRef: orderId, raw: withoutToken(c) };
  const status = statusOf(c.transaction_status, c.fraud_status);
  if (status === 'paid') return { ...base, status: 'succeeded' };
  if (status === 'pending') {
    // GoPay names its PIN page in `actions`; a card's 3-D Secure page is `redirect_url`.
    const url =
      actionUrl(c.actions, ['verification-link-url', 'verification-link-app', 'deeplink-redirect']) ??
      (c.payment_type === 'credit_card' && typeof c.redirect_url === 'string' ? c.redirect_url : null);
    if (!url) return { ...base, status: 'pending' };
    return {
      ...base,
      status: 'requires_action',
      nextAction: { type: 'redirect', url, expiresAt: jakartaToIso(c.expiry_time) },
    };
  }
  const providerCode = String(c.channel_response_code ?? c.status_code ?? c.transaction_status);
  const declined = c.payment_type === 'credit_card' ? 'card_declined' : 'payment_declined';
  return {
    ...base,
    status: 'failed',
    failureCode: status === 'expired' ? 'authentication_required' : (FAILURES[providerCode] ?? declined),
    providerCode,
    failureMessage: String(c.channel_response_message ?? c.status_message ?? c.transaction_status),
  };
}

function pick(method: keyof typeof providerBChannels, channel: string | undefined): string {
  const options: readonly string[] = providerBChannels[method];
  const c = channel ? channel.toLowerCase() : options[0];
  if (!options.includes(c))
    throw new ProviderError('provider_b', 'unsupported', `${method} channel ${channel} is not offered`);
  return c;
}

function customerDetails(input: Pick<CreateChargeInput, 'customer'>) {
  const c = input.customer;
  if (!c) return undefined;
  return {
    ...(c.name ? { first_name: c.name.slice(0, 255) } : {}),
    ...(c.email ? { email: c.email } : {}),
    ...(c.phone ? { phone: c.phone } : {}),
  };
}

/** The provider's wall-clock format, in Jakarta time: "2026-01-31 18:00:00 +0700". */
export function jakartaTime(d: Date): string {
  return `${new Date(d.getTime() + 7 * 3600_000).toISOString().slice(0, 19).replace('T', ' ')} +0700`;
}

/** "2026-01-31 18:00:00" (Jakarta, no zone) to ISO 8601 UTC. */
export function jakartaToIso(value: unknown): string | null {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(value)) return null;
  return new Date(`${value.replace(' ', 'T')}+07:00`).toISOString();
}

function need(value: unknown, field: string): asserts value {
  if (value === undefined || value === null || value === '')
    throw new ProviderError('provider_b', 'bad_response', `answer lacks ${field}`);
}
