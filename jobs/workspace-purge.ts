import { logger } from '../src/core/logger.ts';
import { clock } from '../src/core/clock.ts';
import { purgeArchivedWorkspaces } from '../src/modules/workspaces/purge.ts';
import { job } from './job.ts';

/** Queue `workspace-purge`: daily, deletes the data of workspaces archived more than 90 days ago (spec Workspace). */
export const workspacePurge = job({
  queue: 'workspace-purge',
  schedule: '23 4 * * *',
  policy: { retryLimit: 2, expireInSeconds: 3600 },
  async handler() {
    const purged = await purgeArchivedWorkspaces(clock.now());
    if (purged.length) logger.info({ purged }, 'archived workspaces purged');
  },
});
