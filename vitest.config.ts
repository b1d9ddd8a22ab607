import { defineConfig } from 'vitest/config';

export default defineConfig({
  // One graphql instance: Pothos and yoga load the CommonJS build, so our imports must too.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Two files at a time: on a 2-core CI machine each fork shares the cores with PostgreSQL and the
    // svc processes some files spawn, so every wait in a case runs slower than on a workstation.
    maxWorkers: 2,
    // The global limits only catch a hang: what a case proves is in its own conditions (`until`
    // deadlines, per-case timeouts), never in how fast the machine is. 30 s was within 2x of the
    // slowest cases on a loaded 2-core machine (the 100k-key case took 19 s).
    testTimeout: 60_000,
    hookTimeout: 60_000,
    env: {
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      SVC_DATA_DIR: '.data/test',
      SVC_WEBHOOK_ALLOW_LOOPBACK: '1',
      SVC_DB_POOL: '10',
    },
  },
});
