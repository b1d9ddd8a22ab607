import { custom, defineList, eq, oneOfValues } from '../../core/list-spec.ts';
import { listPageSize } from '../../core/pagination.ts';
import { checkCurrency } from '../../core/validation.ts';
import { exceptionCategories } from './rules/categories.ts';
import type { ListExceptionsArgs, ListMatchesArgs } from './matching-schema.ts';
import type { ListBatchesArgs, ListImportsArgs, ListRowsArgs, ListRunsArgs } from './schema.ts';
import { batchMachine, importMachine, reconExceptionMachine, rowMachine, runMachine } from './states.ts';
import { adapters, origins, rowTypes, sources } from './vocabulary.ts';

/** GET /v1/reconciliation/imports and GraphQL `reconciliationImports`: newest first unless `order=asc`. */
export const importList = defineList<ListImportsArgs, 'createdAt'>({
  resource: 'reconciliation',
  position: 'createdAt',
  limit: listPageSize.reconciliationImports,
  filters: {
    source: oneOfValues(sources),
    adapter: oneOfValues(adapters),
    origin: oneOfValues(origins),
    status: oneOfValues(importMachine.statuses),
  },
});

export const rowList = defineList<ListRowsArgs, 'createdAt'>({
  resource: 'reconciliation',
  position: 'createdAt',
  limit: listPageSize.reconciliationRows,
  filters: {
    importId: eq(),
    batchId: eq(),
    status: oneOfValues(rowMachine.statuses),
    type: oneOfValues(rowTypes),
    transactionId: eq(),
    reference: eq(),
    objectId: eq(),
    source: oneOfValues(sources),
  },
});

export const batchList = defineList<ListBatchesArgs, 'createdAt'>({
  resource: 'reconciliation',
  position: 'createdAt',
  limit: listPageSize.settlementBatches,
  filters: {
    adapter: oneOfValues(adapters),
    currency: eq(undefined, checkCurrency),
    status: oneOfValues(batchMachine.statuses),
    settlementId: eq(),
  },
});

export const runList = defineList<ListRunsArgs, 'createdAt'>({
  resource: 'reconciliation',
  position: 'createdAt',
  limit: listPageSize.reconciliationRuns,
  filters: {
    status: oneOfValues(runMachine.statuses),
    importId: eq(),
  },
});

/** GET /v1/reconciliation/matches: `rowId`, `objectId` and `batchId` look inside the match's arrays. */
export const matchList = defineList<ListMatchesArgs, 'createdAt'>({
  resource: 'reconciliation',
  position: 'createdAt',
  limit: listPageSize.reconciliationMatches,
  filters: { runId: eq(), rowId: custom(), objectId: custom(), batchId: custom() },
});

export const exceptionList = defineList<ListExceptionsArgs, 'createdAt'>({
  resource: 'reconciliation',
  position: 'createdAt',
  limit: listPageSize.reconciliationExceptions,
  filters: {
    category: oneOfValues(exceptionCategories),
    status: oneOfValues(reconExceptionMachine.statuses),
    importId: eq(),
    runId: eq(),
    objectId: eq(),
    batchId: eq(),
    adapter: oneOfValues(adapters),
    currency: eq(undefined, checkCurrency),
    assignee: eq(),
  },
});
