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
  statuses: ['succeeded', 'failed', 'refunded', 'partially_refunded'],
  conflict: 'conflict',
  moves: {
    capture: { from: [null], to: 'succeeded', events: ['payment.succeeded'] },
    refund_partial: {
      from: ['succeeded', 'partially_refunded'],
      to: 'partially_refunded',
      events: ['payment.partially_refunded'],
    },
    refund_full: { from: ['succeeded', 'partially_refunded'], to: 'refunded', events: ['payment.refunded'] },
  },
});

export type PaymentStatus = StatusOf<typeof paymentMachine>;
/** A charge that never captured money (no move leads here yet): nothing to refund. */
export const paymentFailed: PaymentStatus = 'failed';
