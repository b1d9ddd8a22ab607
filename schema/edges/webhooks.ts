// Webhook endpoint and delivery edges (docs/architecture.md, "Edges"): batched reads in the caller's tenant.
import { builder } from '../../src/graphql/builder.ts';
import { Event } from '../../src/modules/events/schema.ts';
import { eventById } from '../../src/modules/events/loaders.ts';
import { deliveriesOfEndpoint, endpointById } from '../../src/modules/webhooks/loaders.ts';
import { WebhookDelivery, WebhookEndpoint, deliveryListArgs } from '../../src/modules/webhooks/schema.ts';

const { endpointId: _e, ...deliveryArgs } = deliveryListArgs;

builder.objectFields(WebhookEndpoint, (t) => ({
  deliveries: t.connection({
    type: WebhookDelivery,
    args: deliveryArgs,
    extensions: deliveriesOfEndpoint.extensions,
    resolve: (e, args, ctx, info) => deliveriesOfEndpoint(ctx, e.id, args, info),
  }),
}));

builder.objectFields(WebhookDelivery, (t) => ({
  event: t.field({ type: Event, nullable: true, resolve: (d, _, ctx, info) => eventById(ctx, d.eventId, info) }),
  endpoint: t.field({
    type: WebhookEndpoint,
    nullable: true,
    resolve: (d, _, ctx, info) => endpointById(ctx, d.endpointId, info),
  }),
}));
