import { sql } from '../../core/db/sql-template.ts';
import { oneBy, pageBy, type Source } from '../../core/loaders.ts';
import type { Receipt } from '../../generated/prisma/client.ts';
import type { ListReceiptsArgs } from './schema.ts';
import { receiptList } from './list.ts';

/** Batched reads of receipts for the graph's edges (src/core/loaders.ts). */
const receipts: Source<Receipt> = { table: 'receipts', scope: 'svc:checkout:read' };

/** A checkout session's receipt, by the unique (workspace, source) key (payments reach it through their session). */
export const receiptOfSession = oneBy(receipts, {
  column: 'sourceId',
  where: sql` AND t."sourceType" = 'checkout_session'`,
});

/** An invoice's one receipt (docs/billing.md, Receipts), by the same unique source key. */
export const receiptOfInvoice = oneBy(receipts, { column: 'sourceId', where: sql` AND t."sourceType" = 'invoice'` });

/** `Customer.receipts`: the REST list's filters (newest issued first), bound to the customer. */
export const receiptsOfCustomer = pageBy<Receipt, ListReceiptsArgs>(receipts, {
  list: receiptList,
  parent: 'customerId',
  column: 'customerId',
});

export const receiptById = oneBy(receipts);
