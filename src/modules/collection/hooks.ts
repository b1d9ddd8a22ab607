/**
 * What modules above collection do for a charge, in its transaction (src/core/reactions.ts;
 * docs/architecture.md, Layers): the subscription an invoice bills is locked, moved and ended by its
 * own module. Registered by src/modules/<module>/reactions.ts.
 */
import type { AnyTx } from '../../core/db/sql.ts';
import { reaction } from '../../core/reactions.ts';
import type { RowScope } from '../../core/resource.ts';
import type { Subscription } from '../../generated/prisma/client.ts';

/** What an invoice's charge reads from the subscription it bills: its method, else its customer's default. */
export type Billed = Pick<Subscription, 'id' | 'customerId' | 'paymentMethod'>;

/** The options of the moves a reaction makes (business time `at`: updatedAt and the event's occurredAt). */
export interface MoveOptions {
  requestId?: string;
  source?: string;
  at: Date;
}

/** Invoices about to be charged: the reaction locks the subscriptions they bill (after the invoices: lock order). */
export const invoicesCharging = reaction<(tx: AnyTx, scope: RowScope, subscriptionIds: string[]) => Promise<Billed[]>>(
  'invoices charging',
  ['subscriptions: lock what the invoices bill'],
);

/**
 * A charge of a subscription's invoice failed: the reaction locks the subscription and says whether the
 * invoice becomes past_due (a renewal's; an incomplete subscription's first invoice stays open), and
 * what to do once the failure is recorded.
 */
export const chargeFailed = reaction<
  (
    tx: AnyTx,
    scope: RowScope,
    subscriptionId: string,
  ) => Promise<{ pastDue: boolean; after: (o: MoveOptions) => Promise<void> }>
>('invoice charge failed', ['subscriptions: past due']);

/**
 * A waiting charge of a subscription's invoice failed: whether dunning schedules its next attempt (an
 * incomplete subscription's first invoice is not dunned: docs/billing.md, First charge).
 */
export const failedChargeDunned = reaction<(tx: AnyTx, scope: RowScope, subscriptionId: string) => Promise<boolean>>(
  'failed charge dunned',
  ['subscriptions: dunned unless incomplete'],
);

/** The dunning policy's final action closed the invoice: the subscription it bills ends. */
export const dunningExhausted = reaction<
  (tx: AnyTx, scope: RowScope, subscriptionId: string, o: MoveOptions) => Promise<void>
>('dunning exhausted', ['subscriptions: cancel']);

/** The subscriptions of `ids` locked by their module (one reaction). */
export const lockBilled = async (tx: AnyTx, scope: RowScope, ids: string[]): Promise<Billed[]> =>
  ids.length ? (await invoicesCharging.run(tx, scope, ids)).flat() : [];
