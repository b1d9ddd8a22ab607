// The one interface checkout sessions and refunds call, whatever the provider. Amounts are integer
// minor units as everywhere (src/core/money.ts: IDR 0-decimal, USD 2-decimal); each adapter converts
// to its provider's spelling ("100000.00", "12.34", 100000) and back, exactly.
import type { Clock } from '../core/clock.ts';

export type ProviderKind = 'provider_a' | 'provider_b' | 'provider_c' | 'manual';

/** Methods as the spec names them (checkout session `methods`). */
export type PaymentMethod = 'qris' | 'va' | 'ewallet' | 'card' | 'retail' | 'provider_c';
export const paymentMethods: readonly PaymentMethod[] = ['qris', 'va', 'ewallet', 'card', 'retail', 'provider_c'];

/** `{ w: 'w', ... }` for a provider's answer words: the values and, by `keyof`, their type. */
export const wordTable = <const W extends string>(...words: W[]) =>
  Object.fromEntries(words.map((w) => [w, w])) as { readonly [K in W]: K };

/**
 * A provider answer's words as values, one table per answer: code outside src/providers reads the
 * provider's word here and never spells it (test/state-machines-used.test.ts), since several are also
 * statuses of ours (`paid`, `failed`) and mean something else.
 *
 * Normalised charge status. `approved` exists only where the merchant must capture after the
 * buyer's approval (provider_c): call `capture()` (or `settleCharge()`) to move the money.
 */
export const chargeStatus = wordTable('pending', 'approved', 'paid', 'failed', 'expired');
export type ChargeStatus = keyof typeof chargeStatus;

export interface Customer {
  name?: string | null;
  email?: string | null;
  phone?: string | null;
}

export interface CreateChargeInput {
  /** Our id for what is being paid (the `cs_` session id): provider's external/reference id. */
  reference: string;
  amount: number;
  currency: string;
  method: PaymentMethod;
  /**
   * Sub-choice within the method, lower case: bank for `va` (bca, bni, bri, mandiri, permata, cimb),
   * wallet for `ewallet` (ovo, dana, shopeepay, linkaja, gopay), outlet for `retail` (alfamart,
   * indomaret). Omitted: the adapter's default (docs/providers.md).
   */
  channel?: string;
  customer?: Customer | null;
  description?: string | null;
  expiresAt: Date;
  /** Where the buyer returns after a redirect flow. */
  successUrl: string;
  cancelUrl?: string | null;
  /**
   * Our callback endpoint (`/v1/callbacks/<kind>`). Sent per request where the protocol allows it
   * (provider_b `X-Override-Notification`); provider_a and provider_c take it from the provider's
   * dashboard (callback settings, webhook registration).
   */
  callbackUrl: string;
  /**
   * Unique per payment attempt and stable across retries of the same attempt: the provider's
   * idempotency header, and part of provider_b's `order_id`. 1-64 chars of [A-Za-z0-9._~:-].
   */
  idempotencyKey: string;
  /**
   * The customer consented to keep the method (checkout `savePaymentMethod`; docs/providers.md, Saving
   * at checkout): the charge also asks the provider for a reusable token where the method allows it
   * (provider_a PAY_AND_SAVE, provider_b `save_card`, provider_c cards `store_in_vault`). A method
   * that cannot be saved is paid once, as without it.
   */
  saveForFutureUse?: boolean;
  /** Our customer id (`cus_`): the provider's customer reference for a saved method (provider_b `user_id`). */
  customerId?: string | null;
}

/** What the hosted page shows the buyer. */
export type Instructions =
  | { kind: 'qr'; qrString: string; expiresAt: string | null }
  | {
      kind: 'va';
      bankCode: string;
      vaNumber: string;
      billerCode?: string | null;
      accountName?: string | null;
      expiresAt: string | null;
    }
  | { kind: 'retail'; outlet: string; paymentCode: string; expiresAt: string | null }
  | { kind: 'redirect'; redirectUrl: string; qrString?: string | null; expiresAt: string | null }
  | {
      kind: 'manual';
      bankAccounts: BankAccount[];
      staticQrImageUrl: string | null;
      text: string | null;
      expiresAt: string | null;
    };

export interface Charge {
  /** The provider's handle for this charge, opaque to callers; key callbacks and fetchStatus by it. */
  providerRef: string;
  status: ChargeStatus;
  instructions: Instructions;
  /** The provider's response, for support logs (no secrets). */
  raw: unknown;
}

/** Identifies a charge for `fetchStatus`; a `ChargeEvent` is one, so `fetchStatus(event)` works. */
export interface ChargeRef {
  providerRef: string;
  /** The provider's payment id when known (from a callback): some products confirm by it. */
  providerPaymentId?: string | null;
}

export interface ChargeState extends ChargeRef {
  status: ChargeStatus;
  amount: number;
  currency: string;
  paidAt?: string | null;
  /**
   * A charge made with `saveForFutureUse` that left a reusable token at the provider (paid only).
   * `token` lives in memory until it is sealed to its `pm_` row; it is never logged, returned,
   * evented, nor left in `raw`.
   */
  savedMethod?: SavedMethod | null;
  raw: unknown;
}

/** A reusable token a paid charge left behind, with its display fields. */
export interface SavedMethod {
  token: string;
  type: SavedMethodType;
  display: SavedMethodDisplay;
}

export interface CallbackRequest {
  /** Header names in lower case (node:http and fastify give them so). */
  headers: Record<string, string | string[] | undefined>;
  /** The exact bytes received: verification is over bytes, never over re-serialised JSON. */
  rawBody: Buffer | string;
}

/** A verified callback about a charge. Dedupe on `providerEventId`; confirm with fetchStatus. */
export interface ChargeEvent extends ChargeRef {
  type: 'charge';
  providerEventId: string;
  /**
   * Our reference when the callback echoes it (off-session charges: the `pay_` id). A charge whose
   * answer was lost has no stored `providerRef`: its callback is routed by this.
   */
  reference?: string | null;
  status: ChargeStatus;
  amount: number;
  currency: string;
  raw: unknown;
}

export interface RefundEvent {
  type: 'refund';
  providerEventId: string;
  providerRefundId: string;
  /** Our idempotency key when the provider echoes it (provider_a `reference_id`, provider_b `refund_key`). */
  reference?: string | null;
  /** The refunded charge's reference when the callback names it (provider_b `order_id`): status checks need it. */
  providerRef?: string | null;
  status: RefundStatus;
  amount: number;
  currency: string;
  raw: unknown;
}

/** Authentic, but nothing to act on (VA created, order voided notice, unknown event type). */
export interface IgnoredEvent {
  type: 'ignored';
  providerEventId: string;
  description: string;
  raw: unknown;
}

/** A verified callback about a saved token (docs/providers.md, Saved methods): when to ask, never what to believe. */
export interface TokenEvent {
  type: 'token';
  providerEventId: string;
  /** The provider's handle of the token or of its setup (`providerRef` of `createSetup`). */
  tokenRef: string;
  status: 'active' | 'expired' | 'revoked' | 'failed';
  /**
   * Our customer id as the provider echoes it, cut to the provider's length (provider_c
   * `customer.merchant_customer_id`, 22 chars): a payment token made by an exchange whose answer was
   * lost names no setup reference, only this.
   */
  customerRef?: string | null;
  raw: unknown;
}

export type CallbackEvent = ChargeEvent | RefundEvent | TokenEvent | IgnoredEvent;

export const refundStatus = wordTable('pending', 'succeeded', 'failed');
export type RefundStatus = keyof typeof refundStatus;

export interface RefundInput extends ChargeRef {
  /** Part of the charge's amount, minor units. */
  amount: number;
  currency: string;
  reason?: string | null;
  /** Our `rf_` id: stable across retries. */
  idempotencyKey: string;
}

export interface RefundResult {
  providerRefundId: string;
  status: RefundStatus;
  raw: unknown;
}

// ---- saved methods and off-session charges (docs/providers.md, Saved methods; docs/guides/payment-methods.md) ----

/** The kinds of saved method. */
export type SavedMethodType = 'card' | 'ewallet' | 'direct_debit' | 'paypal';

/** Display fields of a saved method: all that ever leaves the adapter besides the sealed token. */
export interface SavedMethodDisplay {
  card?: {
    brand: string;
    last4: string;
    expMonth: number;
    expYear: number;
    funding: 'credit' | 'debit' | 'prepaid' | 'unknown';
  } | null;
  ewallet?: { provider: 'ovo' | 'dana' | 'shopeepay' | 'gopay' | 'linkaja'; maskedAccount: string } | null;
  directDebit?: { bank: 'bri' | 'mandiri' | 'bca' | 'bni'; maskedAccount: string } | null;
  paypal?: { maskedEmail: string } | null;
  /** A provider-side expiry of the token (Midtrans `saved_token_id_expired_at`), ISO. */
  expiresAt?: string | null;
}

export interface CreateSetupInput {
  /** Our `satt_` attempt id: the provider's reference id. */
  reference: string;
  type: SavedMethodType;
  /** Wallet (ovo, dana, shopeepay, gopay, linkaja) or bank (bri, mandiri, bca, bni). */
  channel?: string;
  /** E-wallet phone or direct-debit account the customer typed (never a card number). */
  account?: string | null;
  customer: Customer & { id: string };
  currency: string;
  /** Where the provider sends the customer back (`/s/<token>/return`). */
  returnUrl: string;
  cancelUrl: string;
  callbackUrl: string;
  idempotencyKey: string;
}

export const setupStatus = wordTable('pending', 'active', 'failed', 'expired');
export type SetupStatus = keyof typeof setupStatus;

export interface SetupResult {
  providerRef: string;
  status: SetupStatus;
  /** The customer's next step: a provider page to visit, or an OTP to type on ours. */
  instructions: { kind: 'redirect'; redirectUrl: string } | { kind: 'otp' } | null;
  raw: unknown;
}

export interface SetupState {
  providerRef: string;
  status: SetupStatus;
  /** The reusable token, when `active`: sealed at once by the caller, never logged or returned. */
  token: string | null;
  display: SavedMethodDisplay;
  failureCode?: string | null;
  /**
   * True when the provider waits for `confirmSetup` before the token exists: an approved PayPal
   * setup token to exchange (claim the attempt, then confirm), a direct-debit link waiting for its OTP.
   */
  confirmable?: boolean;
  raw: unknown;
}

export interface OffSessionChargeInput {
  /** Our `pay_` id: the provider's reference. */
  reference: string;
  /** The unsealed provider token (dropped after the call). */
  token: string;
  type: SavedMethodType;
  amount: number;
  currency: string;
  customer: Customer & { id: string };
  description?: string | null;
  callbackUrl: string;
  /** Our `pay_` id: same key, same charge (the provider's idempotency header or order id). */
  idempotencyKey: string;
}

export const offSessionStatus = wordTable('succeeded', 'pending', 'requires_action', 'failed');
export type OffSessionStatus = keyof typeof offSessionStatus;

export interface OffSessionResult {
  providerRef: string;
  status: OffSessionStatus;
  /** Normalised (card_declined, payment_declined, insufficient_funds, limit_exceeded, account_blocked,
   *  authentication_required, expired_card, payment_method_revoked), when `failed`. */
  failureCode?: string | null;
  /** The provider's own code, kept in the payment's metadata. */
  providerCode?: string | null;
  failureMessage?: string | null;
  nextAction?: { type: 'redirect'; url: string; expiresAt: string | null } | null;
  raw: unknown;
}

export interface Provider {
  readonly kind: ProviderKind;
  /** Whether this adapter can take `method` in `currency` (adapter choice, spec Adapter capabilities). */
  supports(method: PaymentMethod, currency: string): boolean;
  createCharge(input: CreateChargeInput): Promise<Charge>;
  /** Authenticates a callback and maps it; throws `CallbackVerificationError` (401) when not authentic. */
  verifyCallback(request: CallbackRequest): Promise<CallbackEvent>;
  /** Asks the provider (never trusts a callback alone) before money moves. */
  fetchStatus(ref: ChargeRef): Promise<ChargeState>;
  /** Present where an approved charge must be captured (provider_c). Idempotent per key. */
  capture?(ref: ChargeRef, opts: { idempotencyKey: string }): Promise<ChargeState>;
  refund(input: RefundInput): Promise<RefundResult>;
  /**
   * Where the provider has a refund status API: the provider's word on a refund callback before
   * money moves (as fetchStatus is for charges). `pending` when it does not confirm the callback.
   */
  confirmRefund?(event: RefundEvent): Promise<RefundEvent>;
  /**
   * Where the provider can withdraw an unpaid charge (a superseded attempt): true when it is void
   * now, false when the provider says it can no longer be voided (paid, already expired).
   */
  voidCharge?(ref: ChargeRef): Promise<boolean>;
  /** The saved-method types this adapter can tokenize and charge off session in `currency`. */
  savableTypes?(currency: string): SavedMethodType[];
  /** Starts tokenizing a method at the provider (no charge). */
  createSetup?(input: CreateSetupInput): Promise<SetupResult>;
  /** Finishes a setup that needs a second step (direct-debit OTP, PayPal vault exchange). */
  confirmSetup?(ref: string, input: { otp?: string; idempotencyKey: string }): Promise<SetupState>;
  /** The provider's word on a setup: completion always asks here (a return or callback says when). */
  fetchSetup?(ref: string): Promise<SetupState>;
  /** A merchant-initiated charge of a saved token; safe to repeat with the same idempotency key. */
  chargeOffSession?(input: OffSessionChargeInput): Promise<OffSessionResult>;
  /** The status of an off-session charge (after a timeout or a callback): same shape as the charge. */
  fetchOffSession?(ref: {
    providerRef?: string | null;
    reference: string;
    idempotencyKey: string;
  }): Promise<OffSessionResult | null>;
  /** Revokes the token at the provider; true when gone (or already gone). */
  detachToken?(token: string): Promise<boolean>;
  /**
   * The provider's word on a saved token, by the `tokenRef` its token callbacks name (provider_a payment
   * method id, provider_b GoPay account id, provider_c payment token id): a revocation or expiry
   * callback moves a method only when this confirms it.
   */
  fetchTokenStatus?(tokenRef: string): Promise<TokenStatus>;
}

/**
 * A saved token at its provider: `active`, `expired`, `revoked` (unlinked, deleted; a token the
 * provider no longer knows), or `unknown` (an answer that confirms neither, e.g. still pending).
 */
export const tokenStatus = wordTable('active', 'expired', 'revoked', 'unknown');
export type TokenStatus = keyof typeof tokenStatus;

// ---- credentials (decrypted adapter secrets + public config) ----

export interface ProviderACredentials {
  /** `xnd_development_...` or `xnd_production_...`: Basic auth user name, empty password. */
  secretKey: string;
  /** The account's callback verification token (`x-callback-token`); without it callbacks are refused. */
  callbackToken?: string | null;
}

export interface ProviderBCredentials {
  serverKey: string;
  /** Public (Snap front end); not used server side. */
  clientKey?: string | null;
  merchantId?: string | null;
  env: 'sandbox' | 'production';
}

export interface ProviderCCredentials {
  clientId: string;
  secret: string;
  /** The webhook id registered with the provider; needed to verify webhooks. */
  webhookId?: string | null;
  mode: 'live' | 'sandbox';
}

export interface BankAccount {
  bankName: string;
  accountNumber: string;
  accountHolder: string;
}

/** The manual adapter's publicConfig. */
export interface ManualConfig {
  bankAccounts: BankAccount[];
  staticQrImageUrl?: string | null;
  instructions?: string | null;
}

// ---- transport ----

/** One outbound call, for logs and support records (never headers or bodies: they hold secrets). */
export interface ProviderCallRecord {
  provider: ProviderKind;
  method: string;
  path: string;
  /** HTTP status, or null when no response came (timeout, network). */
  status: number | null;
  latencyMs: number;
  /** The provider's request or debug id when it sends one. */
  providerRequestId: string | null;
  error?: string;
}

export interface ProviderOptions {
  /** Overrides the provider's API origin (simulators, sandboxes): e.g. `http://127.0.0.1:4010`. */
  baseUrl?: string;
  /** provider_b only: the Snap origin (`app.*`), separate from the API origin in production. */
  snapBaseUrl?: string;
  /** Per call, connect to last byte; default 10 000. */
  timeoutMs?: number;
  clock?: Clock;
  /** Called after every outbound call (also logged through src/core/logger.ts). */
  onCall?: (record: ProviderCallRecord) => void;
}
