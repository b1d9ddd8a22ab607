import { defineList, eq, oneOfValues } from '../../core/list-spec.ts';
import { listPageSize } from '../../core/pagination.ts';
import type { ListSubscriptionsArgs } from './schema.ts';
import { subscriptionMachine } from './states.ts';

/** GET /v1/subscriptions and GraphQL `subscriptions`. */
export const subscriptionList = defineList<ListSubscriptionsArgs, 'createdAt'>({
  resource: 'subscription',
  position: 'createdAt',
  limit: listPageSize.subscriptions,
  filters: { customerId: eq(), planId: eq(), priceId: eq(), status: oneOfValues(subscriptionMachine.statuses) },
});
