import { defineMachine, type StatusOf } from '../../core/state-machine.ts';

/**
 * spec States "Workspace, member, portal session": invited (expires after 7 days), joined on
 * acceptance, removed; role changes by promote and demote, an invitation's too (before it is
 * accepted). `expired` is the sweep's end for an invitation nobody accepted (no event: the spec names none); inviting the same email again
 * re-opens it. Removing an invitation is a removal too. An owner is created joined (bootstrap).
 */
export const memberMachine = defineMachine({
  noun: 'member',
  resource: 'member',
  stored: [{ table: 'members', column: 'status' }],
  statuses: ['invited', 'joined', 'expired', 'removed'],
  conflict: 'conflict',
  moves: {
    /** The owner, created with its workspace (bootstrap): joined at once; `workspace.created` announces it. */
    create_owner: { from: [null], to: 'joined', label: 'create owner' },
    invite: { from: [null, 'invited', 'expired'], to: 'invited', events: ['workspace.member_invited'] },
    accept: { from: ['invited'], to: 'joined', events: ['workspace.member_joined'] },
    expire: { from: ['invited'], to: 'expired' },
    change_role: { from: ['joined'], to: 'joined', events: ['workspace.member_role_changed'] },
    /** DECISIONS §7: an invitation's role changes before it is accepted (it stays invited; its link too). */
    change_invited_role: {
      from: ['invited'],
      to: 'invited',
      events: ['workspace.member_role_changed'],
      label: 'change invited role',
    },
    transfer_ownership: { from: ['joined'], to: 'joined', events: ['workspace.ownership_transferred'] },
    remove: { from: ['invited', 'joined', 'expired'], to: 'removed', events: ['workspace.member_removed'] },
  },
});

export type MemberStatus = StatusOf<typeof memberMachine>;
/** A member who may sign in and act (an accepted invitation, or the owner). */
export const memberJoined = memberMachine.moves.accept.to;
export const memberInvited = memberMachine.moves.invite.to;
export const memberExpired = memberMachine.moves.expire.to;
/** Gone from the workspace; the row stays (audit), every list leaves it out. */
export const memberRemoved = memberMachine.moves.remove.to;
