import type { PgBoss } from 'pg-boss';
import { logger } from '../src/core/logger.ts';
import { expireDueSessions } from '../src/modules/checkout-sessions/expiry.ts';
import { expireDueSetupSessions } from '../src/modules/setup-sessions/expiry.ts';

/**
 * Queue `checkout-expiry`: every minute, expires live checkout sessions past `expiresAt` (spec: up to about a
 * minute late), and setup sessions the same way (docs/guides/setup-sessions.md, Expiry).
 */
export const queue = 'checkout-expiry';

export async function register(boss: PgBoss) {
  await boss.createQueue(queue, { retryLimit: 1, expireInSeconds: 120 });
  await boss.schedule(queue, '* * * * *');
  await boss.work(queue, async () => {
    const n = await expireDueSessions();
    if (n) logger.info({ expired: n }, 'checkout sessions expired');
    const setups = await expireDueSetupSessions();
    if (setups) logger.info({ expired: setups }, 'setup sessions expired');
  });
}
