/**
 * The setup session and setup attempt state machines (docs/guides/setup-sessions.md, States). Every
 * state change goes through `nextState` (src/core/state-machine.ts): a move the table does not list is
 * refused the same way everywhere (409 `conflict`), and the SQL's status lists come from here.
 */
import { defineMachine, terminalStatuses, type StatusOf, type TriggerOf } from '../../core/state-machine.ts';

export const setupSessionMachine = defineMachine({
  noun: 'setup session',
  resource: 'setup_session',
  stored: [{ table: 'setup_sessions', column: 'status' }],
  statuses: ['open', 'pending', 'completed', 'expired', 'canceled'],
  conflict: 'conflict',
  moves: {
    /** No event (as checkout's reserved created event). */
    create: { from: [null], to: 'open' },
    /** The customer picked a type: a tokenization is in flight at the provider (a new one supersedes). */
    attempt: { from: ['open', 'pending'], to: 'pending' },
    /** The attempt failed (declined, wrong OTP, provider refused): `lastError`, no event. */
    attempt_failed: { from: ['pending'], to: 'open' },
    /** The provider confirmed a reusable token: the method is attached in the same transaction. */
    complete: { from: ['open', 'pending'], to: 'completed', events: ['svc.setup_session.completed.v1'] },
    /** Merchant or customer; no event. */
    cancel: { from: ['open', 'pending'], to: 'canceled' },
    expire: { from: ['open', 'pending'], to: 'expired', events: ['svc.setup_session.expired.v1'] },
  },
  outcomes: { setup: { active: 'complete', failed: 'attempt_failed', expired: 'attempt_failed' } },
});

export type SetupSessionStatus = StatusOf<typeof setupSessionMachine>;
export type SetupSessionTrigger = TriggerOf<typeof setupSessionMachine>;
/** Where a session that saved its method is. */
export const setupCompleted = setupSessionMachine.moves.complete.to;
export const setupExpired = setupSessionMachine.moves.expire.to;
export const setupCanceled = setupSessionMachine.moves.cancel.to;
/** Where a failed attempt leaves the session: the customer may pick a type again. */
export const setupOpen = setupSessionMachine.moves.attempt_failed.to;

const terminal: readonly string[] = terminalStatuses(setupSessionMachine);
export const isSetupTerminal = (s: string) => terminal.includes(s);

/**
 * One tokenization at the provider (setup_attempts, attempts.ts), phase for phase as checkout
 * attempts: `creating` before the provider is called, `open` once it answered, `confirming` while an
 * OTP or vault exchange is claimed; `completed` when it saved the session's method. A token that
 * became active after its session ended is `completed_unapplied` (detached at the provider).
 */
export const setupAttemptMachine = defineMachine({
  noun: 'setup attempt',
  resource: 'setup_session',
  stored: [{ table: 'setup_attempts', column: 'status' }],
  statuses: ['creating', 'open', 'confirming', 'superseded', 'failed', 'completed', 'completed_unapplied'],
  conflict: 'conflict',
  moves: {
    /** Phase 1: written before the provider is called. */
    create: { from: [null], to: 'creating' },
    /** The managed test sandbox tokenizes in process: open at once. */
    create_open: { from: [null], to: 'open' },
    /** Phase 3: the provider's setup is recorded (compare-and-set on `creating`). */
    record_setup: { from: ['creating'], to: 'open' },
    /** A newer attempt, a cancel, the session's completion or expiry. */
    supersede: { from: ['creating', 'open', 'confirming'], to: 'superseded' },
    /** Claimed before the second step at the provider (OTP, PayPal vault exchange). */
    claim_confirm: { from: ['open', 'confirming'], to: 'confirming' },
    /** The second step's answer is not final yet. */
    provider_pending: { from: ['confirming'], to: 'open' },
    fail: { from: ['creating', 'open', 'confirming'], to: 'failed' },
    /** It saved the session's method. */
    complete: { from: ['creating', 'open', 'confirming', 'superseded'], to: 'completed' },
    /** A token that became active after the session ended: detached at the provider after the commit. */
    complete_unapplied: {
      from: ['creating', 'open', 'confirming', 'superseded', 'failed'],
      to: 'completed_unapplied',
    },
  },
  outcomes: { setup: { active: 'complete', failed: 'fail', expired: 'fail', pending: 'provider_pending' } },
});

export type SetupAttemptStatus = StatusOf<typeof setupAttemptMachine>;
/** An attempt the provider answered and that waits for the customer or the provider's word. */
export const setupAttemptWaiting = setupAttemptMachine.moves.record_setup.to;
