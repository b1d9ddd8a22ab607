import type { PgBoss } from 'pg-boss';
import { logger } from '../src/core/logger.ts';
import { expireDueSessions } from '../src/modules/checkout-sessions/expiry.ts';

/** Queue `checkout-expiry`: every minute, expires live sessions past `expiresAt` (spec: up to about a minute late). */
export const queue = 'checkout-expiry';

export async function register(boss: PgBoss) {
  await boss.createQueue(queue, { retryLimit: 1, expireInSeconds: 120 });
  await boss.schedule(queue, '* * * * *');
  await boss.work(queue, async () => {
    const n = await expireDueSessions();
    if (n) logger.info({ expired: n }, 'checkout sessions expired');
  });
}
