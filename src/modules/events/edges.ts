// Event's edge to its object (docs/architecture.md, "Edges"): the union of the kinds events are about.
import type { GraphQLResolveInfo } from 'graphql';
import { builder } from '../../graphql/builder.ts';
import type { Context } from '../../core/context.ts';
import { prefixes } from '../../core/ids.ts';
import { CheckoutSession } from '../checkout-sessions/schema.ts';
import { sessionById } from '../checkout-sessions/loaders.ts';
import { Customer } from '../customers/schema.ts';
import { customerById } from '../customers/loaders.ts';
import { Payment } from '../payments/schema.ts';
import { paymentById } from '../payments/loaders.ts';
import { Payout } from '../payouts/schema.ts';
import { payoutById } from '../payouts/loaders.ts';
import { Receipt } from '../receipts/schema.ts';
import { receiptById } from '../receipts/loaders.ts';
import { Refund } from '../refunds/schema.ts';
import { refundById } from '../refunds/loaders.ts';
import { WebhookEndpoint } from '../webhooks/schema.ts';
import { endpointById } from '../webhooks/loaders.ts';
import { Event } from './schema.ts';

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
