import { purgeEndedSessions } from '../src/auth/session.ts';
import { logger } from '../src/core/logger.ts';
import { job } from './job.ts';

/** Queue `session-purge`: hourly, deletes dashboard sessions ended a day ago (docs/dashboard.md, Sessions). */
export const sessionPurge = job({
  queue: 'session-purge',
  schedule: '41 * * * *',
  policy: { retryLimit: 2 },
  async handler() {
    const deleted = await purgeEndedSessions();
    if (deleted) logger.info({ deleted }, 'ended dashboard sessions purged');
  },
});
