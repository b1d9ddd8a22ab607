import type { PgBoss } from 'pg-boss';
import { logger } from '../src/core/logger.ts';
import { clock } from '../src/core/clock.ts';
import { purgeArchivedWorkspaces } from '../src/modules/workspaces/purge.ts';

/** Queue `workspace-purge`: daily, deletes the data of workspaces archived more than 90 days ago (spec Workspace). */
export const queue = 'workspace-purge';

export async function register(boss: PgBoss) {
  await boss.createQueue(queue, { retryLimit: 2, expireInSeconds: 3600 });
  await boss.schedule(queue, '23 4 * * *');
  await boss.work(queue, async () => {
    const purged = await purgeArchivedWorkspaces(clock.now());
    if (purged.length) logger.info({ purged }, 'archived workspaces purged');
  });
}
