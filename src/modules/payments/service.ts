import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant } from '../../core/db/client.ts';
import { errorsFor } from '../../core/errors.ts';
import { keysetList } from '../../core/pagination.ts';
import { findScoped, scoped } from '../../core/resource.ts';
import type { ListPaymentsArgs } from './schema.ts';
import { paymentList } from './list.ts';
import { paymentSimulated } from './hooks.ts';

const err = errorsFor('payment');

export async function getPayment(ctx: Context, id: string) {
  const auth = authorize(ctx, 'svc:payment:read');
  return inTenant(tenant(auth), (tx) => findScoped(tx.payment, auth, id, () => err.notFound('payment')));
}

export async function listPayments(ctx: Context, args: ListPaymentsArgs) {
  const auth = authorize(ctx, 'svc:payment:read');
  paymentList.check(args);
  const filters = paymentList.values(args);
  return keysetList(
    { args, workspaceId: auth.workspaceId, filters, limit: paymentList.limit, column: paymentList.position },
    (ks) =>
      inTenant(tenant(auth), (tx) =>
        tx.payment.findMany({
          where: { ...scoped(auth), AND: [...paymentList.prisma(args), ks.where] },
          orderBy: ks.orderBy,
          take: ks.take,
        }),
      ),
  );
}

/**
 * `POST /v1/payments/:id/simulate` (test mode only; docs/guides/payment-methods.md, Test scenarios):
 * settles a `pending` or `requires_action` off-session charge as the provider or the customer would.
 */
export async function simulatePayment(ctx: Context, id: string, outcome: string) {
  const auth = authorize(ctx, 'svc:payment_method:write');
  const [payment] = await paymentSimulated.run(
    { workspaceId: auth.workspaceId, mode: auth.mode, accountId: auth.accountId },
    id,
    outcome,
    { source: ctx.source ?? 'api', requestId: ctx.requestId },
  );
  return payment;
}
