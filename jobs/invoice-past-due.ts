import type { PgBoss } from 'pg-boss';
import { logger } from '../src/core/logger.ts';
import { markPastDueInvoices } from '../src/modules/invoices/sweep.ts';

/** Queue `invoice-past-due`: every minute, open invoices past `dueAt` become past_due (spec States: Invoice). */
export const queue = 'invoice-past-due';

export async function register(boss: PgBoss) {
  await boss.createQueue(queue, { retryLimit: 1, expireInSeconds: 120 });
  await boss.schedule(queue, '* * * * *');
  await boss.work(queue, async () => {
    const n = await markPastDueInvoices();
    if (n) logger.info({ pastDue: n }, 'invoices past due');
  });
}
