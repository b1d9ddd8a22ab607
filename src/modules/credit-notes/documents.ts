/**
 * A credit note's documents (docs/credit-notes.md, Documents): `credit-note.pdf|html|escpos`
 * through the invoice's document pipeline. The view is its invoice's (merchant, template, bill-to,
 * language) with the note's number, lines, discount share, reversed tax, total and outcome rows, and
 * a VOID stamp once voided; the invoice's number is the reference.
 */
import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant } from '../../core/db/client.ts';
import { errorsFor } from '../../core/errors.ts';
import { scoped } from '../../core/resource.ts';
import type { DocumentView } from '../documents/view.ts';
import { checkFormat, renderDocument } from '../documents/render/index.ts';
import { loadInvoiceView } from '../invoices/documents.ts';

const err = errorsFor('credit_note');

export async function loadCreditNoteView(auth: { workspaceId: string; mode: 'test' | 'live' }, id: string) {
  const scope = tenant(auth as never);
  const note = await inTenant(scope, (tx) =>
    tx.creditNote.findFirst({ where: { ...scoped(auth), id }, include: { lines: { orderBy: { position: 'asc' } } } }),
  );
  if (!note) throw err.notFound();
  const { view: base } = await loadInvoiceView(auth, note.invoiceId);
  const n = Number;
  const tax = n(note.tax) > 0 ? n(note.tax) : n(note.taxIncluded);
  const view: DocumentView = {
    ...base,
    kind: 'credit_note',
    id: note.id,
    number: note.number,
    issuedAt: note.issuedAt,
    paidAt: null,
    lineItems: note.lines.map((l) => ({
      name: l.description,
      quantity: l.quantity,
      unitAmount: n(l.unitAmount),
      amount: n(l.amount),
    })),
    subtotal: n(note.subtotal),
    tax:
      tax > 0 && base.tax
        ? { ...base.tax, amount: tax, included: n(note.tax) === 0 }
        : tax > 0
          ? { label: 'PPN', rate: null, amount: tax, included: n(note.tax) === 0 }
          : null,
    total: n(note.total),
    paymentMethodLabel: null,
    reference: base.number,
    invoice: {
      status: note.status,
      dueAt: null,
      discount: n(note.discountAmount),
      amountPaid: 0,
      amountDue: 0,
      payUrl: null,
      memo: note.memo,
    },
    creditNote: {
      prePayment: n(note.prePaymentAmount),
      refund: n(note.refundAmount),
      credit: n(note.creditAmount),
      outOfBand: n(note.outOfBandAmount),
    },
  };
  return view;
}

/** credit-note.pdf, credit-note.html and credit-note.escpos (58 or 80 mm, 80 by default). */
export async function creditNoteDocument(ctx: Context, id: string, format: string, width?: number | null) {
  const auth = authorize(ctx, 'svc:credit_note:read');
  const kind = checkFormat(format, width, 'credit_note');
  const view = await loadCreditNoteView(auth, id);
  return renderDocument(view, kind, view.number, width);
}
