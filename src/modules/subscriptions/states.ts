/**
 * The subscription state machine (docs/billing.md, Subscription states; docs/decisions.md, Subscriptions). Changes go
 * through `nextState` (src/core/state-machine.ts); a move the table does not list is 409 conflict, and
 * the SQL's status lists (renewal index, PATCH, usage) come from here. Events are spelled as DECISIONS
 * §3 lists them: `subscription.cancelled` (two l's) while the status is `canceled`.
 */
import type { Fragment } from '../../core/db/sql-template.ts';
import { sql } from '../../core/db/sql-template.ts';
import {
  canMove,
  defineMachine,
  sqlIn,
  statusesWhere,
  type StatusOf,
  type TriggerOf,
} from '../../core/state-machine.ts';

export const subscriptionMachine = defineMachine({
  noun: 'subscription',
  resource: 'subscription',
  stored: [{ table: 'subscriptions', column: 'status' }],
  statuses: ['trialing', 'active', 'past_due', 'paused', 'canceled', 'incomplete'],
  conflict: 'conflict',
  moves: {
    /** POST /v1/subscriptions with a trial: no invoice until the trial ends (docs/billing.md, Trials). */
    create_trialing: { from: [null], to: 'trialing', events: ['subscription.created'], label: 'create trialing' },
    /** POST /v1/subscriptions with a `usage` price: nothing is billed in advance. */
    create_active: { from: [null], to: 'active', events: ['subscription.created'], label: 'create active' },
    /**
     * POST /v1/subscriptions with a licensed price: written with its first invoice open before the
     * charge (write pending, call, reconcile); the charge's success then moves it by `pay`.
     */
    create_incomplete: { from: [null], to: 'incomplete', events: ['subscription.created'], label: 'create incomplete' },
    /** The subscription's open invoice was paid (auto-charge, hosted page, POST pay): one place, collect.ts. */
    pay: { from: ['incomplete', 'past_due'], to: 'active', events: ['subscription.updated'] },
    /** A renewal's automatic charge failed (collect.ts); an incomplete first invoice stays incomplete. */
    payment_failed: {
      from: ['trialing', 'active', 'past_due'],
      to: 'past_due',
      events: ['subscription.updated'],
      label: 'payment failed',
    },
    /** Period end of an active subscription: the period advances (billing tick). */
    renew: { from: ['active'], to: 'active', events: ['subscription.updated'] },
    /** Period end while past_due: Stripe keeps invoicing past-due subscriptions (docs/billing.md, Renewals). */
    renew_past_due: { from: ['past_due'], to: 'past_due', events: ['subscription.updated'], label: 'renew past due' },
    /** Trial end: the first paid period starts at trialEnd (its charge may then fail: payment_failed). */
    end_trial: { from: ['trialing'], to: 'active', events: ['subscription.updated'], label: 'end trial' },
    /** POST /v1/subscriptions/:id/pause: no invoices while paused (docs/billing.md, Cancel and pause). */
    pause: { from: ['active'], to: 'paused', events: ['subscription.updated'] },
    /** POST /v1/subscriptions/:id/resume. */
    resume: { from: ['paused'], to: 'active', events: ['subscription.updated'] },
    /** POST /v1/subscriptions/:id/cancel (now): no refund, open invoices stay collectible. */
    cancel: {
      from: ['trialing', 'active', 'past_due', 'paused', 'incomplete'],
      to: 'canceled',
      events: ['subscription.cancelled'],
    },
    /** Period end with cancelAtPeriodEnd (billing tick). */
    cancel_at_period_end: {
      from: ['trialing', 'active', 'past_due', 'paused', 'incomplete'],
      to: 'canceled',
      events: ['subscription.cancelled'],
      label: 'cancel at period end',
    },
    /** The first invoice's checkout session expired unpaid (Stripe `incomplete_expired`): the invoice is voided. */
    expire: { from: ['incomplete'], to: 'canceled', events: ['subscription.cancelled'] },
    /** Dunning exhausted (`finalAction` applied: docs/billing.md, Dunning). */
    dunning_exhausted: {
      from: ['past_due'],
      to: 'canceled',
      events: ['subscription.cancelled'],
      label: 'dunning exhausted',
    },
  },
  edits: {
    /** PATCH (fields, price, quantity), cancel at period end, a workspace archive: the status stays. */
    update: { in: ['trialing', 'active', 'past_due', 'paused', 'incomplete'], events: ['subscription.updated'] },
  },
});

export const subscriptionStatuses = subscriptionMachine.statuses;
export type SubscriptionStatus = StatusOf<typeof subscriptionMachine>;
export type SubscriptionTrigger = TriggerOf<typeof subscriptionMachine>;

export const subscriptionActive = subscriptionMachine.moves.create_active.to;
export const subscriptionTrialing = subscriptionMachine.moves.create_trialing.to;
/** Written with its first invoice, before the charge (write pending, call, reconcile). */
export const subscriptionIncomplete = subscriptionMachine.moves.create_incomplete.to;
export const subscriptionPastDue = subscriptionMachine.moves.payment_failed.to;
export const subscriptionPaused = subscriptionMachine.moves.pause.to;
export const subscriptionCanceled = subscriptionMachine.moves.cancel.to;
/** The event of a change that keeps the subscription (its previousAttributes are the change). */
export const subscriptionUpdated = subscriptionMachine.edits?.update.events[0];

/** Not ended: PATCH and usage accept these (canceled is final). */
export const subscriptionLive = statusesWhere(subscriptionMachine, 'cancel');
/** Renewed at period end (the partial index `subscriptions_renewal_due_idx` lists the same). */
export const subscriptionRenewable = statusesWhere(subscriptionMachine, 'renew', 'renew_past_due', 'end_trial');
/**
 * Not renewed, yet canceled at period end when `cancelAtPeriodEnd` is set (paused: a workspace archive
 * flags them too); the partial index `subscriptions_paused_cancel_due_idx` lists the same.
 */
export const subscriptionCancelOnly = subscriptionMachine.statuses.filter(
  (s) => canMove(subscriptionMachine, s, 'cancel_at_period_end') && canMove(subscriptionMachine, s, 'resume'),
);
/** The rows due at their period end (`s` the subscriptions table's alias): renewals and period-end cancels. */
export const periodEndDue = (s: Fragment) =>
  sql`(${sqlIn(sql`${s}.status`, subscriptionRenewable)}
    OR (${sqlIn(sql`${s}.status`, subscriptionCancelOnly)} AND ${s}."cancelAtPeriodEnd"))`;
/** The current period was invoiced in advance (renewed at its end): a price change inside it is prorated. */
export const subscriptionBilled = statusesWhere(subscriptionMachine, 'renew', 'renew_past_due');
/** Where a failed charge moves the subscription to past_due. */
export const subscriptionFailable = statusesWhere(subscriptionMachine, 'payment_failed');
/** Where a paid invoice activates the subscription. */
export const subscriptionActivatable = statusesWhere(subscriptionMachine, 'pay');
