/**
 * Charges in flight (docs/decisions.md, Off-session outcomes): an invoice's payment `pending` or
 * `requires_action`, at most one per invoice (the partial unique index `payments_in_flight_key`).
 * Collection skips such an invoice, the hosted page waits on it, a credit note is refused meanwhile.
 */
import { sql as q, sqlOf, type AnyTx } from '../../core/db/sql.ts';
import type { RowScope } from '../../core/resource.ts';
import type { Payment } from '../../generated/prisma/client.ts';
import { paymentInFlight, paymentPending } from './states.ts';

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

/** A charge a crashed worker left `pending`, with its payer's contact fields (null: no customer). */
export type StaleCharge = Payment & {
  payer: { id: string; name: string | null; email: string | null; phone: string | null } | null;
};

/**
 * The charges left `pending` (written, maybe sent, never reconciled) on the invoices given, created by
 * `olderThan` (their attempt lease expired: a crashed worker's), the first of each invoice, only those
 * naming a method; with the payer's contact fields read in the same statement (a payer with no
 * customer row is named by its id).
 */
export async function staleCharges(
  tx: AnyTx,
  scope: RowScope,
  invoiceIds: string[],
  olderThan: Date,
): Promise<StaleCharge[]> {
  if (!invoiceIds.length) return [];
  const rows = await sqlOf(tx).query<StaleCharge>(
    q`SELECT DISTINCT ON (p."invoiceId") p.*, CASE WHEN p."customerId" IS NULL THEN NULL
        ELSE jsonb_build_object('id', p."customerId", 'name', c.name, 'email', c.email, 'phone', c.phone) END AS payer
      FROM payments p LEFT JOIN customers c ON c."workspaceId" = p."workspaceId" AND c.mode = p.mode AND c.id = p."customerId"
      WHERE p."workspaceId" = ${scope.workspaceId} AND p.mode = ${scope.mode} AND p."invoiceId" = ANY (${invoiceIds}::text[])
        AND p.status = ${paymentPending} AND p."createdAt" <= ${olderThan}::timestamptz
      ORDER BY p."invoiceId", p."createdAt"`,
  );
  return rows.filter((p) => p.method);
}
