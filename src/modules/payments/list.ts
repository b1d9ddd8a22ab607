import { defineList, eq } from '../../core/list-spec.ts';
import { listPageSize } from '../../core/pagination.ts';
import type { ListPaymentsArgs } from './schema.ts';

/** GET /v1/payments, GraphQL `payments` and `Customer.payments`. */
export const paymentList = defineList<ListPaymentsArgs, 'createdAt'>({
  resource: 'payment',
  position: 'createdAt',
  limit: listPageSize.payments,
  filters: { status: eq(), customerId: eq(), checkoutSessionId: eq() },
});
