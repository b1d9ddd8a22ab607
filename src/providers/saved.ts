// What the three adapters share for saved methods and off-session charges (docs/providers.md,
// Saved methods): the refusal of sandbox tokens, and the masking of display fields.
import { ProviderError } from './errors.ts';
import type { ProviderKind, SavedMethodType } from './types.ts';

/** Tokens of the managed test sandbox start so; no live adapter ever sends one out (docs/security.md). */
export const SANDBOX_TOKEN_PREFIX = 'sbx_';

/**
 * Paths whose segment after these prefixes is a saved-method token (provider_a payment methods,
 * provider_b GoPay accounts, provider_c vault payment tokens): masked wherever a path is logged.
 */
const TOKEN_PATHS = [
  /^(\/v2\/payment_methods\/)[^/]+/,
  /^(\/v2\/pay\/account\/)[^/]+/,
  /^(\/v3\/vault\/payment-tokens\/)[^/]+/,
];

export const maskTokenPath = (path: string) => TOKEN_PATHS.reduce((p, re) => p.replace(re, '$1[sealed]'), path);

/** Throws before any HTTP call when `token` is a sandbox token (or empty). */
export function refuseSandboxToken(provider: ProviderKind, token: string): void {
  if (!token || token.startsWith(SANDBOX_TOKEN_PREFIX)) {
    throw new ProviderError(provider, 'rejected', 'a sandbox token cannot be used with a live adapter', {
      providerCode: 'sandbox_token',
    });
  }
}

/** The saved-method types an adapter was asked about, or `unsupported`. */
export function needSavable(provider: ProviderKind, types: SavedMethodType[], type: SavedMethodType, currency: string) {
  if (!types.includes(type))
    throw new ProviderError(provider, 'unsupported', `cannot save ${type} methods in ${currency}`);
}

/** `+62 812-****-7890` from any spelling of an Indonesian mobile number; other numbers keep their last four. */
export function maskPhone(phone: string | null | undefined): string {
  const digits = String(phone ?? '').replace(/\D/g, '');
  if (digits.length < 4) return '****';
  const national = digits.startsWith('62') ? digits.slice(2) : digits.startsWith('0') ? digits.slice(1) : digits;
  if (national.length >= 7) return `+62 ${national.slice(0, 3)}-****-${national.slice(-4)}`;
  return `****${digits.slice(-4)}`;
}

/** `****1234`: the last four of an account number (or of a provider's masked spelling of it). */
export const maskAccount = (account: string | null | undefined) =>
  `****${String(account ?? '')
    .replace(/[^0-9]/g, '')
    .slice(-4)
    .padStart(4, '*')}`;

/** `j***@example.com`. */
export function maskEmail(email: string | null | undefined): string {
  const e = String(email ?? '');
  const at = e.indexOf('@');
  if (at < 1) return '***';
  return `${e[0]}***${e.slice(at)}`;
}

/** Card funding words as the service spells them. */
export function fundingOf(v: unknown): 'credit' | 'debit' | 'prepaid' | 'unknown' {
  const s = String(v ?? '').toLowerCase();
  return s === 'credit' || s === 'debit' || s === 'prepaid' ? s : 'unknown';
}
