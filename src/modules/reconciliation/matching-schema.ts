import { builder } from '../../graphql/builder.ts';
import { exposeFields, statusesOf, type ListArgs } from '../../graphql/fields.ts';
import { admission } from '../../graphql/operation.ts';
import { exceptionFields, matchFields, type ExceptionRow, type MatchRow, type RowRow } from './fields.ts';
import { createRun, getException, getMatch, listExceptions, listMatches } from './matching.ts';
import { ReconciliationRow, ReconciliationRun, SettlementBatch } from './schema.ts';
import { getBatch, getRow } from './service.ts';
import { reconExceptionMachine, rowMachine } from './states.ts';
import { rowsOfObject } from './loaders.ts';
import { Payment } from '../payments/schema.ts';
import { getPayment } from '../payments/service.ts';
import { Refund } from '../refunds/schema.ts';
import { getRefund } from '../refunds/service.ts';
import { Payout } from '../payouts/schema.ts';
import { getPayout } from '../payouts/service.ts';

const read = admission({ resource: 'reconciliation', scope: 'svc:reconciliation:read' });

export const ReconciliationMatch = builder.objectRef<MatchRow>('ReconciliationMatch').implement({
  description: 'Rows linked to objects or to bank credits; immutable (docs/reconciliation.md, Runs).',
  fields: (t) => ({
    ...exposeFields(t, matchFields),
    rows: t.field({
      type: [ReconciliationRow],
      resolve: (m, _, ctx) => Promise.all(m.rowIds.map((id) => getRow(ctx, id))),
    }),
  }),
});

export const ReconciliationException = builder.objectRef<ExceptionRow>('ReconciliationException').implement({
  description: 'A break a run found, open until resolved (docs/reconciliation.md, Exceptions).',
  fields: (t) => ({
    ...exposeFields(t, exceptionFields),
    rows: t.field({
      type: [ReconciliationRow],
      resolve: (e, _, ctx) => Promise.all(e.rowIds.map((id) => getRow(ctx, id))),
    }),
    batch: t.field({
      type: SettlementBatch,
      nullable: true,
      resolve: (e, _, ctx) => (e.batchId ? getBatch(ctx, e.batchId) : null),
    }),
    payment: t.field({
      type: Payment,
      nullable: true,
      resolve: (e, _, ctx) => (e.objectType === 'payment' && e.objectId ? getPayment(ctx, e.objectId) : null),
    }),
    refund: t.field({
      type: Refund,
      nullable: true,
      resolve: (e, _, ctx) => (e.objectType === 'refund' && e.objectId ? getRefund(ctx, e.objectId) : null),
    }),
    payout: t.field({
      type: Payout,
      nullable: true,
      resolve: (e, _, ctx) => (e.objectType === 'payout' && e.objectId ? getPayout(ctx, e.objectId) : null),
    }),
  }),
});

const objectRowArgs = builder.args((t) => ({
  status: t.string(statusesOf(rowMachine)),
  type: t.string(),
  source: t.string(),
  order: t.string(),
}));

/** The rows naming an object, on the object's own type (GraphQL only: the REST shapes do not change). */
for (const type of [Payment, Refund, Payout] as const)
  builder.objectFields(type, (t) => ({
    reconciliationRows: t.connection({
      type: ReconciliationRow,
      args: objectRowArgs,
      extensions: rowsOfObject.extensions,
      resolve: (o: { id: string }, args, ctx, info) => rowsOfObject(ctx, o.id, args, info),
    }),
  }));

builder.objectFields(ReconciliationRow, (t) => ({
  match: t.field({
    type: ReconciliationMatch,
    nullable: true,
    resolve: (r: RowRow, _, ctx) => (r.matchId ? getMatch(ctx, r.matchId) : null),
  }),
  exceptions: t.field({
    type: [ReconciliationException],
    resolve: (r: RowRow, _, ctx) => Promise.all(r.exceptionIds.map((id) => getException(ctx, id))),
  }),
}));

const CreateRunInput = builder.inputType('CreateReconciliationRunInput', {
  description: 'A manual run: every pending row (of `adapter` when given), open batches and resolvable exceptions.',
  fields: (t) => ({
    adapter: t.string({ description: 'provider_a, provider_b, provider_c or provider_a_platform; default all' }),
    from: t.string({ description: 'ISO 8601 instant or YYYY-MM-DD' }),
    to: t.string({ description: 'ISO 8601 instant or YYYY-MM-DD, after from' }),
  }),
});
export type CreateRunInput = typeof CreateRunInput.$inferInput;

const matchArgs = builder.args((t) => ({
  runId: t.string(),
  rowId: t.string(),
  objectId: t.string(),
  batchId: t.string(),
  order: t.string(),
}));
export type ListMatchesArgs = ListArgs<typeof matchArgs>;

const exceptionArgs = builder.args((t) => ({
  category: t.string(),
  status: t.string(statusesOf(reconExceptionMachine)),
  importId: t.string(),
  runId: t.string(),
  objectId: t.string(),
  batchId: t.string(),
  adapter: t.string(),
  currency: t.string(),
  assignee: t.string(),
  order: t.string(),
}));
export type ListExceptionsArgs = ListArgs<typeof exceptionArgs>;

builder.queryFields((t) => ({
  reconciliationMatch: t.field({
    ...read,
    type: ReconciliationMatch,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => getMatch(ctx, String(id)),
  }),
  reconciliationMatches: t.connection({
    ...read,
    type: ReconciliationMatch,
    args: matchArgs,
    resolve: (_, args, ctx) => listMatches(ctx, args),
  }),
  reconciliationException: t.field({
    ...read,
    type: ReconciliationException,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => getException(ctx, String(id)),
  }),
  reconciliationExceptions: t.connection({
    ...read,
    type: ReconciliationException,
    args: exceptionArgs,
    resolve: (_, args, ctx) => listExceptions(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createReconciliationRun: t.field({
    ...admission({
      resource: 'reconciliation',
      scope: 'svc:reconciliation:write',
      rateClass: 'mutating_heavy',
      idempotencyKey: 'required',
    }),
    type: ReconciliationRun,
    args: {
      input: t.arg({ type: CreateRunInput, required: true }),
      idempotencyKey: t.arg.string(),
    },
    resolve: (_, { input }, ctx) => createRun(ctx, input),
  }),
}));
