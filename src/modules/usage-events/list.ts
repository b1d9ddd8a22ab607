import { defineList, eq, oneOfValues } from '../../core/list-spec.ts';
import { listPageSize } from '../../core/pagination.ts';
import type { ListUsageEventsArgs } from './schema.ts';
import { usageEventMachine } from './states.ts';

/**
 * GET /v1/usage-events and GraphQL `usageEvents`: exact `customerId`, `externalCustomerId`, `eventName`
 * and `status`; `from` (inclusive) and `to` (exclusive) on `timestamp` are the service's.
 */
export const usageEventList = defineList<ListUsageEventsArgs, 'timestamp'>({
  resource: 'usage_event',
  position: 'timestamp',
  limit: listPageSize.usageEvents,
  filters: {
    customerId: eq(),
    externalCustomerId: eq(),
    eventName: eq(),
    status: oneOfValues(usageEventMachine.statuses),
  },
});
