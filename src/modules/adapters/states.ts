/**
 * The adapter state machine (spec States: Adapter), for stored adapters and the managed account
 * alike (src/core/state-machine.ts). A support-disabled adapter stays disabled whatever happens to
 * it: a PUT or a failed gateway call outside the table leaves the status as it is (callers check
 * `canMove`), though the call's other effects (configuration, `adapter.error`) still apply.
 */
import { canMove, defineMachine, nextState, type StatusOf } from '../../core/state-machine.ts';

export const adapterMachine = defineMachine({
  noun: 'adapter',
  resource: 'adapter',
  stored: [
    { table: 'adapters', column: 'status' },
    { table: 'managed_accounts', column: 'status' },
  ],
  statuses: ['active', 'disabled', 'error'],
  conflict: 'conflict',
  moves: {
    /** The first PUT of a kind (`adapter.connected`); the managed account's first onboarding call. */
    connect: { from: [null], to: 'active', events: ['adapter.connected'] },
    /** A repeat PUT: configuration replaced, the last error cleared. */
    reconfigure: { from: ['active', 'error'], to: 'active', events: ['adapter.updated'] },
    /** A failed upstream gateway call. */
    gateway_failed: { from: ['active', 'error'], to: 'error', events: ['adapter.error'] },
    /** A successful call after a failure. */
    gateway_succeeded: { from: ['error'], to: 'active', events: ['adapter.updated'] },
    /** Set by support on request (spec); there is no delete. */
    support_disable: { from: ['active', 'error'], to: 'disabled' },
  },
});

export type AdapterStatus = StatusOf<typeof adapterMachine>;

/** Support's switch-off: such an adapter takes no payments and nothing moves it (the table's `support_disable`). */
export const adapterDisabled = adapterMachine.moves.support_disable.to;
/** Where a new adapter starts (the managed account's status before it has a row). */
export const adapterActive = adapterMachine.moves.connect.to;

/**
 * The status after `trigger`, or the current one where the table has no such move (a disabled adapter stays disabled).
 */
export const adapterStatusAfter = (
  current: AdapterStatus,
  trigger: 'reconfigure' | 'gateway_failed' | 'gateway_succeeded',
): AdapterStatus =>
  canMove(adapterMachine, current, trigger) ? nextState(adapterMachine, current, trigger).to : current;
