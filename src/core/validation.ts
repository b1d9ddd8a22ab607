import { DomainError, type Resource } from './errors.ts';

/** spec Shared conventions: metadata is at most 50 string pairs, keys <= 40, values <= 500. */
export function validateMetadata(value: unknown, field = 'metadata', resource?: Resource): Record<string, string> {
  const fail = (why: string) => new DomainError('validation_error', `${field} ${why}`, { field, resource });
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw fail('must be an object of strings');
  const entries = Object.entries(value);
  if (entries.length > 50) throw fail('has more than 50 keys');
  for (const [k, v] of entries) {
    if (k.length === 0 || k.length > 40) throw fail('keys must be 1-40 characters');
    if (typeof v !== 'string') throw fail('values must be strings');
    if (v.length > 500) throw fail('values must be at most 500 characters');
  }
  return value as Record<string, string>;
}

export function checkLength(value: string, field: string, min: number, max: number, resource?: Resource) {
  if (value.length < min || value.length > max) {
    throw new DomainError('validation_error', `${field} must be ${min}-${max} characters`, { field, resource });
  }
  return value;
}

export function oneOf<T extends string>(value: string, allowed: readonly T[], field: string, resource?: Resource): T {
  if (!allowed.includes(value as T)) {
    throw new DomainError('validation_error', `${field} must be one of ${allowed.join(', ')}`, { field, resource });
  }
  return value as T;
}

/** spec: currencies are uppercase ISO 4217 codes. */
export function checkCurrency(value: unknown, field: string, resource: Resource): string {
  if (typeof value !== 'string' || !/^[A-Z]{3}$/.test(value)) {
    throw new DomainError('validation_error', `${field} must be an uppercase ISO 4217 code`, { field, resource });
  }
  return value;
}

/** An image or logo address shown on documents: absolute `https://`, at most 500 characters. */
export function checkHttpsUrl(value: string, field: string, resource: Resource): string {
  let ok = value.length <= 500;
  try {
    const u = new URL(value);
    ok &&= u.protocol === 'https:' && !!u.hostname;
  } catch {
    ok = false;
  }
  if (!ok)
    throw new DomainError('validation_error', `${field} must be an https:// URL of at most 500 characters`, {
      field,
      resource,
    });
  return value;
}

/**
 * A URL the customer's browser is sent to (checkout `successUrl`/`cancelUrl`, portal `returnUrl`):
 * spec `https://` only, at most 2048 characters; `http://` and localhost are refused.
 */
export function checkRedirectUrl(value: string, field: string, resource: Resource): string {
  const fail = (why: string) => new DomainError('validation_error', `${field} ${why}`, { field, resource });
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw fail('must be an absolute https:// URL');
  }
  if (u.protocol !== 'https:') throw fail('must use https://');
  if (value.length > 2048) throw fail('must be at most 2048 characters');
  if (/^(localhost|127\.|0\.0\.0\.0|\[::1?\])/.test(u.hostname) || u.hostname.endsWith('.localhost'))
    throw fail('cannot point at localhost');
  return value;
}

/** 13 to 19 digits (spaces and dashes between them allowed) that pass the Luhn check: a card number. */
export function looksLikeCardNumber(value: string): boolean {
  for (const m of value.matchAll(/\d(?:[ -]?\d){12,18}/g)) {
    const digits = m[0].replace(/\D/g, '');
    let sum = 0;
    for (let i = 0; i < digits.length; i++) {
      let d = Number(digits[digits.length - 1 - i]);
      if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
      sum += d;
    }
    if (sum % 10 === 0) return true;
  }
  return false;
}

/** Metadata of resources that touch payment credentials: a value that looks like a card number is refused (PCI). */
export function refuseCardNumbers(metadata: Record<string, string> | null, field: string, resource: Resource) {
  for (const [k, v] of Object.entries(metadata ?? {}))
    if (looksLikeCardNumber(v))
      throw new DomainError(
        'validation_error',
        `${field}.${k} looks like a card number; card numbers are never stored`,
        {
          field: `${field}.${k}`,
          resource,
        },
      );
}
