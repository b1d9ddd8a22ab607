import { logger } from '../src/core/logger.ts';
import { clock } from '../src/core/clock.ts';
import { processDue } from '../src/modules/subscriptions/renewals.ts';
import { billingWork } from '../src/core/billing-first.ts';
import { expireActions } from '../src/modules/collection/waiting.ts';
import { job } from './job.ts';

/**
 * Queue `billing-tick` (docs/billing.md, Jobs): every minute, everything due on the real clock: renewals,
 * trial ends, period-end cancels, charges and dunning retries, and `requires_action` charges past their
 * action's expiry (docs/guides/payment-methods.md, Requires action). Due-ness lives in indexed rows, never
 * in one job per subscription; the tick sends a few `billing-batch` jobs and each drains batches
 * with `FOR UPDATE SKIP LOCKED`, so workers share a burst and the queue holds a handful of rows.
 */
export const batchQueue = 'billing-batch';
/** Batch jobs sent per tick: the workers that drain one burst side by side. */
export const DRAINERS = 2;

export const billingTick = job({
  queue: 'billing-tick',
  schedule: '* * * * *',
  policy: { retryLimit: 1, expireInSeconds: 120 },
  async handler(_jobs, { boss }) {
    // singletonKey: a slow drain is not joined by another one for the same minute.
    for (let i = 0; i < DRAINERS; i++) await boss.send(batchQueue, {}, { singletonKey: `drain-${i}` });
  },
});

/** Queue `billing-batch`: one drainer of the tick's due work. */
export const billingBatch = job({
  queue: batchQueue,
  policy: { retryLimit: 2, expireInSeconds: 900 },
  async handler() {
    const n = await billingWork(() => processDue({ scope: null, at: clock.now(), testClockId: null }));
    if (n.renewed || n.canceled || n.attempted) logger.info(n, 'billing due work done');
    const expired = await expireActions();
    if (expired) logger.info({ expired }, 'payment actions expired');
  },
});
