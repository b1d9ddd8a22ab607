import type { FieldSpec } from '../../graphql/fields.ts';
import type {
  ReconBatch,
  ReconException,
  ReconImport,
  ReconMatch,
  ReconRow,
  ReconRun,
  ReconSettings,
} from '../../generated/prisma/client.ts';
import { toWire } from '../../core/wire.ts';
import { batchMachine, importMachine, reconExceptionMachine, rowMachine, runMachine } from './states.ts';

/** Rows as services return them: with the workspace's `acc_` id (`accountId`, `arn`). */
export type ImportRow = ReconImport & { accountId: string };
export type RowRow = ReconRow & { accountId: string };
export type BatchRow = ReconBatch & { accountId: string };
export type RunRow = ReconRun & { accountId: string };
export type MatchRow = ReconMatch & { accountId: string };
export type ExceptionRow = ReconException & { accountId: string; history?: HistoryEntry[] };
/** One change of an exception, as its `history` lists it. */
export interface HistoryEntry {
  at: Date;
  action: string;
  actor: unknown;
  note: string | null;
  requestId: string | null;
}
export type SettingsRow = Omit<ReconSettings, 'workspaceId'> & { accountId: string };

const arn = (kind: string) => (r: { accountId: string; id: string }) => `arn:svc:${r.accountId}:${kind}:${r.id}`;
const day = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : null);

/** docs/reconciliation.md, Import pipeline: the REST object, the GraphQL type and the event snapshot. */
export const importFields: FieldSpec<ImportRow> = {
  id: { kind: 'id' },
  arn: { kind: 'string', from: arn('reconciliation-import') },
  accountId: { kind: 'string' },
  mode: { kind: 'string' },
  source: { kind: 'string' },
  origin: { kind: 'string' },
  adapter: { kind: 'string', nullable: true },
  bankAccountNumber: { kind: 'string', nullable: true },
  format: { kind: 'string' },
  filename: { kind: 'string', nullable: true },
  sha256: { kind: 'string', nullable: true },
  sizeBytes: { kind: 'money' },
  status: { kind: 'string', states: importMachine },
  failureCode: { kind: 'string', nullable: true },
  failureMessage: { kind: 'string', nullable: true },
  periodStart: { kind: 'date', nullable: true },
  periodEnd: { kind: 'date', nullable: true },
  rowCount: { kind: 'int', from: (r) => r.rowsNew + r.rowsDuplicate },
  rowsNew: { kind: 'int' },
  rowsDuplicate: { kind: 'int' },
  rowsSkipped: { kind: 'int' },
  currencies: { kind: 'strings' },
  totals: { kind: 'json' },
  runId: { kind: 'string', nullable: true },
  createdAt: { kind: 'date' },
  updatedAt: { kind: 'date' },
};

export const rowFields: FieldSpec<RowRow> = {
  id: { kind: 'id' },
  accountId: { kind: 'string' },
  mode: { kind: 'string' },
  importId: { kind: 'string' },
  source: { kind: 'string' },
  adapter: { kind: 'string', nullable: true },
  bankAccountNumber: { kind: 'string', nullable: true },
  line: { kind: 'int' },
  transactionId: { kind: 'string', nullable: true },
  type: { kind: 'string' },
  reference: { kind: 'string', nullable: true },
  providerReference: { kind: 'string', nullable: true },
  settlementId: { kind: 'string', nullable: true },
  method: { kind: 'string', nullable: true },
  description: { kind: 'string', nullable: true },
  occurredAt: { kind: 'date', nullable: true },
  settledAt: { kind: 'date', nullable: true },
  valueDate: { kind: 'string', nullable: true, from: (r) => day(r.valueDate) },
  currency: { kind: 'string' },
  amount: { kind: 'money' },
  fee: { kind: 'money' },
  feeVat: { kind: 'money' },
  withholdingTax: { kind: 'money' },
  net: { kind: 'money' },
  balanceAfter: { kind: 'money', nullable: true },
  status: { kind: 'string', states: rowMachine },
  batchId: { kind: 'string', nullable: true },
  matchId: { kind: 'string', nullable: true },
  objectType: { kind: 'string', nullable: true },
  objectId: { kind: 'string', nullable: true },
  matchedBy: { kind: 'string', nullable: true },
  ledgerTxId: { kind: 'string', nullable: true },
  exceptionIds: { kind: 'strings' },
  createdAt: { kind: 'date' },
  updatedAt: { kind: 'date' },
};

export const batchFields: FieldSpec<BatchRow> = {
  id: { kind: 'id' },
  arn: { kind: 'string', from: arn('settlement-batch') },
  accountId: { kind: 'string' },
  mode: { kind: 'string' },
  adapter: { kind: 'string' },
  currency: { kind: 'string' },
  settlementId: { kind: 'string' },
  rowCount: { kind: 'int' },
  amount: { kind: 'money' },
  fee: { kind: 'money' },
  feeVat: { kind: 'money' },
  withholdingTax: { kind: 'money' },
  net: { kind: 'money' },
  payoutFees: { kind: 'money' },
  expectedBankAmount: { kind: 'money', from: (r) => r.net - r.payoutFees },
  expectedAt: { kind: 'date', nullable: true },
  status: { kind: 'string', states: batchMachine },
  matchId: { kind: 'string', nullable: true },
  bankRowIds: { kind: 'strings' },
  bankAmount: { kind: 'money', nullable: true },
  transferFee: { kind: 'money', nullable: true },
  matchedAt: { kind: 'date', nullable: true },
  importIds: { kind: 'strings' },
  createdAt: { kind: 'date' },
  updatedAt: { kind: 'date' },
};

/** `percent` = floor(100 × processed / total); a completed run is 100. */
const progressOf = (r: RunRow) => ({
  phase: r.phase,
  rowsTotal: r.rowsTotal,
  rowsProcessed: r.rowsProcessed,
  percent: r.rowsTotal === 0 ? (r.phase === 'done' ? 100 : 0) : Math.floor((100 * r.rowsProcessed) / r.rowsTotal),
});

export const runFields: FieldSpec<RunRow> = {
  id: { kind: 'id' },
  arn: { kind: 'string', from: arn('reconciliation-run') },
  accountId: { kind: 'string' },
  mode: { kind: 'string' },
  trigger: { kind: 'string' },
  importId: { kind: 'string', nullable: true },
  adapter: { kind: 'string', nullable: true },
  periodStart: { kind: 'date', nullable: true },
  periodEnd: { kind: 'date', nullable: true },
  status: { kind: 'string', states: runMachine },
  progress: { kind: 'json', from: progressOf },
  stats: { kind: 'json' },
  ledgerCheck: { kind: 'json', nullable: true },
  startedAt: { kind: 'date', nullable: true },
  completedAt: { kind: 'date', nullable: true },
  failureCode: { kind: 'string', nullable: true },
  createdAt: { kind: 'date' },
  updatedAt: { kind: 'date' },
};

export const settingsFields: FieldSpec<SettingsRow> = {
  accountId: { kind: 'string' },
  mode: { kind: 'string' },
  dateToleranceDays: { kind: 'int' },
  lateSettlementDays: { kind: 'int' },
  amountTolerance: { kind: 'json' },
  feeTolerance: { kind: 'json' },
  transferFeeTolerance: { kind: 'json' },
  feeRules: { kind: 'json' },
  updatedAt: { kind: 'date', nullable: true },
};

export const importSnapshot = (r: ImportRow) => toWire(r, importFields);

export const runSnapshot = (r: RunRow) => toWire(r, runFields);

/** docs/reconciliation.md, Runs: immutable; a link makes a new one. */
export const matchFields: FieldSpec<MatchRow> = {
  id: { kind: 'id' },
  accountId: { kind: 'string' },
  mode: { kind: 'string' },
  kind: { kind: 'string' },
  rule: { kind: 'string' },
  matchedBy: { kind: 'string' },
  rowIds: { kind: 'strings' },
  objects: { kind: 'json' },
  currency: { kind: 'string' },
  difference: { kind: 'money' },
  transferFee: { kind: 'money', nullable: true },
  ledgerTxId: { kind: 'string', nullable: true },
  runId: { kind: 'string', nullable: true },
  createdAt: { kind: 'date' },
};

const historyOf = (r: ExceptionRow) =>
  (r.history ?? []).map((h) => ({
    at: h.at.toISOString(),
    action: h.action,
    actor: h.actor,
    note: h.note,
    requestId: h.requestId,
  }));

/** docs/reconciliation.md, Exceptions: amounts per category, the history oldest first. */
export const exceptionFields: FieldSpec<ExceptionRow> = {
  id: { kind: 'id' },
  arn: { kind: 'string', from: arn('reconciliation-exception') },
  accountId: { kind: 'string' },
  mode: { kind: 'string' },
  category: { kind: 'string' },
  status: { kind: 'string', states: reconExceptionMachine },
  resolution: { kind: 'string', nullable: true },
  adapter: { kind: 'string', nullable: true },
  currency: { kind: 'string', nullable: true },
  rowIds: { kind: 'strings' },
  objectType: { kind: 'string', nullable: true },
  objectId: { kind: 'string', nullable: true },
  batchId: { kind: 'string', nullable: true },
  expectedAmount: { kind: 'money', nullable: true },
  actualAmount: { kind: 'money', nullable: true },
  difference: { kind: 'money', nullable: true },
  details: { kind: 'json' },
  importId: { kind: 'string', nullable: true },
  runId: { kind: 'string', nullable: true },
  openedAt: { kind: 'date' },
  resolvedAt: { kind: 'date', nullable: true },
  resolvedBy: { kind: 'json', nullable: true },
  resolutionNote: { kind: 'string', nullable: true },
  writeOffAccount: { kind: 'string', nullable: true },
  ledgerTxId: { kind: 'string', nullable: true },
  linkedMatchId: { kind: 'string', nullable: true },
  assignee: { kind: 'string', nullable: true },
  metadata: { kind: 'json', nullable: true },
  history: { kind: 'json', from: historyOf },
  createdAt: { kind: 'date' },
  updatedAt: { kind: 'date' },
};

export const exceptionSnapshot = (r: ExceptionRow) => toWire(r, exceptionFields);
export const batchSnapshot = (r: BatchRow) => toWire(r, batchFields);
