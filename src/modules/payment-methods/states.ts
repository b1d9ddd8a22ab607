/**
 * The payment method state machine (docs/guides/payment-methods.md, States). Only `active` methods
 * are charged; expired, revoked and detached are terminal for charging, and the row stays (payments
 * point at it). Leaving `active` clears the method as a default and from subscriptions (service.ts).
 */
import { defineMachine, statusesWhere, type StatusOf, type TriggerOf } from '../../core/state-machine.ts';

export const paymentMethodMachine = defineMachine({
  noun: 'payment method',
  resource: 'payment_method',
  stored: [{ table: 'payment_methods', column: 'status' }],
  statuses: ['active', 'requires_action', 'expired', 'revoked', 'detached'],
  conflict: 'conflict',
  moves: {
    /** Setup session completed, checkout with consent, portal, test create. */
    attach: { from: [null], to: 'active', events: ['payment_method.attached'] },
    /** The provider says the token needs the customer again. */
    require_action: { from: ['active'], to: 'requires_action', events: ['payment_method.updated'] },
    /** A provider callback re-activates it. */
    reactivate: { from: ['requires_action'], to: 'active', events: ['payment_method.updated'] },
    /** Card past `expiresAt`, provider expiry, or a charge answered `expired_card`. */
    expire: { from: ['active', 'requires_action'], to: 'expired', events: ['payment_method.expired'] },
    /** The provider unlinked or deleted it, or a charge answered `payment_method_revoked`. */
    revoke: { from: ['active', 'requires_action'], to: 'revoked', events: ['payment_method.revoked'] },
    /** API or portal; detaching a detached method answers it unchanged (service.ts). */
    detach: {
      from: ['active', 'requires_action', 'expired', 'revoked'],
      to: 'detached',
      events: ['payment_method.detached'],
    },
  },
  edits: {
    /** Metadata; display fields refreshed by the provider (a new expiry). */
    update: { in: ['active'], events: ['payment_method.updated'] },
  },
});

export type PaymentMethodStatus = StatusOf<typeof paymentMethodMachine>;
export type PaymentMethodTrigger = TriggerOf<typeof paymentMethodMachine>;

/** The one status a method is charged (and can be a default) in. */
export const chargeable = paymentMethodMachine.moves.attach.to;
export const paymentMethodDetached = paymentMethodMachine.moves.detach.to;
/** The event of a change that keeps the method's status (its previousAttributes are the change). */
export const paymentMethodUpdated = paymentMethodMachine.edits?.update.events[0];

/** The provider-driven moves the test-mode simulate endpoint drives (`event` → trigger). */
export const simulatedEvents = {
  expire: 'expire',
  revoke: 'revoke',
  require_action: 'require_action',
  reactivate: 'reactivate',
} as const satisfies Record<string, PaymentMethodTrigger>;

/** Statuses a method can still be detached from. */
export const detachable = statusesWhere(paymentMethodMachine, 'detach');

export const paymentMethodTypes = ['card', 'ewallet', 'direct_debit', 'paypal'] as const;
export type PaymentMethodType = (typeof paymentMethodTypes)[number];
