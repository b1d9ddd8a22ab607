// provider_b: Midtrans-style. Basic auth with the server key (empty password). Redirect methods
// (card, e-wallets) go through Snap (token + redirect_url); QRIS, VA and retail through the Core
// API charge so our page shows the QR string, VA number or payment code itself. Notifications are
// authenticated by signature_key = hex SHA-512(order_id + status_code + gross_amount + server_key)
// over the exact strings received ("100000.00" even for IDR), then confirmed by GET status. The
// client is here; its charges, transport and mapping are in provider_b/.
import { clock as systemClock } from '../core/clock.ts';
import { safeEqual, sha256Hex } from '../core/crypto.ts';
import { fromDecimalString } from './decimal.ts';
import { CallbackVerificationError, ProviderError } from './errors.ts';
import { parseCallbackJson, ProviderHttp } from './http.ts';
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
  ProviderBCredentials,
  ProviderOptions,
  RefundEvent,
  RefundInput,
  RefundResult,
} from './types.ts';
import { ProviderBApi } from './provider_b/api.ts';
import { createProviderBCharge } from './provider_b/charges.ts';
import {
  accountStatus,
  actionUrl,
  customerDetails,
  type GopayToken,
  jakartaToIso,
  METHODS,
  nationalPhone,
  need,
  offSessionOf,
  PROVIDER_B_URLS,
  providerBAccountSignature,
  providerBSignature,
  savedCard,
  savedToken,
  statusOf,
  withoutToken,
} from './provider_b/mapping.ts';

export {
  PROVIDER_B_URLS,
  providerBAccountSignature,
  providerBChannels,
  providerBSignature,
} from './provider_b/mapping.ts';

export class ProviderB implements Provider {
  readonly kind = 'provider_b' as const;
  private readonly api: ProviderBApi;
  private readonly clock;

  constructor(
    private readonly credentials: ProviderBCredentials,
    options: ProviderOptions = {},
  ) {
    const urls = PROVIDER_B_URLS[credentials.env === 'production' ? 'production' : 'sandbox'];
    const http = new ProviderHttp('provider_b', options.baseUrl ?? urls.api, options);
    this.api = new ProviderBApi(credentials, http, options.snapBaseUrl ?? options.baseUrl ?? urls.snap);
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
    return createProviderBCharge(this.api, this.clock, input, this.orderIdFor(input));
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
    const res = await this.api.http.request({
      method: 'GET',
      path: `/v2/${encodeURIComponent(ref.providerRef)}/status`,
      headers: this.api.auth(),
    });
    // 202 (denied) and 407 (expired) still describe a transaction; 404 does not.
    const s =
      res.json && typeof res.json.transaction_status === 'string' && res.status < 300
        ? res.json
        : this.api.ok('get status', res, ['200', '201', '202', '407']);
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
    const res = await this.api.http.request({
      method: 'GET',
      path: `/v2/${encodeURIComponent(event.providerRef)}/status`,
      headers: this.api.auth(),
    });
    const s =
      res.json && typeof res.json.transaction_status === 'string' && res.status < 300
        ? res.json
        : this.api.ok('get status', res, ['200', '201', '202', '407']);
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
    const res = await this.api.http.request({
      method: 'POST',
      path: `/v2/${encodeURIComponent(ref.providerRef)}/expire`,
      headers: this.api.auth(),
    });
    const code = typeof res.json?.status_code === 'string' ? res.json.status_code : String(res.status);
    if (code === '412' || code === '404') return false;
    this.api.ok('expire', res, ['200', '407']);
    return true;
  }

  async refund(input: RefundInput): Promise<RefundResult> {
    const res = await this.api.http.request({
      method: 'POST',
      path: `/v2/${encodeURIComponent(input.providerRef)}/refund`,
      headers: this.api.auth(),
      body: JSON.stringify({
        refund_key: input.idempotencyKey,
        amount: input.amount,
        reason: input.reason ?? 'requested_by_customer',
      }),
    });
    const r = this.api.ok('refund', res, ['200', '201']);
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
    const res = await this.api.http.request({
      method: 'POST',
      path: '/v2/pay/account',
      headers: this.api.auth(),
      body: JSON.stringify({
        payment_type: 'gopay',
        gopay_partner: { phone_number: phone, country_code: '62', redirect_url: input.returnUrl },
      }),
    });
    const a = this.api.ok('create pay account', res, ['200', '201']);
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
    const res = await this.api.http.request({
      method: 'GET',
      path: `/v2/pay/account/${encodeURIComponent(ref)}`,
      headers: this.api.auth(),
    });
    const a = this.api.ok('get pay account', res, ['200', '201']);
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
    const res = await this.api.http.request({
      method: 'GET',
      path: `/v2/pay/account/${encodeURIComponent(tokenRef)}`,
      headers: this.api.auth(),
    });
    const code = typeof res.json?.status_code === 'string' ? res.json.status_code : String(res.status);
    if (code === '404') return 'revoked';
    const a = this.api.ok('get pay account', res, ['200', '201']);
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
    const res = await this.api.http.request({
      method: 'POST',
      path: '/v2/charge',
      headers: { ...this.api.auth(), 'x-override-notification': input.callbackUrl },
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
    return offSessionOf(orderId, this.api.ok('charge', res, ['200', '201', '202']));
  }

  /** `GET /v2/{order_id}/status`, the order id derived from the key when no answer came back; null when unknown. */
  async fetchOffSession(ref: { providerRef?: string | null; reference: string; idempotencyKey: string }) {
    const orderId = ref.providerRef ?? this.orderIdFor(ref);
    const res = await this.api.http.request({
      method: 'GET',
      path: `/v2/${encodeURIComponent(orderId)}/status`,
      headers: this.api.auth(),
    });
    const code = typeof res.json?.status_code === 'string' ? res.json.status_code : String(res.status);
    if (code === '404' && typeof res.json?.transaction_status !== 'string') return null;
    const s =
      res.json && typeof res.json.transaction_status === 'string' && res.status < 300
        ? res.json
        : this.api.ok('get status', res, ['200', '201', '202', '407']);
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
    const res = await this.api.http.request({
      method: 'POST',
      path: `/v2/pay/account/${encodeURIComponent(saved.account_id)}/unbind`,
      headers: this.api.auth(),
    });
    const code = typeof res.json?.status_code === 'string' ? res.json.status_code : String(res.status);
    if (code === '404') return true;
    const a = this.api.ok('unbind pay account', res, ['200', '204']);
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
}
