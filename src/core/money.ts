/** Minor units per currency (ISO 4217 exponent); IDR is 0-decimal, USD 2-decimal. */
export const currencyExponent: Record<string, number> = { IDR: 0, USD: 2, SGD: 2, EUR: 2, JPY: 0 };

export const supportedCurrencies = Object.keys(currencyExponent);

export function isCurrency(value: unknown): value is string {
  return typeof value === 'string' && value in currencyExponent;
}

/** Amounts are integers in the smallest unit, safe up to 2^53 - 1. */
export function isMinorAmount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}

// JSON.rawJSON (Node 21+; not yet in TypeScript's lib): a value JSON.stringify writes verbatim.
const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;

/**
 * An amount as it goes on the wire (REST, GraphQL, event snapshots): a JSON integer. Single amounts
 * are at most 2^53 - 1, but sums (balances, reports) can pass it; those are bigints here and are
 * written as exact JSON integers (clients that need them parse with a big-number reader), never
 * rounded through a float. A number that is not a safe integer was already rounded: refused.
 */
export function moneyJson(v: bigint | number): unknown {
  if (typeof v === 'bigint')
    return v >= -BigInt(Number.MAX_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(v)
      : rawJSON(v.toString());
  if (!Number.isSafeInteger(v)) throw new RangeError(`Money ${v} is not an exact integer`);
  return v;
}

/**
 * The locale whose conventions a currency's amounts are written in when the caller names none:
 * IDR the Indonesian way ("Rp 150.000"), everything else the US way ("$12.34", "SGD 12.34"), so
 * a USD amount never reads "US$12,34" on an Indonesian-language receipt.
 */
export function moneyLocale(currency: string): string {
  return currency === 'IDR' ? 'id-ID' : 'en-US';
}

const moneyFormats = new Map<string, Intl.NumberFormat>();

/**
 * An integer amount in minor units as display text: `formatMoney(150000, 'IDR')` is
 * "Rp 150.000", `formatMoney(1234, 'USD')` is "$12.34". Exactly the currency's minor digits are
 * shown (none for IDR). The amount goes to Intl as a decimal string, so no float rounding at any
 * size. Non-breaking spaces from Intl become plain spaces (receipt printers and PDF text need them).
 */
export function formatMoney(
  amountMinor: number | bigint,
  currency: string,
  locale: string = moneyLocale(currency),
): string {
  // A bigint is exact at any size (a line's unitAmount x quantity may pass 2^53).
  if (typeof amountMinor !== 'bigint' && !Number.isSafeInteger(amountMinor))
    throw new RangeError(`formatMoney: ${amountMinor} is not an integer amount in minor units`);
  const exp = currencyExponent[currency] ?? 2;
  const key = `${locale}|${currency}`;
  let nf = moneyFormats.get(key);
  if (!nf) {
    nf = new Intl.NumberFormat(locale, {
      style: 'currency',
      currency,
      currencyDisplay: 'symbol',
      minimumFractionDigits: exp,
      maximumFractionDigits: exp,
    });
    moneyFormats.set(key, nf);
  }
  const negative = amountMinor < 0;
  const digits = String(negative ? -amountMinor : amountMinor).padStart(exp + 1, '0');
  const decimal = exp === 0 ? digits : `${digits.slice(0, -exp)}.${digits.slice(-exp)}`;
  return nf.format(`${negative ? '-' : ''}${decimal}` as Intl.StringNumericLiteral).replace(/[\u00a0\u202f]/g, ' ');
}

/** An amount as `formatMoney` writes it but without the symbol ("150.000" in IDR, "1,250.50" in USD). */
export function formatAmount(amountMinor: number, currency: string, locale: string = moneyLocale(currency)): string {
  const text = formatMoney(amountMinor, currency, locale);
  const { symbol } = separators(locale, currency);
  return text.replace(symbol, '').trim();
}

/** Why a typed amount is not one: the dashboard says each in the member's language. */
export type AmountProblem = 'empty' | 'format' | 'grouping' | 'no_decimals' | 'decimals' | 'not_positive' | 'too_large';
export type ParsedAmount = { ok: true; minor: number } | { ok: false; problem: AmountProblem };

const localeParts = new Map<string, { group: string; decimal: string; symbol: string }>();
/** The separators and symbol `formatMoney` writes for this locale and currency, read from Intl itself. */
function separators(locale: string, currency: string) {
  const key = `${locale}|${currency}`;
  let p = localeParts.get(key);
  if (!p) {
    const parts = new Intl.NumberFormat(locale, {
      style: 'currency',
      currency,
      minimumFractionDigits: 1,
    }).formatToParts(11111.1);
    const of = (type: string) => parts.find((x) => x.type === type)?.value ?? '';
    p = { group: of('group'), decimal: of('decimal'), symbol: of('currency') };
    localeParts.set(key, p);
  }
  return p;
}

/**
 * The reverse of `formatMoney`: an amount typed the way it is displayed, in positive integer minor
 * units. IDR reads "25.000" (dot thousands, no decimals), USD "1,250.50"; the symbol ("Rp", "$") and
 * the thousands separators may be left out ("25000", "1250.5"). Thousands groups must be of three
 * digits, so "25,0,0" and "1.2.3.4" are refused rather than guessed.
 */
export function parseAmount(text: string, currency: string, locale: string = moneyLocale(currency)): ParsedAmount {
  const exp = currencyExponent[currency] ?? 2;
  const { group, decimal, symbol } = separators(locale, currency);
  const fail = (problem: AmountProblem): ParsedAmount => ({ ok: false, problem });
  let s = text.replace(/[\s\u00a0\u202f]/g, '');
  if (s.startsWith(symbol)) s = s.slice(symbol.length);
  else if (s.toUpperCase().startsWith(currency)) s = s.slice(currency.length);
  if (!s) return fail('empty');
  if (/^-\d/.test(s)) return fail('not_positive');
  const parts = s.split(decimal);
  if (parts.length > 2) return fail('format');
  const [whole, fraction] = parts;
  const digits = whole.split(group);
  if (!digits.every((d) => /^\d+$/.test(d)) || (fraction !== undefined && !/^\d+$/.test(fraction)))
    return fail('format');
  if (digits.length > 1 && (digits[0].length > 3 || digits.slice(1).some((d) => d.length !== 3)))
    return fail('grouping');
  if (fraction !== undefined && exp === 0) return fail('no_decimals');
  if (fraction !== undefined && fraction.length > exp) return fail('decimals');
  const minor = BigInt(digits.join('') + (fraction ?? '').padEnd(exp, '0'));
  if (minor === 0n) return fail('not_positive');
  if (minor > BigInt(Number.MAX_SAFE_INTEGER)) return fail('too_large');
  return { ok: true, minor: Number(minor) };
}
