import { currencyExponent, formatMoney } from '../../core/money.ts';
import type { Lang } from './i18n.ts';
import { localeOf } from './i18n.ts';

/**
 * Amounts per currency as the receipts write them, whatever the language (`moneyLocale`,
 * src/core/money.ts: "Rp 150.000", "$12.34"); integers in minor units.
 */
export const money = (amount: number, currency: string, _lang: Lang) => formatMoney(amount, currency);

export const dateTime = (iso: string, lang: Lang) =>
  new Intl.DateTimeFormat(localeOf(lang), { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));

/** A typed amount ("1500.5") in minor units of its currency, or null when it is not one. */
export function toMinor(text: string, currency: string): number | null {
  const exp = currencyExponent[currency] ?? 2;
  const m = /^(\d+)(?:[.,](\d+))?$/.exec(text.trim());
  if (!m || (m[2] ?? '').length > exp) return null;
  const value = Number(m[1]) * 10 ** exp + Number((m[2] ?? '').padEnd(exp, '0') || 0);
  return Number.isSafeInteger(value) && value > 0 ? value : null;
}
export const fromMinor = (amount: number, currency: string) => {
  const exp = currencyExponent[currency] ?? 2;
  return exp ? (amount / 10 ** exp).toFixed(exp) : String(amount);
};
