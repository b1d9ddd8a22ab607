/**
 * The one writer of `payments` rows (a meta-test pins every insert of the table to this file): a batch
 * of rows, one row being a batch of one, in one statement on either SQL path. Invoices, checkout and
 * subscriptions import it; it imports no module above payments.
 */
import { insertRows, sql as q, sqlOf, type AnyTx, type Fragment } from '../../core/db/sql.ts';
import type { Payment } from '../../generated/prisma/client.ts';
import { sqlIn } from '../../core/state-machine.ts';
import { paymentInFlight } from './states.ts';

/** A payment row to insert: the columns not given keep their database defaults. */
export type NewPayment = Pick<Payment, 'id' | 'workspaceId' | 'mode' | 'status' | 'amount' | 'currency'> &
  Partial<Payment>;

export interface InsertPayments {
  /**
   * Skip a row whose invoice already has a charge in flight (the partial unique index
   * `payments_in_flight_key`, docs/decisions.md, Off-session outcomes) instead of failing.
   */
  skipInFlight?: boolean;
  /** Appended as `RETURNING <returning>`. */
  returning?: Fragment;
}

const skipInFlight = q` ON CONFLICT ("workspaceId", mode, "invoiceId")
      WHERE ${sqlIn(q`status`, paymentInFlight)} AND "invoiceId" IS NOT NULL DO NOTHING`;

/** The INSERT of payment rows (at least one), alone or in a larger statement's WITH list. */
export function insertPayments(rows: NewPayment[], o: InsertPayments = {}): Fragment {
  if (!rows.length) throw new Error('insertPayments: no rows');
  return q`${insertRows('payments', rows)}${o.skipInFlight ? skipInFlight : q.empty}${
    o.returning ? q` RETURNING ${o.returning}` : q.empty
  }`;
}

/** Runs `insertPayments` in the caller's transaction (no rows: no statement); the rows `returning` selects. */
export async function writePayments<R = Record<string, unknown>>(
  tx: AnyTx,
  rows: NewPayment[],
  o: InsertPayments = {},
): Promise<R[]> {
  if (!rows.length) return [];
  return sqlOf(tx).query<R>(insertPayments(rows, o));
}
