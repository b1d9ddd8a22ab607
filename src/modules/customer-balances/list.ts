import { defineList, eq, oneOfValues } from '../../core/list-spec.ts';
import { listPageSize } from '../../core/pagination.ts';
import { balanceTransactionTypes } from './fields.ts';
import type { ListBalanceTransactionsArgs } from './schema.ts';

/** GET /v1/customers/:id/balance-transactions and `customerBalanceTransactions`: newest first. */
export const balanceTransactionList = defineList<ListBalanceTransactionsArgs, 'createdAt'>({
  resource: 'customer_balance',
  position: 'createdAt',
  limit: listPageSize.customerBalanceTransactions,
  order: 'desc',
  filters: { customerId: eq(), currency: eq(), type: oneOfValues(balanceTransactionTypes) },
});
