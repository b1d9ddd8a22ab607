// The billing rules as pure functions, worked examples from docs/billing.md and docs/credit-notes.md:
// no database, no server, so `npm run test:unit` answers in seconds. The properties of the same
// functions are in the module tests (test/modules/{plans,credit-notes,subscriptions}).
import { describe, expect, it } from 'vitest';
import { addMonths, periodIndexAt, periodOf, prorate, type Cadence } from '../../src/core/periods.ts';
import {
  AmountOverflow,
  computeTotals,
  periodTotal,
  priceQuantity,
  rateParts,
} from '../../src/modules/plans/pricing.ts';
import { noteAmounts, splitNote, type InvoiceAmounts } from '../../src/modules/credit-notes/amounts.ts';
import { refusePastDueChange } from '../../src/modules/subscriptions/past-due.ts';
import { subscriptionMachine } from '../../src/modules/subscriptions/states.ts';

const utc = (s: string) => new Date(`${s}T00:00:00.000Z`);
const monthly: Cadence = { interval: 'month', intervalCount: 1 };

describe('periods', () => {
  it('a Jan 31 anchor bills Feb 28, then Mar 31, Apr 30: every period from the anchor, no drift', () => {
    const anchor = utc('2025-01-31');
    expect([1, 2, 3].map((k) => periodOf(anchor, monthly, k).start.toISOString().slice(0, 10))).toEqual([
      '2025-02-28',
      '2025-03-31',
      '2025-04-30',
    ]);
    expect(addMonths(utc('2024-02-29'), 12).toISOString().slice(0, 10)).toBe('2025-02-28');
  });

  it('the period holding an instant is half-open: its end belongs to the next one', () => {
    const anchor = utc('2025-01-31');
    expect(periodIndexAt(anchor, monthly, utc('2025-02-27'))).toBe(0);
    expect(periodIndexAt(anchor, monthly, utc('2025-02-28'))).toBe(1);
    expect(periodIndexAt(anchor, monthly, utc('2025-01-30'))).toBe(-1);
    expect(periodIndexAt(anchor, { interval: 'week', intervalCount: 2 }, utc('2025-02-14'))).toBe(1);
  });

  it('proration is to the second, half-up, whole at the start and nothing at the end', () => {
    const p = { start: utc('2025-04-01'), end: utc('2025-05-01') };
    expect(prorate(30_000, p, utc('2025-04-16'))).toBe(15_000);
    expect(prorate(1, p, utc('2025-04-16'))).toBe(1); // 0.5 rounds up
    expect(prorate(1, p, new Date(utc('2025-04-16').getTime() + 1000))).toBe(0);
    expect(prorate(30_000, p, utc('2025-03-01'))).toBe(30_000);
    expect(prorate(30_000, p, utc('2025-05-01'))).toBe(0);
  });
});

describe('pricing', () => {
  const tiers = [
    { upTo: 10, unitAmount: 100, flatAmount: null },
    { upTo: 'inf' as const, unitAmount: 50, flatAmount: 1000 },
  ];

  it('graduated tiers price the units in each tier; volume prices them all at the tier reached', () => {
    expect(priceQuantity({ model: 'tiered', unitAmount: null, tiers }, 15).amount).toBe(10 * 100 + 5 * 50 + 1000);
    expect(priceQuantity({ model: 'volume', unitAmount: null, tiers }, 15).amount).toBe(15 * 50 + 1000);
    expect(priceQuantity({ model: 'volume', unitAmount: null, tiers }, 10).amount).toBe(10 * 100);
  });

  it('nothing to bill is one line of quantity 1 at 0', () => {
    expect(priceQuantity({ model: 'flat', unitAmount: 500, tiers: null }, 0).lines).toEqual([
      { quantity: 1, unitAmount: 0, amount: 0, tier: null, flatFee: false, zero: true },
    ]);
  });

  it('tax is rounded once per invoice, half-up, on the discounted base', () => {
    expect(computeTotals({ subtotal: 1005, discount: 5, taxMode: 'exclusive', rate: '0.11' })).toEqual({
      subtotal: 1005,
      discount: 5,
      tax: 110,
      taxIncluded: 0,
      total: 1110,
    });
    // 111 inside 1,110 at 11%: 1110 x 0.11 / 1.11 = 110.
    expect(computeTotals({ subtotal: 1110, taxMode: 'inclusive', rate: 0.11 })).toMatchObject({
      tax: 0,
      taxIncluded: 110,
      total: 1110,
    });
    expect(computeTotals({ subtotal: 100, discount: 500, taxMode: 'exclusive', rate: '0.11' }).total).toBe(0);
    expect(() => rateParts('0.123456')).toThrow(RangeError);
  });

  it('a period past 2^53 - 1 minor units, tax included, is refused, never rounded', () => {
    const max = Number.MAX_SAFE_INTEGER;
    expect(periodTotal({ model: 'flat', unitAmount: max, tiers: null, taxMode: 'inclusive' }, 1, '0.11')).toBe(max);
    expect(periodTotal({ model: 'flat', unitAmount: max, tiers: null, taxMode: 'exclusive' }, 1, '0.11')).toBeNull();
    expect(periodTotal({ model: 'flat', unitAmount: max, tiers: null, taxMode: 'inclusive' }, 2, '0')).toBeNull();
    expect(() => priceQuantity({ model: 'flat', unitAmount: max, tiers: null }, 2)).toThrow(AmountOverflow);
  });
});

describe('credit-note amounts', () => {
  // 10,000 of lines, 1,000 off, 11% added tax (990): total 9,990, unpaid.
  const inv: InvoiceAmounts = {
    subtotal: 10_000n,
    discount: 1_000n,
    tax: 990n,
    taxIncluded: 0n,
    total: 9_990n,
    amountRemaining: 9_990n,
    amountDue: 9_990n,
    paid: false,
  };
  const none = { net: 0n, discountAmount: 0n, tax: 0n, taxIncluded: 0n };

  it('a line credit takes its share of the discount and of the tax', () => {
    expect(noteAmounts(inv, none, { kind: 'lines', net: 5_000n })).toEqual({
      subtotal: 5_000n,
      discountAmount: 500n,
      tax: 495n,
      taxIncluded: 0n,
      total: 4_995n,
    });
  });

  it('the note that credits the rest takes exactly the tax left, so the notes reverse it exactly', () => {
    const first = noteAmounts(inv, none, { kind: 'amount', amount: 3_333n });
    const rest = noteAmounts(
      { ...inv, amountRemaining: inv.total - first.total },
      { ...none, tax: first.tax },
      { kind: 'amount', amount: inv.total - first.total },
    );
    expect(first.tax + rest.tax).toBe(inv.tax);
    expect(first.total + rest.total).toBe(inv.total);
  });

  it('an unpaid invoice takes the note off what is due first; the parts must add up to the rest', () => {
    const partlyPaid = { paid: false, amountDue: 1_000n };
    const note = { total: 4_995n, tax: 495n };
    expect(splitNote(partlyPaid, note, { refundAmount: null, creditAmount: null, outOfBandAmount: null })).toEqual({
      refundAmount: 0n,
      creditAmount: 3_995n,
      outOfBandAmount: 0n,
      prePaymentAmount: 1_000n,
      postPaymentAmount: 3_995n,
      prePaymentTax: 99n,
    });
    expect(splitNote(partlyPaid, note, { refundAmount: 3_000n, creditAmount: 900n, outOfBandAmount: null })).toBeNull();
    expect(
      splitNote({ paid: true, amountDue: 0n }, note, {
        refundAmount: 4_000n,
        creditAmount: null,
        outOfBandAmount: 995n,
      }),
    ).toMatchObject({ prePaymentAmount: 0n, postPaymentAmount: 4_995n, refundAmount: 4_000n, outOfBandAmount: 995n });
  });
});

describe('price and quantity changes', () => {
  const pastDue = subscriptionMachine.moves.payment_failed.to;
  const sub = { status: pastDue, priceId: 'price_a', quantity: 2 };

  it('a past-due subscription refuses a new price or quantity, 409 subscription_past_due', () => {
    expect(() => refusePastDueChange(sub, { priceId: 'price_b' })).toThrow(
      expect.objectContaining({ status: 409, extensions: { code: 'subscription_past_due' } }),
    );
    expect(() => refusePastDueChange(sub, { quantity: 3 })).toThrow(
      expect.objectContaining({ status: 409, extensions: { code: 'subscription_past_due' } }),
    );
  });

  it('sending the same price and quantity, or nothing, changes nothing and is allowed', () => {
    expect(refusePastDueChange(sub, { priceId: 'price_a', quantity: 2 })).toBeUndefined();
    expect(refusePastDueChange(sub, { priceId: null, quantity: null })).toBeUndefined();
    expect(refusePastDueChange({ ...sub, status: 'active' }, { priceId: 'price_b', quantity: 9 })).toBeUndefined();
  });
});
