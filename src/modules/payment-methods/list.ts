import { defineList, eq, oneOfValues } from '../../core/list-spec.ts';
import { listPageSize } from '../../core/pagination.ts';
import type { ListPaymentMethodsArgs } from './schema.ts';
import { paymentMethodMachine, paymentMethodTypes } from './states.ts';

/** GET /v1/payment-methods, GraphQL `paymentMethods` and `Customer.paymentMethods`. */
export const paymentMethodList = defineList<ListPaymentMethodsArgs, 'createdAt'>({
  resource: 'payment_method',
  position: 'createdAt',
  limit: listPageSize.paymentMethods,
  filters: {
    customerId: eq(),
    type: oneOfValues(paymentMethodTypes),
    status: oneOfValues(paymentMethodMachine.statuses),
  },
});
