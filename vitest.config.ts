import { defineConfig } from 'vitest/config';

export default defineConfig({
  // One graphql instance: Pothos and yoga load the CommonJS build, so our imports must too.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
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
