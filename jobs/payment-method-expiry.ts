import type { PgBoss } from 'pg-boss';
import { logger } from '../src/core/logger.ts';
import { expireDueMethods } from '../src/modules/payment-methods/expiry.ts';

/** Queue `payment-method-expiry`: every minute, expires active cards past `expiresAt` (real-clock customers). */
export const queue = 'payment-method-expiry';

export async function register(boss: PgBoss) {
  await boss.createQueue(queue, { retryLimit: 1, expireInSeconds: 120 });
  await boss.schedule(queue, '* * * * *');
  await boss.work(queue, async () => {
    const n = await expireDueMethods();
    if (n) logger.info({ expired: n }, 'payment methods expired');
  });
}
