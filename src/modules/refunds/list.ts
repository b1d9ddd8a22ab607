import { defineList, eq, oneOfValues } from '../../core/list-spec.ts';
import { listPageSize } from '../../core/pagination.ts';
import type { ListRefundsArgs } from './schema.ts';
import { refundMachine } from './states.ts';

/** GET /v1/refunds, GraphQL `refunds` and `Payment.refunds` (`chargeId` is the payment). */
export const refundList = defineList<ListRefundsArgs, 'createdAt'>({
  resource: 'refund',
  position: 'createdAt',
  limit: listPageSize.refunds,
  filters: { chargeId: eq('paymentId'), status: oneOfValues(refundMachine.statuses) },
});
