// provider_b's signatures, its answers to our types, and our words to its codes.
import { createHash } from 'node:crypto';
import { ProviderError } from '../errors.ts';
import { fundingOf } from '../saved.ts';
import type {
  SavedMethod,
  OffSessionResult,
  SavedMethodType,
  SetupStatus,
  ChargeStatus,
  CreateChargeInput,
  PaymentMethod,
} from '../types.ts';

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

export const METHODS: readonly PaymentMethod[] = ['qris', 'va', 'ewallet', 'retail', 'card'];

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
export interface GopayToken {
  account_id: string;
  payment_option_token: string;
}

/**
 * settlement/capture paid (capture only once the fraud check accepts), deny/cancel/failure failed, expire expired,
 * refunded still paid.
 */
export function statusOf(transactionStatus: unknown, fraudStatus: unknown): ChargeStatus {
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

export const accountStatus = (s: unknown): SetupStatus =>
  s === 'ENABLED' ? 'active' : s === 'EXPIRED' ? 'expired' : s === 'DISABLED' ? 'failed' : 'pending';

/** `81234567890` (no country code, no leading 0) from any spelling of an Indonesian mobile number. */
export function nationalPhone(phone: string | null | undefined): string | null {
  const digits = String(phone ?? '').replace(/\D/g, '');
  const national = digits.startsWith('62') ? digits.slice(2) : digits.startsWith('0') ? digits.slice(1) : digits;
  return national.length >= 9 && national.length <= 12 ? national : null;
}

export function actionUrl(actions: unknown, names: string[]): string | null {
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
export function savedCard(s: any): { savedMethod?: SavedMethod } {
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
export function savedToken(
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
export const FAILURES: Record<string, string> = {
  '51': 'insufficient_funds',
  '61': 'limit_exceeded',
  '62': 'account_blocked',
  '54': 'expired_card',
  EXPIRED: 'expired_card',
  DISABLED: 'payment_method_revoked',
};

export function offSessionOf(orderId: string, c: any): OffSessionResult {
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

export function pick(method: keyof typeof providerBChannels, channel: string | undefined): string {
  const options: readonly string[] = providerBChannels[method];
  const c = channel ? channel.toLowerCase() : options[0];
  if (!options.includes(c))
    throw new ProviderError('provider_b', 'unsupported', `${method} channel ${channel} is not offered`);
  return c;
}

export function customerDetails(input: Pick<CreateChargeInput, 'customer'>) {
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

export function need(value: unknown, field: string): asserts value {
  if (value === undefined || value === null || value === '')
    throw new ProviderError('provider_b', 'bad_response', `answer lacks ${field}`);
}
