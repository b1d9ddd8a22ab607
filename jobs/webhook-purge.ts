import { purgeDeliveryHistory } from '../src/modules/webhooks/retention.ts';
import { logger } from '../src/core/logger.ts';
import { job } from './job.ts';

/** Queue `webhook-purge`: daily, deletes delivery history older than 30 days (spec). */
export const webhookPurge = job({
  queue: 'webhook-purge',
  schedule: '41 3 * * *',
  policy: { retryLimit: 2, expireInSeconds: 3600 },
  async handler() {
    const n = await purgeDeliveryHistory();
    if (n) logger.info({ deleted: n }, 'webhook delivery history purged');
  },
});
