import type { PgBoss } from 'pg-boss';
import { logger } from '../src/core/logger.ts';
import { clock } from '../src/core/clock.ts';
import { purgeExpiredEvents } from '../src/modules/events/retention.ts';

/** Queue `event-retention`: daily, deletes events past the 90-day archive window (spec Limits). */
export const queue = 'event-retention';

export async function register(boss: PgBoss) {
  await boss.createQueue(queue, { retryLimit: 2 });
  await boss.schedule(queue, '41 3 * * *');
  await boss.work(queue, async () => {
    const deleted = await purgeExpiredEvents(clock.now());
    logger.info({ deleted }, 'expired events purged');
  });
}
