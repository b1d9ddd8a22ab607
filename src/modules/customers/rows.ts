// A customer's row checks and locks, used by the modules that write beside a customer (payment
// methods, sessions): here, below them, so they import it without importing each other.
import type { Tx } from '../../core/db/client.ts';
import { sql as q, sqlOf, type AnyTx } from '../../core/db/sql.ts';
import { errorsFor } from '../../core/errors.ts';
import { scoped, type RowScope } from '../../core/resource.ts';
import { checkClockRoom, clockLimits } from '../../core/business-time.ts';
import type { Customer } from '../../generated/prisma/client.ts';

/**
 * The customer row locked `FOR NO KEY UPDATE`: its default changes, never its key, so invoices and
 * payments written meanwhile (their foreign keys take KEY SHARE on it, a renewal holding its
 * subscriptions) do not wait on it, and a renewal and a detach cannot deadlock over it.
 */
export async function lockCustomer(tx: AnyTx, scope: RowScope, id: string): Promise<Customer> {
  const [row] = await sqlOf(tx).query<Customer>(
    q`SELECT * FROM customers WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode} AND id = ${id}
      FOR NO KEY UPDATE`,
  );
  return row;
}

/** For customers: the clock a new customer is attached to must exist, live, in the caller's test mode. */
export async function checkClockForCustomer(tx: Tx, scope: RowScope, id: string) {
  if (scope.mode !== 'test') throw errorsFor('customer').validation('testClockId', 'test clocks are test mode only');
  const row = await tx.testClock.findFirst({ where: { ...scoped(scope), id, deletedAt: null } });
  if (!row) throw errorsFor('customer').validation('testClockId', 'testClockId must be an existing test clock');
  await checkClockRoom(tx, scope, id, () =>
    errorsFor('customer').validation('testClockId', `a test clock holds at most ${clockLimits.maxObjects} objects`),
  );
  return row;
}
