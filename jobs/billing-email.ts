import type { PgBoss } from 'pg-boss';
import { logger } from '../src/core/logger.ts';
import {
  BILLING_EMAIL_QUEUE,
  type BillingEmailJob,
  billingEmailQueue,
  sendInvoiceReceiptEmail,
} from '../src/modules/invoices/billing-email.ts';

/**
 * Queue `billing-email` (policy in src/modules/invoices/billing-email.ts): the receipt of each paid
 * invoice, emailed after the payment committed. Jobs are written by the relay (jobs/worker.ts).
 */
export const queue = BILLING_EMAIL_QUEUE;

export async function register(boss: PgBoss) {
  await boss.createQueue(queue, billingEmailQueue);
  await boss.work<BillingEmailJob>(queue, { batchSize: 1, localConcurrency: 2 }, async ([job]) => {
    try {
      await sendInvoiceReceiptEmail(job.data);
    } catch (e) {
      logger.warn({ err: (e as Error).message, invoice: job.data.invoiceId }, 'invoice receipt email failed');
      throw e;
    }
  });
}
