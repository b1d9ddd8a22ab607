/**
 * A subscription's status moves inside a caller's transaction, on either SQL path (`AnyTx`), so the
 * service, collection (collect.ts), the invoice's settlement (invoices/issue.ts) and the billing tick
 * share them. Imports nothing from the invoices module (invoices/issue.ts imports this file).
 */
import { scopedRow, scopedRows, sql as q, sqlOf, updateRow, type AnyTx } from '../../core/db/sql.ts';
import { eventRow, insertEvents, type EventRow } from '../../core/outbox.ts';
import { changedFrom, toWire } from '../../core/wire.ts';
import { canMove, editState, nextState, sqlIn } from '../../core/state-machine.ts';
import type { RowScope } from '../../core/resource.ts';
import type { Subscription } from '../../generated/prisma/client.ts';
import { subscriptionFields } from './fields.ts';
import { withPastDueInvoices } from './past-due.ts';
import {
  subscriptionLive,
  subscriptionMachine,
  subscriptionUpdated,
  type SubscriptionStatus,
  type SubscriptionTrigger,
} from './states.ts';

const liveStatuses = sqlIn(q`status`, subscriptionLive);

export interface SubscriptionMoveOptions {
  requestId?: string;
  source?: string;
  /** Business time (the customer's test clock, or the real clock): updatedAt and the event's occurredAt. */
  at: Date;
}

export const subscriptionSnapshot = (s: Subscription) => toWire(s, subscriptionFields);

/** The subscription row locked for the rest of the caller's transaction; null when it is not in the scope. */
export async function lockSubscription(tx: AnyTx, scope: RowScope, id: string): Promise<Subscription | null> {
  return scopedRow<Subscription>(tx, 'subscriptions', scope, id, { lock: true });
}

/** The events of a change: `previousAttributes` names the fields that changed (docs/billing.md, Cancel and pause). */
export function subscriptionEvents(
  scope: RowScope,
  before: Subscription | null,
  after: Subscription,
  types: readonly string[],
  o: SubscriptionMoveOptions,
): EventRow[] {
  const now = subscriptionSnapshot(after);
  const previousAttributes = before ? changedFrom(subscriptionSnapshot(before), now) : undefined;
  return types.map((t) =>
    eventRow(scope, t, now, {
      requestId: o.requestId,
      source: o.source,
      occurredAt: o.at,
      previousAttributes: t === subscriptionUpdated ? previousAttributes : undefined,
    }),
  );
}

/**
 * Writes a status change (or a change without one: `trigger` null emits `subscription.updated` when
 * a field changed) and its events; the state machine decides both. The caller holds the lock.
 */
export async function moveSubscription(
  tx: AnyTx,
  scope: RowScope,
  sub: Subscription,
  trigger: SubscriptionTrigger | null,
  data: Partial<Subscription>,
  o: SubscriptionMoveOptions,
): Promise<Subscription> {
  const next = trigger
    ? nextState(subscriptionMachine, sub.status as SubscriptionStatus, trigger)
    : editState(subscriptionMachine, sub.status as SubscriptionStatus, 'update');
  const row = await updateRow<Subscription>(
    sqlOf(tx),
    'subscriptions',
    { id: sub.id, workspaceId: scope.workspaceId, mode: scope.mode },
    { ...data, status: next.to, updatedAt: o.at },
  );
  const changed = Object.keys(changedFrom(subscriptionSnapshot(sub), subscriptionSnapshot(row))).length > 0;
  await insertEvents(tx, trigger || changed ? subscriptionEvents(scope, sub, row, next.events, o) : []);
  return row;
}

/**
 * Subscriptions locked for the rest of the caller's transaction, in id order (so two batches that
 * share some queue rather than deadlock); those not in the scope are left out.
 */
export async function lockSubscriptions(tx: AnyTx, scope: RowScope, ids: string[]): Promise<Subscription[]> {
  return scopedRows<Subscription>(tx, 'subscriptions', scope, ids, { lock: true });
}

/**
 * The one place a paid invoice moves its subscription (docs/billing.md, Subscription states): incomplete or past_due ->
 * active, `subscription.updated`, once none of its invoices remains past due; any other status is
 * left as it is (a renewal paid on time). Called by `settleInvoices` in its transaction, whoever
 * paid (auto-charge, hosted page, POST pay), with the subscriptions it locked before taking the
 * receipt counter.
 */
export async function onSubscriptionInvoicesPaid(
  tx: AnyTx,
  scope: RowScope,
  subs: Subscription[],
  o: SubscriptionMoveOptions,
): Promise<void> {
  const activatable = subs.filter((s) => canMove(subscriptionMachine, s.status as SubscriptionStatus, 'pay'));
  // Paying one invoice (a small proration, say) leaves the subscription past_due while another is unpaid.
  const owing = await withPastDueInvoices(
    tx,
    scope,
    activatable.map((s) => s.id),
  );
  for (const sub of activatable) if (!owing.has(sub.id)) await moveSubscription(tx, scope, sub, 'pay', {}, o);
}

/**
 * spec Workspace archive "cancels subscriptions at period end": every live subscription of the
 * workspace (both modes) gets `cancelAtPeriodEnd`, one `subscription.updated` each, in the caller's
 * transaction; the renewals then cancel them at their period ends.
 */
export async function cancelWorkspaceAtPeriodEnd(
  tx: AnyTx,
  workspaceId: string,
  o: Omit<SubscriptionMoveOptions, 'at'> & { at: Date },
): Promise<number> {
  const rows = await sqlOf(tx).query<Subscription>(
    q`UPDATE subscriptions SET "cancelAtPeriodEnd" = true, "updatedAt" = ${o.at}::timestamptz
      WHERE "workspaceId" = ${workspaceId} AND ${liveStatuses} AND NOT "cancelAtPeriodEnd" RETURNING *`,
  );
  const events = rows.flatMap((r) =>
    subscriptionEvents(
      { workspaceId, mode: r.mode as RowScope['mode'] },
      { ...r, cancelAtPeriodEnd: false },
      r,
      editState(subscriptionMachine, r.status as SubscriptionStatus, 'update').events,
      o,
    ),
  );
  await insertEvents(tx, events);
  return rows.length;
}
