import { logger } from '../src/core/logger.ts';
import { reconcilePendingRefunds } from '../src/modules/refunds/sweep.ts';
import { reconcileStaleAttempts } from '../src/modules/checkout-sessions/sweep.ts';
import { sweepPendingCharges } from '../src/modules/collection/waiting.ts';
import { reconcileStaleSetupAttempts } from '../src/modules/setup-sessions/sweep.ts';
import { job } from './job.ts';

/**
 * Queue `pending-sweep`: every minute, settles the money-path rows a crash left between the
 * phases of a provider call: refunds never submitted, checkout attempts never answered,
 * off-session charges still pending after their lease (a timeout, a crash, the sandbox's `async`
 * delay: src/modules/collection/waiting.ts) and setup attempts (docs/guides/setup-sessions.md, Attempts).
 */
export const pendingSweep = job({
  queue: 'pending-sweep',
  schedule: '* * * * *',
  policy: { retryLimit: 1, expireInSeconds: 300 },
  async handler() {
    const refunds = await reconcilePendingRefunds();
    const attempts = await reconcileStaleAttempts();
    const charges = await sweepPendingCharges();
    const setups = await reconcileStaleSetupAttempts();
    if (refunds || attempts || charges || setups)
      logger.info({ refunds, attempts, charges, setups }, 'pending money-path rows reconciled');
  },
});
