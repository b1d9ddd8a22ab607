import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant } from '../../core/db/client.ts';
import { errorsFor } from '../../core/errors.ts';
import { checkOrder, keysetList, listPageSize } from '../../core/pagination.ts';
import { findScoped, scoped } from '../../core/resource.ts';
import type { ListPaymentsArgs } from './schema.ts';

const err = errorsFor('payment');

export async function getPayment(ctx: Context, id: string) {
  const auth = authorize(ctx, 'svc:payment:read');
  return inTenant(tenant(auth), (tx) => findScoped(tx.payment, auth, id, () => err.notFound('payment')));
}

export async function listPayments(ctx: Context, args: ListPaymentsArgs) {
  const auth = authorize(ctx, 'svc:payment:read');
  checkOrder(args.order, 'payment');
  const filters = {
    status: args.status ?? null,
    customerId: args.customerId ?? null,
    checkoutSessionId: args.checkoutSessionId ?? null,
  };
  return keysetList(
    { args, workspaceId: auth.workspaceId, filters, limit: listPageSize.payments, column: 'createdAt' },
    (ks) =>
      inTenant(tenant(auth), (tx) =>
        tx.payment.findMany({
          where: {
            ...scoped(auth),
            ...(args.status ? { status: args.status } : {}),
            ...(args.customerId ? { customerId: args.customerId } : {}),
            ...(args.checkoutSessionId ? { checkoutSessionId: args.checkoutSessionId } : {}),
            ...ks.where,
          },
          orderBy: ks.orderBy,
          take: ks.take,
        }),
      ),
  );
}
