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
import { periodStartAt } from '../../../src/core/periods.ts';
import { discountLines, type ActiveDiscount } from '../../../src/modules/discounts/service.ts';
import { subscriptionInvoice } from '../../../src/modules/subscriptions/invoice.ts';
import { computeTotals } from '../../../src/modules/plans/pricing.ts';

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

describe('discountLines and subscription invoices (docs/coupons.md, Computation)', () => {
  const line = fc.record({
    quantity: fc.integer({ min: 1, max: 100 }),
    unitAmount: fc.integer({ min: -1_000_000, max: 10_000_000 }),
    priceId: fc.constantFrom('pr_a', 'pr_b', 'pr_c'),
  });
  const terms = fc.oneof(
    percent,
    amount.map((t) => ({ ...t, amountOff: { IDR: t.amountOff!.IDR! % 20_000_000 || 1 } })),
  );
  const active = (t: DiscountTerms, limited: boolean): ActiveDiscount => ({
    id: 'di_x',
    couponId: 'cpn_x',
    name: 'Promo',
    terms: t,
    start: new Date('2025-01-01T00:00:00Z'),
    end: null,
    appliesTo: limited ? { planIds: ['pln_a'] } : null,
    planOfPrice: { pr_a: 'pln_a' },
  });
  const at = new Date('2025-02-01T00:00:00Z');

  it('never negative, never above the eligible base nor what the subtotal leaves after a flat discount', () => {
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 8 }),
        terms,
        fc.boolean(),
        fc.nat(5_000_000),
        (ls, t, limited, flat) => {
          const entries = discountLines(active(t, limited), ls, 'IDR', at, flat);
          expect(entries).toHaveLength(1);
          const d = entries[0].amount;
          const amounts = ls.map((l) => ({
            amount: l.quantity * l.unitAmount,
            planId: l.priceId === 'pr_a' ? 'pln_a' : null,
          }));
          const subtotal = amounts.reduce((s, l) => s + l.amount, 0);
          expect(Number.isSafeInteger(d)).toBe(true);
          expect(d).toBeGreaterThanOrEqual(0);
          expect(d).toBeLessThanOrEqual(eligibleBase(amounts, limited ? { planIds: ['pln_a'] } : null));
          expect(d).toBeLessThanOrEqual(Math.max(0, subtotal - flat));
        },
      ),
      RUNS,
    );
  });

  it('a subscription invoice takes the discount off before tax: tax on subtotal - discount, total = that + tax', () => {
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 6 }),
        terms,
        fc.constantFrom('exclusive', 'inclusive'),
        (ls, t, taxMode) => {
          const inv = subscriptionInvoice(
            {
              sub: { id: 'sub_x', customerId: 'cus_x', currency: 'IDR', paymentMethod: null, testClockId: null },
              taxMode: taxMode as 'exclusive' | 'inclusive',
              lines: ls.map((l) => ({ ...l, description: 'x' })),
              period: { start: at, end: at },
              billingReason: 'subscription_cycle',
              discount: active(t, false),
            },
            '0.11',
            at,
          );
          const subtotal = Number(inv.subtotal);
          const discount = Number(inv.discount);
          expect(discount).toBe((inv.discounts ?? []).reduce((s, e) => s + e.amount, 0));
          expect(discount).toBeLessThanOrEqual(Math.max(0, subtotal));
          const totals = computeTotals({
            subtotal: Math.max(0, subtotal),
            discount,
            taxMode: taxMode as 'exclusive',
            rate: '0.11',
          });
          expect(Number(inv.tax)).toBe(totals.tax);
          expect(Number(inv.total)).toBe(Math.max(0, subtotal - discount + totals.tax));
        },
      ),
      RUNS,
    );
  });

  it('outside [start, end) or in a currency the coupon lacks: no entry', () => {
    const d = { ...active({ percentOffHundredths: 1000, amountOff: null }, false), end: at };
    expect(discountLines(d, [{ quantity: 1, unitAmount: 100, priceId: null }], 'IDR', at)).toEqual([]);
    const usd = active({ percentOffHundredths: null, amountOff: { USD: 5 } }, false);
    expect(discountLines(usd, [{ quantity: 1, unitAmount: 100, priceId: null }], 'IDR', at)).toEqual([]);
  });
});
