import type { FieldSpec } from '../../graphql/fields.ts';
import type { AuditLog } from '../../generated/prisma/client.ts';

/**
 * DECISIONS §3 audit log: who (the acting key, and the member it acts for), what (`action`, on
 * `targetId`), under which request, when. Read-only: REST and GraphQL serialize these fields; no
 * event carries them (the log records what emits none: keys, endpoint secrets, email sends).
 */
export const auditLogFields: FieldSpec<AuditLog> = {
  id: { kind: 'id' },
  action: { kind: 'string' },
  actorKeyId: { kind: 'string', nullable: true },
  actorMemberId: { kind: 'string', nullable: true, from: (r) => r.actorMember },
  targetId: { kind: 'string', nullable: true },
  requestId: { kind: 'string', nullable: true },
  at: { kind: 'date' },
};
