import { defineList, eq, oneOfValues } from '../../core/list-spec.ts';
import { listPageSize } from '../../core/pagination.ts';
import type { ListInvoicesArgs } from './schema.ts';
import { invoiceMachine } from './states.ts';

/** GET /v1/invoices and GraphQL `invoices` (the raw read path of src/modules/invoices/service.ts). */
export const invoiceList = defineList<ListInvoicesArgs, 'createdAt'>({
  resource: 'invoice',
  position: 'createdAt',
  limit: listPageSize.invoices,
  filters: { status: oneOfValues(invoiceMachine.statuses), customerId: eq(), subscriptionId: eq() },
});
