import { sql } from '../../core/db/sql-template.ts';
import { oneBy, pageBy, type Source } from '../../core/loaders.ts';
import type { WebhookDelivery } from '../../generated/prisma/client.ts';
import type { EndpointRow } from './fields.ts';
import { deliveryList, shownSince } from './list.ts';

/** Batched reads of webhook endpoints and deliveries for the graph's edges (src/core/loaders.ts). */
const endpoints: Source<EndpointRow> = { table: 'webhook_endpoints', scope: 'svc:webhook:read' };
const deliveries: Source<WebhookDelivery> = { table: 'webhook_deliveries', scope: 'svc:webhook:read' };

export const endpointById = oneBy(endpoints);
export const deliveryById = oneBy(deliveries);

/** `WebhookEndpoint.deliveries`: the REST list (newest first, 30 days of history, its filters). */
export const deliveriesOfEndpoint = pageBy(deliveries, {
  list: deliveryList,
  parent: 'endpointId',
  column: 'endpointId',
  where: (a) => sql` AND t."createdAt" >= ${shownSince(a)}`,
});
