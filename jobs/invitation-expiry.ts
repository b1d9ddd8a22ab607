import type { PgBoss } from 'pg-boss';
import { logger } from '../src/core/logger.ts';
import { expireInvitations } from '../src/modules/members/service.ts';

/** Queue `invitation-expiry`: every minute, pending member invitations past `expiresAt` (7 days) become expired. */
export const queue = 'invitation-expiry';

export async function register(boss: PgBoss) {
  await boss.createQueue(queue, { retryLimit: 1, expireInSeconds: 120 });
  await boss.schedule(queue, '* * * * *');
  await boss.work(queue, async () => {
    const n = await expireInvitations();
    if (n) logger.info({ expired: n }, 'member invitations expired');
  });
}
