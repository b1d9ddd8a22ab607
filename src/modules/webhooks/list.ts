import { clock } from '../../core/clock.ts';
import { custom, defineList, eq, oneOfValues } from '../../core/list-spec.ts';
import { listPageSize } from '../../core/pagination.ts';
import type { ListDeliveriesArgs } from './schema.ts';
import { webhookDeliveryMachine } from './states.ts';

/** spec: delivery history is kept 30 days (jobs/webhook-purge.ts); older rows are not shown even before the purge. */
export const HISTORY_MS = 30 * 86_400_000;

/** GET /v1/webhook-endpoints/:id/deliveries and `WebhookEndpoint.deliveries`: newest first. */
export const deliveryList = defineList<ListDeliveriesArgs & { endpointId?: string | null }, 'createdAt'>({
  resource: 'webhook_endpoint',
  position: 'createdAt',
  limit: listPageSize.webhookDeliveries,
  order: 'desc',
  filters: {
    endpointId: eq(),
    status: oneOfValues(webhookDeliveryMachine.statuses),
    eventType: eq(),
    // Within the history window: `shownSince`.
    since: custom(),
  },
});

/** The first `createdAt` a delivery list shows: `since`, but never older than the history. */
export function shownSince(args: { since?: Date | null }): Date {
  const history = new Date(clock.now().getTime() - HISTORY_MS);
  return args.since && args.since > history ? args.since : history;
}
