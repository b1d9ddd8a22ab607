/**
 * What modules above invoices do when invoices change, in the invoice's transaction (src/core/reactions.ts;
 * docs/architecture.md, Layers). Registered by src/modules/<module>/reactions.ts.
 */
import type { AnyTx } from '../../core/db/sql.ts';
import { reaction } from '../../core/reactions.ts';
import type { RowScope } from '../../core/resource.ts';

/** The options a reaction's event takes from the invoice's move. */
export interface ReactionOptions {
  requestId?: string;
  source?: string;
  at: Date;
}

/**
 * Invoices about to be paid: a reaction locks its rows of `subscriptionIds` first (before the receipt
 * counter, lock order) and returns what to do once the invoices are paid, in the same transaction.
 */
export const invoicesPaid = reaction<
  (tx: AnyTx, scope: RowScope, subscriptionIds: string[]) => Promise<(o: ReactionOptions) => Promise<void>>
>('invoices paid', ['subscriptions: activate']);

/** Invoices no longer payable (paid another way, voided): what still asks for their money closes. */
export const invoicesClosed = reaction<
  (
    tx: AnyTx,
    scope: RowScope & { accountId: string },
    invoiceIds: string[],
    o: { requestId?: string; source?: string },
  ) => Promise<unknown>
>('invoices closed', ['checkout-sessions: expire invoice sessions']);

/** Whether something above holds the invoice from being voided (docs/credit-notes.md: an issued note). */
export const voidHeld = reaction<(tx: AnyTx, scope: RowScope, invoiceId: string) => Promise<boolean>>(
  'invoice void held',
  ['credit-notes: issued note'],
);

/** Whether a reaction holds the invoice from being voided. */
export const isVoidHeld = async (tx: AnyTx, scope: RowScope, invoiceId: string) =>
  (await voidHeld.run(tx, scope, invoiceId)).some(Boolean);
