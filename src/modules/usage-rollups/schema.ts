import { builder } from '../../graphql/builder.ts';
import { admission } from '../../graphql/operation.ts';
import {
  customerCurrentUsage,
  subscriptionCurrentUsage,
  type SubscriptionUsage,
  type UsageGroup,
  type UsageItem,
} from './current.ts';

const UsageGroupType = builder.objectRef<UsageGroup>('UsageGroup').implement({
  description: 'One group of a meter: its dimension values (null when absent) and its value.',
  fields: (t) => ({
    dimensions: t.field({ type: 'JSON', resolve: (g) => g.dimensions }),
    value: t.exposeString('value'),
  }),
});

const UsageItemType = builder.objectRef<UsageItem>('UsageItem').implement({
  description: 'One metered price: the meter value, the billable quantity and what it would bill now.',
  fields: (t) => ({
    priceId: t.exposeString('priceId'),
    meterId: t.exposeString('meterId'),
    aggregation: t.exposeString('aggregation'),
    value: t.exposeString('value', { description: 'A canonical decimal string.' }),
    quantity: t.exposeInt('quantity'),
    amount: t.field({ type: 'Money', resolve: (i) => i.amount }),
    groups: t.field({ type: [UsageGroupType], nullable: true, resolve: (i) => i.groups }),
  }),
});

export const SubscriptionUsageType = builder.objectRef<SubscriptionUsage>('SubscriptionUsage').implement({
  description: "A subscription's current period usage, read from rollups (docs/guides/current-usage.md).",
  fields: (t) => ({
    subscriptionId: t.exposeString('subscriptionId'),
    customerId: t.exposeString('customerId'),
    currency: t.exposeString('currency'),
    periodStart: t.field({ type: 'DateTime', resolve: (u) => u.periodStart }),
    periodEnd: t.field({ type: 'DateTime', resolve: (u) => u.periodEnd }),
    asOf: t.field({ type: 'DateTime', resolve: (u) => u.asOf }),
    amount: t.field({ type: 'Money', resolve: (u) => u.amount }),
    items: t.field({ type: [UsageItemType], resolve: (u) => u.items }),
  }),
});

const CustomerUsageType = builder
  .objectRef<{ customerId: string; asOf: Date; subscriptions: SubscriptionUsage[] }>('CustomerUsage')
  .implement({
    fields: (t) => ({
      customerId: t.exposeString('customerId'),
      asOf: t.field({ type: 'DateTime', resolve: (u) => u.asOf }),
      subscriptions: t.field({ type: [SubscriptionUsageType], resolve: (u) => u.subscriptions }),
    }),
  });

builder.queryFields((t) => ({
  subscriptionCurrentUsage: t.field({
    ...admission({ resource: 'usage_event', scope: 'svc:usage:read' }),
    type: SubscriptionUsageType,
    args: {
      subscriptionId: t.arg.id({ required: true }),
      meterId: t.arg.string(),
      groupBy: t.arg.string({ description: 'Comma-separated names from the meter groupBy; needs meterId.' }),
    },
    resolve: (_, a, ctx) => subscriptionCurrentUsage(ctx, String(a.subscriptionId), a),
  }),
  customerCurrentUsage: t.field({
    ...admission({ resource: 'usage_event', scope: 'svc:usage:read' }),
    type: CustomerUsageType,
    args: {
      customerId: t.arg.id({ required: true }),
      meterId: t.arg.string(),
      groupBy: t.arg.string(),
    },
    resolve: (_, a, ctx) => customerCurrentUsage(ctx, String(a.customerId), a),
  }),
}));
