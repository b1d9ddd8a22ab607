// Checks on the repository itself: generated files are current, the REST layer matches the
// schema, the migrations match the Prisma schema, and a migrated database isolates tenants.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { Kind, parse, validate, type OperationDefinitionNode } from 'graphql';
import { parse as parseYaml } from 'yaml';
import pg from 'pg';
import { printed, schemaPath } from '../schema/print.ts';
import { schema } from '../schema/index.ts';
import { loadOperations } from '../rest-compat/plugin.ts';
import { routes } from '../rest-compat/routes.ts';
import { pendingMigrationSql } from '../scripts/migration-new.ts';
import { listMigrations, migrate } from '../src/core/db/migrate.ts';
import { APP_LOGIN_ROLE, APP_ROLE } from '../src/core/db/client.ts';
import { admin, adminUrl, dropDatabase, dropUnlessFailed, freshDatabase, withDatabase } from './helpers/db.ts';

const ROOT = join(import.meta.dirname, '..');

describe('generated files are current', () => {
  it('schema/schema.graphql is the printed schema', () => {
    const committed = existsSync(schemaPath) ? readFileSync(schemaPath, 'utf8') : '';
    // One message instead of a 600-line diff: the fix is always the same command.
    expect(
      committed === printed(),
      'schema/schema.graphql is stale: run `npm run schema:print` and commit the result',
    ).toBe(true);
    expect(printed()).toContain('type Query');
  });

  it("rest-compat/generated/operations.ts and the dashboard's operation types are what codegen.yml generates", async () => {
    const { generate } = await import('@graphql-codegen/cli');
    const config = parseYaml(readFileSync(join(ROOT, 'codegen.yml'), 'utf8'));
    const targets = Object.keys(config.generates);
    expect(targets).toEqual(['rest-compat/generated/operations.ts', 'src/dashboard/app/generated/operations.ts']);
    // saveToFile=false: the outputs come back in memory and nothing in the tree is written.
    const outputs: { filename: string; content: string }[] = await generate(
      { ...config, cwd: ROOT, silent: true, watch: false },
      false,
    );
    // In the order each output finished, which varies with the number of documents each target reads.
    expect(outputs.map((o) => o.filename).sort()).toEqual([...targets].sort());
    for (const out of outputs) {
      const committed = readFileSync(join(ROOT, out.filename), 'utf8');
      expect(committed === out.content, `${out.filename} is stale: run \`npm run codegen\` and commit the result`).toBe(
        true,
      );
    }
    expect(outputs.find((o) => o.filename === targets[0])?.content).toContain('ListApiKeysQueryVariables');
  }, 20_000);
});

describe('REST operations', () => {
  const files = readdirSync(join(ROOT, 'rest-compat/operations'))
    .filter((f) => f.endsWith('.graphql'))
    .sort();
  const source = files.map((f) => readFileSync(join(ROOT, 'rest-compat/operations', f), 'utf8')).join('\n');
  const operations = parse(source).definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );

  it('every operation validates against the schema', () => {
    expect(files.length).toBeGreaterThan(0);
    // Files share fragments, so they are validated together, as the server loads them.
    const errors = validate(schema, parse(source)).map(
      (e) => `${e.message} (${e.locations?.map((l) => `${l.line}:${l.column}`).join(', ')})`,
    );
    expect(errors).toEqual([]);
    // the loader the server boots with agrees, and maps every route
    expect([...loadOperations(schema).keys()].sort()).toEqual(routes.map((r) => r.id).sort());
  });

  it('operation names are unique', () => {
    const names = operations.map((o) => o.name?.value);
    expect(names.every(Boolean)).toBe(true);
    expect(names.length).toBe(new Set(names).size);
  });

  it('every route names an existing operation of the right kind, and no two routes collide', () => {
    const byName = new Map(operations.map((o) => [o.name!.value, o.operation]));
    const missing = routes.filter((r) => !byName.has(r.id)).map((r) => r.id);
    expect(missing, 'routes without an operation in rest-compat/operations').toEqual([]);
    // A POST that writes nothing and is a query in GraphQL (docs/decisions.md, Credit notes: preview).
    const postedQueries = new Set(['previewCreditNote']);
    for (const r of routes)
      expect({ route: `${r.method} ${r.path}`, kind: byName.get(r.id) }).toEqual({
        route: `${r.method} ${r.path}`,
        kind: r.method === 'GET' || postedQueries.has(r.id) ? 'query' : 'mutation',
      });
    const keys = routes.map((r) => `${r.method} ${r.path}`);
    expect(keys.length).toBe(new Set(keys).size);
    expect(routes.map((r) => r.id).length).toBe(new Set(routes.map((r) => r.id)).size);
  });
});

describe('migrations match prisma/schema', () => {
  it('no schema change is without a migration', async () => {
    const sql = await pendingMigrationSql();
    expect(sql, 'prisma/schema has changes no migration covers: run `npm run migration:new -- <name>`').toBeNull();
  });
});

describe('test databases', () => {
  const exists = async (db: string) =>
    (await admin((c) => c.query('SELECT 1 FROM pg_database WHERE datname = $1', [db]))).rowCount === 1;
  const suite = (state: 'pass' | 'fail') =>
    ({
      type: 'suite',
      tasks: [
        { type: 'test', result: { state: 'pass' } },
        { type: 'test', result: { state } },
      ],
    }) as never;

  it("a failed suite's database is kept for inspection, a passing one's is dropped", async () => {
    const kept = await freshDatabase();
    const dropped = await freshDatabase();
    try {
      await dropUnlessFailed(kept.name, suite('fail'));
      await dropUnlessFailed(dropped.name, suite('pass'));
      expect([await exists(kept.name), await exists(dropped.name)]).toEqual([true, false]);
    } finally {
      await dropDatabase(kept.name);
    }
  });
});

describe('a migrated database', () => {
  const name = `svc_t_meta_${randomBytes(4).toString('hex')}`;
  const url = withDatabase(adminUrl, name);
  let client: pg.Client;
  let firstRun: string[];
  let secondRun: string[];

  beforeAll(async () => {
    await admin((c) => c.query(`CREATE DATABASE ${name}`));
    firstRun = await migrate(url);
    secondRun = await migrate(url);
    client = new pg.Client({ connectionString: url });
    await client.connect();
  });
  // vitest passes the suite second and reads the first argument as fixtures (an object pattern)
  // biome-ignore lint/correctness/noEmptyPattern: see above
  afterAll(async ({}, suite) => {
    await client?.end();
    await dropUnlessFailed(name, suite);
  });

  it('migrate applies every migration once; a second run applies nothing', async () => {
    const all = listMigrations();
    expect(firstRun).toEqual(all.map((m) => m.name));
    expect(secondRun).toEqual([]);
    const { rows } = await client.query(
      'SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" ORDER BY migration_name',
    );
    expect(rows.map((r) => [r.migration_name, r.checksum])).toEqual(all.map((m) => [m.name, m.checksum]));
    expect(rows.every((r) => r.finished_at)).toBe(true);
  });

  it('every table with a "workspaceId" column has row-level security, FORCEd (owner included), and a policy', async () => {
    const { rows } = await client.query<{
      table: string;
      rls: boolean;
      forced: boolean;
      owner: string;
      owned_by_app: boolean;
      app_is_owner_member: boolean;
      policies: number;
    }>(
      `SELECT c.relname AS table, c.relrowsecurity AS rls, c.relforcerowsecurity AS forced, pg_get_userbyid(c.relowner) AS owner,
              c.relowner = (SELECT oid FROM pg_roles WHERE rolname = $1) AS owned_by_app,
              pg_has_role($1, c.relowner, 'MEMBER') AS app_is_owner_member,
              (SELECT count(*)::int FROM pg_policies p WHERE p.schemaname = n.nspname AND p.tablename = c.relname) AS policies
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
          AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'workspaceId' AND NOT a.attisdropped)
        ORDER BY 1`,
      [APP_ROLE],
    );
    // the tenant tables today; a new one joins this list automatically
    expect(rows.map((r) => r.table)).toEqual(
      expect.arrayContaining([
        'api_keys',
        'audit_log',
        'counters',
        'events',
        'idempotency_keys',
        'members',
        'object_sequences',
        'retired_slugs',
      ]),
    );
    const unprotected = rows.filter(
      (r) => !r.rls || !r.forced || r.owned_by_app || r.app_is_owner_member || r.policies < 1,
    );
    expect(
      unprotected,
      'tenant tables need ENABLE and FORCE ROW LEVEL SECURITY and a policy (SELECT enable_tenant_isolation(...) in the migration)',
    ).toEqual([]);
  });

  it('every key of a tenant table includes "workspaceId" (docs/scaling.md), but for the listed exceptions', async () => {
    const violations = await distributionViolations(client);
    const listed = distributionExceptions();
    expect(listed.length, 'docs/scaling.md lists its exceptions in a marked table').toBeGreaterThan(0);
    // Both ways: a new key without "workspaceId" fails, and so does an exception that no longer exists.
    expect(
      violations,
      'a primary key, unique constraint/index or foreign key of a tenant table lacks "workspaceId": add it, or list the key with its reason in docs/scaling.md',
    ).toEqual(listed);
  });

  it('the distribution check sees a key without "workspaceId" (probe)', async () => {
    await client.query('BEGIN');
    try {
      await client.query(
        `CREATE TABLE dist_probe (id text PRIMARY KEY, "workspaceId" text NOT NULL, ref text, UNIQUE ("workspaceId", ref))`,
      );
      await client.query(`CREATE UNIQUE INDEX dist_probe_ref ON dist_probe (ref)`);
      await client.query(
        `CREATE TABLE dist_probe_child ("workspaceId" text, parent text REFERENCES dist_probe (id), PRIMARY KEY ("workspaceId", parent))`,
      );
      const found = (await distributionViolations(client)).filter((v) => v.startsWith('dist_probe'));
      expect(found).toEqual([
        'dist_probe dist_probe_pkey',
        'dist_probe dist_probe_ref',
        'dist_probe_child dist_probe_child_parent_fkey',
      ]);
    } finally {
      await client.query('ROLLBACK');
    }
  });

  it('the workspaces table is isolated too', async () => {
    const { rows } = await client.query(
      `SELECT c.relrowsecurity AS rls, c.relforcerowsecurity AS forced, (SELECT count(*)::int FROM pg_policies WHERE tablename = 'workspaces') AS policies FROM pg_class c WHERE c.oid = 'public.workspaces'::regclass`,
    );
    expect(rows[0]).toEqual({ rls: true, forced: true, policies: 1 });
  });

  it('enable_tenant_isolation() forces row-level security on the table it protects', async () => {
    await client.query('BEGIN');
    try {
      await client.query(`CREATE TABLE meta_probe ("workspaceId" text, mode text)`);
      await client.query(`SELECT enable_tenant_isolation('meta_probe')`);
      const { rows } = await client.query(
        `SELECT relrowsecurity AS rls, relforcerowsecurity AS forced FROM pg_class WHERE oid = 'meta_probe'::regclass`,
      );
      expect(rows[0]).toEqual({ rls: true, forced: true });
    } finally {
      await client.query('ROLLBACK');
    }
  });

  it(`the app's login role (${APP_LOGIN_ROLE}) can log in, has exactly ${APP_ROLE}'s rights and escapes nothing`, async () => {
    const { rows } = await client.query(
      `SELECT rolsuper, rolbypassrls, rolcanlogin, rolcreaterole, rolcreatedb, pg_has_role($1, $2, 'MEMBER') AS member FROM pg_roles WHERE rolname = $1`,
      [APP_LOGIN_ROLE, APP_ROLE],
    );
    expect(rows).toEqual([
      {
        rolsuper: false,
        rolbypassrls: false,
        rolcanlogin: true,
        rolcreaterole: false,
        rolcreatedb: false,
        member: true,
      },
    ]);
    const { rows: escalations } = await client.query(
      `SELECT r.rolname FROM pg_roles r WHERE pg_has_role($1, r.oid, 'MEMBER') AND r.rolname NOT IN ($1, $2)`,
      [APP_LOGIN_ROLE, APP_ROLE],
    );
    expect(escalations, `${APP_LOGIN_ROLE} belongs to no role but ${APP_ROLE}`).toEqual([]);
    const { rows: owned } = await client.query(
      `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relowner = (SELECT oid FROM pg_roles WHERE rolname = $1)`,
      [APP_LOGIN_ROLE],
    );
    expect(owned).toEqual([]);
    // and a migration run again (another database of the cluster) leaves it as it is
    expect(await migrate(url)).toEqual([]);
  });

  it(`the app role (${APP_ROLE}) is neither superuser nor BYPASSRLS and owns nothing`, async () => {
    const { rows } = await client.query(`SELECT rolsuper, rolbypassrls, rolcanlogin FROM pg_roles WHERE rolname = $1`, [
      APP_ROLE,
    ]);
    expect(rows).toEqual([{ rolsuper: false, rolbypassrls: false, rolcanlogin: false }]);
    // no role it belongs to (and so can SET ROLE to) escapes RLS either
    const { rows: escalations } = await client.query(
      `SELECT r.rolname FROM pg_roles r WHERE pg_has_role($1, r.oid, 'MEMBER') AND r.rolname <> $1 AND (r.rolsuper OR r.rolbypassrls)`,
      [APP_ROLE],
    );
    expect(escalations).toEqual([]);
    const { rows: owned } = await client.query(
      `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relowner = (SELECT oid FROM pg_roles WHERE rolname = $1)`,
      [APP_ROLE],
    );
    expect(owned).toEqual([]);
  });

  it('as the app role, with no scope set, a tenant row is invisible and cannot be written', async () => {
    // A real row written by the owner, then read back as svc_app in a transaction without app.workspace_id.
    await client.query(`INSERT INTO counters ("workspaceId", mode, name, value) VALUES ('ws_meta', 'test', 'n', 1)`);
    await client.query('BEGIN');
    try {
      await client.query(`SET LOCAL ROLE ${APP_ROLE}`);
      expect((await client.query('SELECT count(*)::int AS n FROM counters')).rows[0].n).toBe(0);
      await client.query(
        `SELECT set_config('app.workspace_id', 'ws_meta', true), set_config('app.modes', 'test', true)`,
      );
      expect((await client.query('SELECT count(*)::int AS n FROM counters')).rows[0].n).toBe(1);
      await client.query(`SELECT set_config('app.workspace_id', 'ws_other', true)`);
      await expect(
        client.query(`INSERT INTO counters ("workspaceId", mode, name, value) VALUES ('ws_meta', 'test', 'm', 1)`),
      ).rejects.toThrow(/row-level security/);
    } finally {
      await client.query('ROLLBACK');
    }
  });
});

/**
 * Keys of tenant tables (those with a "workspaceId" column) that a database distributed by
 * workspace (Citus) could not enforce: primary keys, unique constraints and indexes, exclusion
 * constraints and foreign keys whose columns lack "workspaceId", and foreign keys to another
 * tenant table that do not pair "workspaceId" with "workspaceId" (rows would not be co-located).
 * As `<table> <constraint or index>`, sorted.
 */
async function distributionViolations(c: pg.Client): Promise<string[]> {
  const { rows } = await c.query<{ key: string }>(`
    WITH tenant AS (
      SELECT c.oid, c.relname, a.attnum AS ws FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace
        JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'workspaceId' AND NOT a.attisdropped
       WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p'))
    SELECT t.relname || ' ' || con.conname AS key FROM tenant t JOIN pg_constraint con ON con.conrelid = t.oid
     WHERE con.contype IN ('p', 'u', 'x', 'f')
       AND (NOT t.ws = ANY (con.conkey)
            OR (con.contype = 'f' AND EXISTS (SELECT 1 FROM tenant r WHERE r.oid = con.confrelid)
                AND NOT EXISTS (SELECT 1 FROM unnest(con.conkey, con.confkey) k(l, f) JOIN tenant r ON r.oid = con.confrelid
                                 WHERE k.l = t.ws AND k.f = r.ws)))
    UNION ALL
    SELECT t.relname || ' ' || i.indexrelid::regclass::text FROM tenant t JOIN pg_index i ON i.indrelid = t.oid
     WHERE i.indisunique AND NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conindid = i.indexrelid AND conrelid = t.oid)
       AND NOT t.ws = ANY (i.indkey::int2[])
     ORDER BY 1`);
  return rows.map((r) => r.key.replaceAll('"', '')).sort();
}

/** The exceptions docs/scaling.md lists between its `distribution-exceptions` markers, as `<table> <key>`, sorted. */
function distributionExceptions(): string[] {
  const doc = readFileSync(join(ROOT, 'docs/scaling.md'), 'utf8');
  const section = doc.split('<!-- distribution-exceptions -->')[1]?.split('<!-- /distribution-exceptions -->')[0] ?? '';
  return section
    .split('\n')
    .map((line) => line.match(/^\|\s*`([a-z_]+)`\s*\|\s*`([A-Za-z_]+)`\s*\|/))
    .filter((m) => m !== null)
    .map((m) => `${m[1]} ${m[2]}`)
    .sort();
}

describe('the tree speaks of the code, not of how it was made', () => {
  it('no file names a tracker issue or a work stop by number', () => {
    // The words are joined here so this file does not match itself.
    const processWord = new RegExp(`\\b(${['iss', 'ue'].join('')}|${['st', 'op'].join('')}) #?\\d+\\b`, 'i');
    const tracked = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((f) => f && !f.startsWith('prisma/migrations/') && !f.endsWith('package-lock.json'))
      .filter((f) => /\.(ts|tsx|mjs|js|md|prisma|graphql|jsonc|yml|yaml|sh|css|html|mjml)$|^\.ci\//.test(f));
    const hits = tracked.flatMap((f) => {
      if (!existsSync(join(ROOT, f))) return [];
      return readFileSync(join(ROOT, f), 'utf8')
        .split('\n')
        .flatMap((line, i) => (processWord.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : []));
    });
    expect(hits).toEqual([]);
  });
});
