/** The payment state machine (spec "Refund and the refunded payment"; src/core/state-machine.ts). */
import { defineMachine, statusesWhere, type StatusOf } from '../../core/state-machine.ts';

/**
 * The payment: created `succeeded` by a session's completion (complete.ts), then marked by its
 * succeeded refunds; never rolled back (spec). An off-session charge (collection/collect.ts) is
 * written `pending`, then answered `succeeded`, `failed` or `requires_action` (the customer must
 * authenticate: docs/guides/payment-methods.md, Requires action), which the customer's action, its
 * failure or its expiry settles.
 */
export const paymentMachine = defineMachine({
  noun: 'payment',
  resource: 'payment',
  stored: [{ table: 'payments', column: 'status' }],
  statuses: ['succeeded', 'failed', 'refunded', 'partially_refunded', 'pending', 'requires_action'],
  conflict: 'conflict',
  moves: {
    capture: { from: [null], to: 'succeeded', events: ['payment.succeeded'] },
    /** A charge of a stored method, written before the provider is called (collection/collect.ts). */
    charge: { from: [null], to: 'pending' },
    /** The provider's answer to a pending charge. */
    charge_succeeded: { from: ['pending'], to: 'succeeded', events: ['payment.succeeded'], label: 'charge succeeded' },
    charge_failed: { from: ['pending'], to: 'failed', events: ['payment.failed'], label: 'charge failed' },
    /** The provider (or the sandbox) needs the customer to authenticate the charge first. */
    charge_requires_action: {
      from: ['pending'],
      to: 'requires_action',
      events: ['payment.requires_action'],
      label: 'charge requires action',
    },
    action_succeeded: {
      from: ['requires_action'],
      to: 'succeeded',
      events: ['payment.succeeded'],
      label: 'action succeeded',
    },
    /** Declined after authentication, abandoned, expired, or superseded by another way to pay. */
    action_failed: { from: ['requires_action'], to: 'failed', events: ['payment.failed'], label: 'action failed' },
    refund_partial: {
      from: ['succeeded', 'partially_refunded'],
      to: 'partially_refunded',
      events: ['payment.partially_refunded'],
    },
    refund_full: { from: ['succeeded', 'partially_refunded'], to: 'refunded', events: ['payment.refunded'] },
  },
});

export type PaymentStatus = StatusOf<typeof paymentMachine>;
/** A charge that never captured money (a declined stored-method charge): nothing to refund. */
export const paymentFailed = paymentMachine.moves.charge_failed.to;
/** A stored-method charge written before the provider is called, or not yet answered. */
export const paymentPending = paymentMachine.moves.charge.to;
/** The customer must authenticate the charge (docs/guides/payment-methods.md, Requires action). */
export const paymentRequiresAction = paymentMachine.moves.charge_requires_action.to;
export const paymentSucceeded = paymentMachine.moves.capture.to;
export const paymentRefunded = paymentMachine.moves.refund_full.to;
export const paymentPartiallyRefunded = paymentMachine.moves.refund_partial.to;
/** Money captured and not all of it refunded: what a refund or a credit note may still return. */
export const paymentRefundable = statusesWhere(paymentMachine, 'refund_full');
/**
 * A charge still waiting for its outcome (it may yet succeed): at most one per invoice (the partial
 * unique index `payments_in_flight_key`).
 */
export const paymentInFlight: PaymentStatus[] = statusesWhere(paymentMachine, 'charge_succeeded', 'action_succeeded');

/**
 * A bookkeeping payment (POST /v1/invoices/:id/pay, invoices/issue.ts): money the merchant received
 * directly, written with no adapter. It never passed through a provider, so none of it can go back
 * through one (docs/credit-notes.md, Outcomes).
 */
export const bookkeepingPay = { method: 'offline', adapter: null } as const;
export const isBookkeepingPay = (p: { method: string | null; adapter: string | null }) =>
  p.adapter === bookkeepingPay.adapter && p.method === bookkeepingPay.method;
