/**
 * The refund state machine (spec "Refund and the refunded payment"). Every change, creation
 * included, goes through `nextState` (src/core/state-machine.ts); a move the table does
 * not list is 409 conflict.
 */
import {
  createdStatuses,
  defineMachine,
  statusesWhere,
  type StatusOf,
  type TriggerOf,
} from '../../core/state-machine.ts';

export const refundMachine = defineMachine({
  noun: 'refund',
  resource: 'refund',
  stored: [{ table: 'refunds', column: 'status' }],
  statuses: ['pending', 'succeeded', 'failed', 'canceled'],
  conflict: 'conflict',
  message: (from) => `The refund is ${from}; it can no longer change`,
  moves: {
    /** POST /v1/refunds: counts against the refundable amount at once. */
    create: { from: [null], to: 'pending', events: ['refund.created'] },
    /** spec: a same-call success (manual, managed test-mode card) is created succeeded. */
    create_succeeded: { from: [null], to: 'succeeded', events: ['refund.created', 'refund.succeeded'] },
    /** The provider took the refund but has not settled it: submitted, still pending. */
    provider_pending: { from: ['pending'], to: 'pending' },
    /** The provider (callback, synchronous answer, or the test-mode simulate endpoint) confirms. */
    provider_succeeded: { from: ['pending'], to: 'succeeded', events: ['refund.succeeded'] },
    /** The provider rejects: the amount becomes refundable again. */
    provider_failed: { from: ['pending'], to: 'failed', events: ['refund.failed'] },
    /** Pre-execution cancellation by an adapter that supports it (no API endpoint, spec). */
    provider_canceled: { from: ['pending'], to: 'canceled', events: ['refund.updated'] },
  },
  outcomes: {
    refund: {
      pending: 'provider_pending',
      succeeded: 'provider_succeeded',
      failed: 'provider_failed',
      canceled: 'provider_canceled',
    },
  },
});

export const refundStatuses = refundMachine.statuses;
export type RefundStatus = StatusOf<typeof refundMachine>;
export type RefundTrigger = TriggerOf<typeof refundMachine>;

export const refundPending = refundMachine.moves.create.to;
export const refundSucceeded = refundMachine.moves.provider_succeeded.to;
export const refundFailed = refundMachine.moves.provider_failed.to;
export const refundCanceled = refundMachine.moves.provider_canceled.to;

/** A refund's status as a credit note shows it (`refundStatus`): a canceled refund is one that did not happen, failed. */
export const refundStatusOf = (status: string) => (status === refundCanceled ? refundFailed : status);

/** Refunds still waiting for the provider's answer (the sweep's and the callbacks' rows). */
export const awaitingProvider = statusesWhere(refundMachine, 'provider_succeeded');

export const refundReasons = ['requested_by_customer', 'duplicate', 'fraudulent', 'other'] as const;

/**
 * Statuses that hold part of the payment's refundable amount (spec: remaining = captured - pending -
 * succeeded): a refund counts from its creation, in whatever status it is created, until a provider's
 * refusal or cancellation releases it.
 */
export const reserving: readonly RefundStatus[] = createdStatuses(refundMachine);

/** How a refund is created (and announced) from the answer it has: a same-call success is created succeeded. */
export const createTrigger = (answer: string): RefundTrigger =>
  answer === refundMachine.moves.create_succeeded.to ? 'create_succeeded' : 'create';
