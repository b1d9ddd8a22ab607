/**
 * Charges in flight (docs/decisions.md, Off-session outcomes): an invoice's payment `pending` or
 * `requires_action`, at most one per invoice (the partial unique index `payments_in_flight_key`).
 * Collection skips such an invoice, the hosted page waits on it, a credit note is refused meanwhile.
 */
import { sql as q, sqlOf, type AnyTx } from '../../core/db/sql.ts';
import type { RowScope } from '../../core/resource.ts';
import { paymentInFlight } from './states.ts';

export interface ChargeInFlight {
  id: string;
  invoiceId: string;
  status: string;
  nextAction: { url?: string; expiresAt?: string } | null;
}

/** The charges in flight of the invoices given (in the caller's transaction). */
export function chargesInFlight(tx: AnyTx, scope: RowScope, invoiceIds: string[]): Promise<ChargeInFlight[]> {
  return sqlOf(tx).query<ChargeInFlight>(
    q`SELECT id, "invoiceId", status, "nextAction" FROM payments WHERE "workspaceId" = ${scope.workspaceId}
      AND mode = ${scope.mode} AND "invoiceId" = ANY (${invoiceIds}::text[]) AND status = ANY (${paymentInFlight}::text[])`,
  );
}
