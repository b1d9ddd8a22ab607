import { logger } from '../src/core/logger.ts';
import { markPastDueInvoices } from '../src/modules/invoices/sweep.ts';
import { job } from './job.ts';

/** Queue `invoice-past-due`: every minute, open invoices past `dueAt` become past_due (spec States: Invoice). */
export const invoicePastDue = job({
  queue: 'invoice-past-due',
  schedule: '* * * * *',
  policy: { retryLimit: 1, expireInSeconds: 120 },
  async handler() {
    const n = await markPastDueInvoices();
    if (n) logger.info({ pastDue: n }, 'invoices past due');
  },
});
