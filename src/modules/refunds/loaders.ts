import { oneBy, pageBy, type Source } from '../../core/loaders.ts';
import type { Refund } from '../../generated/prisma/client.ts';
import type { RefundRow } from './fields.ts';
import type { ListRefundsArgs } from './schema.ts';
import { refundList } from './list.ts';

/** Batched reads of refunds for the graph's edges (src/core/loaders.ts). */
const refunds: Source<RefundRow> = {
  table: 'refunds',
  scope: 'svc:refund:read',
  shape: (row, auth) => ({ ...(row as unknown as Refund), accountId: auth.accountId }),
};

/** `Payment.refunds`: the REST list's filters, default page and cursors (`chargeId` is the payment). */
export const refundsOfPayment = pageBy<RefundRow, ListRefundsArgs>(refunds, {
  list: refundList,
  parent: 'chargeId',
  column: 'paymentId',
});

export const refundById = oneBy(refunds);
