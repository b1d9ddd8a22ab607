import { currencyExponent, formatAmount, formatMoney, parseAmount } from '../../core/money.ts';
import { dictionaries, type Lang, localeOf } from './i18n.ts';

/**
 * Amounts per currency as the receipts write them, whatever the language (`moneyLocale`,
 * src/core/money.ts: "Rp 150.000", "$12.34"); integers in minor units.
 */
export const money = (amount: number, currency: string, _lang: Lang) => formatMoney(amount, currency);

export const dateTime = (iso: string, lang: Lang) =>
  new Intl.DateTimeFormat(localeOf(lang), { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));

/**
 * A typed amount in minor units, or what is wrong with it in the member's language. The one reading of
 * amount inputs: `parseAmount` (src/core/money.ts) is the reverse of the formatter `money` uses, so
 * what the dashboard shows ("25.000", "1,250.50") can be typed back.
 */
export function readAmount(text: string, currency: string, lang: Lang): { minor: number } | { error: string } {
  const r = parseAmount(text, currency);
  if (r.ok) return { minor: r.minor };
  const example = formatAmount((currencyExponent[currency] ?? 2) === 0 ? 25000 : 125050, currency);
  return { error: dictionaries[lang].amountProblems[r.problem](example, currency) };
}

/** An amount as the inputs take it (the displayed form without the symbol): placeholders. */
export const amountText = (amount: number, currency: string) => formatAmount(amount, currency);
