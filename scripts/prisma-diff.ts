// Offline, database-free `prisma migrate diff --from-schema A --to-schema B --script`.
//
// The Prisma 7 CLI runs a native schema-engine binary that it downloads on first use, which is not
// possible here. @prisma/schema-engine-wasm is the same engine built for WebAssembly; it reaches
// databases only through a JS driver adapter, and a datamodel-to-datamodel diff needs none, so we
// give it an in-memory adapter that answers the one probe query the engine sends at start-up.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import {
  bindMigrationAwareSqlAdapterFactory,
  ColumnTypeEnum,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
  type SqlQuery,
} from '@prisma/driver-adapter-utils';
import * as glue from '@prisma/schema-engine-wasm/schema_engine_bg';
import type { DiffTarget, SchemaEngine } from '@prisma/schema-engine-wasm/schema_engine_bg';

export type SchemaFile = { path: string; content: string };

/** What the engine prints (and `prisma migrate diff --script` shows) when there is nothing to migrate. */
export const EMPTY_MIGRATION = '-- This is an empty migration.\n';
export const isEmptyDiff = (sql: string): boolean => sql.trim() === '' || sql === EMPTY_MIGRATION;

/**
 * A driver adapter with no database behind it. `SchemaEngine.new` connects eagerly and sends
 * `SELECT EXISTS(… pg_namespace …), version(), current_setting('server_version_num')` to tell
 * PostgreSQL from CockroachDB; we answer "PostgreSQL, schema exists". Any other query means the
 * engine wanted a real database, which a schema-to-schema diff must not: fail loudly instead.
 */
function offlineAdapter(): SqlDriverAdapter {
  const refuse = (what: string): never => {
    throw new Error(
      `prisma-diff: the schema engine tried to use the database (${what}); schema diffs are meant to be offline`,
    );
  };
  return {
    provider: 'postgres',
    adapterName: 'prisma-diff-offline',
    async queryRaw({ sql }: SqlQuery) {
      if (!/\bversion\(\)/.test(sql)) return refuse(sql);
      return {
        columnNames: ['exists', 'version', 'numeric_version'],
        columnTypes: [ColumnTypeEnum.Boolean, ColumnTypeEnum.Text, ColumnTypeEnum.Int32],
        rows: [[true, 'PostgreSQL 16.0 (prisma-diff offline stub)', 160000]],
      };
    },
    executeRaw: async ({ sql }) => refuse(sql),
    executeScript: async (script) => refuse(script),
    startTransaction: async () => refuse('startTransaction'),
    getConnectionInfo: () => ({ supportsRelationJoins: true }),
    dispose: async () => {},
  };
}

const offlineFactory: SqlMigrationAwareDriverAdapterFactory = {
  provider: 'postgres',
  adapterName: 'prisma-diff-offline',
  connect: async () => offlineAdapter(),
  connectToShadowDb: async () => offlineAdapter(),
};

/**
 * The package entry (`schema_engine.js`) does `import * as wasm from "./schema_engine_bg.wasm"`
 * (wasm-bindgen's bundler target), which plain Node cannot load, so do the bundler's job: instantiate
 * the .wasm against the JS glue module, hand the instance back to the glue, run its start function.
 */
async function loadEngine(): Promise<SchemaEngine> {
  // The glue's panic hook writes the Rust panic message into this global (the CLI installs the same
  // object for its other Prisma wasm modules); without it a panic surfaces as an unrelated TypeError.
  const g = globalThis as {
    PRISMA_WASM_PANIC_REGISTRY?: { message: string; get(): string; set_message(m: string): void };
  };
  g.PRISMA_WASM_PANIC_REGISTRY ??= {
    message: '',
    get() {
      return this.message;
    },
    set_message(m) {
      this.message = `RuntimeError: ${m}`;
    },
  };

  const entry = createRequire(import.meta.url).resolve('@prisma/schema-engine-wasm');
  const bytes = await readFile(new URL('schema_engine_bg.wasm', `file://${entry}`));
  const { instance } = await WebAssembly.instantiate(bytes, {
    './schema_engine_bg.js': glue as unknown as WebAssembly.ModuleImports,
  });
  glue.__wbg_set_wasm(instance.exports);
  (instance.exports.__wbindgen_start as () => void)();

  // The callback receives the engine's JSON log lines; only worth seeing when debugging.
  const log = (line: string) => {
    if (process.env.PRISMA_DIFF_DEBUG) console.error(line);
  };
  return glue.SchemaEngine.new({ datamodels: undefined }, log, bindMigrationAwareSqlAdapterFactory(offlineFactory));
}

let engine: Promise<SchemaEngine> | undefined;

const target = (files: SchemaFile[] | null): DiffTarget =>
  files === null ? { tag: 'empty' } : { tag: 'schemaDatamodel', files };

/**
 * The SQL that migrates a database from `from` (null = empty database) to `to`, exactly as
 * `prisma migrate diff --from-schema … --to-schema … --script` prints it; `EMPTY_MIGRATION` when
 * nothing changes. Each side is the full list of schema files (multi-file schemas are fine).
 */
export async function diffSchemas(from: SchemaFile[] | null, to: SchemaFile[]): Promise<string> {
  engine ??= loadEngine();
  const result = await (await engine).diff({
    from: target(from),
    to: target(to),
    script: true,
    exitCode: null,
    filters: { externalTables: [], externalEnums: [] },
  });
  return result.stdout ?? '';
}
