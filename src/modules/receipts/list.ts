import { bound, defineList, eq, oneOfValues } from '../../core/list-spec.ts';
import { listPageSize } from '../../core/pagination.ts';
import type { ListReceiptsArgs } from './schema.ts';

/** GET /v1/receipts, GraphQL `receipts` and `Customer.receipts`: newest issued first. */
export const receiptList = defineList<ListReceiptsArgs, 'issuedAt'>({
  resource: 'receipt',
  position: 'issuedAt',
  limit: listPageSize.receipts,
  order: 'desc',
  filters: {
    sourceType: oneOfValues(['checkout_session', 'invoice']),
    customerId: eq(),
    issuedAfter: bound('issuedAt', '>='),
    issuedBefore: bound('issuedAt', '<='),
  },
});
