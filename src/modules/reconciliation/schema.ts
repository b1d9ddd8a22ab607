import { builder } from '../../graphql/builder.ts';
import { exposeFields, statusesOf, type ListArgs } from '../../graphql/fields.ts';
import { admission } from '../../graphql/operation.ts';
import {
  batchFields,
  importFields,
  rowFields,
  runFields,
  settingsFields,
  type BatchRow,
  type ImportRow,
  type RowRow,
  type RunRow,
  type SettingsRow,
} from './fields.ts';
import { getBatch, getImport, getRow, getRun, listBatches, listImports, listRows, listRuns } from './service.ts';
import { getSettings, updateSettings } from './settings.ts';
import { batchById, importById, rowsOfBatch, rowsOfImport, runById } from './loaders.ts';
import { batchMachine, importMachine, rowMachine, runMachine } from './states.ts';

const read = admission({ resource: 'reconciliation', scope: 'svc:reconciliation:read' });

export const ReconciliationImport = builder.objectRef<ImportRow>('ReconciliationImport');
export const ReconciliationRow = builder.objectRef<RowRow>('ReconciliationRow');
export const SettlementBatch = builder.objectRef<BatchRow>('SettlementBatch');
export const ReconciliationRun = builder.objectRef<RunRow>('ReconciliationRun');

/** A parent's rows: the list's filters but the parent's own. */
const rowEdgeArgs = builder.args((t) => ({
  status: t.string(statusesOf(rowMachine)),
  type: t.string(),
  transactionId: t.string(),
  reference: t.string(),
  objectId: t.string(),
  source: t.string(),
  order: t.string(),
}));

ReconciliationImport.implement({
  description: 'One uploaded file or pulled report, staged whole (docs/reconciliation.md, Import pipeline).',
  fields: (t) => ({
    ...exposeFields(t, importFields),
    run: t.field({
      type: ReconciliationRun,
      nullable: true,
      resolve: (i, _, ctx, info) => runById(ctx, i.runId, info),
    }),
    rows: t.connection({
      type: ReconciliationRow,
      args: rowEdgeArgs,
      extensions: rowsOfImport.extensions,
      resolve: (i, args, ctx, info) => rowsOfImport(ctx, i.id, args, info),
    }),
  }),
});

ReconciliationRow.implement({
  description: 'A provider report line or a bank statement line.',
  fields: (t) => ({
    ...exposeFields(t, rowFields),
    import: t.field({
      type: ReconciliationImport,
      nullable: true,
      resolve: (r, _, ctx, info) => importById(ctx, r.importId, info),
    }),
    batch: t.field({
      type: SettlementBatch,
      nullable: true,
      resolve: (r, _, ctx, info) => batchById(ctx, r.batchId, info),
    }),
  }),
});

SettlementBatch.implement({
  description: 'The provider rows sharing one adapter, currency and settlement id.',
  fields: (t) => ({
    ...exposeFields(t, batchFields),
    rows: t.connection({
      type: ReconciliationRow,
      args: rowEdgeArgs,
      extensions: rowsOfBatch.extensions,
      resolve: (b, args, ctx, info) => rowsOfBatch(ctx, b.id, args, info),
    }),
  }),
});

ReconciliationRun.implement({
  description: 'One matching pass; runs of a workspace and mode run one at a time, in creation order.',
  fields: (t) => ({
    ...exposeFields(t, runFields),
    import: t.field({
      type: ReconciliationImport,
      nullable: true,
      resolve: (r, _, ctx, info) => importById(ctx, r.importId, info),
    }),
  }),
});

const ReconciliationSettings = builder.objectRef<SettingsRow>('ReconciliationSettings').implement({
  description: 'Tolerances and fee rules of matching, one per workspace and mode.',
  fields: (t) => exposeFields(t, settingsFields),
});

const UpdateSettingsInput = builder.inputType('UpdateReconciliationSettingsInput', {
  description: 'Each field given replaces the stored one wholesale.',
  fields: (t) => ({
    dateToleranceDays: t.int({ description: '0-31' }),
    lateSettlementDays: t.int({ description: '0-60' }),
    amountTolerance: t.field({ type: 'JSON', description: 'currency -> minor units, e.g. {"IDR": 100}' }),
    feeTolerance: t.field({ type: 'JSON', description: 'currency -> minor units' }),
    transferFeeTolerance: t.field({ type: 'JSON', description: 'currency -> minor units; default {"IDR": 6500}' }),
    feeRules: t.field({
      type: 'JSON',
      description: 'at most 50 of {adapter, method, currency, percent, fixed}; one per adapter, method and currency',
    }),
  }),
});
export type UpdateSettingsInput = typeof UpdateSettingsInput.$inferInput;

const importArgs = builder.args((t) => ({
  source: t.string(),
  adapter: t.string(),
  origin: t.string(),
  status: t.string(statusesOf(importMachine)),
  order: t.string(),
}));
export type ListImportsArgs = ListArgs<typeof importArgs>;

const rowArgs = builder.args((t) => ({
  importId: t.string(),
  batchId: t.string(),
  status: t.string(statusesOf(rowMachine)),
  type: t.string(),
  transactionId: t.string(),
  reference: t.string(),
  objectId: t.string(),
  source: t.string(),
  order: t.string(),
}));
export type ListRowsArgs = ListArgs<typeof rowArgs>;

const batchArgs = builder.args((t) => ({
  adapter: t.string(),
  currency: t.string(),
  status: t.string(statusesOf(batchMachine)),
  settlementId: t.string(),
  order: t.string(),
}));
export type ListBatchesArgs = ListArgs<typeof batchArgs>;

const runArgs = builder.args((t) => ({
  status: t.string(statusesOf(runMachine)),
  importId: t.string(),
  order: t.string(),
}));
export type ListRunsArgs = ListArgs<typeof runArgs>;

builder.queryFields((t) => ({
  reconciliationImport: t.field({
    ...read,
    type: ReconciliationImport,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => getImport(ctx, String(id)),
  }),
  reconciliationImports: t.connection({
    ...read,
    type: ReconciliationImport,
    args: importArgs,
    resolve: (_, args, ctx) => listImports(ctx, args),
  }),
  reconciliationRow: t.field({
    ...read,
    type: ReconciliationRow,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => getRow(ctx, String(id)),
  }),
  reconciliationRows: t.connection({
    ...read,
    type: ReconciliationRow,
    args: rowArgs,
    resolve: (_, args, ctx) => listRows(ctx, args),
  }),
  settlementBatch: t.field({
    ...read,
    type: SettlementBatch,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => getBatch(ctx, String(id)),
  }),
  settlementBatches: t.connection({
    ...read,
    type: SettlementBatch,
    args: batchArgs,
    resolve: (_, args, ctx) => listBatches(ctx, args),
  }),
  reconciliationRun: t.field({
    ...read,
    type: ReconciliationRun,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => getRun(ctx, String(id)),
  }),
  reconciliationRuns: t.connection({
    ...read,
    type: ReconciliationRun,
    args: runArgs,
    resolve: (_, args, ctx) => listRuns(ctx, args),
  }),
  reconciliationSettings: t.field({
    ...read,
    type: ReconciliationSettings,
    resolve: (_, __, ctx) => getSettings(ctx),
  }),
}));

builder.mutationFields((t) => ({
  updateReconciliationSettings: t.field({
    ...admission({ resource: 'reconciliation', scope: 'svc:reconciliation:write' }),
    type: ReconciliationSettings,
    args: { input: t.arg({ type: UpdateSettingsInput, required: true }) },
    resolve: (_, { input }, ctx) => updateSettings(ctx, input),
  }),
}));
