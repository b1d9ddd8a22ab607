/**
 * Credit-note maths (docs/credit-notes.md, Amounts): pure functions on integers in minor units, one
 * rounding rule (half-up, once per quantity per note), property-tested in
 * test/modules/credit-notes/amounts.test.ts.
 */
import { divHalfUp } from '../plans/pricing.ts';

/** The invoice as the note sees it (frozen amounts) and what its issued notes already took. */
export interface InvoiceAmounts {
  subtotal: bigint;
  discount: bigint;
  /** Added tax (exclusive invoices). */
  tax: bigint;
  /** Included tax (inclusive invoices, `metadata.taxIncluded`); 0 otherwise. */
  taxIncluded: bigint;
  total: bigint;
  /** `total - creditedAmount`. */
  amountRemaining: bigint;
  /** What is still to be paid (0 once paid). */
  amountDue: bigint;
  paid: boolean;
}

/** Σ over the invoice's issued notes. */
export interface Prior {
  net: bigint;
  discountAmount: bigint;
  tax: bigint;
  taxIncluded: bigint;
}

export type Credited = { kind: 'lines'; net: bigint } | { kind: 'amount'; amount: bigint };

export interface NoteAmounts {
  subtotal: bigint;
  discountAmount: bigint;
  tax: bigint;
  taxIncluded: bigint;
  total: bigint;
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);
const max = (a: bigint, b: bigint) => (a > b ? a : b);
/** round(x * num / den), half-up; 0 when den is 0. */
const share = (x: bigint, num: bigint, den: bigint) => (den > 0n ? divHalfUp(x * num, den) : 0n);

/**
 * A note's subtotal, discount share, tax and total. The tax is never more than what the invoice's
 * earlier notes left of it, and a note that credits everything that remains takes exactly that rest,
 * so the notes of an invoice reverse its tax exactly once it is fully credited.
 */
export function noteAmounts(inv: InvoiceAmounts, prior: Prior, credited: Credited): NoteAmounts {
  const taxLeft = max(0n, inv.tax - prior.tax);
  const inclLeft = max(0n, inv.taxIncluded - prior.taxIncluded);
  if (credited.kind === 'amount') {
    const total = credited.amount;
    const last = total === inv.amountRemaining;
    const tax = last ? taxLeft : min(share(total, inv.tax, inv.total), taxLeft);
    const taxIncluded = last ? inclLeft : min(share(total, inv.taxIncluded, inv.total), inclLeft);
    return { subtotal: total - tax, discountAmount: 0n, tax, taxIncluded, total };
  }
  const L = credited.net;
  const discountLeft = max(0n, inv.discount - prior.discountAmount);
  const fullNet = prior.net + L >= inv.subtotal;
  const discountAmount = min(L, fullNet ? discountLeft : min(share(L, inv.discount, inv.subtotal), discountLeft));
  const base = L - discountAmount;
  const taxable = inv.subtotal - inv.discount;
  const rest = base + taxLeft === inv.amountRemaining;
  const tax = rest ? taxLeft : min(share(base, inv.tax, taxable), taxLeft);
  const taxIncluded = rest || fullNet ? inclLeft : min(share(base, inv.taxIncluded, taxable), inclLeft);
  return { subtotal: L, discountAmount, tax, taxIncluded, total: base + tax };
}

export interface Parts {
  refundAmount: bigint;
  creditAmount: bigint;
  outOfBandAmount: bigint;
}

export interface Split extends Parts {
  prePaymentAmount: bigint;
  postPaymentAmount: bigint;
  /** The added tax of the pre-payment part; the post-payment part carries `tax - prePaymentTax`. */
  prePaymentTax: bigint;
}

/**
 * Pre- and post-payment parts (Stripe's split): an unpaid invoice takes the note off what is due
 * first. `parts` as sent (null: not sent); none sent puts the whole post-payment part into credit.
 * Returns null when the sent parts do not add up to the post-payment part.
 */
export function splitNote(
  inv: Pick<InvoiceAmounts, 'amountDue' | 'paid'>,
  note: Pick<NoteAmounts, 'total' | 'tax'>,
  parts: { [K in keyof Parts]: bigint | null },
): Split | null {
  const prePaymentAmount = inv.paid ? 0n : min(note.total, inv.amountDue);
  const postPaymentAmount = note.total - prePaymentAmount;
  const none = parts.refundAmount == null && parts.creditAmount == null && parts.outOfBandAmount == null;
  const p: Parts = none
    ? { refundAmount: 0n, creditAmount: postPaymentAmount, outOfBandAmount: 0n }
    : {
        refundAmount: parts.refundAmount ?? 0n,
        creditAmount: parts.creditAmount ?? 0n,
        outOfBandAmount: parts.outOfBandAmount ?? 0n,
      };
  if (p.refundAmount + p.creditAmount + p.outOfBandAmount !== postPaymentAmount) return null;
  // The pre-payment part is the first part; the last non-zero part takes the rounding remainder.
  const prePaymentTax = postPaymentAmount === 0n ? note.tax : share(prePaymentAmount, note.tax, note.total);
  return { ...p, prePaymentAmount, postPaymentAmount, prePaymentTax };
}
