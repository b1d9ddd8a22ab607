// The invoice totals model (src/modules/documents/totals.ts): the ordered rows every layout of an invoice shows,
// and that they add up: total − credit notes − balance applied − amount paid = amount due.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type InvoiceAmounts, type InvoiceTotalsRow, invoiceTotals } from '../../../src/modules/documents/totals.ts';

const sum = (rows: InvoiceTotalsRow[], kind: InvoiceTotalsRow['kind']) =>
  rows.filter((r) => r.kind === kind).reduce((n, r) => n + r.amount, 0);
const one = (rows: InvoiceTotalsRow[], kind: InvoiceTotalsRow['kind']) => {
  const found = rows.filter((r) => r.kind === kind);
  expect(found, kind).toHaveLength(1);
  return found[0].amount;
};

/** The chain the rows state: the total, less the deductions shown (negative) and what was paid, is the amount due. */
function expectAddsUp(rows: InvoiceTotalsRow[]) {
  const total = one(rows, 'total');
  const due = total + sum(rows, 'credit_note') + sum(rows, 'balance_applied') - one(rows, 'amount_paid');
  expect(due).toBe(one(rows, 'amount_due'));
  // Subtotal, discounts and tax make the total (when the subtotal is shown and the total was not clamped at 0).
  if (rows.some((r) => r.kind === 'subtotal') && total > 0)
    expect(one(rows, 'subtotal') + sum(rows, 'discount') + sum(rows, 'tax')).toBe(total);
}

const base: InvoiceAmounts = {
  subtotal: 100_000,
  tax: 20_000,
  discount: 0,
  total: 120_000,
  amountPaid: 0,
  amountDue: 120_000,
};

describe('invoiceTotals', () => {
  it('balance applied then paid: Total 120.000, Balance applied -30.000, Amount paid 90.000, Amount due 0', () => {
    const rows = invoiceTotals({ ...base, balanceApplied: 30_000, amountPaid: 90_000, amountDue: 0 });
    expect(rows).toEqual([
      { kind: 'subtotal', amount: 100_000 },
      { kind: 'tax', amount: 20_000 },
      { kind: 'total', amount: 120_000 },
      { kind: 'balance_applied', amount: -30_000 },
      { kind: 'amount_paid', amount: 90_000 },
      { kind: 'amount_due', amount: 0 },
    ]);
    expectAddsUp(rows);
  });

  it('open with balance applied: the rest is due', () => {
    const rows = invoiceTotals({ ...base, balanceApplied: 30_000, amountDue: 90_000 });
    expect(rows.map((r) => r.kind)).toEqual([
      'subtotal',
      'tax',
      'total',
      'balance_applied',
      'amount_paid',
      'amount_due',
    ]);
    expectAddsUp(rows);
  });

  it('coupon discounts and a pre-payment credit note before the balance, in reading order', () => {
    const rows = invoiceTotals({
      subtotal: 200_000,
      tax: 19_800,
      discount: 20_000,
      discounts: [
        { name: 'LEBARAN', amount: 15_000 },
        { name: null, amount: 5_000 },
      ],
      total: 199_800,
      creditNotes: [{ number: 'SVC-CN-2026-11-0001', total: 50_000, prePaymentAmount: 50_000 }],
      balanceApplied: 40_000,
      amountPaid: 0,
      amountDue: 109_800,
    });
    expect(rows).toEqual([
      { kind: 'subtotal', amount: 200_000 },
      { kind: 'discount', name: 'LEBARAN', amount: -15_000 },
      { kind: 'discount', name: null, amount: -5_000 },
      { kind: 'tax', amount: 19_800 },
      { kind: 'total', amount: 199_800 },
      { kind: 'credit_note', number: 'SVC-CN-2026-11-0001', amount: -50_000 },
      { kind: 'balance_applied', amount: -40_000 },
      { kind: 'amount_paid', amount: 0 },
      { kind: 'amount_due', amount: 109_800 },
    ]);
    expectAddsUp(rows);
  });

  it('a note issued after payment: shown after the amount due, outside the sum; a split note in both places', () => {
    const paid = invoiceTotals({
      ...base,
      tax: null,
      subtotal: 120_000,
      creditNotes: [{ number: 'SVC-CN-2026-11-0002', total: 55_500, prePaymentAmount: 0 }],
      amountPaid: 120_000,
      amountDue: 0,
    });
    expect(paid).toEqual([
      { kind: 'total', amount: 120_000 },
      { kind: 'amount_paid', amount: 120_000 },
      { kind: 'amount_due', amount: 0 },
      { kind: 'credit_note_after_payment', number: 'SVC-CN-2026-11-0002', amount: -55_500 },
    ]);
    expectAddsUp(paid);
    // Credited 150.000 on an invoice with 120.000 due: 120.000 before payment (paid with no payment), 30.000 after.
    const split = invoiceTotals({
      ...base,
      total: 150_000,
      subtotal: 130_000,
      creditNotes: [{ number: 'SVC-CN-2026-11-0003', total: 150_000, prePaymentAmount: 120_000 }],
      balanceApplied: 30_000,
      amountDue: 0,
    });
    expect(split.filter((r) => r.kind.startsWith('credit_note'))).toEqual([
      { kind: 'credit_note', number: 'SVC-CN-2026-11-0003', amount: -120_000 },
      { kind: 'credit_note_after_payment', number: 'SVC-CN-2026-11-0003', amount: -30_000 },
    ]);
    expectAddsUp(split);
  });

  it('no tax, no discount, no deductions: total, amount paid, amount due only', () => {
    expect(invoiceTotals({ ...base, tax: null, subtotal: 120_000 }).map((r) => r.kind)).toEqual([
      'total',
      'amount_paid',
      'amount_due',
    ]);
  });

  it('any invoice the database admits (amountDue = total − balanceApplied − pre-payment credits − amountPaid)', () => {
    const invoice = fc
      .record({
        subtotal: fc.integer({ min: 0, max: 10_000_000 }),
        discount: fc.integer({ min: 0, max: 1_000_000 }),
        tax: fc.option(fc.integer({ min: 0, max: 2_000_000 }), { nil: null }),
        notes: fc.array(fc.record({ pre: fc.nat(1_000_000), post: fc.nat(1_000_000) }), { maxLength: 3 }),
        balance: fc.nat(5_000_000),
        paid: fc.boolean(),
      })
      .map(({ subtotal, discount, tax, notes, balance, paid }): InvoiceAmounts => {
        const total = Math.max(0, subtotal - discount + (tax ?? 0));
        // What the credit notes and the balance can take: never more than the total.
        let left = total;
        const creditNotes = notes.map((n, i) => {
          const pre = Math.min(n.pre, left);
          left -= pre;
          return { number: `SVC-CN-2026-11-000${i + 1}`, total: pre + n.post, prePaymentAmount: pre };
        });
        const balanceApplied = Math.min(balance, left);
        left -= balanceApplied;
        return {
          subtotal,
          discount,
          tax,
          total,
          creditNotes,
          balanceApplied,
          amountPaid: paid ? left : 0,
          amountDue: paid ? 0 : left,
        };
      });
    fc.assert(
      fc.property(invoice, (inv) => {
        const rows = invoiceTotals(inv);
        expectAddsUp(rows);
        // Every row after the amount due is a note's post-payment part.
        const after = rows.slice(rows.findIndex((r) => r.kind === 'amount_due') + 1);
        expect(after.every((r) => r.kind === 'credit_note_after_payment')).toBe(true);
      }),
    );
  });
});
