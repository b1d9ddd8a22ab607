import { deliverBatch } from '../src/modules/webhooks/deliver.ts';
import { logger } from '../src/core/logger.ts';
import { isDatabaseUnavailable, warnUnavailable } from '../src/core/db/unavailable.ts';
import { DELIVERY_QUEUE, deliveryQueue, type DeliveryJob } from '../src/modules/webhooks/queue.ts';
import { webhookFanOut } from '../src/modules/webhooks/fan-out.ts';
import { job } from './job.ts';

/**
 * Queue `webhook-delivery` (policy in src/modules/webhooks/queue.ts): each job is one attempt of
 * one delivery, written by the relay (new deliveries, and retries when due). Jobs are woken by
 * pg-boss's NOTIFY the moment the relay commits them; batches of 25 are attempted concurrently, by
 * 8 local workers, so one slow receiver holds up one batch.
 */
export const webhookDelivery = job<DeliveryJob>({
  queue: DELIVERY_QUEUE,
  policy: deliveryQueue,
  take: {
    batchSize: 25,
    localConcurrency: 8,
    pollingIntervalSeconds: 0.5,
    notifyPollingIntervalSeconds: 5,
    burstWhenBatchFull: true,
  },
  fromRelay: webhookFanOut,
  // A batch that fails is retried whole by pg-boss (its receivers may see a duplicate): say why.
  handler: (jobs) =>
    deliverBatch(jobs.map((j) => j.data)).catch((e) => {
      if (isDatabaseUnavailable(e)) warnUnavailable('webhook delivery', e);
      else logger.error({ err: (e as Error).message, jobs: jobs.length }, 'webhook delivery batch failed');
      throw e;
    }),
});
