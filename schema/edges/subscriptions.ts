// Subscription's edges (docs/architecture.md, "Edges"): to-one edges batched per level (src/core/loaders.ts);
// invoices are the REST list bound to the subscription (their lines come with each page).
import { builder } from '../../src/graphql/builder.ts';
import { subscriptionCanceled } from '../../src/modules/subscriptions/states.ts';
import { Customer } from '../../src/modules/customers/schema.ts';
import { customerById } from '../../src/modules/customers/loaders.ts';
import { Invoice } from '../../src/modules/invoices/schema.ts';
import { getInvoice, listInvoices } from '../../src/modules/invoices/service.ts';
import { Plan, Price } from '../../src/modules/plans/schema.ts';
import { planById, priceById } from '../../src/modules/subscriptions/loaders.ts';
import { Subscription } from '../../src/modules/subscriptions/schema.ts';
import { subscriptionCurrentUsage } from '../../src/modules/usage-rollups/current.ts';
import { SubscriptionUsageType } from '../../src/modules/usage-rollups/schema.ts';

const invoiceArgs = builder.args((t) => ({ status: t.string(), order: t.string() }));

builder.objectFields(Subscription, (t) => ({
  customer: t.field({
    type: Customer,
    nullable: true,
    resolve: (s, _, ctx, info) => customerById(ctx, s.customerId, info),
  }),
  plan: t.field({ type: Plan, nullable: true, resolve: (s, _, ctx, info) => planById(ctx, s.planId, info) }),
  price: t.field({ type: Price, nullable: true, resolve: (s, _, ctx, info) => priceById(ctx, s.priceId, info) }),
  latestInvoice: t.field({
    type: Invoice,
    nullable: true,
    resolve: (s, _, ctx) => (s.latestInvoiceId ? getInvoice(ctx, s.latestInvoiceId) : null),
  }),
  // docs/usage.md, Current usage: null once canceled (the root field answers 409 there).
  currentUsage: t.field({
    type: SubscriptionUsageType,
    nullable: true,
    resolve: (s, _, ctx) => (s.status === subscriptionCanceled ? null : subscriptionCurrentUsage(ctx, s.id, {})),
  }),
  invoices: t.connection({
    type: Invoice,
    args: invoiceArgs,
    resolve: (s, args, ctx) => listInvoices(ctx, { ...args, subscriptionId: s.id }),
  }),
}));
