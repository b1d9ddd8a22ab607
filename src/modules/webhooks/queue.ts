import type pg from 'pg';
import type { PgBoss, Queue } from 'pg-boss';

/** One attempt of one delivery: `n` is the attempt index the job performs (the row's retryCount). */
export interface DeliveryJob {
  deliveryId: string;
  n: number;
}

/**
 * Queue `webhook-delivery`. A killed worker's job stays `active` until it expires, so expiry sits
 * just above the 10 s attempt timeout and pg-boss's monitor looks every 5 s (jobs/worker.ts): an
 * in-flight delivery is attempted again within about 20 s of a crash. Completed jobs are deleted
 * after a minute (the delivery row is the record), keeping the job table small at any rate.
 * A retry waits as its delivery row (`nextRetryAt`, no job) until the relay enqueues it when due,
 * so waiting retries cost the queue nothing; `retryLimit` covers crashed attempts only.
 */
export const DELIVERY_QUEUE = 'webhook-delivery';
export const ATTEMPT_TIMEOUT_MS = 10_000;
export const deliveryQueue: Omit<Queue, 'name'> = {
  expireInSeconds: 15,
  retryLimit: 20,
  retryDelay: 2,
  deleteAfterSeconds: 60,
  notify: true,
  partition: true,
};

/** pg-boss on a connection the caller holds, so its jobs commit with the caller's transaction. */
export const onClient = (client: pg.ClientBase) => ({
  executeSql: (text: string, values?: unknown[]) => client.query(text, values),
});

export function enqueueAttempts(boss: PgBoss, client: pg.ClientBase, jobs: DeliveryJob[]) {
  if (!jobs.length) return Promise.resolve(null);
  return boss.insert(
    DELIVERY_QUEUE,
    jobs.map((data) => ({ data })),
    { db: onClient(client) },
  );
}
