import type { PgBoss } from 'pg-boss';
import { purgeEndedSessions } from '../src/auth/session.ts';
import { logger } from '../src/core/logger.ts';

/** Queue `session-purge`: hourly, deletes dashboard sessions ended a day ago (docs/dashboard.md, Sessions). */
export const queue = 'session-purge';

export async function register(boss: PgBoss) {
  await boss.createQueue(queue, { retryLimit: 2 });
  await boss.schedule(queue, '41 * * * *');
  await boss.work(queue, async () => {
    const deleted = await purgeEndedSessions();
    if (deleted) logger.info({ deleted }, 'ended dashboard sessions purged');
  });
}
