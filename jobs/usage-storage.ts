import { clock } from '../src/core/clock.ts';
import { logger } from '../src/core/logger.ts';
import { maintainUsageStorage } from '../src/modules/usage-events/maintenance.ts';
import { job } from './job.ts';

/** Queue `usage-storage`: daily, usage event partitions made three months ahead and expired dedupe keys cleared. */
export const usageStorage = job({
  queue: 'usage-storage',
  schedule: '17 2 * * *',
  policy: { retryLimit: 3 },
  async handler() {
    await maintainUsageStorage(clock.now());
    logger.info('usage event partitions made ahead, expired dedupe keys cleared');
  },
});
