import { bound, defineList, eq, oneOfValues } from '../../core/list-spec.ts';
import { listPageSize } from '../../core/pagination.ts';
import type { ListSessionsArgs } from './schema.ts';
import { checkoutSessionMachine } from './states.ts';

/**
 * GET /v1/checkout-sessions, GraphQL `checkoutSessions` and `Customer.checkoutSessions`. `mode`
 * (a platform-admin key's other environment) is the service's: the edge stays in the caller's.
 */
export const sessionList = defineList<ListSessionsArgs, 'createdAt'>({
  resource: 'checkout_session',
  position: 'createdAt',
  limit: listPageSize.checkoutSessions,
  filters: {
    status: oneOfValues(checkoutSessionMachine.statuses),
    customerId: eq(),
    createdAfter: bound('createdAt', '>'),
    createdBefore: bound('createdAt', '<'),
  },
});
