import { ledgerCsvDownload } from '../modules/ledger/export.ts';
import { invoicePdfUrl, signedInvoicePdf } from '../modules/invoices/documents.ts';
import { creditNotePdfUrl, signedCreditNotePdf } from '../modules/credit-notes/documents.ts';
import { edgeRoute, type EdgeRoute } from './edge-route.ts';

/**
 * Downloads that are not JSON, served by their rendering service directly (docs/architecture.md).
 * GET /v1/reports/ledger.csv (spec Ledger and reports); documents that fit a GraphQL field
 * (receipt and invoice PDF, HTML, ESC/POS) are REST routes with `download` (rest-compat/routes.ts).
 * GET /v1/invoices/:id/pdf answers 302 to a signed URL valid about 5 minutes (spec Invoices),
 * served by GET /f/<inv_id>.pdf: public, the signature is the capability (src/core/signed-url.ts).
 */
export const downloadRoutes: EdgeRoute[] = [
  edgeRoute({
    method: 'GET',
    url: '/v1/reports/ledger.csv',
    auth: 'key',
    scope: 'svc:report:read',
    rateClass: 'read',
    resource: 'ledger',
    api: {
      id: 'downloadLedgerCsv',
      summary: 'The ledger entries of a period as CSV (spec Ledger and reports), streamed.',
      response: {
        status: 200,
        contentType: 'text/csv',
        description: 'One row per ledger entry, with a header row; Content-Disposition names the file.',
      },
      query: {
        from: { required: true, description: 'Period start: ISO 8601 date or instant.' },
        to: { required: true, description: 'Period end (inclusive for a date): ISO 8601, at or after from.' },
        currency: { description: 'ISO 4217 code: only entries in this currency.' },
      },
    },
    handler: async ({ auth, query }) => {
      const { filename, stream } = await ledgerCsvDownload(auth, query);
      return {
        contentType: 'text/csv; charset=utf-8',
        headers: { 'content-disposition': `attachment; filename="${filename}"` },
        body: stream,
      };
    },
  }),
  edgeRoute({
    method: 'GET',
    url: '/v1/invoices/:id/pdf',
    auth: 'key',
    scope: 'svc:invoice:read',
    rateClass: 'read',
    resource: 'invoice',
    api: {
      id: 'getInvoicePdfLink',
      summary: "The invoice's PDF: a redirect to a signed URL valid about 5 minutes (spec Invoices).",
      response: { status: 302, description: 'Location: the signed URL of the PDF (public, for this invoice only).' },
    },
    handler: async ({ auth, params, requestId }) => ({
      redirect: await invoicePdfUrl({ auth, requestId }, params.id),
      headers: { 'cache-control': 'no-store' },
    }),
  }),
  edgeRoute({
    method: 'GET',
    url: '/v1/credit-notes/:id/pdf',
    auth: 'key',
    scope: 'svc:credit_note:read',
    rateClass: 'read',
    resource: 'credit_note',
    api: {
      id: 'getCreditNotePdfLink',
      summary: "The credit note's PDF: a redirect to a signed URL valid about 5 minutes (docs/credit-notes.md).",
      response: { status: 302, description: 'Location: the signed URL of the PDF (public, for this note only).' },
    },
    handler: async ({ auth, params, requestId }) => ({
      redirect: await creditNotePdfUrl({ auth, requestId }, params.id),
      headers: { 'cache-control': 'no-store' },
    }),
  }),
  edgeRoute({
    method: 'GET',
    url: '/f/:file',
    auth: 'capability',
    rateClass: 'hosted',
    resource: 'invoice',
    handler: async ({ params, query }) => {
      // A credit note's PDF (cn_) or an invoice's: each checks its own signature.
      const { filename, bytes } = params.file.startsWith('cn_')
        ? await signedCreditNotePdf(params.file, query)
        : await signedInvoicePdf(params.file, query);
      return {
        contentType: 'application/pdf',
        headers: {
          'content-disposition': `inline; filename="${filename}"`,
          'cache-control': 'private, no-store',
          'referrer-policy': 'no-referrer',
        },
        body: bytes,
      };
    },
  }),
];
