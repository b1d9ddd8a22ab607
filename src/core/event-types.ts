/** The event catalog: every type the service emits, and when. docs/events.md is printed from it. */
export const eventTypes = {
  'workspace.created': 'a workspace was created (bootstrap or partner provisioning)',
  'workspace.updated': 'settings changed; data.previousAttributes holds the old values',
  'workspace.archived': 'the owner archived the workspace',
  'workspace.restored': 'an archived workspace was restored',
  'workspace.member_invited': 'a member was invited',
  'workspace.member_joined': 'an invitation was accepted',
  'workspace.member_removed': 'a member was removed',
  'workspace.member_role_changed': 'a member role changed; data.previousAttributes.role',
  'workspace.ownership_transferred': 'ownership moved; both identities in the payload',
} as const;

export type EventType = keyof typeof eventTypes;
