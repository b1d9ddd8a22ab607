/**
 * The discount state machine (docs/coupons.md, Discounts): a coupon applied is `active`; it `ended`
 * (once: at its first discounted invoice's finalization; repeating: past `end`; an invoice's: with
 * that invoice's finalization) or was `removed` (PATCH `couponId` null, or another coupon). Silent:
 * a subscription's discount change is its `subscription.updated` (`previousAttributes.discount`).
 */
import { defineMachine, type StatusOf } from '../../core/state-machine.ts';

export const discountMachine = defineMachine({
  noun: 'discount',
  resource: 'discount',
  stored: [{ table: 'discounts', column: 'status' }],
  statuses: ['active', 'ended', 'removed'],
  conflict: 'conflict',
  message: (from) => `The discount is ${from}; it can no longer change`,
  moves: {
    /** couponId on subscription or invoice create / PATCH: redeemed in the same transaction. */
    apply: { from: [null], to: 'active' },
    /** Its duration is over (once, repeating) or its invoice was finalized. */
    end: { from: ['active'], to: 'ended' },
    /** couponId null, or another coupon replacing it. */
    remove: { from: ['active'], to: 'removed' },
  },
});

export type DiscountStatus = StatusOf<typeof discountMachine>;
export const discountActive = discountMachine.moves.apply.to;
export const discountEnded = discountMachine.moves.end.to;
export const discountRemoved = discountMachine.moves.remove.to;
