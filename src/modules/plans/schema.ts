import { builder } from '../../graphql/builder.ts';
import { exposeFields, type ListArgs } from '../../graphql/fields.ts';
import { admission } from '../../graphql/operation.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant } from '../../core/db/client.ts';
import { DunningPolicy } from '../dunning-policies/schema.ts';
import { findDunningPolicy } from '../dunning-policies/service.ts';
import { planFields, priceFields, type PlanRow } from './fields.ts';
import {
  addPrice,
  archivePlan,
  createPlan,
  getPlan,
  listPlans,
  priceOrder,
  updatePlan,
  updatePrice,
} from './service.ts';

export const Price = builder.prismaObject('Price', {
  description: 'spec Price: immutable but for active; a changed amount is a new price.',
  fields: (t) => exposeFields(t, priceFields),
});

export const Plan = builder.prismaObject('Plan', {
  description: 'spec Plan: what subscriptions bill, with its versioned prices.',
  fields: (t) => ({
    ...exposeFields(t, planFields),
    // Services load prices with the plan (in its tenant transaction); the fallback loads them
    // under the caller's tenant scope, as row-level security requires.
    prices: t.relation('prices', {
      resolve: (query, plan, _args, ctx) =>
        (plan as Partial<PlanRow>).prices ??
        inTenant(tenant(authorize(ctx, 'svc:plan:read')), (tx) =>
          tx.price.findMany({
            ...query,
            where: { workspaceId: plan.workspaceId, mode: plan.mode, planId: plan.id },
            orderBy: priceOrder(),
          }),
        ),
    }),
    dunningPolicy: t.field({
      type: DunningPolicy,
      nullable: true,
      description: 'The dunning policy named by dunningPolicyId.',
      resolve: (plan, _args, ctx) => (plan.dunningPolicyId ? findDunningPolicy(ctx, plan.dunningPolicyId) : null),
    }),
  }),
});

const PortalFeaturesInput = builder.inputType('PortalFeaturesInput', {
  description: 'spec Plan portalFeatures: all five booleans are required.',
  fields: (t) => ({
    selfServeCancel: t.boolean(),
    selfServePause: t.boolean(),
    selfServeUpgrade: t.boolean(),
    selfServeDowngrade: t.boolean(),
    updatePaymentMethod: t.boolean(),
  }),
});

const PriceTierInput = builder.inputType('PriceTierInput', {
  fields: (t) => ({
    upTo: t.field({ type: 'JSON', description: 'A positive integer, or "inf" on the last tier.' }),
    unitAmount: t.field({ type: 'Money' }),
    flatAmount: t.field({ type: 'Money' }),
  }),
});

// Fields are optional in the schema and checked by the service, so a missing one is
// 400 VALIDATION_ERROR naming its path (prices[0].unitAmount).
const PriceInput = builder.inputType('PriceInput', {
  fields: (t) => ({
    currency: t.string(),
    model: t.string({ description: 'flat, tiered, volume or usage' }),
    unitAmount: t.field({ type: 'Money' }),
    tiers: t.field({ type: [PriceTierInput] }),
    taxMode: t.string({ description: 'inclusive or exclusive (default)' }),
    active: t.boolean(),
    meterId: t.string({ description: 'An active mtr_ meter: the price bills its value (usage, tiered, volume).' }),
    divideBy: t.int({ description: 'Metered only: quantity = round(value / divideBy), 1-1,000,000,000 (default 1).' }),
    quantityRounding: t.string({ description: 'Metered only: half_up (default), up or down.' }),
  }),
});
export type PriceInput = typeof PriceInput.$inferInput;

const CreatePlanInput = builder.inputType('CreatePlanInput', {
  fields: (t) => ({
    name: t.string(),
    description: t.string(),
    interval: t.string({ description: 'day, week, month or year' }),
    intervalCount: t.int(),
    trialDays: t.int(),
    portalFeatures: t.field({ type: PortalFeaturesInput }),
    dunningPolicyId: t.string(),
    usageAggregate: t.string({ description: 'sum, max or last; required when a price has model usage' }),
    meteredUnit: t.string(),
    active: t.boolean(),
    metadata: t.field({ type: 'Metadata' }),
    prices: t.field({ type: [PriceInput] }),
  }),
});
export type CreatePlanInput = typeof CreatePlanInput.$inferInput;

const UpdatePlanInput = builder.inputType('UpdatePlanInput', {
  description:
    'spec Plans update: only the mutable fields; interval, intervalCount and prices are immutable (add a price). ' +
    'null clears description, dunningPolicyId and metadata.',
  fields: (t) => ({
    name: t.string(),
    description: t.string(),
    trialDays: t.int(),
    portalFeatures: t.field({ type: PortalFeaturesInput }),
    dunningPolicyId: t.string(),
    active: t.boolean(),
    metadata: t.field({ type: 'Metadata' }),
  }),
});
export type UpdatePlanInput = typeof UpdatePlanInput.$inferInput;

const UpdatePriceInput = builder.inputType('UpdatePriceInput', {
  description: 'spec Price PATCH: only active is mutable.',
  fields: (t) => ({ active: t.boolean() }),
});
export type UpdatePriceInput = typeof UpdatePriceInput.$inferInput;

const listArgs = builder.args((t) => ({
  active: t.boolean({ description: 'true: live plans; false: archived; omitted: every plan not archived.' }),
  order: t.string(),
}));
export type ListPlansArgs = ListArgs<typeof listArgs>;

builder.queryFields((t) => ({
  plan: t.field({
    ...admission({ resource: 'plan', scope: 'svc:plan:read' }),
    type: Plan,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => getPlan(ctx, String(id)),
  }),
  plans: t.connection({
    ...admission({ resource: 'plan', scope: 'svc:plan:read' }),
    type: Plan,
    args: listArgs,
    resolve: (_, args, ctx) => listPlans(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createPlan: t.field({
    ...admission({ resource: 'plan', scope: 'svc:plan:create', idempotencyKey: 'required' }),
    type: Plan,
    args: { input: t.arg({ type: CreatePlanInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { input }, ctx) => createPlan(ctx, input),
  }),
  updatePlan: t.field({
    ...admission({ resource: 'plan', scope: 'svc:plan:write', idempotencyKey: 'required' }),
    type: Plan,
    args: {
      id: t.arg.id({ required: true }),
      input: t.arg({ type: UpdatePlanInput, required: true }),
      idempotencyKey: t.arg.string(),
    },
    resolve: (_, { id, input }, ctx) => updatePlan(ctx, String(id), input),
  }),
  archivePlan: t.field({
    ...admission({ resource: 'plan', scope: 'svc:plan:write', idempotencyKey: 'required' }),
    type: Plan,
    args: { id: t.arg.id({ required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { id }, ctx) => archivePlan(ctx, String(id)),
  }),
  addPrice: t.field({
    ...admission({ resource: 'plan', scope: 'svc:plan:write', idempotencyKey: 'required' }),
    type: Price,
    args: {
      planId: t.arg.id({ required: true }),
      input: t.arg({ type: PriceInput, required: true }),
      idempotencyKey: t.arg.string(),
    },
    resolve: (_, { planId, input }, ctx) => addPrice(ctx, String(planId), input),
  }),
  updatePrice: t.field({
    ...admission({ resource: 'plan', scope: 'svc:plan:write' }),
    type: Price,
    args: {
      id: t.arg.id({ required: true }),
      input: t.arg({ type: UpdatePriceInput, required: true }),
      idempotencyKey: t.arg.string(),
    },
    resolve: (_, { id, input }, ctx) => updatePrice(ctx, String(id), input),
  }),
}));
