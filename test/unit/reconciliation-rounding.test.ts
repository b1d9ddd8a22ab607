// Exact rounding of the reconciliation rules (src/modules/reconciliation/rules/rounding.ts): halves away from
// zero on bigints, percents read as exact decimals, report percents with two decimals.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  parsePercent,
  percentOf,
  percentOfAmount,
  roundHalfUp,
  toBig,
  toSafeNumber,
} from '../../src/modules/reconciliation/rules/rounding.ts';

const RUNS = { numRuns: 1000 };

/** The reference: |n|/|d| + 1/2, floored, with the sign put back (another route to the same rounding). */
function reference(n: bigint, d: bigint): bigint {
  const negative = n < 0n !== d < 0n && n !== 0n;
  const an = n < 0n ? -n : n;
  const ad = d < 0n ? -d : d;
  const r = (2n * an + ad) / (2n * ad);
  return negative ? -r : r;
}

describe('roundHalfUp', () => {
  it('rounds halves away from zero and everything else to the nearest', () => {
    expect(roundHalfUp(5n, 2n)).toBe(3n);
    expect(roundHalfUp(-5n, 2n)).toBe(-3n);
    expect(roundHalfUp(5n, -2n)).toBe(-3n);
    expect(roundHalfUp(-5n, -2n)).toBe(3n);
    expect(roundHalfUp(7n, 3n)).toBe(2n);
    expect(roundHalfUp(-7n, 3n)).toBe(-2n);
    expect(roundHalfUp(8n, 3n)).toBe(3n);
    expect(roundHalfUp(0n, 7n)).toBe(0n);
    expect(roundHalfUp(1n, 2n)).toBe(1n);
    expect(roundHalfUp(-1n, 2n)).toBe(-1n);
    expect(roundHalfUp(1n, 3n)).toBe(0n);
  });

  it('refuses a zero denominator', () => {
    expect(() => roundHalfUp(1n, 0n)).toThrow(RangeError);
  });

  it('equals the bigint reference for any numerator and denominator, far beyond 2^53', () => {
    const big = fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n });
    const nonZero = big.filter((d) => d !== 0n);
    fc.assert(
      fc.property(big, nonZero, (n, d) => roundHalfUp(n, d) === reference(n, d)),
      RUNS,
    );
  });

  it('is within half of the exact quotient: |n - q x d| <= |d| / 2', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }),
        fc.bigInt({ min: 1n, max: 10n ** 20n }),
        (n, d) => {
          const q = roundHalfUp(n, d);
          const r = n - q * d;
          return 2n * (r < 0n ? -r : r) <= d;
        },
      ),
      RUNS,
    );
  });
});

describe('percents', () => {
  it('reads a percent of up to 4 decimals exactly, from text or a number', () => {
    expect(parsePercent('2.9')).toBe(29_000n);
    expect(parsePercent(2.9)).toBe(29_000n);
    expect(parsePercent('0.7')).toBe(7_000n);
    expect(parsePercent('0.0001')).toBe(1n);
    expect(parsePercent(100)).toBe(1_000_000n);
    expect(parsePercent('12.3456')).toBe(123_456n);
    expect(parsePercent(' 4.4 ')).toBe(44_000n);
  });

  it('refuses a fifth decimal, an exponent, a negative, or more than 100', () => {
    for (const bad of ['1.23456', '1e2', '-1', '100.0001', '101', '', 'abc', '.5'])
      expect(() => parsePercent(bad), bad).toThrow(RangeError);
    expect(() => parsePercent(1e-7)).toThrow(RangeError);
  });

  it('a percent of an amount is round_half_up(amount x percent / 100), with no float error', () => {
    expect(percentOfAmount(100, parsePercent('0.5'))).toBe(1n); // 0.5 -> 1
    expect(percentOfAmount(-100, parsePercent('0.5'))).toBe(-1n);
    expect(percentOfAmount(150, parsePercent('2.9'))).toBe(4n); // 4.35
    expect(percentOfAmount(250, parsePercent('1.5'))).toBe(4n); // 3.75
    expect(percentOfAmount(4500, 11n * 10_000n)).toBe(495n);
    // 1.005 as a float is 1.00499999999999989...: the exact decimal is below the half, and 0.5 % of 201 is 1.005 exactly.
    expect(percentOfAmount(201, parsePercent('0.5'))).toBe(1n);
    expect(percentOfAmount(300, parsePercent('0.5'))).toBe(2n); // 1.5
    expect(percentOfAmount(Number.MAX_SAFE_INTEGER, parsePercent('100'))).toBe(BigInt(Number.MAX_SAFE_INTEGER));
  });

  it('equals the reference over any safe amount and any 4-decimal percent', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
        fc.integer({ min: 0, max: 1_000_000 }),
        (amount, tenThousandths) => {
          const text = `${Math.floor(tenThousandths / 10_000)}.${String(tenThousandths % 10_000).padStart(4, '0')}`;
          const got = percentOfAmount(amount, parsePercent(text));
          return got === reference(BigInt(amount) * BigInt(tenThousandths), 1_000_000n);
        },
      ),
      RUNS,
    );
  });

  it('report percents have two decimals, halves away from zero, null over nothing', () => {
    expect(percentOf(1, 3)).toBe(33.33);
    expect(percentOf(2, 3)).toBe(66.67);
    expect(percentOf(1, 8)).toBe(12.5);
    expect(percentOf(1, 800)).toBe(0.13); // 0.125
    expect(percentOf(-1, 800)).toBe(-0.13);
    expect(percentOf(5, 5)).toBe(100);
    expect(percentOf(0, 5)).toBe(0);
    expect(percentOf(0, 0)).toBeNull();
    expect(percentOf(3n, 0n)).toBeNull();
    expect(percentOf(999_995n, 1_000_000n)).toBe(100); // 99.9995 -> 100.00
    expect(JSON.stringify({ p: percentOf(9_975, 10_000) })).toBe('{"p":99.75}');
  });

  it('a report percent is the decimal of the rounded hundredths, written as JSON writes it', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 18n }), fc.bigInt({ min: 1n, max: 10n ** 18n }), (part, whole) => {
        const hundredths = reference(part * 10_000n, whole);
        const text = `${hundredths / 100n}.${String(hundredths % 100n).padStart(2, '0')}`;
        return percentOf(part, whole) === Number(text);
      }),
      RUNS,
    );
  });
});

describe('amount types', () => {
  it('takes numbers only when they are exact integers, and gives numbers back only when safe', () => {
    expect(toBig(12)).toBe(12n);
    expect(() => toBig(1.5)).toThrow(RangeError);
    expect(() => toBig(2 ** 53)).toThrow(RangeError);
    expect(toSafeNumber(2n ** 53n - 1n)).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => toSafeNumber(2n ** 53n)).toThrow(RangeError);
  });
});
