import { manyBy, oneBy, pageBy, type Source } from '../../core/loaders.ts';
import { sql } from '../../core/db/sql-template.ts';
import type { Payment } from '../../generated/prisma/client.ts';
import type { ListPaymentsArgs } from './schema.ts';
import { paymentList } from './list.ts';

/** Batched reads of payments for the graph's edges (src/core/loaders.ts). */
const payments: Source<Payment> = { table: 'payments', scope: 'svc:payment:read' };

export const paymentById = oneBy(payments);

/** `Invoice.payments`: an invoice's payments (a handful at most), oldest first. */
export const paymentsOfInvoice = manyBy(payments, { column: 'invoiceId', orderBy: sql`t."createdAt", t.id` });

/** `Customer.payments`: the REST list's filters, default page and cursors, bound to the customer. */
export const paymentsOfCustomer = pageBy<Payment, ListPaymentsArgs>(payments, {
  list: paymentList,
  parent: 'customerId',
  column: 'customerId',
});
