// Exact conversion between integer minor units and providers' decimal strings, by string
// arithmetic only (no floats): 1234 USD <-> "12.34", 100000 IDR <-> "100000.00" (provider_b).
import { currencyExponent } from '../core/money.ts';

export function exponentOf(currency: string): number {
  const e = currencyExponent[currency];
  if (e === undefined) throw new RangeError(`unknown currency ${currency}`);
  return e;
}

/** Minor units to a decimal string with `places` fraction digits (default: the currency's exponent). */
export function toDecimalString(minor: number, currency: string, places = exponentOf(currency)): string {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`amount ${minor} is not a safe integer`);
  const exp = exponentOf(currency);
  if (places < exp) throw new RangeError(`${currency} needs ${exp} fraction digits`);
  const negative = minor < 0;
  const digits = String(Math.abs(minor)).padStart(exp + 1, '0');
  const whole = digits.slice(0, digits.length - exp);
  const frac = digits.slice(digits.length - exp) + '0'.repeat(places - exp);
  return (negative ? '-' : '') + whole + (places > 0 ? `.${frac}` : '');
}

/**
 * A provider's decimal string to minor units, or null when it is not a plain decimal or carries
 * precision the currency does not have ("100000.50" IDR, "12.345" USD).
 */
export function fromDecimalString(value: string, currency: string): number | null {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(value);
  if (!m) return null;
  const exp = exponentOf(currency);
  const frac = m[3] ?? '';
  if (frac.length > exp && /[^0]/.test(frac.slice(exp))) return null;
  const minor = Number(m[2] + frac.slice(0, exp).padEnd(exp, '0'));
  if (!Number.isSafeInteger(minor)) return null;
  return m[1] && minor !== 0 ? -minor : minor;
}
