import type { FieldSpec } from '../../graphql/fields.ts';
import type { WebhookDelivery, WebhookEndpoint } from '../../generated/prisma/client.ts';
import { webhookEndpointMachine, webhookDeliveryMachine } from './states.ts';

/** An endpoint as the service returns it: the plaintext secret only on create and rotate. */
export type EndpointRow = WebhookEndpoint & { signingSecret?: string };

/** spec Webhook endpoint (+ `signatureFormat`, spec Webhook delivery). */
export const endpointFields: FieldSpec<EndpointRow> = {
  id: { kind: 'id' },
  url: { kind: 'string' },
  events: { kind: 'strings' },
  description: { kind: 'string', nullable: true },
  status: { kind: 'string', states: webhookEndpointMachine },
  signatureFormat: { kind: 'string' },
  signingSecret: { kind: 'string', nullable: true, secret: true, from: (r) => r.signingSecret ?? null },
  createdAt: { kind: 'date' },
  updatedAt: { kind: 'date' },
  lastDelivery: {
    kind: 'json',
    nullable: true,
    from: (r) =>
      r.lastAttemptedAt && {
        eventId: r.lastEventId,
        deliveredAt: r.lastAttemptedAt.toISOString(),
        statusCode: r.lastStatusCode,
        durationMs: r.lastDurationMs,
      },
  },
};

/** spec Webhook delivery. */
export const deliveryFields: FieldSpec<WebhookDelivery> = {
  id: { kind: 'id' },
  endpointId: { kind: 'string' },
  eventId: { kind: 'string' },
  eventType: { kind: 'string' },
  status: { kind: 'string', states: webhookDeliveryMachine },
  statusCode: { kind: 'int', nullable: true },
  durationMs: { kind: 'int', nullable: true },
  retryCount: { kind: 'int' },
  attemptedAt: { kind: 'date', nullable: true },
  nextRetryAt: { kind: 'date', nullable: true },
  responseBodyPreview: { kind: 'string', nullable: true },
};
