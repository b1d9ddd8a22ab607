import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * The system tier: files that start whole `svc` processes, a browser or an embedded PostgreSQL, cut the
 * database, or run the docs' examples. `npm run test:fast` leaves them out (the inner loop);
 * `npm run test:system` runs them alone; `npm test` runs every tier (CONTRIBUTING.md, Tests).
 */
export const systemTier = [
  'test/server/shutdown.test.ts',
  'test/server/db-faults.test.ts',
  'test/server/boot-wait.test.ts',
  'test/server/graphiql.test.ts',
  'test/core/db/embedded.test.ts',
  'test/core/db/embedded-recovery.test.ts',
  'test/install.test.ts',
  'test/docs.test.ts',
  'test/cli/*.test.ts',
  'test/client/svc.test.ts',
  'test/client/webhook-verify.test.ts',
  'test/dashboard/*.test.ts',
  'test/hosted/*.test.ts',
  'test/modules/subscriptions/renewals-crash.test.ts',
  'test/noisy-neighbour.test.ts',
];

const tier = process.env.TEST_TIER;
/** `npm run test:cluster` only (it brings up etcd, three Patroni nodes and HAProxy): never in `npm test`. */
const cluster = process.env.TEST_CLUSTER === '1';

export default defineConfig({
  // One graphql instance: Pothos and yoga load the CommonJS build, so our imports must too.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    include: tier === 'system' ? systemTier : ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...(tier === 'fast' ? systemTier : []), ...(cluster ? [] : ['test/cluster/**'])],
    pool: 'forks',
    // A file at a time per core: each fork shares the cores with PostgreSQL and the svc processes some
    // files spawn, so more forks than cores only lengthens every wait in a case.
    maxWorkers: Math.max(2, availableParallelism()),
    // The global limits only catch a hang: what a case proves is in its own conditions (`until`
    // deadlines, per-case timeouts), never in how fast the machine is. 30 s was within 2x of the
    // slowest cases on a loaded 2-core machine (the 100k-key case took 19 s).
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // `expect.poll` waits for a condition, so its deadline is a hang catcher too (vitest's 1 s default
    // fails a dashboard action whose refetch a loaded machine answers in 1.2 s).
    expect: { poll: { timeout: 15_000 } },
    env: {
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      SVC_DATA_DIR: '.data/test',
      SVC_WEBHOOK_ALLOW_LOOPBACK: '1',
      SVC_DB_POOL: '10',
    },
  },
});
