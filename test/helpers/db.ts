import pg from 'pg';
import type { RunnerTask, RunnerTestFile, RunnerTestSuite } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { listMigrations } from '../../src/core/db/migrate.ts';
import { createRequire } from 'node:module';

const pgBossVersion = createRequire(import.meta.url)('pg-boss/package.json').version as string;

/** The test PostgreSQL: TEST_DATABASE_URL, else the local server. */
export const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

export const withDatabase = (url: string, name: string) => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

/** Template name changes whenever a migration does, so stale templates are never reused. */
export const templateName = () =>
  `svc_tpl_${createHash('sha256')
    .update(
      listMigrations()
        .map((m) => m.name + m.checksum)
        .join() + pgBossVersion,
    )
    .digest('hex')
    .slice(0, 12)}`;

export async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** A fresh database per test file, cloned from the migrated template (kept after a failure). */
export async function freshDatabase(): Promise<{ url: string; name: string }> {
  const name = `svc_t_${randomBytes(5).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${templateName()}`));
  return { url: withDatabase(adminUrl, name), name };
}

export async function dropDatabase(name: string) {
  await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).catch(() => {});
}

const failed = (task: RunnerTask): boolean =>
  task.result?.state === 'fail' || ('tasks' in task && task.tasks.some(failed));

/**
 * For `afterAll(({}, suite) => dropUnlessFailed(name, suite))`: drops the test database, unless a
 * test (or hook) of the suite failed; then it stays, named on stderr, for inspection with psql.
 */
export async function dropUnlessFailed(name: string, suite: Readonly<RunnerTestSuite | RunnerTestFile>) {
  if (failed(suite as RunnerTask)) {
    console.error(
      `test database kept for inspection: ${withDatabase(adminUrl, name)} (drop it with: psql -c 'DROP DATABASE ${name}')`,
    );
    return;
  }
  await dropDatabase(name);
}
