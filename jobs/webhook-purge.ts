import type { PgBoss } from 'pg-boss';
import { purgeDeliveryHistory } from '../src/modules/webhooks/retention.ts';
import { logger } from '../src/core/logger.ts';

/** Queue `webhook-purge`: daily, deletes delivery history older than 30 days (spec). */
export const queue = 'webhook-purge';

export async function register(boss: PgBoss) {
  await boss.createQueue(queue, { retryLimit: 2, expireInSeconds: 3600 });
  await boss.schedule(queue, '41 3 * * *');
  await boss.work(queue, async () => {
    const n = await purgeDeliveryHistory();
    if (n) logger.info({ deleted: n }, 'webhook delivery history purged');
  });
}
