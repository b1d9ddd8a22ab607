// provider_a: Xendit-style. Basic auth (secret key, empty password); one product endpoint per
// method; callbacks carry the account's static `x-callback-token`, which proves origin but not
// freshness, so callers dedupe on the payment id and confirm with a GET (fetchStatus). The client is
// here; its charges, status reads, callback bodies and mapping are in provider_a/.
import { clock as systemClock } from '../core/clock.ts';
import { safeEqual, sha256Hex } from '../core/crypto.ts';
import { CallbackVerificationError, ProviderError } from './errors.ts';
import { headerOf, parseCallbackJson, ProviderHttp } from './http.ts';
import { needSavable, refuseSandboxToken } from './saved.ts';
import type {
  OffSessionChargeInput,
  OffSessionResult,
  SavedMethodType,
  SetupResult,
  SetupState,
  TokenStatus,
  CreateSetupInput,
  CallbackEvent,
  CallbackRequest,
  Charge,
  ChargeRef,
  ChargeState,
  CreateChargeInput,
  PaymentMethod,
  Provider,
  ProviderACredentials,
  ProviderOptions,
  RefundInput,
  RefundResult,
} from './types.ts';
import { ProviderAApi } from './provider_a/api.ts';
import { mapCallback } from './provider_a/callbacks.ts';
import { createProviderACharge } from './provider_a/charges.ts';
import { fetchProviderAStatus } from './provider_a/status.ts';
import {
  disbursement,
  type Disbursement,
  type DisbursementInput,
  displayName,
  enc,
  need,
  offSessionResult,
  pmAction,
  METHODS,
  PM_TYPES,
  PROVIDER_A_BASE_URL,
  refundReason,
  refundStatus,
  SAVABLE,
  savedChannel,
  setupState,
  setupStatus,
  splitRef,
} from './provider_a/mapping.ts';

export {
  disbursementStatus,
  PROVIDER_A_BASE_URL,
  providerAChannels,
  providerASavedChannels,
  type DisbursementStatus,
} from './provider_a/mapping.ts';
export type { Disbursement, DisbursementInput } from './provider_a/mapping.ts';

export class ProviderA implements Provider {
  readonly kind = 'provider_a' as const;
  private readonly api: ProviderAApi;
  private readonly clock;

  constructor(
    private readonly credentials: ProviderACredentials,
    options: ProviderOptions = {},
  ) {
    this.api = new ProviderAApi(
      credentials,
      new ProviderHttp('provider_a', options.baseUrl ?? PROVIDER_A_BASE_URL, options),
    );
    this.clock = options.clock ?? systemClock;
  }

  supports(method: PaymentMethod, currency: string): boolean {
    return currency === 'IDR' && METHODS.includes(method);
  }

  async createCharge(input: CreateChargeInput): Promise<Charge> {
    if (!this.supports(input.method, input.currency)) {
      throw new ProviderError(this.kind, 'unsupported', `cannot take ${input.method} in ${input.currency}`);
    }
    return createProviderACharge(this.api, this.clock, input);
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
    return fetchProviderAStatus(this.api, ref, product, id, this.clock.now().getTime());
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
      const res = await this.api.http.request({
        method,
        path,
        headers: this.api.headers(),
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      if (res.status === 404 || (res.status >= 400 && res.status < 500 && res.status !== 401 && res.status !== 403))
        return false;
      this.api.ok('void charge', res);
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
      const r = await this.api.post('create refund', '/refunds', input.idempotencyKey, {
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
    const r = await this.api.post('create refund', '/refunds', input.idempotencyKey, {
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
    const pm = await this.api.post('create payment method', '/v2/payment_methods', input.idempotencyKey, body);
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
      const pm = await this.api.post(
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
    return setupState(await this.api.get('get payment method', `/v2/payment_methods/${enc(ref)}`));
  }

  /** `GET /v2/payment_methods/{id}`: `ACTIVE`, `EXPIRED`, `INACTIVE` revoked; unknown to the provider is gone. */
  async fetchTokenStatus(tokenRef: string): Promise<TokenStatus> {
    const pm = await this.api.get('get payment method', `/v2/payment_methods/${enc(tokenRef)}`, {}, true);
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
    const pr = await this.api.post('create payment request', '/payment_requests', input.idempotencyKey, {
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
      const pr = await this.api.get('get payment request', `/payment_requests/${enc(id)}`, {}, true);
      return pr ? offSessionResult(pr) : null;
    }
    const list = await this.api.get('list payment requests', `/payment_requests?reference_id=${enc(ref.reference)}`);
    const found = (Array.isArray(list.data) ? list.data : []).filter((p: any) => p?.reference_id === ref.reference);
    // One key makes one request; should several exist, a succeeded one is the truth about money.
    const pr = found.find((p: any) => p.status === 'SUCCEEDED') ?? found.at(-1);
    return pr ? offSessionResult(pr) : null;
  }

  /** `POST /v2/payment_methods/{id}/expire`; one already expired or unknown is gone too. */
  async detachToken(token: string): Promise<boolean> {
    refuseSandboxToken(this.kind, token);
    const res = await this.api.http.request({
      method: 'POST',
      path: `/v2/payment_methods/${enc(token)}/expire`,
      headers: this.api.headers({ 'idempotency-key': `expire-${token}`.slice(0, 64) }),
      body: '{}',
    });
    if (res.status === 404) return true;
    if (res.status >= 400 && res.status < 500 && res.status !== 401 && res.status !== 403) {
      const pm = await this.api.get('get payment method', `/v2/payment_methods/${enc(token)}`, {}, true);
      if (!pm || ['EXPIRED', 'INACTIVE', 'FAILED'].includes(pm.status)) return true;
    }
    const pm = this.api.ok('expire payment method', res);
    return ['EXPIRED', 'INACTIVE'].includes(pm.status);
  }

  // ---- disbursements (payout rail `provider_a_disbursement`) ----

  /** Sends money to a bank account; settles later (COMPLETED or FAILED). Idempotent per key. */
  async disburse(input: DisbursementInput): Promise<Disbursement> {
    const d = await this.api.post('create disbursement', '/disbursements', input.idempotencyKey, {
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
    return disbursement(await this.api.get('get disbursement', `/disbursements/${encodeURIComponent(id)}`));
  }
}
