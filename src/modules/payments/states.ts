/** The payment state machine (spec "Refund and the refunded payment"; src/core/state-machine.ts). */
import { defineMachine, type StatusOf } from '../../core/state-machine.ts';

/**
 * The payment: created `succeeded` by a session's completion (complete.ts), then marked by its
 * succeeded refunds; never rolled back (spec). `failed` is reserved for failed charges, which no
 * path records yet.
 */
export const paymentMachine = defineMachine({
  noun: 'payment',
  resource: 'payment',
  stored: [{ table: 'payments', column: 'status' }],
  statuses: ['succeeded', 'failed', 'refunded', 'partially_refunded', 'pending'],
  conflict: 'conflict',
  moves: {
    capture: { from: [null], to: 'succeeded', events: ['payment.succeeded'] },
    /** A charge of a stored method, written before the provider is called (subscriptions/collect.ts). */
    charge: { from: [null], to: 'pending' },
    /** The provider's answer to a pending charge. */
    charge_succeeded: { from: ['pending'], to: 'succeeded', events: ['payment.succeeded'], label: 'charge succeeded' },
    charge_failed: { from: ['pending'], to: 'failed', events: ['payment.failed'], label: 'charge failed' },
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
export const paymentFailed: PaymentStatus = 'failed';
