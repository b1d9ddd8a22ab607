// Event's edge to its object (docs/architecture.md, "Edges"): the union of the kinds events are about.
import type { GraphQLResolveInfo } from 'graphql';
import { builder } from '../../src/graphql/builder.ts';
import type { Context } from '../../src/core/context.ts';
import { prefixes } from '../../src/core/ids.ts';
import { CheckoutSession } from '../../src/modules/checkout-sessions/schema.ts';
import { sessionById } from '../../src/modules/checkout-sessions/loaders.ts';
import { Customer } from '../../src/modules/customers/schema.ts';
import { customerById } from '../../src/modules/customers/loaders.ts';
import { Payment } from '../../src/modules/payments/schema.ts';
import { paymentById } from '../../src/modules/payments/loaders.ts';
import { Payout } from '../../src/modules/payouts/schema.ts';
import { payoutById } from '../../src/modules/payouts/loaders.ts';
import { Receipt } from '../../src/modules/receipts/schema.ts';
import { receiptById } from '../../src/modules/receipts/loaders.ts';
import { Refund } from '../../src/modules/refunds/schema.ts';
import { refundById } from '../../src/modules/refunds/loaders.ts';
import { WebhookEndpoint } from '../../src/modules/webhooks/schema.ts';
import { endpointById } from '../../src/modules/webhooks/loaders.ts';
import { Event } from '../../src/modules/events/schema.ts';

const EventObject = builder.unionType('EventObject', {
  description: 'What an event is about, when it is one of these kinds.',
  types: [Payment, Refund, CheckoutSession, Payout, Customer, Receipt, WebhookEndpoint],
  resolveType: (row) => kindOf(row.id)?.type.name ?? 'Payment',
});
type ObjectRow = typeof EventObject.$inferType;

/** The kinds an event's `objectId` may name, by id prefix: the GraphQL type and its batched read. */
const kinds: Record<
  string,
  { type: { name: string }; load: (ctx: Context, id: string, info: GraphQLResolveInfo) => Promise<ObjectRow | null> }
> = {
  [prefixes.payment]: { type: Payment, load: paymentById },
  [prefixes.refund]: { type: Refund, load: refundById },
  [prefixes.checkoutSession]: { type: CheckoutSession, load: sessionById },
  [prefixes.payout]: { type: Payout, load: payoutById },
  [prefixes.customer]: { type: Customer, load: customerById },
  [prefixes.receipt]: { type: Receipt, load: receiptById },
  [prefixes.webhookEndpoint]: { type: WebhookEndpoint, load: endpointById },
};
const kindOf = (id: string) => kinds[id.slice(0, id.indexOf('_'))];

builder.objectFields(Event, (t) => ({
  object: t.field({
    type: EventObject,
    nullable: true,
    description: "The event's object as it is now, in the caller's mode; null for other kinds, and when it is gone.",
    resolve: (e, _, ctx: Context, info) =>
      e.objectId ? (kindOf(e.objectId)?.load(ctx, e.objectId, info) ?? null) : null,
  }),
}));
