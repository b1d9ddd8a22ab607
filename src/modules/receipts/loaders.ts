import { sql } from '../../core/db/sql-template.ts';
import { andCompare, andEq, oneBy, pageBy, type Source } from '../../core/loaders.ts';
import { oneOf } from '../../core/validation.ts';
import type { Receipt } from '../../generated/prisma/client.ts';
import type { ListReceiptsArgs } from './schema.ts';

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
export const receiptsOfCustomer = pageBy<Receipt, Omit<ListReceiptsArgs, 'customerId'>>(receipts, {
  column: 'customerId',
  position: 'issuedAt',
  limit: 20,
  order: 'desc',
  check: (a) => {
    if (a.sourceType) oneOf(a.sourceType, ['checkout_session', 'invoice'] as const, 'sourceType', 'receipt');
  },
  filters: (a, customerId) => ({
    sourceType: a.sourceType ?? null,
    customerId,
    issuedAfter: a.issuedAfter?.toISOString() ?? null,
    issuedBefore: a.issuedBefore?.toISOString() ?? null,
  }),
  where: (a) =>
    sql`${andEq('sourceType', a.sourceType)}${andCompare('issuedAt', '>=', a.issuedAfter)}${andCompare('issuedAt', '<=', a.issuedBefore)}`,
});

export const receiptById = oneBy(receipts);
