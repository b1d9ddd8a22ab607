import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant } from '../../core/db/client.ts';
import { errorsFor } from '../../core/errors.ts';
import { checkOrder, keysetList, listPageSize } from '../../core/pagination.ts';
import { scoped } from '../../core/resource.ts';
import type { ListAuditLogArgs } from './schema.ts';

const err = errorsFor('audit_log');
/** Filters are exact values; each has its own index (workspaceId, mode, <filter>, at, id). */
const filterLimits = { action: 100, targetId: 100 } as const;

function filter(name: keyof typeof filterLimits, value: string | null | undefined) {
  if (value === undefined || value === null) return undefined;
  if (value === '' || value.length > filterLimits[name])
    throw err.validation(name, `${name} must be 1-${filterLimits[name]} characters`);
  return value;
}

/** Newest first by default; `order=asc` for the oldest first. The caller's workspace and mode only. */
export async function listAuditLog(ctx: Context, args: ListAuditLogArgs) {
  const auth = authorize(ctx, 'svc:audit:read');
  checkOrder(args.order, 'audit_log');
  const action = filter('action', args.action);
  const targetId = filter('targetId', args.targetId);
  return keysetList(
    {
      args,
      workspaceId: auth.workspaceId,
      filters: { action: action ?? null, targetId: targetId ?? null },
      limit: listPageSize.auditLog,
      column: 'at',
    },
    (ks) =>
      inTenant(tenant(auth), (tx) =>
        tx.auditLog.findMany({
          where: { ...scoped(auth), ...(action && { action }), ...(targetId && { targetId }), AND: [ks.where] },
          orderBy: ks.orderBy,
          take: ks.take,
        }),
      ),
  );
}
