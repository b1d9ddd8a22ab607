/**
 * The one home of customer balance changes (docs/credit-notes.md, Customer balance): the balance row moved under
 * its row lock, the immutable transaction, its ledger posting on `customer_credit` and its event,
 * all in the caller's transaction, so Σ balances equals the ledger's `customer_credit` at every commit.
 */
import { sql as q, sqlOf, type AnyTx } from '../../core/db/sql.ts';
import { DomainError, type Resource } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { ledgerRows } from '../../core/ledger.ts';
import { emit } from '../../core/outbox.ts';
import { insertRows } from '../../core/db/sql.ts';
import { toWire } from '../../core/wire.ts';
import type { RowScope } from '../../core/resource.ts';
import type { CustomerBalanceTransaction } from '../../generated/prisma/client.ts';
import { balanceTransactionFields, type BalanceTransactionType } from './fields.ts';

export const CUSTOMER_CREDIT = 'customer_credit';

export interface BalanceChange {
  customerId: string;
  currency: string;
  /** Signed: + credit given to the customer, - credit used. */
  amount: bigint;
  type: BalanceTransactionType;
  creditNoteId?: string | null;
  invoiceId?: string | null;
  description?: string | null;
  metadata?: Record<string, string> | null;
  /** Business time of the change. */
  at: Date;
  /**
   * The other side of the `customer_credit` leg, posted here under the transaction's own id; or
   * `ledgerTxId`: the caller posts `customer_credit` itself in a larger transaction (a credit note).
   */
  counterpart?: { code: string; sourceType: 'invoice' | 'adjustment' };
  ledgerTxId?: string;
}

/**
 * Moves a customer's balance in one currency. A debit past zero is 409 `insufficient_balance`
 * (spelled for `resource`). The balance row is locked (created at 0 the first time) before it moves.
 */
export async function changeBalance(
  tx: AnyTx,
  scope: RowScope,
  c: BalanceChange,
  o: { requestId?: string; source?: string; resource?: Resource } = {},
): Promise<CustomerBalanceTransaction> {
  const sql = sqlOf(tx);
  const [row] = await sql.query<{ amount: bigint }>(
    q`INSERT INTO customer_balances ("workspaceId", mode, "customerId", currency, amount, "createdAt", "updatedAt")
      VALUES (${scope.workspaceId}, ${scope.mode}, ${c.customerId}, ${c.currency}, 0, ${c.at}::timestamptz, ${c.at}::timestamptz)
      ON CONFLICT ("workspaceId", mode, "customerId", currency) DO UPDATE SET amount = customer_balances.amount
      RETURNING amount`,
  );
  const ending = BigInt(row.amount) + c.amount;
  if (ending < 0n)
    throw new DomainError(
      'insufficient_balance',
      `The customer's ${c.currency} balance is ${row.amount}; it cannot go below 0 (change ${c.amount})`,
      { resource: o.resource ?? 'customer_balance', field: 'amount' },
    );
  await sql.query(
    q`UPDATE customer_balances SET amount = ${ending}, "updatedAt" = ${c.at}::timestamptz
      WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode} AND "customerId" = ${c.customerId}
      AND currency = ${c.currency}`,
  );
  const id = newId('customerBalanceTransaction');
  const ledgerTxId = c.ledgerTxId ?? id;
  const txn: CustomerBalanceTransaction = {
    id,
    workspaceId: scope.workspaceId,
    mode: scope.mode,
    customerId: c.customerId,
    currency: c.currency,
    amount: c.amount,
    endingBalance: ending,
    type: c.type,
    creditNoteId: c.creditNoteId ?? null,
    invoiceId: c.invoiceId ?? null,
    description: c.description ?? null,
    metadata: c.metadata ?? null,
    ledgerTxId,
    createdAt: c.at,
  };
  await sql.query(q`${insertRows('customer_balance_transactions', [txn])}`);
  if (c.counterpart) {
    const credit = c.amount > 0n;
    const amount = credit ? c.amount : -c.amount;
    const rows = ledgerRows(scope, {
      txId: ledgerTxId,
      currency: c.currency,
      sourceType: c.counterpart.sourceType,
      sourceId: c.invoiceId ?? id,
      postedAt: c.at,
      legs: [
        { code: CUSTOMER_CREDIT, direction: credit ? 'credit' : 'debit', amount, memo: `${c.type} ${id}` },
        { code: c.counterpart.code, direction: credit ? 'debit' : 'credit', amount },
      ],
    });
    await sql.query(q`${insertRows('ledger_entries', rows)}`);
  }
  await emit(tx, scope, 'customer_balance_transaction.created', toWire(txn, balanceTransactionFields), o);
  return txn;
}
