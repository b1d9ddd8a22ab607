/**
 * The payout state machine (spec States: Payout). Every change goes through `transition()`; any
 * move the table does not list is 409 invalid_transition.
 */
import { DomainError } from '../../core/errors.ts';

export const payoutStatuses = ['pending', 'in_transit', 'paid', 'failed', 'cancelled'] as const;
export type PayoutStatus = (typeof payoutStatuses)[number];

/** Statuses whose amount is locked out of `available` (spec Balance: pending and in_transit). */
export const locking: readonly PayoutStatus[] = ['pending', 'in_transit'];

export const payoutTransitions = {
  /** Disbursement handed to the provider or bank rail (admin mark-in-transit, or the rail's answer). */
  initiate: { from: ['pending'], to: 'in_transit', event: 'payout.initiated' },
  /** The bank confirms receipt: the ledger posting under code `payout` is made. */
  mark_paid: { from: ['in_transit'], to: 'paid', event: 'payout.paid' },
  /** The bank rejects the transfer: the locked amount is available again. */
  mark_failed: { from: ['pending', 'in_transit'], to: 'failed', event: 'payout.failed' },
  /** POST /v1/payouts/:id/cancel: released at once; no event (spec). */
  cancel: { from: ['pending'], to: 'cancelled', event: null },
} as const satisfies Record<string, { from: readonly PayoutStatus[]; to: PayoutStatus; event: string | null }>;

export type PayoutTrigger = keyof typeof payoutTransitions;

export function transition(current: PayoutStatus, trigger: PayoutTrigger) {
  const t = payoutTransitions[trigger];
  if (!(t.from as readonly PayoutStatus[]).includes(current)) {
    throw new DomainError('invalid_transition', `The payout is ${current}; ${trigger.replace(/_/g, ' ')} is not possible`, { resource: 'payout' });
  }
  return t;
}
