import { oneBy, pageBy, type Source } from '../../core/loaders.ts';
import type { CheckoutSession } from '../../generated/prisma/client.ts';
import type { SessionRow } from './fields.ts';
import type { ListSessionsArgs } from './schema.ts';
import { sessionList } from './list.ts';

/** Batched reads of checkout sessions for the graph's edges (src/core/loaders.ts). */
const sessions: Source<SessionRow> = {
  table: 'checkout_sessions',
  scope: 'svc:checkout:read',
  shape: (row, auth) => ({ ...(row as unknown as CheckoutSession), accountId: auth.accountId }),
};

export const sessionById = oneBy(sessions);

/** `Customer.checkoutSessions`: the REST list's filters (in the caller's mode), bound to the customer. */
export const sessionsOfCustomer = pageBy<SessionRow, ListSessionsArgs>(sessions, {
  list: sessionList,
  parent: 'customerId',
  column: 'customerId',
});
