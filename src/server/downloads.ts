import { ledgerCsvDownload } from '../modules/ledger/export.ts';
import { edgeRoute, type EdgeRoute } from './edge-route.ts';

/**
 * Downloads that are not JSON, served by their rendering service directly (docs/architecture.md).
 * GET /v1/reports/ledger.csv (spec Ledger and reports); documents that fit a GraphQL field
 * (receipt PDF, HTML, ESC/POS) are REST routes with `download` (rest-compat/routes.ts).
 */
export const downloadRoutes: EdgeRoute[] = [
  edgeRoute({
    method: 'GET',
    url: '/v1/reports/ledger.csv',
    auth: 'key',
    scope: 'svc:report:read',
    rateClass: 'read',
    resource: 'ledger',
    handler: async ({ auth, query }) => {
      const { filename, stream } = await ledgerCsvDownload(auth, query);
      return {
        contentType: 'text/csv; charset=utf-8',
        headers: { 'content-disposition': `attachment; filename="${filename}"` },
        body: stream,
      };
    },
  }),
];
