/**
 * Customer credit and invoices (docs/credit-notes.md, Customer balance): applied when invoices are
 * finalized, given back when such an invoice is voided. Both take a batch in a fixed number of
 * statements (the renewal burst finalizes many invoices at once).
 */
import { sql as q, sqlOf, type AnyTx } from '../../core/db/sql.ts';
import type { RowScope } from '../../core/resource.ts';
import type { Invoice } from '../../generated/prisma/client.ts';
import { lockBalances, writeBalanceChanges, type EmitOpts } from './post.ts';

/** Where applied credit is recognized (docs/credit-notes.md, Ledger). */
const REVENUE = 'revenue:invoices';

type Inv = Pick<Invoice, 'id' | 'customerId' | 'currency' | 'amountDue' | 'balanceApplied' | 'number'> &
  Partial<Pick<Invoice, 'applyCustomerBalance'>>;

/**
 * At finalization: each invoice takes `min(balance, amountDue)` of its customer's credit in its
 * currency (oldest invoice of the batch first, in the order given), recorded as `balanceApplied`
 * with `amountDue` lowered, an `applied_to_invoice` transaction and D `customer_credit` / C
 * `revenue:invoices`. Returns the applied amount per invoice id (absent: none). One statement when
 * no customer of the batch holds credit.
 */
export async function applyBalances(
  tx: AnyTx,
  scope: RowScope,
  invoices: Inv[],
  at: Date,
  o: EmitOpts = {},
): Promise<Map<string, bigint>> {
  const applied = new Map<string, bigint>();
  const due = invoices.filter((i) => i.amountDue > 0n && i.applyCustomerBalance !== false);
  if (!due.length) return applied;
  const balances = await lockBalances(tx, scope, due, { create: false, at });
  if (![...balances.values()].some((b) => b > 0n)) return applied;
  const left = new Map(balances);
  const changes = due.flatMap((inv) => {
    const key = `${inv.customerId} ${inv.currency}`;
    const have = left.get(key) ?? 0n;
    const amount = have < inv.amountDue ? have : inv.amountDue;
    if (amount <= 0n) return [];
    left.set(key, have - amount);
    applied.set(inv.id, amount);
    return [
      {
        customerId: inv.customerId,
        currency: inv.currency,
        amount: -amount,
        type: 'applied_to_invoice' as const,
        invoiceId: inv.id,
        description: 'Applied to an invoice at finalization',
        at,
        counterpart: { code: REVENUE, sourceType: 'invoice' as const },
      },
    ];
  });
  if (!changes.length) return applied;
  await writeBalanceChanges(tx, scope, balances, changes, o);
  const ids = [...applied.keys()];
  await sqlOf(tx).query(
    q`UPDATE invoices i SET "balanceApplied" = i."balanceApplied" + v.b, "amountDue" = i."amountDue" - v.b
      FROM unnest(${ids}::text[], ${ids.map((id) => String(applied.get(id)))}::bigint[]) AS v(id, b)
      WHERE i."workspaceId" = ${scope.workspaceId} AND i.mode = ${scope.mode} AND i.id = v.id`,
  );
  return applied;
}

/** A voided invoice gives its `balanceApplied` back (`unapplied_from_invoice`; D `revenue:invoices` / C `customer_credit`). */
export async function returnBalances(tx: AnyTx, scope: RowScope, invoices: Inv[], at: Date, o: EmitOpts = {}) {
  const giving = invoices.filter((i) => i.balanceApplied > 0n);
  if (!giving.length) return;
  const balances = await lockBalances(tx, scope, giving, { create: true, at });
  await writeBalanceChanges(
    tx,
    scope,
    balances,
    giving.map((inv) => ({
      customerId: inv.customerId,
      currency: inv.currency,
      amount: inv.balanceApplied,
      type: 'unapplied_from_invoice' as const,
      invoiceId: inv.id,
      description: `Given back by the void of invoice ${inv.number ?? inv.id}`,
      at,
      counterpart: { code: REVENUE, sourceType: 'invoice' as const },
    })),
    o,
  );
}
