import type { PgBoss } from 'pg-boss';
import { logger } from '../src/core/logger.ts';
import {
  requeueAdvancingClocks,
  TEST_CLOCK_QUEUE,
  type TestClockJob,
  testClockQueue,
  walkClock,
} from '../src/modules/test-clocks/service.ts';
import { MAX_WALKERS } from '../src/modules/test-clocks/walkers.ts';

/**
 * Queue `test-clock-advance` (docs/decisions.md, Test clocks): a large advance, one job per advance,
 * written by the relay when it publishes `test_clock.advancing` (jobs/worker.ts). The walker holds
 * the clock's advisory lock; a job that finds it held waits for that walker (a request's, bounded).
 * Jobs are grouped by workspace and run one per workspace at a time across workers
 * (`groupConcurrency`), so a workspace's burst of advances never holds the queue for another
 * workspace; at most MAX_WALKERS per process. Every minute the same queue's sweep re-queues clocks
 * left advancing (a lost job, a killed or stopped walker).
 */
export const queue = TEST_CLOCK_QUEUE;
const sweep = `${TEST_CLOCK_QUEUE}-sweep`;

export async function register(boss: PgBoss) {
  await boss.createQueue(queue, testClockQueue);
  await boss.work<TestClockJob>(
    queue,
    { batchSize: 1, localConcurrency: MAX_WALKERS, groupConcurrency: 1 },
    async ([job]) => {
      const { workspaceId, mode, testClockId } = job.data;
      const clock = await walkClock({ workspaceId, mode }, testClockId);
      logger.info({ testClock: testClockId, status: clock.status }, 'test clock advanced');
    },
  );
  await boss.createQueue(sweep, { retryLimit: 1, expireInSeconds: 900 });
  await boss.schedule(sweep, '* * * * *');
  await boss.work(sweep, async () => {
    const n = await requeueAdvancingClocks(boss);
    if (n) logger.info({ testClocks: n }, 'advancing test clocks re-queued');
  });
}
