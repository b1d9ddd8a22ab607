import type { Auth } from '../../core/auth/authenticate.ts';
import { oneBy, pageBy, type Source } from '../../core/loaders.ts';
import type { BatchRow, ImportRow, RowRow, RunRow } from './fields.ts';
import { rowList } from './list.ts';

/** Batched reads of reconciliation objects for the graph's edges (src/core/loaders.ts). */
const withAccount = <T>(row: Record<string, unknown>, auth: Auth) => ({ ...row, accountId: auth.accountId }) as T;
const scope = 'svc:reconciliation:read';

const imports: Source<ImportRow> = { table: 'recon_imports', scope, shape: withAccount };
const runs: Source<RunRow> = { table: 'recon_runs', scope, shape: withAccount };
const batches: Source<BatchRow> = { table: 'recon_batches', scope, shape: withAccount };
const rows: Source<RowRow> = {
  table: 'recon_rows',
  scope,
  // The raw path reads a `date` as local midnight; the wire's `valueDate` is the calendar day.
  shape: (row, auth) => {
    const d = row.valueDate as Date | null;
    const valueDate = d ? new Date(Date.UTC(d.getFullYear(), d.getMonth(), d.getDate())) : null;
    return withAccount<RowRow>({ ...row, valueDate }, auth);
  },
};

export const importById = oneBy(imports);
export const runById = oneBy(runs);
export const batchById = oneBy(batches);

/** `ReconciliationImport.rows` and `SettlementBatch.rows`: the REST list of rows, bound to the parent. */
export const rowsOfImport = pageBy(rows, { list: rowList, parent: 'importId', column: 'importId' });
export const rowsOfBatch = pageBy(rows, { list: rowList, parent: 'batchId', column: 'batchId' });
/** `Payment.reconciliationRows`, `Refund.reconciliationRows`, `Payout.reconciliationRows`: rows naming the object. */
export const rowsOfObject = pageBy(rows, { list: rowList, parent: 'objectId', column: 'objectId' });
