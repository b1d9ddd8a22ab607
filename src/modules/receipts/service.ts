import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant } from '../../core/db/client.ts';
import { errorsFor } from '../../core/errors.ts';
import { keyset, pageRequest, toConnection } from '../../core/pagination.ts';
import { oneOf } from '../../core/validation.ts';

const err = errorsFor('receipt');

export async function getReceipt(ctx: Context, id: string) {
  const auth = authorize(ctx, 'svc:checkout:read');
  const row = await inTenant(tenant(auth), (tx) => tx.receipt.findFirst({ where: { id, workspaceId: auth.workspaceId, mode: auth.mode } }));
  if (!row) throw err.notFound('receipt');
  return row;
}

/** GET /v1/checkout-sessions/:id/receipt: the receipt issued for a completed session. */
export async function getSessionReceipt(ctx: Context, sessionId: string) {
  const auth = authorize(ctx, 'svc:checkout:read');
  const row = await inTenant(tenant(auth), (tx) =>
    tx.receipt.findFirst({ where: { workspaceId: auth.workspaceId, mode: auth.mode, sourceType: 'checkout_session', sourceId: sessionId } }),
  );
  if (!row) throw err.notFound('receipt');
  return row;
}

export interface ListReceiptsArgs {
  sourceType?: string | null;
  customerId?: string | null;
  issuedAfter?: Date | null;
  issuedBefore?: Date | null;
  first?: number | null;
  after?: string | null;
}

/** Newest first by issuedAt; issuedAfter and issuedBefore are inclusive (spec). */
export async function listReceipts(ctx: Context, args: ListReceiptsArgs) {
  const auth = authorize(ctx, 'svc:checkout:read');
  if (args.sourceType) oneOf(args.sourceType, ['checkout_session', 'invoice'] as const, 'sourceType', 'receipt');
  const filters = {
    sourceType: args.sourceType ?? null,
    customerId: args.customerId ?? null,
    issuedAfter: args.issuedAfter?.toISOString() ?? null,
    issuedBefore: args.issuedBefore?.toISOString() ?? null,
  };
  const page = pageRequest({ ...args, order: 'desc' }, auth.workspaceId, filters, 20);
  const ks = keyset(page, 'issuedAt');
  const rows = await inTenant(tenant(auth), (tx) =>
    tx.receipt.findMany({
      where: {
        workspaceId: auth.workspaceId,
        mode: auth.mode,
        ...(args.sourceType ? { sourceType: args.sourceType } : {}),
        ...(args.customerId ? { customerId: args.customerId } : {}),
        AND: [args.issuedAfter ? { issuedAt: { gte: args.issuedAfter } } : {}, args.issuedBefore ? { issuedAt: { lte: args.issuedBefore } } : {}, ks.where],
      },
      orderBy: ks.orderBy,
      take: ks.take,
    }),
  );
  return toConnection(rows, page, auth.workspaceId, filters, (r) => r.issuedAt);
}
