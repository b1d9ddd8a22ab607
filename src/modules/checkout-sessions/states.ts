/**
 * The checkout session state machine: the spec's table plus the moves it leaves open
 * (docs/decisions.md, Checkout sessions). Every state change goes through `transition()`, so a
 * move the table does not list is refused the same way everywhere (409 conflict).
 */
import { DomainError } from '../../core/errors.ts';

export const sessionStatuses = ['open', 'pending', 'pending_review', 'completed', 'expired', 'canceled'] as const;
export type SessionStatus = (typeof sessionStatuses)[number];

const live = ['open', 'pending', 'pending_review'] as const satisfies readonly SessionStatus[];
export const isTerminal = (s: SessionStatus) => !(live as readonly SessionStatus[]).includes(s);

/** Trigger -> the states it may start from and the state it leads to. */
export const sessionTransitions = {
  /** The customer picks an online method: the provider attempt is in flight (VA issued, QR shown, redirect). */
  attempt_online: { from: ['open', 'pending'], to: 'pending' },
  /** The customer picks a manual method: instructions only; the session stays open until they declare payment. */
  attempt_manual: { from: ['open', 'pending'], to: 'open' },
  /** The customer says they paid offline: the merchant must confirm. */
  declare_paid: { from: ['open', 'pending'], to: 'pending_review' },
  /** The merchant confirms a manual session. */
  confirm: { from: ['pending', 'pending_review'], to: 'completed' },
  /** A verified, provider-confirmed payment (callback or sandbox simulate). */
  provider_paid: { from: live, to: 'completed' },
  /** A failed attempt: the customer may pick a method again. */
  provider_failed: { from: ['pending'], to: 'open' },
  cancel: { from: live, to: 'canceled' },
  expire: { from: live, to: 'expired' },
} as const satisfies Record<string, { from: readonly SessionStatus[]; to: SessionStatus }>;

export type SessionTrigger = keyof typeof sessionTransitions;

/** The next state, or 409 conflict naming the state the session is in. */
export function transition(current: SessionStatus, trigger: SessionTrigger): SessionStatus {
  const t = sessionTransitions[trigger];
  if (!(t.from as readonly SessionStatus[]).includes(current)) {
    throw new DomainError('conflict', `The checkout session is ${current}; ${trigger.replace(/_/g, ' ')} is not possible`, { resource: 'checkout_session' });
  }
  return t.to;
}
