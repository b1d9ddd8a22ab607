/**
 * A credit note's documents (docs/credit-notes.md, Documents): `credit-note.pdf|html|escpos`
 * through the invoice's document pipeline. The view is its invoice's (merchant, template, bill-to,
 * language) with the note's number, lines, discount share, reversed tax, total and outcome rows, and
 * a VOID stamp once voided; the invoice's number is the reference.
 */
import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant } from '../../core/db/client.ts';
import { DomainError, errorsFor } from '../../core/errors.ts';
import type { Auth } from '../../core/auth/authenticate.ts';
import { audit } from '../../core/audit.ts';
import { config } from '../../core/config.ts';
import type { Mode } from '../../core/db/client.ts';
import { isId } from '../../core/ids.ts';
import { signedUrl, linkRefused, verifySignedUrl } from '../../core/signed-url.ts';
import { assertTestRecipient, testModeMayMail } from '../receipts/service.ts';
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

/** The path a signed credit-note PDF URL names (served by src/server/downloads.ts, as invoices'). */
export const signedCreditNotePdfPath = (id: string) => `/f/${id}.pdf`;

/** `GET /v1/credit-notes/:id/pdf` answers 302 to this: valid about 5 minutes, for this note only. */
export async function creditNotePdfUrl(ctx: Context, id: string): Promise<string> {
  const auth = authorize(ctx, 'svc:credit_note:read');
  const found = await inTenant(tenant(auth), (tx) =>
    tx.creditNote.findFirst({ where: { ...scoped(auth), id }, select: { id: true } }),
  );
  if (!found) throw err.notFound();
  return signedUrl(signedCreditNotePdfPath(id), { workspaceId: auth.workspaceId, mode: auth.mode as Mode });
}

/** `CreditNote.pdfUrl` of a note loaded in the caller's scope: signed, no lookup; null for a preview. */
export function creditNotePdfUrlOf(ctx: Context, n: { id: string | null; workspaceId: string; mode: string }) {
  const auth = authorize(ctx, 'svc:credit_note:read');
  if (!n.id) return null;
  if (n.workspaceId !== auth.workspaceId || n.mode !== auth.mode) throw err.notFound();
  return signedUrl(signedCreditNotePdfPath(n.id), { workspaceId: n.workspaceId, mode: n.mode as Mode });
}

/** The PDF behind a signed URL: 403 when the signature is wrong or expired, checked before any lookup. */
export async function signedCreditNotePdf(file: string, query: (name: string) => string | undefined) {
  const id = file.endsWith('.pdf') ? file.slice(0, -4) : '';
  const scope = isId('creditNote', id) ? verifySignedUrl(signedCreditNotePdfPath(id), query) : 'invalid';
  if (scope === 'invalid')
    throw new DomainError('invalid_link', 'This download link is not valid', { resource: 'credit_note' });
  if (scope === linkRefused.expired)
    throw new DomainError('invalid_link', 'This download link has expired', { resource: 'credit_note' });
  const view = await loadCreditNoteView(scope as { workspaceId: string; mode: 'test' | 'live' }, id);
  return renderDocument(view, 'pdf', view.number);
}

/**
 * POST /v1/credit-notes/:id/send-email: the note's PDF to `to` or the customer, as invoices are
 * sent (src/modules/invoices/documents.ts): 200 `{sent, to}`, 409 `no_recipient`, 502 `email_failed`.
 * Credit notes are never emailed automatically (docs/decisions.md, Credit notes).
 */
export async function sendCreditNoteEmail(ctx: Context, id: string, to?: string | null) {
  const auth = authorize(ctx, 'svc:credit_note:write');
  const view = await loadCreditNoteView(auth, id);
  const { recipientOf, sendDocumentEmail } = await import('../documents/render/email.ts');
  const address = recipientOf(view, to);
  if (to != null) await assertTestRecipient(auth, address, 'credit_note');
  const keep = !(await testModeMayMail(auth, address));
  let result: { sent: boolean; to: string };
  try {
    result = await sendDocumentEmail(view, { to: address, outbox: config.mailOutboxDir, keep });
  } catch (e) {
    await auditSend(auth, id, 'credit_note.email_failed', ctx.requestId);
    throw e;
  }
  await auditSend(auth, id, result.sent ? 'credit_note.email_sent' : 'credit_note.email_kept', ctx.requestId);
  return { sent: result.sent, to: result.to };
}

const auditSend = (auth: Auth, id: string, action: string, requestId?: string) =>
  inTenant(tenant(auth), (tx) => audit(tx, auth, action, id, requestId));
