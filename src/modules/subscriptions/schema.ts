import { builder } from '../../graphql/builder.ts';
import { admission } from '../../graphql/operation.ts';
import { exposeFields, statusesOf, type ListArgs } from '../../graphql/fields.ts';
import { subscriptionFields } from './fields.ts';
import {
  cancelSubscription,
  createSubscription,
  getSubscription,
  listSubscriptions,
  pauseSubscription,
  resumeSubscription,
  updateSubscription,
} from './service.ts';
import { subscriptionMachine } from './states.ts';

// `Subscription` is GraphQL's root type of event subscriptions, so the type takes another name.
export const Subscription = builder.prismaObject('Subscription', {
  name: 'BillingSubscription',
  description: 'DECISIONS §3 Subscription: a customer billed for one price each period.',
  fields: (t) => exposeFields(t, subscriptionFields),
});

const CreateSubscriptionInput = builder.inputType('CreateSubscriptionInput', {
  description: 'customerId and priceId are required; the first period is charged during the call unless trialing.',
  fields: (t) => ({
    // Checked by the service, so a missing one is 400 validation_error naming the field.
    customerId: t.string(),
    priceId: t.string(),
    planId: t.string({ description: "Optional; must be the price's plan." }),
    quantity: t.int({ description: 'Positive integer, default 1 (ignored for usage prices).' }),
    trialDays: t.int({ description: "0-730; default the plan's trialDays." }),
    trialEnd: t.field({ type: 'DateTime', description: 'Instead of trialDays: when the trial ends.' }),
    paymentMethod: t.string({ description: 'pm_test_success or pm_test_decline (test mode); null: hosted page.' }),
    couponId: t.string({ description: 'A cpn_ coupon applied as the subscription discount (docs/coupons.md).' }),
    meteredPriceIds: t.stringList({
      description: "The plan's metered prices billed besides priceId; default every active one in its currency.",
    }),
    metadata: t.field({ type: 'Metadata' }),
  }),
});
export type CreateSubscriptionInput = typeof CreateSubscriptionInput.$inferInput;

const UpdateSubscriptionInput = builder.inputType('UpdateSubscriptionInput', {
  description:
    'Send only changes. A higher period amount applies now with a prorated invoice; a lower one from the next renewal.',
  fields: (t) => ({
    priceId: t.string(),
    quantity: t.int(),
    paymentMethod: t.string(),
    cancelAtPeriodEnd: t.boolean(),
    couponId: t.string({ description: 'Another cpn_ coupon replaces the discount; null removes it.' }),
    metadata: t.field({ type: 'Metadata', description: 'Replaces the stored object; null clears it.' }),
    prorationBehavior: t.string({ description: 'create_prorations (default) or none.' }),
    meteredPriceIds: t.stringList({ description: 'Immutable: any value is refused (400).' }),
    applyAt: t.string({
      description:
        'now or period_end (default: a higher amount or an interval change now, a lower one at the period end).',
    }),
  }),
});
export type UpdateSubscriptionInput = typeof UpdateSubscriptionInput.$inferInput;

const CancelSubscriptionInput = builder.inputType('CancelSubscriptionInput', {
  fields: (t) => ({
    atPeriodEnd: t.boolean({ description: 'true: cancel at the period end (as PATCH cancelAtPeriodEnd).' }),
  }),
});
export type CancelSubscriptionInput = typeof CancelSubscriptionInput.$inferInput;

export const listArgs = builder.args((t) => ({
  customerId: t.string(),
  planId: t.string(),
  priceId: t.string(),
  status: t.string(statusesOf(subscriptionMachine)),
  order: t.string(),
}));
export type ListSubscriptionsArgs = ListArgs<typeof listArgs>;

builder.queryFields((t) => ({
  subscription: t.field({
    ...admission({ resource: 'subscription', scope: 'svc:subscription:read' }),
    type: Subscription,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => getSubscription(ctx, String(id)),
  }),
  subscriptions: t.connection({
    ...admission({ resource: 'subscription', scope: 'svc:subscription:read' }),
    type: Subscription,
    args: listArgs,
    resolve: (_, args, ctx) => listSubscriptions(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createSubscription: t.field({
    ...admission({ resource: 'subscription', scope: 'svc:subscription:write' }),
    type: Subscription,
    args: { input: t.arg({ type: CreateSubscriptionInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { input }, ctx) => createSubscription(ctx, input),
  }),
  updateSubscription: t.field({
    ...admission({ resource: 'subscription', scope: 'svc:subscription:write' }),
    type: Subscription,
    args: {
      id: t.arg.id({ required: true }),
      input: t.arg({ type: UpdateSubscriptionInput, required: true }),
      idempotencyKey: t.arg.string(),
    },
    resolve: (_, { id, input }, ctx) => updateSubscription(ctx, String(id), input),
  }),
  cancelSubscription: t.field({
    ...admission({ resource: 'subscription', scope: 'svc:subscription:write' }),
    type: Subscription,
    args: {
      id: t.arg.id({ required: true }),
      input: t.arg({ type: CancelSubscriptionInput }),
      idempotencyKey: t.arg.string(),
    },
    resolve: (_, { id, input }, ctx) => cancelSubscription(ctx, String(id), input ?? {}),
  }),
  pauseSubscription: t.field({
    ...admission({ resource: 'subscription', scope: 'svc:subscription:write' }),
    type: Subscription,
    args: { id: t.arg.id({ required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { id }, ctx) => pauseSubscription(ctx, String(id)),
  }),
  resumeSubscription: t.field({
    ...admission({ resource: 'subscription', scope: 'svc:subscription:write' }),
    type: Subscription,
    args: { id: t.arg.id({ required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { id }, ctx) => resumeSubscription(ctx, String(id)),
  }),
}));
