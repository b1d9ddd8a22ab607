/**
 * A charge waiting for the customer's authentication (`requires_action`) when its invoice stops
 * being payable another way (paid by a bookkeeping pay or a hosted-page payment, voided, written
 * off): it can no longer pay the invoice, so it fails (`action_failed`, `payment.failed`,
 * `invoice_not_payable`) in the same transaction, as the invoice's checkout sessions close with it
 * (docs/decisions.md, Off-session outcomes). A `pending` charge is left alone: its provider may still
 * take the money, which is then refunded (Money for an invoice already paid).
 */
import { clock } from '../../core/clock.ts';
import { sql as q, sqlOf, type AnyTx } from '../../core/db/sql.ts';
import { eventRow, insertEvents } from '../../core/outbox.ts';
import type { RowScope } from '../../core/resource.ts';
import { nextState, sqlIn, statusesWhere } from '../../core/state-machine.ts';
import { toWire } from '../../core/wire.ts';
import type { Payment } from '../../generated/prisma/client.ts';
import { paymentFields } from './fields.ts';
import { paymentMachine } from './states.ts';

const failing = statusesWhere(paymentMachine, 'action_failed');
const failed = nextState(paymentMachine, failing[0], 'action_failed');

/** Fails the waiting charges of `invoiceIds` (locked by the caller); returns how many. */
export async function failWaitingCharges(
  tx: AnyTx,
  scope: RowScope,
  invoiceIds: string[],
  o: { requestId?: string; source?: string; at?: Date },
): Promise<number> {
  const now = o.at ?? clock.now();
  const sql = sqlOf(tx);
  const rows = await sql.query<Payment>(
    q`UPDATE payments SET status = ${failed.to}, "failureCode" = 'invoice_not_payable',
        "failureMessage" = 'The invoice was settled or closed another way', "nextAction" = NULL,
        "updatedAt" = ${now}::timestamptz
      WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode} AND "invoiceId" = ANY (${invoiceIds}::text[])
        AND ${sqlIn(q`status`, failing)}
      RETURNING *`,
  );
  if (!rows.length) return 0;
  const events = rows.flatMap((p) =>
    failed.events.map((t) =>
      eventRow(scope, t, toWire(p, paymentFields), { requestId: o.requestId, source: o.source, occurredAt: now }),
    ),
  );
  await insertEvents(sql, events);
  return rows.length;
}
