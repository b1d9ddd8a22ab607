import { builder } from '../../graphql/builder.ts';
import { admission } from '../../graphql/operation.ts';
import { exposeFields, statusesOf, type ListArgs } from '../../graphql/fields.ts';
import { deliveryFields, endpointFields } from './fields.ts';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookEndpointSecret,
  updateWebhookEndpoint,
} from './service.ts';
import { listWebhookDeliveries, retryWebhookDelivery } from './deliveries.ts';
import { webhookEndpointMachine, webhookDeliveryMachine } from './states.ts';

export const WebhookEndpoint = builder.prismaObject('WebhookEndpoint', {
  description: 'spec Webhook endpoint: where events are pushed. signingSecret is set only by create and rotate.',
  fields: (t) => exposeFields(t, endpointFields),
});

export const WebhookDelivery = builder.prismaObject('WebhookDelivery', {
  description: 'spec Webhook delivery: one event to one endpoint, through its retry schedule.',
  fields: (t) => exposeFields(t, deliveryFields),
});

const CreateWebhookEndpointInput = builder.inputType('CreateWebhookEndpointInput', {
  fields: (t) => ({
    url: t.string(),
    events: t.stringList(),
    description: t.string(),
    enabled: t.boolean(),
    signatureFormat: t.string({ description: '`svc` (default) or `standard` (Standard Webhooks headers)' }),
  }),
});

const UpdateWebhookEndpointInput = builder.inputType('UpdateWebhookEndpointInput', {
  fields: (t) => ({
    url: t.string(),
    events: t.stringList(),
    description: t.string(),
    enabled: t.boolean(),
    signatureFormat: t.string(),
  }),
});

export type CreateWebhookEndpointInput = typeof CreateWebhookEndpointInput.$inferInput;
export type UpdateWebhookEndpointInput = typeof UpdateWebhookEndpointInput.$inferInput;

const RotateWebhookEndpointSecretInput = builder.inputType('RotateWebhookEndpointSecretInput', {
  fields: (t) => ({ overlapSeconds: t.int() }),
});
export type RotateSecretInput = typeof RotateWebhookEndpointSecretInput.$inferInput;

export const endpointListArgs = builder.args((t) => ({ status: t.string(statusesOf(webhookEndpointMachine)) }));
export type ListEndpointsArgs = ListArgs<typeof endpointListArgs>;
export const deliveryListArgs = builder.args((t) => ({
  endpointId: t.id({ required: true }),
  status: t.string(statusesOf(webhookDeliveryMachine)),
  eventType: t.string(),
  since: t.field({ type: 'DateTime' }),
}));
export type ListDeliveriesArgs = Omit<ListArgs<typeof deliveryListArgs>, 'endpointId'>;

builder.queryFields((t) => ({
  webhookEndpoint: t.field({
    ...admission({ resource: 'webhook_endpoint', scope: 'svc:webhook:read' }),
    type: WebhookEndpoint,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => getWebhookEndpoint(ctx, String(id)),
  }),
  webhookEndpoints: t.connection({
    ...admission({ resource: 'webhook_endpoint', scope: 'svc:webhook:read' }),
    type: WebhookEndpoint,
    args: endpointListArgs,
    resolve: (_, args, ctx) => listWebhookEndpoints(ctx, args),
  }),
  webhookDeliveries: t.connection({
    ...admission({ resource: 'webhook_endpoint', scope: 'svc:webhook:read' }),
    type: WebhookDelivery,
    args: deliveryListArgs,
    resolve: (_, { endpointId, ...args }, ctx) => listWebhookDeliveries(ctx, String(endpointId), args),
  }),
}));

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.field({
    ...admission({ resource: 'webhook_endpoint', scope: 'svc:webhook:write' }),
    type: WebhookEndpoint,
    args: { input: t.arg({ type: CreateWebhookEndpointInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { input }, ctx) => createWebhookEndpoint(ctx, input),
  }),
  updateWebhookEndpoint: t.field({
    ...admission({ resource: 'webhook_endpoint', scope: 'svc:webhook:write' }),
    type: WebhookEndpoint,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateWebhookEndpointInput, required: true }) },
    resolve: (_, { id, input }, ctx) => updateWebhookEndpoint(ctx, String(id), input),
  }),
  deleteWebhookEndpoint: t.field({
    ...admission({ resource: 'webhook_endpoint', scope: 'svc:webhook:write' }),
    type: 'Boolean',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => deleteWebhookEndpoint(ctx, String(id)),
  }),
  rotateWebhookEndpointSecret: t.field({
    ...admission({ resource: 'webhook_endpoint', scope: 'svc:webhook:write' }),
    type: WebhookEndpoint,
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: RotateWebhookEndpointSecretInput }) },
    resolve: (_, { id, input }, ctx) => rotateWebhookEndpointSecret(ctx, String(id), input ?? {}),
  }),
  retryWebhookDelivery: t.field({
    ...admission({ resource: 'webhook_endpoint', scope: 'svc:webhook:write' }),
    type: WebhookDelivery,
    args: {
      endpointId: t.arg.id({ required: true }),
      deliveryId: t.arg.id({ required: true }),
      idempotencyKey: t.arg.string(),
    },
    resolve: (_, { endpointId, deliveryId }, ctx) => retryWebhookDelivery(ctx, String(endpointId), String(deliveryId)),
  }),
}));
