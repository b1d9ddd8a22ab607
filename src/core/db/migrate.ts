import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { sha256Hex } from '../crypto.ts';
import { randomUUID } from 'node:crypto';
import { ensureAppLogin } from './roles.ts';

export const migrationsDir = join(import.meta.dirname, '../../../prisma/migrations');

// Same table Prisma keeps, so `prisma migrate deploy` on a connected machine agrees with us.
const HISTORY = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;
const LOCK_KEY = 72_707_369; // any constant: one migrator at a time per database

export function listMigrations(dir = migrationsDir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: sha256Hex(sql) };
    });
}

/** Applies pending migrations in order, each in its own transaction, under an advisory lock. */
/** `onPending` hears how many migrations are about to be applied (the CLI's progress bar). */
export async function migrate(
  databaseUrl: string,
  log: (line: string) => void = () => {},
  onPending: (count: number) => void = () => {},
): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(HISTORY);
    const { rows } = await client.query<{ migration_name: string; checksum: string }>(
      `SELECT migration_name, checksum FROM "_prisma_migrations"
       WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const done = new Map(rows.map((r) => [r.migration_name, r.checksum]));
    onPending(listMigrations().filter((m) => !done.has(m.name)).length);
    for (const m of listMigrations()) {
      const previous = done.get(m.name);
      if (previous) {
        if (previous !== m.checksum) log(`warning: ${m.name} was edited after it was applied`);
        continue;
      }
      log(`applying ${m.name}`);
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, finished_at, applied_steps_count)
           VALUES ($1, $2, $3, now(), 1)`,
          [randomUUID(), m.checksum, m.name],
        );
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${m.name} failed: ${(e as Error).message}`);
      }
      applied.push(m.name);
    }
    await ensureAppLogin(client, databaseUrl, log);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => {});
    await client.end();
  }
  return applied;
}
