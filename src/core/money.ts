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
