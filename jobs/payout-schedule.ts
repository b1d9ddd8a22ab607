import { logger } from '../src/core/logger.ts';
import { runPayoutSchedule } from '../src/modules/payouts/schedule.ts';
import { syncDisbursements } from '../src/modules/payouts/disbursement.ts';
import { job } from './job.ts';

/**
 * Queue `payout-schedule`: hourly, creates the automatic payouts that are due (per-workspace
 * setting), then moves provider_a disbursements along (send pending, read outcomes).
 */
export const payoutSchedule = job({
  queue: 'payout-schedule',
  schedule: '7 * * * *',
  policy: { retryLimit: 1, expireInSeconds: 600 },
  async handler() {
    const created = await runPayoutSchedule();
    const moved = await syncDisbursements();
    if (created.length || moved) logger.info({ created: created.length, moved }, 'payout schedule ran');
  },
});
