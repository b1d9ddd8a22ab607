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
