// The totals block of an invoice as one ordered list of rows, decided once and read by every place that shows
// it (PDF, HTML and the hosted page, email, text and ESC/POS through render/format.ts; the portal), so the rows
// always add up: total − credit notes − balance applied − amount paid = amount due (docs/billing.md, Invoice
// totals). Pure; amounts in minor units.

/** The amounts of an invoice the totals block shows. */
export interface InvoiceAmounts {
  subtotal: number;
  /** The tax row's amount; null: no tax row (no tax, and the template does not show it). */
  tax: number | null;
  /** Flat discount; its rows are `discounts` when given. */
  discount: number;
  /** docs/coupons.md, Invoice discounts: a row each, named by its coupon (null: the plain "Discount"). */
  discounts?: { name: string | null; amount: number }[];
  total: number;
  /** Issued credit notes, oldest first; `prePaymentAmount` is the part that lowered the amount due. */
  creditNotes?: { number: string; total: number; prePaymentAmount: number }[];
  /** From the customer balance at finalization (absent: 0). */
  balanceApplied?: number;
  amountPaid: number;
  amountDue: number;
}

/**
 * One row, its `amount` signed as shown: deductions (discounts, credit notes, balance applied) are negative;
 * `amount_paid` is shown positive and subtracted. `credit_note_after_payment` rows come after the amount due
 * and are outside the sum: money a note returned after payment (refund, balance credit, out of band).
 */
export type InvoiceTotalsRow =
  | { kind: 'subtotal'; amount: number }
  | { kind: 'discount'; name: string | null; amount: number }
  | { kind: 'tax'; amount: number }
  | { kind: 'total'; amount: number }
  | { kind: 'credit_note'; number: string; amount: number }
  | { kind: 'balance_applied'; amount: number }
  | { kind: 'amount_paid'; amount: number }
  | { kind: 'amount_due'; amount: number }
  | { kind: 'credit_note_after_payment'; number: string; amount: number };

/**
 * The invoice's totals in reading order: subtotal (when a discount or tax row follows), a row per discount,
 * tax, total, a row per credit note's pre-payment part, balance applied, amount paid, amount due, then a row
 * per credit note's post-payment part. Zero deductions get no row.
 */
export function invoiceTotals(inv: InvoiceAmounts): InvoiceTotalsRow[] {
  const discounts = (
    inv.discounts?.length ? inv.discounts : inv.discount ? [{ name: null, amount: inv.discount }] : []
  ).filter((d) => d.amount > 0);
  const notes = inv.creditNotes ?? [];
  const rows: InvoiceTotalsRow[] = [];
  if (inv.tax !== null || discounts.length) rows.push({ kind: 'subtotal', amount: inv.subtotal });
  for (const d of discounts) rows.push({ kind: 'discount', name: d.name, amount: -d.amount });
  if (inv.tax !== null) rows.push({ kind: 'tax', amount: inv.tax });
  rows.push({ kind: 'total', amount: inv.total });
  for (const c of notes)
    if (c.prePaymentAmount > 0) rows.push({ kind: 'credit_note', number: c.number, amount: -c.prePaymentAmount });
  if (inv.balanceApplied) rows.push({ kind: 'balance_applied', amount: -inv.balanceApplied });
  rows.push({ kind: 'amount_paid', amount: inv.amountPaid });
  rows.push({ kind: 'amount_due', amount: inv.amountDue });
  for (const c of notes) {
    const after = c.total - c.prePaymentAmount;
    if (after > 0) rows.push({ kind: 'credit_note_after_payment', number: c.number, amount: -after });
  }
  return rows;
}
