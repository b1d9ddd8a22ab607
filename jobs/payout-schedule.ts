import type { PgBoss } from 'pg-boss';
import { logger } from '../src/core/logger.ts';
import { runPayoutSchedule } from '../src/modules/payouts/schedule.ts';
import { syncDisbursements } from '../src/modules/payouts/disbursement.ts';

/**
 * Queue `payout-schedule`: hourly, creates the automatic payouts that are due (per-workspace
 * setting), then moves provider_a disbursements along (send pending, read outcomes).
 */
export const queue = 'payout-schedule';

export async function register(boss: PgBoss) {
  await boss.createQueue(queue, { retryLimit: 1, expireInSeconds: 600 });
  await boss.schedule(queue, '7 * * * *');
  await boss.work(queue, async () => {
    const created = await runPayoutSchedule();
    const moved = await syncDisbursements();
    if (created.length || moved) logger.info({ created: created.length, moved }, 'payout schedule ran');
  });
}
