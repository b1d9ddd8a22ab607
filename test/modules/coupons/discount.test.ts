/**
 * The discount maths (src/modules/coupons/discount.ts) is pure: properties over generated bases,
 * coupons and anchors (>= 1,000 runs each), and examples.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  coversCurrency,
  discountAmount,
  discountAppliesAt,
  discountEnd,
  eligibleBase,
  type DiscountTerms,
} from '../../../src/modules/coupons/discount.ts';
import { periodStartAt } from '../../../src/modules/subscriptions/periods.ts';

const RUNS = { numRuns: 1_000 };
const base = fc.integer({ min: 0, max: Math.floor(Number.MAX_SAFE_INTEGER / 10_000) });
const percent = fc
  .integer({ min: 1, max: 10_000 })
  .map((h): DiscountTerms => ({ percentOffHundredths: h, amountOff: null }));
const amount = fc
  .integer({ min: 1, max: Number.MAX_SAFE_INTEGER })
  .map((a): DiscountTerms => ({ percentOffHundredths: null, amountOff: { IDR: a } }));

describe('discountAmount', () => {
  it('is an integer, never negative and never above the base (percent or amount)', () => {
    fc.assert(
      fc.property(base, fc.oneof(percent, amount), (b, t) => {
        const d = discountAmount(t, b, 'IDR');
        expect(Number.isSafeInteger(d)).toBe(true);
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThanOrEqual(b);
      }),
      RUNS,
    );
  });

  it('a percent rounds half-up once; 100 % is the whole base; an amount is min(amountOff, base)', () => {
    fc.assert(
      fc.property(base, percent, amount, (b, p, a) => {
        const exact = (b * p.percentOffHundredths!) / 10_000;
        expect(Math.abs(discountAmount(p, b, 'IDR') - exact)).toBeLessThanOrEqual(0.5);
        expect(discountAmount({ percentOffHundredths: 10_000, amountOff: null }, b, 'IDR')).toBe(b);
        expect(discountAmount(a, b, 'IDR')).toBe(Math.min(a.amountOff!.IDR!, b));
      }),
      RUNS,
    );
  });

  it('examples; a coupon without an amount in the currency does not cover it', () => {
    expect(discountAmount({ percentOffHundredths: 1250, amountOff: null }, 150_000, 'IDR')).toBe(18_750);
    expect(discountAmount({ percentOffHundredths: 3333, amountOff: null }, 15, 'IDR')).toBe(5); // 4.9995
    expect(discountAmount({ percentOffHundredths: 5000, amountOff: null }, 3, 'USD')).toBe(2); // 1.5 half-up
    const idr = { percentOffHundredths: null, amountOff: { IDR: 50_000 } };
    expect(discountAmount(idr, 30_000, 'IDR')).toBe(30_000);
    expect(coversCurrency(idr, 'USD')).toBe(false);
    expect(() => discountAmount(idr, 30_000, 'USD')).toThrow(RangeError);
  });
});

describe('eligibleBase', () => {
  it('sums all lines or those of appliesTo plans, floored at 0 (proration credits)', () => {
    const lines = [
      { amount: 100_000, planId: 'pln_a' },
      { amount: -30_000, planId: 'pln_a' },
      { amount: 50_000, planId: 'pln_b' },
      { amount: 7_000, planId: null },
    ];
    expect(eligibleBase(lines, null)).toBe(127_000);
    expect(eligibleBase(lines, { planIds: ['pln_b'] })).toBe(50_000);
    expect(eligibleBase([{ amount: -5, planId: null }], null)).toBe(0);
  });
});

describe('duration', () => {
  it('a 3-month coupon applied at a monthly anchor discounts exactly cycles 1-3 of 12 (month-end clamp)', () => {
    const anchor = fc.date({
      min: new Date('2020-01-01T00:00:00Z'),
      max: new Date('2035-12-31T23:59:59Z'),
      noInvalidDate: true,
    });
    fc.assert(
      fc.property(anchor, fc.integer({ min: 1, max: 36 }), (start, months) => {
        const d = { start, end: discountEnd({ duration: 'repeating', durationInMonths: months }, start) };
        const discounted = Array.from({ length: 48 }, (_, k) =>
          discountAppliesAt(d, periodStartAt(start, { interval: 'month', intervalCount: 1 }, k)),
        );
        expect(discounted.filter(Boolean).length).toBe(months);
        expect(discounted.slice(0, months).every(Boolean)).toBe(true);
      }),
      RUNS,
    );
    const jan31 = new Date('2027-01-31T10:00:00Z');
    expect(discountEnd({ duration: 'repeating', durationInMonths: 1 }, jan31)?.toISOString()).toBe(
      '2027-02-28T10:00:00.000Z',
    );
    expect(discountEnd({ duration: 'forever', durationInMonths: null }, jan31)).toBeNull();
    expect(discountEnd({ duration: 'once', durationInMonths: null }, jan31)).toBeNull();
  });
});
