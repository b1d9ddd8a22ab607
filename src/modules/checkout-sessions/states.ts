/**
 * The checkout session and checkout attempt state machines: the spec's table plus the moves it
 * leaves open (docs/decisions.md, Checkout sessions; attempts: attempts.ts). Every state change
 * goes through `nextState` (src/core/state-machine.ts), so a move the table does not list is
 * refused the same way everywhere (409 conflict), and the SQL's status lists come from here.
 */
import { defineMachine, terminalStatuses, type StatusOf, type TriggerOf } from '../../core/state-machine.ts';

export const checkoutSessionMachine = defineMachine({
  noun: 'checkout session',
  resource: 'checkout_session',
  stored: [{ table: 'checkout_sessions', column: 'status' }],
  statuses: ['open', 'pending', 'pending_review', 'completed', 'expired', 'canceled'],
  conflict: 'conflict',
  moves: {
    create: { from: [null], to: 'open' },
    /** The customer picks an online method: the provider attempt is in flight (VA issued, QR shown, redirect). */
    attempt_online: { from: ['open', 'pending'], to: 'pending' },
    /** The customer picks a manual method: instructions only; the session stays open until they declare payment. */
    attempt_manual: { from: ['open', 'pending'], to: 'open' },
    /** The customer says they paid offline: the merchant must confirm. */
    declare_paid: { from: ['open', 'pending'], to: 'pending_review' },
    /** The merchant confirms a manual session. */
    confirm: {
      from: ['pending', 'pending_review'],
      to: 'completed',
      events: ['svc.checkout_session.completed.v1', 'payment.succeeded'],
    },
    /** A verified, provider-confirmed payment (callback or sandbox simulate). */
    provider_paid: {
      from: ['open', 'pending', 'pending_review'],
      to: 'completed',
      events: ['svc.checkout_session.completed.v1', 'payment.succeeded'],
    },
    /** A failed attempt: the customer may pick a method again. */
    provider_failed: { from: ['pending'], to: 'open' },
    /** spec: no event. */
    cancel: { from: ['open', 'pending', 'pending_review'], to: 'canceled' },
    expire: { from: ['open', 'pending', 'pending_review'], to: 'expired', events: ['svc.checkout_session.expired.v1'] },
  },
  outcomes: { charge: { paid: 'provider_paid', failed: 'provider_failed', expired: 'provider_failed' } },
});

export const sessionStatuses = checkoutSessionMachine.statuses;
export type SessionStatus = StatusOf<typeof checkoutSessionMachine>;
export type SessionTrigger = TriggerOf<typeof checkoutSessionMachine>;
/** A paid session (where `provider_paid` and `confirm` lead): the customer is sent to the success URL. */
export const sessionCompleted = checkoutSessionMachine.moves.provider_paid.to;
export const sessionExpired = checkoutSessionMachine.moves.expire.to;
export const sessionCanceled = checkoutSessionMachine.moves.cancel.to;

/** Terminal: nothing moves them (spec: completed, expired, canceled); the others accept state-changing calls. */
const terminal: readonly string[] = terminalStatuses(checkoutSessionMachine);
export const isTerminal = (s: string) => terminal.includes(s);

/**
 * A provider charge of a session (checkout_attempts, attempts.ts): `creating` before the provider
 * is called, `open` once it answered, `paid` when it completed the session; a newer attempt or
 * the completion makes the live ones `superseded` (then `voided` at the provider where it can).
 */
export const checkoutAttemptMachine = defineMachine({
  noun: 'checkout attempt',
  resource: 'checkout_session',
  stored: [{ table: 'checkout_attempts', column: 'status' }],
  statuses: ['creating', 'open', 'capturing', 'superseded', 'voided', 'failed', 'paid', 'paid_unapplied'],
  conflict: 'conflict',
  moves: {
    /** Phase 1: written before the provider is called. */
    create: { from: [null], to: 'creating' },
    /** Manual and sandbox attempts call nothing: open at once. */
    create_open: { from: [null], to: 'open' },
    /** Phase 3: the provider's charge is recorded. */
    record_charge: { from: ['creating'], to: 'open' },
    /** A newer attempt, a cancel or the session's completion. */
    supersede: { from: ['creating', 'open'], to: 'superseded' },
    /** Withdrawn at the provider after the superseding transaction committed. */
    void: { from: ['superseded'], to: 'voided' },
    /** provider_c: the current approved order, claimed before the capture call. */
    claim_capture: { from: ['open', 'capturing'], to: 'capturing' },
    /** The capture's outcome is not final yet: open again for the next callback or the sweep. */
    provider_pending: { from: ['capturing'], to: 'open' },
    provider_failed: { from: ['creating', 'open', 'capturing'], to: 'failed' },
    /** The provider call failed or never answered (hosted.ts, the sweep). */
    fail: { from: ['creating'], to: 'failed' },
    /** The attempt that completed its session (complete.ts): whatever happened to it meanwhile, the money arrived. */
    pay: { from: ['creating', 'open', 'capturing', 'superseded', 'voided', 'failed'], to: 'paid' },
    /** Money on an attempt whose session can no longer take it: owed back (recordUnapplied). */
    pay_unapplied: { from: ['creating', 'open', 'capturing', 'superseded', 'voided', 'failed'], to: 'paid_unapplied' },
  },
  outcomes: {
    charge: {
      paid: 'pay',
      failed: 'provider_failed',
      expired: 'provider_failed',
      pending: 'provider_pending',
      approved: 'provider_pending',
    },
  },
});

export type AttemptStatus = StatusOf<typeof checkoutAttemptMachine>;
