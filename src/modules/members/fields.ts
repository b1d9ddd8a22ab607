import type { FieldSpec } from '../../graphql/fields.ts';
import type { Member } from '../../generated/prisma/client.ts';

/**
 * spec Workspace and member: `id`, `email`, `role`, `joinedAt`; DECISIONS §7 adds `status`, and
 * `invitedAt`, `expiresAt` for invitations. The token hash, identity and invite mode stay inside.
 */
export const memberFields: FieldSpec<Member> = {
  id: { kind: 'id' },
  email: { kind: 'string' },
  role: { kind: 'string' },
  status: { kind: 'string' },
  joinedAt: { kind: 'date', nullable: true },
  invitedAt: { kind: 'date', nullable: true },
  expiresAt: { kind: 'date', nullable: true },
};
