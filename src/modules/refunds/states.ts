/**
 * The refund state machine (spec "Refund and the refunded payment"). Every change after creation
 * goes through `transition()`; a move the table does not list is 409 conflict.
 */
import { DomainError } from '../../core/errors.ts';

export const refundStatuses = ['pending', 'succeeded', 'failed', 'canceled'] as const;
export type RefundStatus = (typeof refundStatuses)[number];

export const refundReasons = ['requested_by_customer', 'duplicate', 'fraudulent', 'other'] as const;

/** Trigger -> the states it may start from, the state it leads to, and the event it emits. */
export const refundTransitions = {
  /** The provider (callback, synchronous answer, or the test-mode simulate endpoint) confirms. */
  provider_succeeded: { from: ['pending'], to: 'succeeded', event: 'refund.succeeded' },
  /** The provider rejects: the amount becomes refundable again. */
  provider_failed: { from: ['pending'], to: 'failed', event: 'refund.failed' },
  /** Pre-execution cancellation by an adapter that supports it (no API endpoint, spec). */
  provider_canceled: { from: ['pending'], to: 'canceled', event: 'refund.updated' },
} as const satisfies Record<string, { from: readonly RefundStatus[]; to: RefundStatus; event: string }>;

export type RefundTrigger = keyof typeof refundTransitions;

/** Statuses that hold part of the payment's refundable amount (spec: remaining = captured - pending - succeeded). */
export const reserving: readonly RefundStatus[] = ['pending', 'succeeded'];

export function transition(current: RefundStatus, trigger: RefundTrigger) {
  const t = refundTransitions[trigger];
  if (!(t.from as readonly RefundStatus[]).includes(current)) {
    throw new DomainError('conflict', `The refund is ${current}; it can no longer change`, { resource: 'refund' });
  }
  return t;
}
