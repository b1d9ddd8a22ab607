import { admin, adminUrl, templateName, withDatabase } from './db.ts';
import { migrate } from '../../src/core/db/migrate.ts';
import { PgBoss } from 'pg-boss';
import { randomBytes } from 'node:crypto';

/** Migrates one template database; every test file clones it. */
export default async function setup() {
  const name = templateName();
  const exists = await admin(
    async (c) => (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount,
  );
  if (exists) return;
  // Each project of vitest.config.ts runs this, at the same time, in one process: the build's name is
  // its own, and the first rename wins (the other build is dropped).
  const building = `${name}_build_${randomBytes(4).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${building}`));
  await migrate(withDatabase(adminUrl, building));
  // pg-boss installs its schema on first start; done once here, every test database starts with it.
  const boss = new PgBoss({
    connectionString: withDatabase(adminUrl, building),
    schema: 'pgboss',
    supervise: false,
    schedule: false,
  });
  await boss.start();
  await boss.stop({ graceful: false });
  await admin(async (c) => {
    await c
      .query(`ALTER DATABASE ${building} RENAME TO ${name}`)
      .catch(async () => c.query(`DROP DATABASE ${building}`));
  });
}
