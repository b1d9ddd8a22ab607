// The migration chain, replayed into the test template, builds the schema that the newest snapshot
// describes. Only the newest migration keeps its `schema.snapshot.prisma` (git holds the older ones),
// so this replay is what keeps every older migration honest.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { diffSchemas } from '../../../scripts/prisma-diff.ts';
import { listMigrations, migrationsDir } from '../../../src/core/db/migrate.ts';
import { admin, adminUrl, dropDatabase, freshDatabase, withDatabase } from '../../helpers/db.ts';

/** What a Prisma schema decides, read from the catalogue of the `public` schema. */
async function catalogue(url: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const rows = async (sql: string) => (await c.query(sql)).rows.map((r) => Object.values(r).join(' | '));
    return {
      tables: await rows(`SELECT table_name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_name <> '_prisma_migrations' ORDER BY 1`),
      columns: await rows(`SELECT table_name, column_name, data_type, udt_name, is_nullable, column_default
        FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name <> '_prisma_migrations' ORDER BY 1, 2`),
      enums: await rows(`SELECT t.typname, string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder)
        FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid JOIN pg_namespace n ON n.oid = t.typnamespace
        WHERE n.nspname = 'public' GROUP BY 1 ORDER BY 1`),
      // A partitioned table's index prints `ON ONLY`; the schema's index is the same one.
      indexes: await rows(`SELECT indexname, replace(indexdef, ' ON ONLY ', ' ON ') FROM pg_indexes
        WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' ORDER BY 1`),
      foreignKeys: await rows(`SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid)
        FROM pg_constraint WHERE contype = 'f' AND connamespace = 'public'::regnamespace ORDER BY 1, 2`),
    };
  } finally {
    await c.end();
  }
}

describe('migration chain', () => {
  const fromSnapshot = `svc_snap_${randomBytes(5).toString('hex')}`;
  let replayed: { url: string; name: string };

  beforeAll(async () => {
    const newest = listMigrations().at(-1)!.name;
    const path = `prisma/migrations/${newest}/schema.snapshot.prisma`;
    const snapshot = [{ path, content: readFileSync(join(migrationsDir, newest, 'schema.snapshot.prisma'), 'utf8') }];
    const sql = await diffSchemas(null, snapshot);
    await admin((c) => c.query(`CREATE DATABASE ${fromSnapshot}`));
    const c = new pg.Client({ connectionString: withDatabase(adminUrl, fromSnapshot) });
    await c.connect();
    await c.query(sql).finally(() => c.end());
    replayed = await freshDatabase();
  });
  afterAll(async () => {
    await dropDatabase(fromSnapshot);
    if (replayed) await dropDatabase(replayed.name);
  });

  it('only the newest migration keeps a schema snapshot', () => {
    const withSnapshot = listMigrations()
      .map((m) => m.name)
      .filter((name) => {
        try {
          readFileSync(join(migrationsDir, name, 'schema.snapshot.prisma'));
          return true;
        } catch {
          return false;
        }
      });
    expect(withSnapshot).toEqual([listMigrations().at(-1)!.name]);
  });

  it('replayed from the first migration, builds every table, column, enum, key and index of the snapshot', async () => {
    const want = await catalogue(withDatabase(adminUrl, fromSnapshot));
    const got = await catalogue(replayed.url);
    // Tables, columns and enums are the schema's alone: equal both ways.
    expect(got.tables).toEqual(want.tables);
    expect(got.columns).toEqual(want.columns);
    expect(got.enums).toEqual(want.enums);
    // Hand-written SQL adds keys (composite, tenant-scoped) and indexes (partial, expression) that a Prisma
    // schema cannot state: every one the schema states is there.
    expect(want.foreignKeys.filter((k) => !got.foreignKeys.includes(k))).toEqual([]);
    expect(want.indexes.filter((i) => !got.indexes.includes(i))).toEqual([]);
  });
});
