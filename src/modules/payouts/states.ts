/**
 * The payout state machine (spec States: Payout). Every change goes through `nextState`
 * (src/core/state-machine.ts); any move the table does not list is 409 invalid_transition.
 */
import { defineMachine, statusesWhere, type StatusOf, type TriggerOf } from '../../core/state-machine.ts';

export const payoutMachine = defineMachine({
  noun: 'payout',
  resource: 'payout',
  stored: [{ table: 'payouts', column: 'status' }],
  statuses: ['pending', 'in_transit', 'paid', 'failed', 'cancelled'],
  conflict: 'invalid_transition',
  moves: {
    /** POST /v1/payouts or the schedule: the balance is locked; no event (`pending` is an internal queue state). */
    create: { from: [null], to: 'pending' },
    /** The rail takes the payout (disbursement.ts), committed before it is called: from then on it holds `claimed`. */
    claim: { from: ['pending'], to: 'pending' },
    /** Disbursement handed to the provider or bank rail (admin mark-in-transit, or the rail's answer). */
    initiate: { from: ['pending'], to: 'in_transit', events: ['payout.initiated'] },
    /** The bank confirms receipt: the ledger posting under code `payout` is made. */
    mark_paid: { from: ['in_transit'], to: 'paid', events: ['payout.paid'] },
    /** An admin records a rejected transfer: the locked amount is available again. */
    mark_failed: { from: ['pending', 'in_transit'], to: 'failed', events: ['payout.failed'] },
    /** The rail itself reports the rejection (allowed on a claimed payout: only the rail knows nothing was sent). */
    rail_failed: { from: ['pending', 'in_transit'], to: 'failed', events: ['payout.failed'], label: 'mark failed' },
    /** POST /v1/payouts/:id/cancel: released at once; no event (spec). */
    cancel: { from: ['pending'], to: 'cancelled' },
  },
  holds: {
    // Claimed by the rail: the money may be on its way, so only the rail's answer may release it.
    claimed: {
      in: ['pending'],
      refuses: ['cancel', 'mark_failed'],
      message: (label) => `The payout is being disbursed; ${label} is not possible`,
    },
  },
  outcomes: {
    disburse: { accepted: 'initiate', rejected: 'rail_failed' },
    disbursement_status: { completed: 'mark_paid', failed: 'rail_failed' },
  },
});

export const payoutStatuses = payoutMachine.statuses;
/** Created and not yet taken by the rail (or claimed by it: `holds.claimed`). */
export const payoutPending = payoutMachine.moves.create.to;
export type PayoutStatus = StatusOf<typeof payoutMachine>;
export type PayoutTrigger = TriggerOf<typeof payoutMachine>;

/**
 * Statuses whose amount is locked out of `available` (spec Balance: pending and in_transit): those the bank may still
 * pay.
 */
export const locking = statusesWhere(payoutMachine, 'initiate', 'mark_paid');
