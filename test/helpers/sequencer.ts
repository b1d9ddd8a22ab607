import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The suite's slowest files, longest first: seconds each took in a whole `npm test` on a loaded
 * 2-core machine (load 8-14). Only their order matters. vitest's own order runs the files of its
 * last run's cache longest first, and without a cache (a fresh clone, CI) the largest files first;
 * size says little here (test/docs.test.ts is small and the slowest), and a long file that starts
 * last leaves the other worker idle while it finishes. A file slower than the last one listed
 * belongs in this table.
 */
export const slowFiles: Record<string, number> = {
  'test/docs.test.ts': 216,
  'test/modules/webhooks/webhooks-crash.test.ts': 132,
  'test/cli/api.test.ts': 126,
  'test/bad-input.test.ts': 106,
  'test/dashboard/dashboard.test.ts': 97,
  'test/core/db/embedded-recovery.test.ts': 97,
  'test/modules/customer-balances/customer-balances.test.ts': 92,
  'test/core/bounded-memory.test.ts': 62,
  'test/cli/cli.test.ts': 60,
  'test/server/shutdown.test.ts': 56,
  'test/core/db/embedded.test.ts': 46,
  'test/modules/test-clocks/walk-cut.test.ts': 45,
  'test/cli/dev-idp-guard.test.ts': 42,
  'test/modules/payment-methods/offsession-live.test.ts': 39,
  'test/server/db-faults.test.ts': 39,
  'test/cli/listen.test.ts': 34,
  'test/modules/test-clocks/concurrent-advances.test.ts': 33,
  'test/hosted/portal-page.test.ts': 32,
  'test/modules/webhooks/webhooks.test.ts': 23,
  'test/modules/refunds/refunds.test.ts': 22,
  'test/modules/subscriptions/renewals-crash.test.ts': 21,
  'test/modules/subscriptions/lifecycle.test.ts': 21,
  'test/core/auth/scopes.test.ts': 20,
  'test/server/graphiql.test.ts': 20,
  'test/modules/members/members.test.ts': 20,
  'test/server/boot-wait.test.ts': 19,
  'test/dashboard/dashboard-screens.test.ts': 19,
  'test/hosted/setup-page.test.ts': 18,
  'test/hosted/language.test.ts': 17,
  'test/hosted/hosted-invoice-page.test.ts': 17,
  'test/rest-compat/openapi.test.ts': 16,
  'test/modules/payouts/payouts.test.ts': 16,
  'test/modules/workspaces/lifecycle.test.ts': 16,
  'test/hosted/hosted-page.test.ts': 15,
};

const relative = (spec: TestSpecification) => spec.moduleId.slice(spec.project.config.root.length + 1);

/**
 * vitest's order (groups, then projects, each project's files by its cache or size), with the files
 * of `slowFiles` moved to the front of their project, longest first: the two workers start the long
 * files and end on short ones, so they finish together.
 */
export default class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const key = (spec: TestSpecification) => [
      spec.project.config.sequence.groupOrder,
      spec.project.name,
      -(slowFiles[relative(spec)] ?? 0),
    ];
    return base.sort((a, b) => {
      const [ka, kb] = [key(a), key(b)];
      for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i] < kb[i] ? -1 : 1;
      return 0;
    });
  }
}
