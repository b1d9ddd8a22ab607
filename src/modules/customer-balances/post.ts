/**
 * The one home of customer balance changes (docs/credit-notes.md, Customer balance): the balance
 * rows moved under their row locks (taken in customer, currency order), the immutable transactions,
 * their ledger postings on `customer_credit` and their events, all in the caller's transaction, so Σ
 * balances equals the ledger's `customer_credit` at every commit. A batch costs a fixed number of
 * statements whatever its size (renewal bursts apply balances to many invoices at once).
 */
import { insertRows, sql as q, sqlOf, type AnyTx } from '../../core/db/sql.ts';
import { DomainError, type Resource } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { postLedgers, type LedgerPosting } from '../../core/ledger.ts';
import { eventRow, insertEvents } from '../../core/outbox.ts';
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

export interface EmitOpts {
  requestId?: string;
  source?: string;
  resource?: Resource;
  meta?: Record<string, unknown>;
}

const keyOf = (customerId: string, currency: string) => `${customerId} ${currency}`;

/**
 * The balance rows of these customers and currencies, locked for the rest of the transaction in
 * (customer, currency) order; `create` makes missing rows at 0 (a credit), else they are absent.
 */
export async function lockBalances(
  tx: AnyTx,
  scope: RowScope,
  pairs: { customerId: string; currency: string }[],
  o: { create: boolean; at: Date },
): Promise<Map<string, bigint>> {
  const unique = [...new Map(pairs.map((p) => [keyOf(p.customerId, p.currency), p])).values()].sort((a, b) =>
    keyOf(a.customerId, a.currency) < keyOf(b.customerId, b.currency) ? -1 : 1,
  );
  const out = new Map<string, bigint>();
  if (!unique.length) return out;
  const customers = unique.map((p) => p.customerId);
  const currencies = unique.map((p) => p.currency);
  const rows = await sqlOf(tx).query<{ customerId: string; currency: string; amount: bigint | string }>(
    o.create
      ? q`INSERT INTO customer_balances ("workspaceId", mode, "customerId", currency, amount, "createdAt", "updatedAt")
          SELECT ${scope.workspaceId}, ${scope.mode}, c, cur, 0, ${o.at}::timestamptz, ${o.at}::timestamptz
          FROM unnest(${customers}::text[], ${currencies}::text[]) WITH ORDINALITY AS v(c, cur, ord) ORDER BY ord
          ON CONFLICT ("workspaceId", mode, "customerId", currency) DO UPDATE SET amount = customer_balances.amount
          RETURNING "customerId", currency, amount`
      : q`SELECT b."customerId", b.currency, b.amount FROM customer_balances b
          JOIN unnest(${customers}::text[], ${currencies}::text[]) AS v(c, cur) ON b."customerId" = v.c AND b.currency = v.cur
          WHERE b."workspaceId" = ${scope.workspaceId} AND b.mode = ${scope.mode}
          ORDER BY b."customerId", b.currency FOR UPDATE OF b`,
  );
  for (const r of rows) out.set(keyOf(r.customerId, r.currency), BigInt(r.amount));
  return out;
}

/**
 * Writes changes to balances the caller locked (`lockBalances`, whose map is updated): a debit past
 * zero is 409 `insufficient_balance` (spelled for `o.resource`). In the order given.
 */
export async function writeBalanceChanges(
  tx: AnyTx,
  scope: RowScope,
  balances: Map<string, bigint>,
  changes: BalanceChange[],
  o: EmitOpts = {},
): Promise<CustomerBalanceTransaction[]> {
  if (!changes.length) return [];
  const sql = sqlOf(tx);
  const txns = changes.map((c): CustomerBalanceTransaction => {
    const key = keyOf(c.customerId, c.currency);
    const before = balances.get(key) ?? 0n;
    const ending = before + c.amount;
    if (ending < 0n)
      throw new DomainError(
        'insufficient_balance',
        `The customer's ${c.currency} balance is ${before}; it cannot go below 0 (change ${c.amount})`,
        { resource: o.resource ?? 'customer_balance', field: 'amount' },
      );
    balances.set(key, ending);
    const id = newId('customerBalanceTransaction');
    return {
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
      ledgerTxId: c.ledgerTxId ?? id,
      createdAt: c.at,
    };
  });
  const touched = [...new Set(changes.map((c) => keyOf(c.customerId, c.currency)))];
  const at = changes[changes.length - 1].at;
  await sql.query(
    q`UPDATE customer_balances b SET amount = v.amount, "updatedAt" = ${at}::timestamptz
      FROM unnest(${touched.map((k) => k.split(' ')[0])}::text[], ${touched.map((k) => k.split(' ')[1])}::text[],
        ${touched.map((k) => String(balances.get(k)))}::bigint[]) AS v(c, cur, amount)
      WHERE b."workspaceId" = ${scope.workspaceId} AND b.mode = ${scope.mode} AND b."customerId" = v.c AND b.currency = v.cur`,
  );
  await sql.query(q`${insertRows('customer_balance_transactions', txns)}`);
  const ledger = changes.flatMap((c, i): LedgerPosting[] => {
    if (!c.counterpart) return [];
    const credit = c.amount > 0n;
    const amount = credit ? c.amount : -c.amount;
    const posting: LedgerPosting = {
      txId: txns[i].ledgerTxId,
      currency: c.currency,
      sourceType: c.counterpart.sourceType,
      sourceId: c.invoiceId ?? txns[i].id,
      postedAt: c.at,
      legs: [
        { code: CUSTOMER_CREDIT, direction: credit ? 'credit' : 'debit', amount, memo: `${c.type} ${txns[i].id}` },
        { code: c.counterpart.code, direction: credit ? 'debit' : 'credit', amount },
      ],
    };
    return [posting];
  });
  await postLedgers(sql, scope, ledger);
  const events = txns.map((t) => {
    const e = eventRow(scope, 'customer_balance_transaction.created', toWire(t, balanceTransactionFields), {
      requestId: o.requestId,
      source: o.source,
    });
    return o.meta ? { ...e, metadata: { ...e.metadata, ...o.meta } } : e;
  });
  await insertEvents(sql, events);
  return txns;
}

/** One change: its balance row locked (created at 0 for a credit), then written. */
export async function changeBalance(
  tx: AnyTx,
  scope: RowScope,
  c: BalanceChange,
  o: EmitOpts = {},
): Promise<CustomerBalanceTransaction> {
  const balances = await lockBalances(tx, scope, [c], { create: true, at: c.at });
  const [txn] = await writeBalanceChanges(tx, scope, balances, [c], o);
  return txn;
}
