/**
 * The past-due rules of a subscription (docs/decisions.md, Past-due subscriptions): it becomes
 * `active` again only once none of its invoices remains past due, and its price or quantity cannot
 * change while it is past due (the open invoice is paid first), in the API and the portal alike.
 */
import { sql as q, sqlOf, type AnyTx } from '../../core/db/sql.ts';
import { DomainError } from '../../core/errors.ts';
import type { RowScope } from '../../core/resource.ts';
import { sqlIn } from '../../core/state-machine.ts';
import { invoiceMachine } from '../invoices/states.ts';
import { subscriptionMachine } from './states.ts';

const invoicePastDue = sqlIn(q`status`, [invoiceMachine.moves.mark_past_due.to]);
const subscriptionPastDue = subscriptionMachine.moves.payment_failed.to;
export const isPastDue = (status: string) => status === subscriptionPastDue;

/** Of the given subscriptions, those with an invoice still past due (read in the caller's transaction). */
export async function withPastDueInvoices(tx: AnyTx, scope: RowScope, subscriptionIds: string[]): Promise<Set<string>> {
  if (!subscriptionIds.length) return new Set();
  const rows = await sqlOf(tx).query<{ subscriptionId: string }>(
    q`SELECT DISTINCT "subscriptionId" FROM invoices WHERE "workspaceId" = ${scope.workspaceId}
      AND mode = ${scope.mode} AND "subscriptionId" = ANY (${subscriptionIds}::text[]) AND ${invoicePastDue}`,
  );
  return new Set(rows.map((r) => r.subscriptionId));
}

/**
 * 409 `subscription_past_due` for a price or quantity change of a past-due subscription: a change
 * would bill (or credit) a period whose invoice is unpaid. The caller passes what the request changes.
 */
export function refusePastDueChange(
  sub: { status: string; priceId: string; quantity: number },
  change: {
    priceId?: string | null;
    quantity?: number | null;
  },
): void {
  if (!isPastDue(sub.status)) return;
  const changes =
    (change.priceId != null && change.priceId !== sub.priceId) ||
    (change.quantity != null && change.quantity !== sub.quantity);
  if (changes)
    throw new DomainError(
      'subscription_past_due',
      'The subscription is past_due: pay its open invoice before changing its price or quantity',
      { resource: 'subscription' },
    );
}
