import { builder } from '../../graphql/builder.ts';
import { exposeFields, statusesOf, type ListArgs } from '../../graphql/fields.ts';
import { admission } from '../../graphql/operation.ts';
import { exceptionFields, matchFields, type ExceptionRow, type MatchRow, type RowRow } from './fields.ts';
import { createRun, getException, getMatch, listExceptions, listMatches } from './matching.ts';
import { ReconciliationRow, ReconciliationRun, SettlementBatch } from './schema.ts';
import { getBatch, getRow } from './service.ts';
import { reconExceptionMachine } from './states.ts';

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
  }),
});

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
