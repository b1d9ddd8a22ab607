import type { PgBoss } from 'pg-boss';
import { logger } from '../src/core/logger.ts';
import { reconcilePendingRefunds } from '../src/modules/refunds/sweep.ts';
import { reconcileStaleAttempts } from '../src/modules/checkout-sessions/sweep.ts';
import { reconcileStaleSetupAttempts } from '../src/modules/setup-sessions/sweep.ts';

/**
 * Queue `pending-sweep`: every minute, settles the money-path rows a crash left between the
 * phases of a provider call (issue 12): refunds never submitted, checkout attempts never answered, and setup
 * attempts (docs/guides/setup-sessions.md, Attempts).
 */
export const queue = 'pending-sweep';

export async function register(boss: PgBoss) {
  await boss.createQueue(queue, { retryLimit: 1, expireInSeconds: 300 });
  await boss.schedule(queue, '* * * * *');
  await boss.work(queue, async () => {
    const refunds = await reconcilePendingRefunds();
    const attempts = await reconcileStaleAttempts();
    const setups = await reconcileStaleSetupAttempts();
    if (refunds || attempts || setups) logger.info({ refunds, attempts, setups }, 'pending money-path rows reconciled');
  });
}
