import { andEq, oneBy, pageBy, type Source } from '../../core/loaders.ts';
import { checkOrder } from '../../core/pagination.ts';
import { errorsFor } from '../../core/errors.ts';
import type { Refund } from '../../generated/prisma/client.ts';
import type { RefundRow } from './fields.ts';
import type { ListRefundsArgs } from './schema.ts';
import { refundStatuses } from './states.ts';

const err = errorsFor('refund');

/** Batched reads of refunds for the graph's edges (src/core/loaders.ts). */
const refunds: Source<RefundRow> = {
  table: 'refunds',
  scope: 'svc:refund:read',
  shape: (row, auth) => ({ ...(row as unknown as Refund), accountId: auth.accountId }),
};

/** `Payment.refunds`: the REST list's filters, default page and cursors (`chargeId` is the payment). */
export const refundsOfPayment = pageBy<RefundRow, Omit<ListRefundsArgs, 'chargeId'>>(refunds, {
  column: 'paymentId',
  position: 'createdAt',
  limit: 20,
  check: (a) => {
    checkOrder(a.order, 'refund');
    if (a.status && !(refundStatuses as readonly string[]).includes(a.status))
      throw err.validation('status', `status must be one of ${refundStatuses.join(', ')}`);
  },
  filters: (a, paymentId) => ({ chargeId: paymentId, status: a.status ?? null }),
  where: (a) => andEq('status', a.status),
});

export const refundById = oneBy(refunds);
