// GraphQL for an invoice's documents (src/modules/invoices/documents.ts): beside the invoice's own
import { admission } from '../../graphql/operation.ts';
// schema, so the resource and its documents are built and merged separately.
import { builder } from '../../graphql/builder.ts';
import { documentType, emailResultType } from '../documents/schema.ts';
import { invoiceDocument, pdfUrlOf, sendInvoiceEmail } from './documents.ts';
import { Invoice } from './schema.ts';

const InvoiceDocument = documentType('InvoiceDocument');
const InvoiceEmailResult = emailResultType('InvoiceEmailResult');

builder.objectField(Invoice, 'pdfUrl', (t) =>
  t.string({
    description: 'A signed link to the PDF, valid about 5 minutes (what GET /v1/invoices/:id/pdf redirects to).',
    resolve: (inv, _, ctx) => pdfUrlOf(ctx, inv),
  }),
);

builder.queryFields((t) => ({
  invoiceDocument: t.field({
    ...admission({ resource: 'invoice', scope: 'svc:invoice:read' }),
    type: InvoiceDocument,
    description: 'format: pdf, html or escpos; width (escpos): 58 or 80 (default).',
    args: { id: t.arg.id({ required: true }), format: t.arg.string({ required: true }), width: t.arg.int() },
    resolve: (_, { id, format, width }, ctx) => invoiceDocument(ctx, String(id), format, width),
  }),
}));

builder.mutationFields((t) => ({
  sendInvoiceEmail: t.field({
    ...admission({ resource: 'invoice', scope: 'svc:invoice:write' }),
    type: InvoiceEmailResult,
    description: 'Emails the invoice PDF to `to` or the customer; sent false: kept in the development outbox.',
    args: { id: t.arg.id({ required: true }), to: t.arg.string(), idempotencyKey: t.arg.string() },
    resolve: (_, { id, to }, ctx) => sendInvoiceEmail(ctx, String(id), to),
  }),
}));
