import type { PgBoss } from 'pg-boss';
import { afterBilling } from '../src/core/billing-first.ts';
import {
  BILLING_EMAIL_QUEUE,
  type BillingEmailJob,
  billingEmailQueue,
  sendInvoiceReceiptEmails,
} from '../src/modules/invoices/billing-email.ts';

/**
 * Queue `billing-email` (policy in src/modules/invoices/billing-email.ts): the receipts of paid
 * invoices, emailed after the payments committed, up to 100 per job. Jobs are written by the relay (jobs/worker.ts).
 */
export const queue = BILLING_EMAIL_QUEUE;

export async function register(boss: PgBoss) {
  await boss.createQueue(queue, billingEmailQueue);
  await boss.work<BillingEmailJob>(queue, { batchSize: 1, localConcurrency: 2 }, async ([job]) => {
    // Money before mail: a billing drainer running in this process goes first (src/core/billing-first.ts).
    await afterBilling();
    await sendInvoiceReceiptEmails(job.data);
  });
}
