// provider_a's answers to our types, and our words to its codes.
import { ProviderError } from '../errors.ts';
import { fundingOf, maskAccount, maskPhone } from '../saved.ts';
import type {
  OffSessionResult,
  SavedMethodDisplay,
  SavedMethodType,
  SetupState,
  SetupStatus,
  Charge,
  ChargeRef,
  ChargeState,
  ChargeStatus,
  CreateChargeInput,
  Instructions,
  PaymentMethod,
  RefundStatus,
} from '../types.ts';
import { wordTable } from '../types.ts';

export const PROVIDER_A_BASE_URL = 'https://api.xendit.co';
export const QR_API_VERSION = '2022-07-31';

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
export const SAVABLE: SavedMethodType[] = ['card', 'ewallet', 'direct_debit'];
export const PM_TYPES = { card: 'CARD', ewallet: 'EWALLET', direct_debit: 'DIRECT_DEBIT' } as const;

/**
 * `providerRef` is `<product>:<provider id>`: the product decides which endpoint confirms it.
 * Off-session charges are payment requests (`payment_request:pr-...`).
 */
export type Product = 'qris' | 'va' | 'ewallet' | 'retail' | 'invoice' | 'payment_request';
export const METHODS: readonly PaymentMethod[] = ['qris', 'va', 'ewallet', 'retail', 'card'];
/** The saved-method type a PAY_AND_SAVE charge would keep: cards, and the wallets that can be linked. */
export function payAndSaveType(input: CreateChargeInput): 'card' | 'ewallet' | null {
  if (input.method === 'card') return 'card';
  if (input.method !== 'ewallet') return null;
  return (input.channel ?? 'dana').toLowerCase() in providerASavedChannels.ewallet ? 'ewallet' : null;
}

export const SAVED_TYPES: Record<string, SavedMethodType> = {
  CARD: 'card',
  EWALLET: 'ewallet',
  DIRECT_DEBIT: 'direct_debit',
};

/** A payment request as kept for support: the payment method's id is a token and never leaves the adapter. */
export function withoutToken(pr: any): any {
  if (!pr?.payment_method?.id && !pr?.payment_method_id) return pr;
  return {
    ...pr,
    ...(pr.payment_method_id ? { payment_method_id: '[sealed]' } : {}),
    ...(pr.payment_method ? { payment_method: { ...pr.payment_method, id: '[sealed]' } } : {}),
  };
}

export function charge(product: Product, raw: any, instructions: Instructions): Charge {
  need(raw.id, 'id');
  return { providerRef: `${product}:${raw.id}`, status: 'pending', instructions, raw };
}

export function splitRef(ref: string): [Product, string] {
  const i = ref.indexOf(':');
  const product = ref.slice(0, i) as Product;
  if (i < 1 || !['qris', 'va', 'ewallet', 'retail', 'invoice', 'payment_request'].includes(product)) {
    throw new ProviderError('provider_a', 'not_found', `unknown charge reference ${ref}`);
  }
  return [product, ref.slice(i + 1)];
}

export function state(
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
export const ewalletStatus = (s: unknown): ChargeStatus =>
  s === 'SUCCEEDED' ? 'paid' : s === 'FAILED' || s === 'VOIDED' ? 'failed' : 'pending';
export const invoiceStatus = (s: unknown): ChargeStatus =>
  s === 'PAID' || s === 'SETTLED' ? 'paid' : s === 'EXPIRED' ? 'expired' : 'pending';
export const refundStatus = (s: unknown): RefundStatus =>
  s === 'SUCCEEDED' ? 'succeeded' : s === 'FAILED' ? 'failed' : 'pending';
export const refundReason = (r: string | null | undefined) =>
  ({ requested_by_customer: 'REQUESTED_BY_CUSTOMER', duplicate: 'DUPLICATE', fraudulent: 'FRAUDULENT' })[
    r ?? 'requested_by_customer'
  ] ?? 'OTHERS';

/** IDR amounts arrive as JSON numbers (integers); anything else is not an amount we can book. */
export function toAmount(v: unknown): number {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
  throw new ProviderError('provider_a', 'bad_response', `amount ${String(v)} is not an integer`);
}

export function channelCode(method: keyof typeof providerAChannels, channel: string | undefined): string {
  const table = providerAChannels[method] as Record<string, string>;
  const key = channel ? channel.toLowerCase() : Object.keys(table)[0];
  const code = table[key];
  if (!code) throw new ProviderError('provider_a', 'unsupported', `${method} channel ${channel} is not offered`);
  return code;
}

/** VA and payment-code holder names: letters and spaces only at the provider. */
export function displayName(name: string | null | undefined): string {
  const clean = (name ?? '')
    .replace(/[^A-Za-z ]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 50);
  return clean.length >= 2 ? clean : 'Customer';
}

export function need(value: unknown, field: string): asserts value {
  if (value === undefined || value === null || value === '')
    throw new ProviderError('provider_a', 'bad_response', `answer lacks ${field}`);
}

export const enc = encodeURIComponent;

export function savedChannel(type: keyof typeof providerASavedChannels, channel: string | undefined): string {
  const table = providerASavedChannels[type] as Record<string, string>;
  const key = channel ? channel.toLowerCase() : Object.keys(table)[0];
  const code = table[key];
  if (!code) throw new ProviderError('provider_a', 'unsupported', `${type} channel ${channel} cannot be saved`);
  return code;
}

export const setupStatus = (s: unknown): SetupStatus =>
  s === 'ACTIVE' ? 'active' : s === 'FAILED' ? 'failed' : s === 'EXPIRED' || s === 'INACTIVE' ? 'expired' : 'pending';

/** The customer's next step on a payment method or request: a page (WEB, MOBILE, DEEPLINK) or an API call (OTP). */
export function pmAction(o: any): { url: string; url_type: string } | null {
  const actions: any[] = Array.isArray(o?.actions) ? o.actions : [];
  const api = actions.find((a) => a?.url_type === 'API');
  const web = actions.find((a) => a?.url && a.url_type !== 'API');
  return web ?? api ?? null;
}

/** Xendit failure codes to ours (docs/providers.md, Saved methods); `declined` depends on the method type. */
export const FAILURES: Record<string, string> = {
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

export function failureOf(code: unknown, type: unknown): string {
  const known = typeof code === 'string' ? FAILURES[code] : undefined;
  if (known) return known;
  return type === 'CARD' || type === 'card' ? 'card_declined' : 'payment_declined';
}

export function setupState(pm: any): SetupState {
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

export function displayOf(pm: any): SavedMethodDisplay {
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

export function offSessionResult(pr: any, type?: string): OffSessionResult {
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

/** The disbursement's words as values (src/providers/types.ts, chargeStatus). */
export const disbursementStatus = wordTable('pending', 'completed', 'failed');
export type DisbursementStatus = keyof typeof disbursementStatus;

export interface Disbursement {
  id: string;
  status: DisbursementStatus;
  failureCode: string | null;
  raw: unknown;
}

export const disbursement = (d: any): Disbursement => ({
  id: String(d.id),
  status: d.status === 'COMPLETED' ? 'completed' : d.status === 'FAILED' ? 'failed' : 'pending',
  failureCode: d.failure_code ?? null,
  raw: d,
});
