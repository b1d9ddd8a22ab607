import { builder } from '../../graphql/builder.ts';
import { admission } from '../../graphql/operation.ts';
import { exposeFields, type ListArgs } from '../../graphql/fields.ts';
import { auditLogFields } from './fields.ts';
import { listAuditLog } from './service.ts';

export const AuditLogEntry = builder.prismaObject('AuditLog', {
  name: 'AuditLogEntry',
  description: 'DECISIONS §3: one recorded action (API keys, webhook endpoints, email sends, adapters, members).',
  fields: (t) => exposeFields(t, auditLogFields),
});

const listArgs = builder.args((t) => ({
  action: t.string({ description: 'Only this action, e.g. api_key.revoked.' }),
  targetId: t.string({ description: 'Only actions on this object id.' }),
  order: t.string(),
}));
export type ListAuditLogArgs = ListArgs<typeof listArgs>;

builder.queryFields((t) => ({
  auditLog: t.connection({
    ...admission({ resource: 'audit_log', scope: 'svc:audit:read' }),
    type: AuditLogEntry,
    description: 'The audit log of the caller’s workspace and mode, newest first (svc:audit:read).',
    args: listArgs,
    resolve: (_, args, ctx) => listAuditLog(ctx, args),
  }),
}));
