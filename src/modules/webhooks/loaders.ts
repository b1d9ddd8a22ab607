import { sql } from '../../core/db/sql-template.ts';
import { clock } from '../../core/clock.ts';
import { andEq, oneBy, pageBy, type Source } from '../../core/loaders.ts';
import { oneOf } from '../../core/validation.ts';
import type { WebhookDelivery } from '../../generated/prisma/client.ts';
import { HISTORY_MS } from './deliveries.ts';
import type { EndpointRow } from './fields.ts';
import type { ListDeliveriesArgs } from './schema.ts';
import { deliveryStatuses } from './states.ts';

/** Batched reads of webhook endpoints and deliveries for the graph's edges (src/core/loaders.ts). */
const endpoints: Source<EndpointRow> = { table: 'webhook_endpoints', scope: 'svc:webhook:read' };
const deliveries: Source<WebhookDelivery> = { table: 'webhook_deliveries', scope: 'svc:webhook:read' };

export const endpointById = oneBy(endpoints);
export const deliveryById = oneBy(deliveries);

/** `WebhookEndpoint.deliveries`: the REST list (newest first, 30 days of history, its filters). */
export const deliveriesOfEndpoint = pageBy<WebhookDelivery, ListDeliveriesArgs>(deliveries, {
  column: 'endpointId',
  position: 'createdAt',
  limit: 50,
  order: 'desc',
  check: (a) => {
    if (a.status != null) oneOf(a.status, deliveryStatuses, 'status', 'webhook_endpoint');
  },
  filters: (a, endpointId) => ({
    endpointId,
    status: a.status ?? null,
    eventType: a.eventType ?? null,
    since: a.since?.toISOString() ?? null,
  }),
  where: (a) => {
    const history = new Date(clock.now().getTime() - HISTORY_MS);
    const start = a.since && a.since > history ? a.since : history;
    return sql`${andEq('status', a.status)}${andEq('eventType', a.eventType)} AND t."createdAt" >= ${start}`;
  },
});
