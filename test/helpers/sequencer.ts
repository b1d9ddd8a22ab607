import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The suite's slowest files, longest first: seconds each took in a whole `npm test` (three forks on
 * a 2-core machine). Only their order matters. vitest's own order runs the files of its
 * last run's cache longest first, and without a cache (a fresh clone, CI) the largest files first;
 * size says little here (test/docs.test.ts is small and the slowest), and a long file that starts
 * last leaves the other workers idle while it finishes. A file slower than the last one listed
 * belongs in this table.
 */
export const slowFiles: Record<string, number> = {
  'test/docs.test.ts': 113,
  'test/bad-input.test.ts': 85,
  'test/modules/webhooks/webhooks-crash.test.ts': 52,
  'test/core/bounded-memory.test.ts': 50,
  'test/noisy-neighbour.test.ts': 44,
  'test/cli/api.test.ts': 43,
  'test/server/db-faults.test.ts': 43,
  'test/dashboard/dashboard.test.ts': 42,
  'test/dashboard/dashboard-screens.test.ts': 36,
  'test/modules/test-clocks/concurrent-advances.test.ts': 33,
  'test/modules/reconciliation/large-upload.test.ts': 32,
  'test/core/db/embedded-recovery.test.ts': 32,
  'test/cli/listen.test.ts': 31,
  'test/modules/test-clocks/walk-cut.test.ts': 30,
  'test/cli/cli.test.ts': 25,
  'test/hosted/language.test.ts': 24,
  'test/server/shutdown.test.ts': 24,
  'test/modules/members/members.test.ts': 21,
  'test/modules/webhooks/webhooks.test.ts': 20,
  'test/core/auth/scopes.test.ts': 19,
  'test/modules/payment-methods/offsession-live.test.ts': 18,
  'test/cli/dev-idp-guard.test.ts': 16,
  'test/hosted/portal-page.test.ts': 15,
  'test/hosted/hosted-invoice-page.test.ts': 15,
  'test/modules/refunds/refunds.test.ts': 15,
  'test/core/db/analyze.test.ts': 13,
  'test/rest-compat/openapi.test.ts': 13,
  'test/install.test.ts': 13,
  'test/modules/workspaces/lifecycle.test.ts': 13,
  'test/meta.test.ts': 13,
  'test/core/db/embedded.test.ts': 12,
  'test/cli/bind.test.ts': 12,
  'test/modules/customer-balances/customer-balances.test.ts': 12,
  'test/modules/subscriptions/renewals-crash.test.ts': 11,
  'test/server/graphiql.test.ts': 11,
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
