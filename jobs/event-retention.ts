import { logger } from '../src/core/logger.ts';
import { clock } from '../src/core/clock.ts';
import { purgeExpiredEvents } from '../src/modules/events/retention.ts';
import { job } from './job.ts';

/** Queue `event-retention`: daily, deletes events past the 90-day archive window (spec Limits). */
export const eventRetention = job({
  queue: 'event-retention',
  schedule: '41 3 * * *',
  policy: { retryLimit: 2 },
  async handler() {
    const deleted = await purgeExpiredEvents(clock.now());
    logger.info({ deleted }, 'expired events purged');
  },
});
