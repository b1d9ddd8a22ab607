import { logger } from '../src/core/logger.ts';
import { processQueuedRuns } from '../src/modules/reconciliation/engine/run.ts';
import { RUN_QUEUE, runFanOut, runQueue, type RunJob } from '../src/modules/reconciliation/engine/queue.ts';
import { job } from './job.ts';

/**
 * Queue `reconciliation-run` (docs/reconciliation.md, Runs): the queued runs of one workspace and mode, worked
 * one at a time in creation order under the workspace's advisory lock. Jobs are written by the relay; one job
 * per workspace at a time across workers (fair: a workspace's large file never holds the queue for another).
 */
export const reconciliationRun = job<RunJob>({
  queue: RUN_QUEUE,
  policy: runQueue,
  take: { batchSize: 1, localConcurrency: 2 },
  fairPerWorkspace: true,
  fromRelay: runFanOut,
  async handler([j]) {
    const ran = await processQueuedRuns({ workspaceId: j.data.workspaceId, mode: j.data.mode });
    if (ran) logger.info({ workspace: j.data.workspaceId, mode: j.data.mode, runs: ran }, 'reconciliation runs worked');
  },
});
