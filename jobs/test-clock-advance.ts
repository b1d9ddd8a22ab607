import type { PgBoss } from 'pg-boss';
import { logger } from '../src/core/logger.ts';
import {
  resumeAdvancingClocks,
  TEST_CLOCK_QUEUE,
  type TestClockJob,
  testClockQueue,
  walkClock,
} from '../src/modules/test-clocks/service.ts';

/**
 * Queue `test-clock-advance` (docs/decisions.md, Test clocks): a large advance, one job per advance,
 * written by the relay when it publishes `test_clock.advancing` (jobs/worker.ts). The walker holds
 * the clock's advisory lock; a job that finds it held leaves the clock to its walker. Every minute
 * the same queue's sweep picks up clocks left advancing (a lost job, a killed worker).
 */
export const queue = TEST_CLOCK_QUEUE;
const sweep = `${TEST_CLOCK_QUEUE}-sweep`;

export async function register(boss: PgBoss) {
  await boss.createQueue(queue, testClockQueue);
  await boss.work<TestClockJob>(queue, { batchSize: 1, localConcurrency: 2 }, async ([job]) => {
    const { workspaceId, mode, testClockId } = job.data;
    const clock = await walkClock({ workspaceId, mode }, testClockId, { wait: false });
    logger.info({ testClock: testClockId, status: clock.status }, 'test clock advanced');
  });
  await boss.createQueue(sweep, { retryLimit: 1, expireInSeconds: 900 });
  await boss.schedule(sweep, '* * * * *');
  await boss.work(sweep, async () => {
    const n = await resumeAdvancingClocks();
    if (n) logger.info({ testClocks: n }, 'advancing test clocks resumed');
  });
}
