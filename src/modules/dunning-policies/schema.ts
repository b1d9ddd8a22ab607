import { builder } from '../../graphql/builder.ts';
import { admission } from '../../graphql/operation.ts';
import { exposeFields, type ListArgs } from '../../graphql/fields.ts';
import { dunningPolicyFields } from './fields.ts';
import { createDunningPolicy, getDunningPolicy, listDunningPolicies, updateDunningPolicy } from './service.ts';

export const DunningPolicy = builder.prismaObject('DunningPolicy', {
  description: 'DECISIONS §3: the retry schedule of a failed renewal invoice and the action after the last retry.',
  fields: (t) => exposeFields(t, dunningPolicyFields),
});

const dunningPolicyInput = (name: string, description: string) =>
  builder.inputType(name, {
    description,
    fields: (t) => ({
      retryScheduleDays: t.intList({ description: 'Days after the first failure, strictly increasing (1-60).' }),
      finalAction: t.string({ description: 'uncollectible or void' }),
    }),
  });
const CreateDunningPolicyInput = dunningPolicyInput('CreateDunningPolicyInput', 'Both fields are required.');
const UpdateDunningPolicyInput = dunningPolicyInput('UpdateDunningPolicyInput', 'Send only changes.');
export type DunningPolicyInput = typeof CreateDunningPolicyInput.$inferInput;

const listArgs = builder.args((t) => ({ order: t.string() }));
export type ListDunningPoliciesArgs = ListArgs<typeof listArgs>;

builder.queryFields((t) => ({
  dunningPolicy: t.field({
    ...admission({ resource: 'dunning_policy', scope: 'svc:plan:read' }),
    type: DunningPolicy,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => getDunningPolicy(ctx, String(id)),
  }),
  dunningPolicies: t.connection({
    ...admission({ resource: 'dunning_policy', scope: 'svc:plan:read' }),
    type: DunningPolicy,
    args: listArgs,
    resolve: (_, args, ctx) => listDunningPolicies(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createDunningPolicy: t.field({
    ...admission({ resource: 'dunning_policy', scope: 'svc:plan:write' }),
    type: DunningPolicy,
    args: { input: t.arg({ type: CreateDunningPolicyInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { input }, ctx) => createDunningPolicy(ctx, input),
  }),
  updateDunningPolicy: t.field({
    ...admission({ resource: 'dunning_policy', scope: 'svc:plan:write' }),
    type: DunningPolicy,
    args: {
      id: t.arg.id({ required: true }),
      input: t.arg({ type: UpdateDunningPolicyInput, required: true }),
      idempotencyKey: t.arg.string(),
    },
    resolve: (_, { id, input }, ctx) => updateDunningPolicy(ctx, String(id), input),
  }),
}));
