import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant } from '../../core/db/client.ts';
import { errorsFor } from '../../core/errors.ts';
import { keyset, pageRequest, toConnection } from '../../core/pagination.ts';

const err = errorsFor('payment');

export async function getPayment(ctx: Context, id: string) {
  const auth = authorize(ctx, 'svc:payment:read');
  const row = await inTenant(tenant(auth), (tx) => tx.payment.findFirst({ where: { id, workspaceId: auth.workspaceId, mode: auth.mode } }));
  if (!row) throw err.notFound('payment');
  return row;
}

export interface ListPaymentsArgs {
  status?: string | null;
  customerId?: string | null;
  checkoutSessionId?: string | null;
  order?: string | null;
  first?: number | null;
  after?: string | null;
}

export async function listPayments(ctx: Context, args: ListPaymentsArgs) {
  const auth = authorize(ctx, 'svc:payment:read');
  if (args.order && args.order !== 'asc' && args.order !== 'desc') throw err.validation('order', 'order must be asc or desc');
  const filters = { status: args.status ?? null, customerId: args.customerId ?? null, checkoutSessionId: args.checkoutSessionId ?? null };
  const page = pageRequest(args, auth.workspaceId, filters, 20);
  const ks = keyset(page);
  const rows = await inTenant(tenant(auth), (tx) =>
    tx.payment.findMany({
      where: {
        workspaceId: auth.workspaceId,
        mode: auth.mode,
        ...(args.status ? { status: args.status } : {}),
        ...(args.customerId ? { customerId: args.customerId } : {}),
        ...(args.checkoutSessionId ? { checkoutSessionId: args.checkoutSessionId } : {}),
        ...ks.where,
      },
      orderBy: ks.orderBy,
      take: ks.take,
    }),
  );
  return toConnection(rows, page, auth.workspaceId, filters, (r) => r.createdAt);
}
