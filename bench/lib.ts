/** What the money-path benches share: number formatting and a scratch database dropped at the end. */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { writeResults } from './results.ts';
import { serverEnv, serverNodeFlags } from '../bin/node-flags.js';
// Benches call services in their own process too: the upper modules' reactions first (src/core/reactions.ts).
import '../src/modules/reactions.ts';

// Every bench: no rate limits (the load is the point), and one master key that the app children share
// through the environment. Set while this module loads, before any bench imports the app.
process.env.SVC_RATE_LIMIT = 'off';
process.env.SVC_MASTER_KEY ??= randomBytes(32).toString('hex');

/** A numeric knob from the environment (BENCH_...), else its default. */
export const num = (name: string, d: number) => Number(process.env[name] ?? d);

export const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });

const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

async function admin(sql: string) {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** `svc_bench_<random>` on BENCH_ADMIN_URL: `url` to migrate and serve, `create()` first, `drop()` in a finally. */
export function scratchDatabase() {
  const name = `svc_bench_${randomBytes(5).toString('hex')}`;
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    create: () => admin(`CREATE DATABASE ${name}`),
    drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {}),
  };
}

/**
 * The real app (`bench/server.ts app`) in a child process, started as `svc serve` is (node flags, env),
 * against `databaseUrl`. Its port arrives over IPC; `child` stays reachable for IPC probes and stopping.
 */
export async function startApp(databaseUrl: string, opts: { env?: Record<string, string>; profileName?: string } = {}) {
  const prof = process.env.BENCH_CPU_PROF;
  const child = fork(join(import.meta.dirname, 'server.ts'), ['app'], {
    execArgv: [
      '--import',
      'tsx',
      ...serverNodeFlags,
      ...(prof && opts.profileName
        ? ['--cpu-prof', `--cpu-prof-dir=${prof}`, `--cpu-prof-name=${opts.profileName}`]
        : []),
    ],
    env: { ...serverEnv, ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', ...opts.env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`app server exited with ${code}`)));
  });
  return { child, base: `http://127.0.0.1:${port}` };
}

/** `n` real `svc worker` processes (bin/svc.js) with `env`, each ready when it says so. */
export async function startWorkers(n: number, env: NodeJS.ProcessEnv): Promise<ChildProcess[]> {
  const out: ChildProcess[] = [];
  for (let i = 0; i < n; i++) {
    const w = spawn(process.execPath, [join(import.meta.dirname, '../bin/svc.js'), 'worker'], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    await new Promise<void>((resolve, reject) => {
      let err = '';
      w.stderr!.on('data', (d) => {
        err += d;
        if (err.includes('svc worker running')) resolve();
      });
      w.once('exit', (code) => reject(new Error(`worker exited with ${code}: ${err.slice(-500)}`)));
    });
    out.push(w);
  }
  return out;
}

/**
 * `ledger_daily` rebuilt from every entry with one GROUP BY, as the migration that made it did: for bulk
 * loads run with the triggers off (`session_replication_role = replica`).
 */
export async function rebuildLedgerDaily(c: pg.ClientBase) {
  await c.query(`INSERT INTO ledger_daily ("workspaceId", mode, code, currency, day, shard, debits, credits)
    SELECT "workspaceId", mode, code, currency, ("postedAt" AT TIME ZONE 'UTC')::date, (hashtext("txId") & 15)::smallint,
           sum(CASE WHEN direction = 'debit' THEN amount ELSE 0 END), sum(CASE WHEN direction = 'credit' THEN amount ELSE 0 END)
      FROM ledger_entries GROUP BY 1, 2, 3, 4, 5, 6`);
}

/** A /proc/<pid>/status figure in bytes (VmRSS, VmHWM: the peak resident set), or null off Linux. */
export function procStatus(pid: number, field: string): number | null {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Resets VmHWM to the current RSS (Linux `clear_refs` 5), so the next VmHWM is the peak of what follows. */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** A benchmark's verdicts: what it aims at, whether it got there (null: not measured), what it measured. */
export type Target = readonly [target: string, pass: boolean | null, measured: string];

const verdict = (pass: boolean | null) => (pass === null ? '-' : pass ? 'PASS' : 'MISS');

/**
 * The table every benchmark ends with, its first column as wide as its longest target, and the same
 * rows written to bench/results/<name>.json (bench/results.ts) so the docs point at measured files.
 */
export function printTargets(name: string, targets: readonly Target[]) {
  const width = Math.max('target'.length, ...targets.map(([t]) => t.length)) + 2;
  console.log(`\n  ${'target'.padEnd(width)}result  measured`);
  for (const [t, pass, m] of targets) console.log(`  ${t.padEnd(width)}${verdict(pass).padEnd(8)}${m}`);
  const file = writeResults(
    name,
    targets.map(([target, pass, measured]) => ({ target, result: verdict(pass), measured })),
  );
  console.log(`\n  written to ${file}`);
}
