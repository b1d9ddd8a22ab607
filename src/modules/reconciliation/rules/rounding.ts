// Exact rounding for reconciliation (docs/reconciliation.md, Matching rules): every amount is an integer of
// minor units and every rate is an exact decimal, so the arithmetic is bigint and no float ever rounds.

/** An integer amount of minor units: a safe JS integer (one amount) or a bigint (a sum). */
export type Minor = number | bigint;

/**
 * A percent with at most 4 decimals, as an integer of ten-thousandths of a percent: 2.9 % is 29_000n,
 * 0.7 % is 7_000n, 100 % is 1_000_000n. Settings carry the percent as a decimal (a JSON number or a
 * string); it is read once into this form, so `amount x percent / 100` is one exact fraction.
 */
export type ScaledPercent = bigint;

/** Ten-thousandths per percent: the scale of `ScaledPercent`. */
export const percentScale = 10_000n;

/** A Minor as a bigint; a number that is not a safe integer was already rounded somewhere, so it is refused. */
export function toBig(v: Minor): bigint {
  if (typeof v === 'bigint') return v;
  if (!Number.isSafeInteger(v)) throw new RangeError(`${v} is not an exact integer amount`);
  return BigInt(v);
}

/**
 * numerator / denominator rounded to the nearest integer, halves away from zero (2.5 -> 3, -2.5 -> -3).
 * Exact for any size: integer division and a comparison of the remainder, no float.
 */
export function roundHalfUp(numerator: bigint, denominator: bigint): bigint {
  if (denominator === 0n) throw new RangeError('roundHalfUp: division by zero');
  let n = numerator;
  let d = denominator;
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  const q = n / d; // truncates toward zero
  const r = n % d; // the sign of n
  const twice = 2n * (r < 0n ? -r : r);
  if (twice >= d) return n < 0n ? q - 1n : q + 1n;
  return q;
}

const percentText = /^(\d{1,3})(?:\.(\d{1,4}))?$/;

/**
 * A percent between 0 and 100 with at most 4 decimals, from its decimal text ("2.9", "0.7000") or a JS
 * number (2.9: its shortest decimal text is read, which is the decimal the caller wrote). Throws a
 * RangeError on anything else (an exponent, a fifth decimal, a negative, above 100).
 */
export function parsePercent(percent: string | number): ScaledPercent {
  const text = typeof percent === 'number' ? String(percent) : percent.trim();
  const m = percentText.exec(text);
  if (!m) throw new RangeError(`percent ${text} is not a decimal with at most 4 decimals`);
  const scaled = BigInt(m[1]) * percentScale + BigInt((m[2] ?? '').padEnd(4, '0'));
  if (scaled > 100n * percentScale) throw new RangeError(`percent ${text} is above 100`);
  return scaled;
}

/** round_half_up(amount x percent / 100), exact: the fee of a percent rule, the PPN of a fee. */
export function percentOfAmount(amount: Minor, percent: ScaledPercent): bigint {
  return roundHalfUp(toBig(amount) * percent, 100n * percentScale);
}

/**
 * A report percent: round_half_up(100 x part / whole, 2 decimals) as a JS number (12.35), null when
 * `whole` is 0. The rounding is done on integers (hundredths of a percent); the decimal text is then read
 * by Number, which gives the double nearest that decimal: the number JSON writes as it.
 */
export function percentOf(part: Minor, whole: Minor): number | null {
  const w = toBig(whole);
  if (w === 0n) return null;
  const hundredths = roundHalfUp(toBig(part) * 10_000n, w);
  const size = hundredths < 0n ? -hundredths : hundredths;
  const text = `${hundredths < 0n ? '-' : ''}${size / 100n}.${String(size % 100n).padStart(2, '0')}`;
  return Number(text);
}

/** A bigint amount back to a JS number for a single amount; throws when it is not a safe integer. */
export function toSafeNumber(v: bigint): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER))
    throw new RangeError(`${v} is beyond 2^53 - 1: keep it a bigint`);
  return Number(v);
}

/** The absolute value of an amount, as a bigint. */
export function absBig(v: Minor): bigint {
  const b = toBig(v);
  return b < 0n ? -b : b;
}
