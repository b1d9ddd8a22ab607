import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import SlowFirst from './test/helpers/sequencer.ts';

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
  'test/modules/test-clocks/walk-cut.test.ts',
  'test/noisy-neighbour.test.ts',
];

/**
 * System files that run in a process of their own: they kill, cut or signal what they started
 * (process groups, an embedded or private PostgreSQL cluster, crashes), so a leftover of theirs
 * stays out of the next file's process. The rest of the system tier (the CLI, the docs' examples,
 * the browser tests) only starts children it stops and changes nothing process-wide that
 * test/helpers/restore-process.ts does not put back: it shares a worker's process (`shared`).
 */
export const systemOwnProcess = [
  'test/server/shutdown.test.ts',
  'test/server/db-faults.test.ts',
  'test/server/boot-wait.test.ts',
  'test/core/db/embedded.test.ts',
  'test/core/db/embedded-recovery.test.ts',
  'test/modules/subscriptions/renewals-crash.test.ts',
  'test/modules/test-clocks/walk-cut.test.ts',
  'test/noisy-neighbour.test.ts',
];

/**
 * Files that run in a process of their own (`own-process` project, `isolate: true`): the system files
 * above, and files that change process-wide state another file would then see (process.env, `config`,
 * spies, fake timers, signal handlers) or that measure the process (memory, rate limits, crashes).
 * Every other file shares one process per worker with the files before it (`shared`, `isolate:
 * false`): the app's modules load once per worker instead of once per file, which was most of a
 * small file's time (a fresh process costs 2-3 s quiet, 5-8 s loaded). A file that fails only after
 * another file in the same worker belongs here (or its leak gets fixed: the test-clock walkers
 * resume on start for this reason).
 */
export const ownProcess = [
  ...systemOwnProcess,
  'test/modules/webhooks/webhooks-crash.test.ts',
  'test/core/bounded-memory.test.ts',
  // Measures its process's RSS while 200,000 rows stream in.
  'test/modules/reconciliation/large-upload.test.ts',
  // Its 400 ms acquire timeout failed to fill its pools once in a shared worker at load 15 (not examined further).
  'test/core/db/unavailable.test.ts',
  'test/core/private-files.test.ts',
  'test/core/tracing.test.ts',
  'test/server/metrics.test.ts',
];

/**
 * `npm run test:unit`: the billing and reconciliation rules as pure functions, no database, no server: worked
 * examples in test/unit/ (its glob takes `reconciliation-*.test.ts`), and the property tests beside their modules.
 * Part of the fast tier and of `npm test`.
 */
export const unitTier = [
  'test/unit/**/*.test.ts',
  'test/core/money-parse.test.ts',
  'test/modules/plans/pricing.test.ts',
  'test/modules/credit-notes/amounts.test.ts',
  'test/modules/subscriptions/periods.test.ts',
  'test/modules/coupons/discount.test.ts',
  'test/modules/documents/totals.test.ts',
];

/**
 * `npm run test:fast`, the inner loop: the unit tier and every file that needs no database, server or
 * child process (the rules over the whole tree, renderers, parsers, the providers' answer tables).
 * A new file of that kind belongs here.
 */
export const fastTier = [
  ...unitTier,
  'test/budgets.test.ts',
  'test/citations.test.ts',
  'test/core/db/sql-template.test.ts',
  'test/core/defang.test.ts',
  'test/core/event-ids.test.ts',
  'test/core/i18n/catalog.test.ts',
  'test/core/i18n/language.test.ts',
  'test/core/list-spec.test.ts',
  'test/core/private-files.test.ts',
  'test/core/reactions.test.ts',
  'test/graphql/graph-cost.test.ts',
  'test/imports.test.ts',
  'test/layers.test.ts',
  'test/meta-status-probes.test.ts',
  'test/modules/adapters/capabilities.test.ts',
  'test/modules/collection/offsession-answers.test.ts',
  'test/modules/ledger/csv-crlf.test.ts',
  'test/modules/receipts/receipt-render.test.ts',
  'test/modules/reconciliation/formats*.test.ts',
  'test/money-writers.test.ts',
  'test/providers/providers.test.ts',
  'test/scopes-agree.test.ts',
  'test/state-machines-used.test.ts',
];

const tier = process.env.TEST_TIER;
/** `npm run test:cluster` only (it brings up etcd, three Patroni nodes and HAProxy): never in `npm test`. */
const cluster = process.env.TEST_CLUSTER === '1';
/**
 * Files that measure latency (p95 of one tenant under another's flood): the `alone` project runs them
 * after everything else (its `sequence.groupOrder` is 1: vitest starts that group once group 0, the
 * `shared` and `own-process` files, has finished), one at a time, on cores no other file shares.
 */
const alone = ['test/noisy-neighbour.test.ts'];

/** The files of the tier asked for (TEST_TIER): unit, fast, app (all but the system tier), system; unset, all. */
const tiers: Record<string, string[]> = { unit: unitTier, fast: fastTier, system: systemTier };
const included = (tier && tiers[tier]) || ['test/**/*.test.ts'];
const excluded = ['**/node_modules/**', ...(tier === 'app' ? systemTier : []), ...(cluster ? [] : ['test/cluster/**'])];

export default defineConfig({
  // One graphql instance: Pothos and yoga load the CommonJS build, so our imports must too.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    pool: 'forks',
    // The slowest files first (test/helpers/sequencer.ts), whatever vitest's cache holds.
    sequence: { sequencer: SlowFirst },
    // One fork more than cores: a file also waits (children booting, a provider's timeout, a job's
    // heartbeat), and with a fork per core the CPUs were idle 10% of a whole run on 2 cores; with 3
    // forks 3%, and the run took 569 s instead of 652 s (docs in CONTRIBUTING.md, Tests).
    maxWorkers: availableParallelism() + 1,
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
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: included,
          exclude: [...excluded, ...ownProcess],
          isolate: false,
          // Puts back process.env, `config`, spies and timers after each file (the next one starts clean).
          setupFiles: ['test/helpers/restore-process.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'own-process',
          include: tier && tiers[tier] ? included.filter((f) => ownProcess.includes(f)) : ownProcess,
          exclude: [...excluded, ...alone],
          isolate: true,
        },
      },
      {
        extends: true,
        test: {
          name: 'alone',
          include: !tier || tier === 'system' ? alone : [],
          exclude: excluded,
          isolate: true,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
