import { builder } from '../../graphql/builder.ts';
import { exposeFields } from '../../graphql/fields.ts';
import { admission } from '../../graphql/operation.ts';
import { usageRecordFields } from './fields.ts';
import { createUsageRecord } from './service.ts';

export const UsageRecord = builder.prismaObject('UsageRecord', {
  description: "DECISIONS §3: a quantity of a subscription's usage price, aggregated at renewal.",
  fields: (t) => exposeFields(t, usageRecordFields),
});

const CreateUsageRecordInput = builder.inputType('CreateUsageRecordInput', {
  description: 'quantity (integer >= 0) and timestamp (ISO 8601 or epoch seconds; default now, clock time).',
  fields: (t) => ({
    quantity: t.int(),
    timestamp: t.field({ type: 'DateTime' }),
  }),
});

builder.mutationFields((t) => ({
  createUsageRecord: t.field({
    ...admission({ resource: 'subscription', scope: 'svc:subscription:write', idempotencyKey: 'required' }),
    type: UsageRecord,
    args: {
      subscriptionId: t.arg.id({ required: true }),
      input: t.arg({ type: CreateUsageRecordInput, required: true }),
      idempotencyKey: t.arg.string(),
    },
    resolve: (_, { subscriptionId, input }, ctx) => createUsageRecord(ctx, String(subscriptionId), input),
  }),
}));
