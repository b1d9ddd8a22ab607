import { logger } from '../src/core/logger.ts';
import {
  requeueAdvancingClocks,
  TEST_CLOCK_QUEUE,
  type TestClockJob,
  testClockFanOut,
  testClockQueue,
  walkClock,
} from '../src/modules/test-clocks/service.ts';
import { MAX_WALKERS } from '../src/modules/test-clocks/walkers.ts';
import { job } from './job.ts';

/**
 * Queue `test-clock-advance` (docs/decisions.md, Test clocks): a large advance, one job per advance,
 * written by the relay when it publishes `test_clock.advancing`. The walker holds the clock's
 * advisory lock; a job that finds it held waits for that walker (a request's, bounded). Jobs are
 * grouped by workspace and run one per workspace at a time across workers, so a workspace's burst
 * of advances never holds the queue for another workspace; at most MAX_WALKERS per process.
 */
export const testClockAdvance = job<TestClockJob>({
  queue: TEST_CLOCK_QUEUE,
  policy: testClockQueue,
  take: { batchSize: 1, localConcurrency: MAX_WALKERS },
  fairPerWorkspace: true,
  fromRelay: testClockFanOut,
  async handler([advance]) {
    const { workspaceId, mode, testClockId } = advance.data;
    const clock = await walkClock({ workspaceId, mode }, testClockId);
    logger.info({ testClock: testClockId, status: clock.status }, 'test clock advanced');
  },
});

/** Every minute, re-queues clocks left advancing (a lost job, a killed or stopped walker). */
export const testClockSweep = job({
  queue: `${TEST_CLOCK_QUEUE}-sweep`,
  schedule: '* * * * *',
  policy: { retryLimit: 1, expireInSeconds: 900 },
  async handler(_jobs, { boss }) {
    const n = await requeueAdvancingClocks(boss);
    if (n) logger.info({ testClocks: n }, 'advancing test clocks re-queued');
  },
});
