import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { noteAmounts, splitNote, type InvoiceAmounts, type Prior } from '../../../src/modules/credit-notes/amounts.ts';

const RUNS = { numRuns: 1000 };

/** An invoice: lines, a discount up to the subtotal, exclusive tax at a rate up to 20 % (or inclusive). */
const invoiceArb = fc
  .record({
    lines: fc.array(fc.integer({ min: 1, max: 5_000_000 }), { minLength: 1, maxLength: 6 }),
    discountPct: fc.integer({ min: 0, max: 100 }),
    rateBp: fc.integer({ min: 0, max: 2000 }),
    inclusive: fc.boolean(),
    paid: fc.boolean(),
  })
  .map(({ lines, discountPct, rateBp, inclusive, paid }) => {
    const subtotal = lines.reduce((s, l) => s + BigInt(l), 0n);
    const discount = (subtotal * BigInt(discountPct)) / 100n;
    const base = subtotal - discount;
    const tax = inclusive ? 0n : (base * BigInt(rateBp)) / 10000n;
    const taxIncluded = inclusive ? (base * BigInt(rateBp)) / (10000n + BigInt(rateBp)) : 0n;
    const total = base + tax;
    return { lines: lines.map(BigInt), subtotal, discount, tax, taxIncluded, total, paid };
  });

type Inv = InvoiceAmounts & { lines: bigint[] };
function run(inv: Omit<Inv, 'amountRemaining' | 'amountDue'>, notes: ('line' | number)[]) {
  const prior: Prior = { net: 0n, discountAmount: 0n, tax: 0n, taxIncluded: 0n };
  let credited = 0n;
  const out = [];
  for (const [i, n] of notes.entries()) {
    const state: InvoiceAmounts = {
      ...inv,
      amountRemaining: inv.total - credited,
      amountDue: inv.paid ? 0n : inv.total - credited,
    };
    const credit =
      n === 'line'
        ? { kind: 'lines' as const, net: inv.lines[i % inv.lines.length] as bigint }
        : { kind: 'amount' as const, amount: BigInt(n) };
    const a = noteAmounts(state, prior, credit);
    if (a.total <= 0n || a.total > state.amountRemaining) continue; // refused by the service
    out.push({ a, state });
    credited += a.total;
    if (credit.kind === 'lines') prior.net += a.subtotal;
    prior.discountAmount += a.discountAmount;
    prior.tax += a.tax;
    prior.taxIncluded += a.taxIncluded;
  }
  return { out, prior, credited };
}

describe('credit-note maths (fast-check)', () => {
  it('a full credit (every line in one note) reverses discount and tax exactly', () => {
    fc.assert(
      fc.property(invoiceArb, (inv) => {
        fc.pre(inv.total > 0n);
        const state = { ...inv, amountRemaining: inv.total, amountDue: inv.paid ? 0n : inv.total };
        const zero = { net: 0n, discountAmount: 0n, tax: 0n, taxIncluded: 0n };
        const a = noteAmounts(state, zero, { kind: 'lines', net: inv.subtotal });
        expect(a).toEqual({
          subtotal: inv.subtotal,
          discountAmount: inv.discount,
          tax: inv.tax,
          taxIncluded: inv.taxIncluded,
          total: inv.total,
        });
      }),
      RUNS,
    );
  });

  it('line by line: once every line is credited, discount and tax are reversed exactly', () => {
    fc.assert(
      fc.property(invoiceArb, (inv) => {
        fc.pre(inv.total > 0n);
        const { prior, credited, out } = run(
          inv,
          inv.lines.map(() => 'line'),
        );
        for (const { a } of out) expect(a.total).toBe(a.subtotal - a.discountAmount + a.tax);
        if (out.length === inv.lines.length) {
          expect(credited).toBe(inv.total);
          expect(prior.tax).toBe(inv.tax);
          expect(prior.taxIncluded).toBe(inv.taxIncluded);
          expect(prior.discountAmount).toBe(inv.discount);
        }
      }),
      RUNS,
    );
  });

  it('any sequence of notes: Σ tax never above the invoice tax; crediting everything reverses it exactly', () => {
    fc.assert(
      fc.property(
        invoiceArb,
        fc.array(fc.oneof(fc.constant('line' as const), fc.integer({ min: 1, max: 3_000_000 })), { maxLength: 12 }),
        (inv, notes) => {
          fc.pre(inv.total > 0n);
          const { prior, credited } = run(inv, notes);
          expect(prior.tax <= inv.tax).toBe(true);
          expect(prior.taxIncluded <= inv.taxIncluded).toBe(true);
          expect(credited <= inv.total).toBe(true);
          // The rest as one amount note: everything is credited and the tax is reversed exactly.
          const rest = inv.total - credited;
          if (rest > 0n) {
            const last = run(inv, [...notes, Number(rest)]);
            expect(last.credited).toBe(inv.total);
            expect(last.prior.tax).toBe(inv.tax);
          }
        },
      ),
      RUNS,
    );
  });

  it('pre + post = total; the parts add up to post; the pre-payment tax is within the note tax', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        fc.bigInt({ min: 0n, max: 10n ** 12n }),
        fc.bigInt({ min: 0n, max: 10n ** 12n }),
        fc.boolean(),
        fc.array(fc.nat(), { minLength: 3, maxLength: 3 }),
        (total, taxRaw, due, paid, weights) => {
          const tax = taxRaw % (total + 1n);
          const split = splitNote(
            { amountDue: due, paid },
            { total, tax },
            { refundAmount: null, creditAmount: null, outOfBandAmount: null },
          )!;
          expect(split.prePaymentAmount + split.postPaymentAmount).toBe(total);
          expect(split.refundAmount + split.creditAmount + split.outOfBandAmount).toBe(split.postPaymentAmount);
          expect(split.prePaymentTax >= 0n && split.prePaymentTax <= tax).toBe(true);
          if (paid) expect(split.prePaymentAmount).toBe(0n);
          // Sent parts: accepted exactly when they add up to post.
          const [r, c] = weights.map(BigInt);
          const post = split.postPaymentAmount;
          const refund = post === 0n ? 0n : r % (post + 1n);
          const credit = post - refund === 0n ? 0n : c % (post - refund + 1n);
          const ok = splitNote(
            { amountDue: due, paid },
            { total, tax },
            { refundAmount: refund, creditAmount: credit, outOfBandAmount: post - refund - credit },
          );
          expect(ok).not.toBeNull();
          const bad = splitNote(
            { amountDue: due, paid },
            { total, tax },
            { refundAmount: refund + 1n, creditAmount: credit, outOfBandAmount: post - refund - credit },
          );
          expect(bad).toBeNull();
        },
      ),
      RUNS,
    );
  });
});
