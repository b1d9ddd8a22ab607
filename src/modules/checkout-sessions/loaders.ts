import { sql } from '../../core/db/sql-template.ts';
import { andCompare, andEq, oneBy, pageBy, type Source } from '../../core/loaders.ts';
import { checkOrder } from '../../core/pagination.ts';
import { errorsFor } from '../../core/errors.ts';
import type { CheckoutSession } from '../../generated/prisma/client.ts';
import type { SessionRow } from './fields.ts';
import type { ListSessionsArgs } from './schema.ts';
import { sessionStatuses } from './states.ts';

const err = errorsFor('checkout_session');

/** Batched reads of checkout sessions for the graph's edges (src/core/loaders.ts). */
const sessions: Source<SessionRow> = {
  table: 'checkout_sessions',
  scope: 'svc:checkout:read',
  shape: (row, auth) => ({ ...(row as unknown as CheckoutSession), accountId: auth.accountId }),
};

export const sessionById = oneBy(sessions);

/** `Customer.checkoutSessions`: the REST list's filters (in the caller's mode), bound to the customer. */
export const sessionsOfCustomer = pageBy<SessionRow, Omit<ListSessionsArgs, 'customerId' | 'mode'>>(sessions, {
  column: 'customerId',
  position: 'createdAt',
  limit: 20,
  check: (a) => {
    checkOrder(a.order, 'checkout_session');
    if (a.status && !(sessionStatuses as readonly string[]).includes(a.status))
      throw err.validation('status', `status must be one of ${sessionStatuses.join(', ')}`);
  },
  filters: (a, customerId) => ({
    status: a.status ?? null,
    customerId,
    createdAfter: a.createdAfter?.toISOString() ?? null,
    createdBefore: a.createdBefore?.toISOString() ?? null,
  }),
  where: (a) =>
    sql`${andEq('status', a.status)}${andCompare('createdAt', '>', a.createdAfter)}${andCompare('createdAt', '<', a.createdBefore)}`,
});
