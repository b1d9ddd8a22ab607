import { defineList, eq, oneOfValues } from '../../core/list-spec.ts';
import { listPageSize } from '../../core/pagination.ts';
import type { ListSetupSessionsArgs } from './schema.ts';
import { setupSessionMachine } from './states.ts';

/** GET /v1/setup-sessions and GraphQL `setupSessions`: newest first, keyset cursors. */
export const setupSessionList = defineList<ListSetupSessionsArgs, 'createdAt'>({
  resource: 'setup_session',
  position: 'createdAt',
  limit: listPageSize.setupSessions,
  filters: {
    customerId: eq(),
    status: oneOfValues(setupSessionMachine.statuses),
  },
});
