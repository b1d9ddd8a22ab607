import { oneBy, pageBy, type Source } from '../../core/loaders.ts';
import type { PaymentMethod } from '../../generated/prisma/client.ts';
import type { PaymentMethodRow } from './fields.ts';
import { paymentMethodList } from './list.ts';
import type { ListPaymentMethodsArgs } from './schema.ts';

/** Batched reads of payment methods for the graph's edges (src/core/loaders.ts). */
const paymentMethods: Source<PaymentMethodRow> = {
  table: 'payment_methods',
  scope: 'svc:payment_method:read',
  shape: (row, auth) => ({ ...(row as unknown as PaymentMethod), accountId: auth.accountId }),
};

export const paymentMethodById = oneBy(paymentMethods);

/** `Customer.paymentMethods`: the REST list's filters, default page and cursors, bound to the customer. */
export const paymentMethodsOfCustomer = pageBy<PaymentMethodRow, ListPaymentMethodsArgs>(paymentMethods, {
  list: paymentMethodList,
  parent: 'customerId',
  column: 'customerId',
});
