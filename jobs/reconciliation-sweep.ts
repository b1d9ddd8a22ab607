import { logger } from '../src/core/logger.ts';
import { queueScheduledRuns } from '../src/modules/reconciliation/engine/sweep.ts';
import { job } from './job.ts';

/**
 * Queue `reconciliation-sweep` (docs/reconciliation.md, Runs): hourly, a `schedule` run for every workspace and
 * mode with open batches or exceptions a run may resolve by itself (late batches need time, not a file).
 */
export const reconciliationSweep = job({
  queue: 'reconciliation-sweep',
  schedule: '23 * * * *',
  policy: { retryLimit: 1, expireInSeconds: 600 },
  async handler() {
    const queued = await queueScheduledRuns();
    if (queued) logger.info({ runs: queued }, 'reconciliation sweep queued runs');
  },
});
