/**
 * An invoice's documents (spec Invoices): `invoice.pdf|html|escpos`, the 302 to a short-lived signed
 * PDF URL and the PDF behind it, and send-email. The invoice view (view.ts) goes through the same
 * renderers as receipts (src/modules/documents/render).
 */
import type { Auth } from '../../core/auth/authenticate.ts';
import { audit } from '../../core/audit.ts';
import { config } from '../../core/config.ts';
import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant, tenantQuery, type Mode } from '../../core/db/client.ts';
import { sql as q } from '../../core/db/sql.ts';
import { DomainError, errorsFor } from '../../core/errors.ts';
import { isId } from '../../core/ids.ts';
import { type Language, workspaceLanguage } from '../../core/i18n/index.ts';
import type { RowScope } from '../../core/resource.ts';
import { signedUrl, linkRefused, verifySignedUrl } from '../../core/signed-url.ts';
import { assertTestRecipient, testModeMayMail } from '../receipts/service.ts';
import { hostedInvoiceUrlOf } from './fields.ts';
import { buildInvoiceView, type InvoiceTemplate } from './view.ts';
import { checkFormat, renderDocument } from '../documents/render/index.ts';

const err = errorsFor('invoice');

/** One row: the invoice, its lines in order, customer, template (its own, else the default of kind invoice), workspace. */
interface InvoiceDocRow {
  id: string;
  status: string;
  number: string | null;
  currency: string;
  subtotal: string;
  discount: string;
  discounts: { couponId: string | null; name: string; amount: number }[];
  tax: string;
  total: string;
  balanceApplied: string;
  amountPaid: string;
  amountDue: string;
  dueAt: Date | null;
  issuedAt: Date | null;
  paidAt: Date | null;
  createdAt: Date;
  metadata: unknown;
  hostedSecret: string;
  lines: { description: string; quantity: number; unitAmount: number; amount: number }[];
  /** Its issued credit notes, oldest first (docs/credit-notes.md, Documents). */
  creditNotes: { number: string; total: number; prePaymentAmount: number }[];
  customer: { name: string | null; email: string | null; phone: string | null } | null;
  template: InvoiceTemplate | null;
  merchantName: string;
  timezone: string;
  defaultCurrency: string;
}

/**
 * The invoice as its documents show it, in one statement on the raw path (the PDF and the hosted
 * page are measured hot paths: bench:billing), scoped like any tenant query.
 */
export async function loadInvoiceView(scope: RowScope, id: string, pick?: (workspace: Language) => Language) {
  const ws = scope.workspaceId;
  const same = (alias: string) => q`${q.id(alias)}."workspaceId" = ${ws} AND ${q.id(alias)}.mode = ${scope.mode}`;
  const [inv] = await tenantQuery<InvoiceDocRow>(
    { workspaceId: ws, modes: [scope.mode] },
    q`SELECT i.id, i.status, i.number, i.currency, i.subtotal, i.discount, i.discounts, i.tax, i.total,
        i."balanceApplied", i."amountPaid", i."amountDue", i."dueAt", i."issuedAt", i."paidAt", i."createdAt",
        i.metadata, i."hostedSecret",
        (SELECT coalesce(jsonb_agg(jsonb_build_object('description', l.description, 'quantity', l.quantity,
            'unitAmount', l."unitAmount", 'amount', l.amount) ORDER BY l.position), '[]'::jsonb)
          FROM invoice_lines l WHERE ${same('l')} AND l."invoiceId" = i.id) AS lines,
        (SELECT coalesce(jsonb_agg(jsonb_build_object('number', n.number, 'total', n.total,
            'prePaymentAmount', n."prePaymentAmount") ORDER BY n."issuedAt", n.id),
            '[]'::jsonb)
          FROM credit_notes n WHERE ${same('n')} AND n."invoiceId" = i.id AND n.status = 'issued') AS "creditNotes",
        (SELECT jsonb_build_object('name', c.name, 'email', c.email, 'phone', c.phone)
          FROM customers c WHERE ${same('c')} AND c.id = i."customerId") AS customer,
        coalesce(
          (SELECT to_jsonb(t) FROM templates t WHERE ${same('t')} AND t.id = i."templateId"),
          (SELECT to_jsonb(t) FROM templates t WHERE ${same('t')} AND t.kind = 'invoice' AND t."isDefault" LIMIT 1)
        ) AS template,
        coalesce(w."brandName", w.name) AS "merchantName", w.timezone, w."defaultCurrency"
      FROM invoices i JOIN workspaces w ON w.id = i."workspaceId"
      WHERE i.id = ${id} AND ${same('i')}`,
  );
  if (!inv) throw err.notFound();
  // No browser (PDF, email, the API's download): the workspace's language (docs/decisions.md, Customer
  // language); the hosted page picks from the request (`pick`).
  const workspace = workspaceLanguage(inv.defaultCurrency);
  const language = pick ? pick(workspace) : workspace;
  const view = buildInvoiceView(
    { ...inv, lines: inv.lines },
    {
      mode: scope.mode,
      merchantName: inv.merchantName,
      template: inv.template,
      customer: inv.customer,
      hostedUrl: hostedInvoiceUrlOf(inv),
      timezone: inv.timezone,
      language,
    },
  );
  return { inv, view, language };
}

/** invoice.pdf, invoice.html and invoice.escpos (58 or 80 mm, 80 by default). */
export async function invoiceDocument(ctx: Context, id: string, format: string, width?: number | null) {
  const auth = authorize(ctx, 'svc:invoice:read');
  const kind = checkFormat(format, width, 'invoice');
  const { view } = await loadInvoiceView(auth, id);
  return renderDocument(view, kind, view.number, width);
}

/** The path a signed PDF URL names (served by src/server/downloads.ts). */
export const signedPdfPath = (id: string) => `/f/${id}.pdf`;

/** spec: `GET /v1/invoices/:id/pdf` answers 302 to this: valid about 5 minutes, for this invoice only. */
export async function invoicePdfUrl(ctx: Context, id: string): Promise<string> {
  const auth = authorize(ctx, 'svc:invoice:read');
  const found = await inTenant(tenant(auth), (tx) =>
    tx.invoice.findFirst({ where: { workspaceId: auth.workspaceId, mode: auth.mode, id }, select: { id: true } }),
  );
  if (!found) throw err.notFound();
  return signedUrl(signedPdfPath(id), { workspaceId: auth.workspaceId, mode: auth.mode as Mode });
}

/** `Invoice.pdfUrl` of an invoice already loaded in the caller's scope: signed, no lookup (lists stay one query). */
export function pdfUrlOf(ctx: Context, inv: { id: string; workspaceId: string; mode: string }): string {
  const auth = authorize(ctx, 'svc:invoice:read');
  if (inv.workspaceId !== auth.workspaceId || inv.mode !== auth.mode) throw err.notFound();
  return signedUrl(signedPdfPath(inv.id), { workspaceId: inv.workspaceId, mode: inv.mode as Mode });
}

/** The PDF behind a signed URL: 403 when the signature is wrong or expired, checked before any lookup. */
export async function signedInvoicePdf(file: string, query: (name: string) => string | undefined) {
  const id = file.endsWith('.pdf') ? file.slice(0, -4) : '';
  const scope = isId('invoice', id) ? verifySignedUrl(signedPdfPath(id), query) : 'invalid';
  if (scope === 'invalid')
    throw new DomainError('invalid_link', 'This download link is not valid', { resource: 'invoice' });
  if (scope === linkRefused.expired)
    throw new DomainError('invalid_link', 'This download link has expired', { resource: 'invoice' });
  const { view } = await loadInvoiceView(scope, id);
  return renderDocument(view, 'pdf', view.number);
}

/**
 * spec Send email: the invoice PDF by email to `to` or the customer. With SMTP configured: 200
 * `{sent: true}`, or 502 when the server refuses. Without (docs/billing.md, Email): 200
 * `{sent: false}` and the message kept in the development outbox (config.mailOutboxDir). Every
 * attempt, sent or not, is in the audit trail. Sent synchronously: the answer says what happened.
 */
export async function sendInvoiceEmail(ctx: Context, id: string, to?: string | null) {
  const auth = authorize(ctx, 'svc:invoice:write');
  const { view } = await loadInvoiceView(auth, id);
  const { recipientOf, sendDocumentEmail } = await import('../documents/render/email.ts');
  const address = recipientOf(view, to);
  // Test mode mails only the workspace's joined members, as receipts (src/modules/receipts/service.ts).
  if (to != null) await assertTestRecipient(auth, address, 'invoice');
  const keep = !(await testModeMayMail(auth, address));
  let result: { sent: boolean; to: string };
  try {
    result = await sendDocumentEmail(view, { to: address, outbox: config.mailOutboxDir, keep });
  } catch (e) {
    await auditSend(auth, id, 'invoice.email_failed', ctx.requestId);
    throw e;
  }
  await auditSend(auth, id, result.sent ? 'invoice.email_sent' : 'invoice.email_kept', ctx.requestId);
  return { sent: result.sent, to: result.to };
}

const auditSend = (auth: Auth, id: string, action: string, requestId?: string) =>
  inTenant(tenant(auth), (tx) => audit(tx, auth, action, id, requestId));
