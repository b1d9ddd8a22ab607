/**
 * One live checkout session per invoice: when an invoice stops being payable
 * (paid another way: POST /pay, a dunning retry, the hosted page's own session; or voided), its
 * live session is expired in the same transaction, with its event, and that session's live
 * attempts superseded, so no page asks the customer for money any more. Money that lands on one
 * anyway is refunded (callbacks.ts; docs/decisions.md, Money for an invoice already paid).
 */
import { clock } from '../../core/clock.ts';
import { sql as q, sqlOf, type AnyTx } from '../../core/db/sql.ts';
import { eventRow, insertEvents } from '../../core/outbox.ts';
import type { RowScope } from '../../core/resource.ts';
import { sqlIn, sqlStatus, statusesWhere } from '../../core/state-machine.ts';
import { toWire } from '../../core/wire.ts';
import type { CheckoutSession } from '../../generated/prisma/client.ts';
import { checkoutSessionFields } from './fields.ts';
import { checkoutAttemptMachine, checkoutSessionMachine } from './states.ts';

const expire = checkoutSessionMachine.moves.expire;
const live = sqlIn(q`status`, statusesWhere(checkoutSessionMachine, 'expire'));
const supersedable = sqlIn(q`a.status`, statusesWhere(checkoutAttemptMachine, 'supersede'));
const superseded = sqlStatus(checkoutAttemptMachine.moves.supersede.to);

/**
 * Expires the invoices' live sessions (at most one each: partial unique index) in the caller's
 * transaction, which holds the invoices' row locks. Sessions live on real time (docs/billing.md, Test clocks), so
 * `expiredAt` is the clock's now, not a test clock's. Returns how many it closed.
 */
export async function closeInvoiceSessions(
  tx: AnyTx,
  scope: RowScope & { accountId: string },
  invoiceIds: string[],
  o: { requestId?: string; source?: string },
): Promise<number> {
  const sql = sqlOf(tx);
  const now = clock.now();
  const closed = await sql.query<CheckoutSession>(
    q`WITH closed AS (
        UPDATE checkout_sessions SET status = ${sqlStatus(expire.to)}, "expiredAt" = ${now}::timestamptz,
          "updatedAt" = ${now}::timestamptz
        WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode} AND "invoiceId" = ANY(${invoiceIds}::text[]) AND ${live}
        RETURNING *),
      attempts AS (
        UPDATE checkout_attempts a SET status = ${superseded}, "updatedAt" = ${now}::timestamptz
        FROM closed WHERE a."workspaceId" = ${scope.workspaceId} AND a.mode = ${scope.mode}
          AND a."checkoutSessionId" = closed.id AND ${supersedable}
        RETURNING 1)
      SELECT closed.* FROM closed, (SELECT count(*) FROM attempts) written`,
  );
  if (!closed.length) return 0;
  const events = closed.flatMap((s) =>
    (expire.events ?? []).map((type) =>
      eventRow(scope, type, toWire({ ...s, accountId: scope.accountId }, checkoutSessionFields), o),
    ),
  );
  await insertEvents(sql, events);
  return closed.length;
}
