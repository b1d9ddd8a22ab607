import { afterBilling } from '../src/core/billing-first.ts';
import {
  BILLING_EMAIL_QUEUE,
  type BillingEmailJob,
  billingEmailFanOut,
  billingEmailQueue,
  sendInvoiceReceiptEmails,
} from '../src/modules/invoices/billing-email.ts';
import { job } from './job.ts';

/**
 * Queue `billing-email` (policy in src/modules/invoices/billing-email.ts): the receipts of paid
 * invoices, emailed after the payments committed, up to 100 per job. Jobs are written by the relay.
 */
export const billingEmail = job<BillingEmailJob>({
  queue: BILLING_EMAIL_QUEUE,
  policy: billingEmailQueue,
  take: { batchSize: 1, localConcurrency: 2 },
  fromRelay: billingEmailFanOut,
  async handler([email]) {
    // Money before mail: a billing drainer running in this process goes first (src/core/billing-first.ts).
    await afterBilling();
    await sendInvoiceReceiptEmails(email.data);
  },
});
