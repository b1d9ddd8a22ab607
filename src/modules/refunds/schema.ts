import { builder } from '../../graphql/builder.ts';
import { exposeFields, statusesOf, type ListArgs } from '../../graphql/fields.ts';
import { refundFields, type RefundRow } from './fields.ts';
import { createRefund, getRefund, listRefunds, simulateRefund } from './service.ts';
import { admission } from '../../graphql/operation.ts';
import { refundMachine } from './states.ts';

export const Refund = builder.objectRef<RefundRow>('Refund').implement({
  description: 'A full or partial reversal of a captured payment.',
  fields: (t) => exposeFields(t, refundFields),
});

const CreateRefundInput = builder.inputType('CreateRefundInput', {
  fields: (t) => ({
    // Checked by the service, so a missing one is 400 VALIDATION_ERROR naming the field.
    chargeId: t.string(),
    amount: t.field({ type: 'Money' }),
    reason: t.string(),
    metadata: t.field({ type: 'Metadata' }),
  }),
});

export type CreateRefundInput = typeof CreateRefundInput.$inferInput;

const SimulateRefundInput = builder.inputType('SimulateRefundInput', {
  fields: (t) => ({ outcome: t.string() }),
});

export const listArgs = builder.args((t) => ({
  chargeId: t.string(),
  status: t.string(statusesOf(refundMachine)),
  order: t.string(),
}));
export type ListRefundsArgs = ListArgs<typeof listArgs>;

builder.queryFields((t) => ({
  refund: t.field({
    ...admission({ resource: 'refund', scope: 'svc:refund:read' }),
    type: Refund,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => getRefund(ctx, String(id)),
  }),
  refunds: t.connection({
    ...admission({ resource: 'refund', scope: 'svc:refund:read' }),
    type: Refund,
    args: listArgs,
    resolve: (_, args, ctx) => listRefunds(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createRefund: t.field({
    ...admission({
      resource: 'refund',
      scope: 'svc:refund:write',
      rateClass: 'mutating_heavy',
      idempotencyKey: 'required',
    }),
    type: Refund,
    args: { input: t.arg({ type: CreateRefundInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { input }, ctx) => createRefund(ctx, input),
  }),
  simulateRefund: t.field({
    ...admission({ resource: 'refund', scope: 'svc:refund:write' }),
    type: Refund,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: SimulateRefundInput, required: true }) },
    resolve: (_, { id, input }, ctx) => simulateRefund(ctx, String(id), input.outcome ?? ''),
  }),
}));
