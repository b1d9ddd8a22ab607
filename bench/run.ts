/**
 * `npm run bench`: the layer ladder for GET /v1/api-keys?limit=20, a Prisma-vs-pg micro-benchmark,
 * the cost of row-level security, the server's RSS, and the targets, in one run.
 *
 * Process layout: every server runs in a CHILD process (bench/server.ts, one per ladder step; the
 * GraphQL and REST steps share one child running the real app). The load generator (autocannon,
 * 32 connections, no pipelining) and the in-process micro-benchmarks run in this parent process.
 *
 * Env:
 *   DATABASE_URL             use this database (migrated, seeded, kept); default: a fresh
 *                            svc_bench_<random> on BENCH_ADMIN_URL, dropped at the end
 *   BENCH_ADMIN_URL          default postgresql://postgres@127.0.0.1:5432/postgres
 *   BENCH_SECONDS            measured seconds per ladder step (default 10)
 *   BENCH_WARMUP_SECONDS     warm-up seconds per ladder step (default 5: the app's JIT needs it)
 *   BENCH_CONNECTIONS        autocannon connections (default 32)
 *   BENCH_MICRO_SECONDS      seconds per micro-benchmark variant (default BENCH_SECONDS / 3, at least 1)
 *   BENCH_MICRO_CONCURRENCY  operations in flight in the micro-benchmarks (default 16)
 *   BENCH_CPU_PROF           a directory: the server children run with --cpu-prof into it
 *                            (summarise a profile with `tsx bench/profile-summary.ts <file>`)
 *   LOG_LEVEL                passed to the app child (default info, as in production; logs go to /dev/null)
 *   BENCH_APP_ONLY           1: only the app's steps (4, 5) and its memory, for quick comparisons (no targets)
 *   BENCH_REST_ONLY          1: only the bare handler (1) and REST (5), the REST target; written to
 *                            bench/results/rest.json (bench/results.ts)
 *   BENCH_APP_FLAGS          extra node flags for the app child (experiments: e.g. V8 heap flags)
 *   BENCH_SMAPS              1: print the app's resident memory by mapping after the load steps
 *   BENCH_OBSERVABILITY      0: skip the cost of metrics and tracing (REST step, ABBA: six app children)
 *   BENCH_OTEL_SAMPLE        the sampling ratio of that comparison's tracing run (default 0.1, as documented)
 */
import os from 'node:os';
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon, { type Request as AcRequest } from 'autocannon';
import pg from 'pg';
import { serverEnv, serverNodeFlags } from '../bin/node-flags.js';
import { sql } from '../src/core/db/sql-template.ts';
import { procStatus } from './lib.ts';
import { writeResults } from './results.ts';

// Before anything imports src/core/config.ts.

const num = (name: string, d: number) => {
  const v = process.env[name];
  const n = v === undefined || v === '' ? d : Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number`);
  return n;
};
const SECONDS = num('BENCH_SECONDS', 10);
const WARMUP = num('BENCH_WARMUP_SECONDS', 5);
const CONNECTIONS = Math.round(num('BENCH_CONNECTIONS', 32));
const MICRO_SECONDS = num('BENCH_MICRO_SECONDS', Math.max(1, SECONDS / 3));
const MICRO_CONCURRENCY = Math.round(num('BENCH_MICRO_CONCURRENCY', 16));
const CPU_PROF = process.env.BENCH_CPU_PROF
  ? resolve(process.env.BENCH_CPU_PROF === '1' ? 'bench/.profiles' : process.env.BENCH_CPU_PROF)
  : null;
const APP_ONLY = process.env.BENCH_APP_ONLY === '1';
const REST_ONLY = process.env.BENCH_REST_ONLY === '1';
const APP_FLAGS = (process.env.BENCH_APP_FLAGS ?? '').split(' ').filter(Boolean);
const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const LIMIT = 20;
const TARGET = `/v1/api-keys?limit=${LIMIT}`;

const { migrate } = await import('../src/core/db/migrate.ts');
const { openDatabase, closeDatabase, db, inTenant, tenantQuery, APP_ROLE } = await import('../src/core/db/client.ts');
const { bootstrapWorkspace } = await import('../src/modules/workspaces/service.ts');
const { signRequest, signingKeyOf } = await import('../src/core/auth/signing.ts');
const { encrypt, randomHex } = await import('../src/core/crypto.ts');
const { newId } = await import('../src/core/ids.ts');
const { flushUsage } = await import('../src/core/auth/authenticate.ts');
const { config } = await import('../src/core/config.ts');

// ---------------------------------------------------------------------------------------------
// Output helpers

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const ms = (n: number) => `${fmt(n, n < 10 ? 2 : 1)} ms`;
const x = (n: number) => `${fmt(n, 2)}x`;
const mb = (bytes: number) => `${fmt(bytes / 1024 / 1024, 1)} MB`;
function table(head: string[], rows: string[][], right: number[] = []) {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    `  ${cells.map((c, i) => (right.includes(i) ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ')}`.trimEnd();
  console.log(line(head));
  console.log(`  ${widths.map((w) => '-'.repeat(w)).join('  ')}`);
  for (const r of rows) console.log(line(r));
}
const section = (title: string) => console.log(`\n== ${title} ==`);

// ---------------------------------------------------------------------------------------------
// Database: a fresh one unless DATABASE_URL is given

const withDatabase = (url: string, name: string) => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};
async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

let dbName: string | null = null;
let url = process.env.DATABASE_URL || '';
const children = new Set<ChildProcess>();

async function cleanup() {
  for (const c of children) c.kill('SIGTERM');
  await flushUsage().catch(() => {});
  await closeDatabase().catch(() => {});
  if (dbName) {
    const name = dbName;
    dbName = null;
    await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).catch((e) =>
      console.error(`could not drop ${name}: ${e.message}`),
    );
  }
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    console.error(`\n${sig}: cleaning up`);
    void cleanup().finally(() => process.exit(130));
  });
}

// ---------------------------------------------------------------------------------------------
// Servers (child processes)

interface Server {
  mode: string;
  pid: number;
  base: string;
  mem(): Promise<{
    rss: number;
    heapUsed: number;
    heapTotal: number;
    external: number;
    /** CPU time the server has used so far (user + system), in microseconds. */
    cpu: number;
    /** Since the previous call: the event loop's delay (99th percentile) and garbage collection. */
    loopP99Ms: number;
    gc: { count: number; ms: number; maxMs: number };
    vmRss: number | null;
    vmHwm: number | null;
  }>;
  stop(): Promise<void>;
}

/**
 * `BENCH_SMAPS=1`: the app's resident memory by mapping after the load steps. Small anonymous
 * mappings are mostly V8's 256 KiB heap pages (including pooled ones heapTotal no longer counts),
 * [heap] is malloc's main arena, the node binary is its code.
 */
function smaps(pid: number): string {
  const by = new Map<string, number>();
  let name = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (m) {
      const size = Number.parseInt(m[2], 16) - Number.parseInt(m[1], 16);
      name = m[3] || (size < 2 ** 20 ? '[anon < 1 MB: V8 pages]' : '[anon >= 1 MB: malloc arenas, large objects]');
    } else if (line.startsWith('Rss:')) by.set(name, (by.get(name) ?? 0) + Number(line.split(/\s+/)[1]) * 1024);
  }
  return [...by]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6)
    .map(([k, v]) => `  ${mb(v).padStart(9)}  ${k}`)
    .join('\n');
}

async function startServer(
  mode: 'bare' | 'hmac' | 'prisma' | 'app',
  workspaceId: string,
  env: Record<string, string> = {},
): Promise<Server> {
  const execArgv = ['--import', 'tsx', ...serverNodeFlags, ...(mode === 'app' ? APP_FLAGS : [])]; // as `svc serve`
  if (CPU_PROF) execArgv.push('--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`, `--cpu-prof-name=${mode}.cpuprofile`);
  const child = fork(join(import.meta.dirname, 'server.ts'), [mode], {
    execArgv,
    env: { ...serverEnv, ...process.env, DATABASE_URL: url, BENCH_WORKSPACE_ID: workspaceId, ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'], // request logs (pino, stdout) go to /dev/null
  });
  children.add(child);
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { type: string; port: number }) =>
      m.type === 'ready' ? resolve(m.port) : reject(new Error(`unexpected ${m.type}`)),
    );
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code} before listening`)));
  });
  return {
    mode,
    pid: child.pid!,
    base: `http://127.0.0.1:${port}`,
    mem: () =>
      new Promise((resolve) => {
        child.once('message', (m: Omit<Awaited<ReturnType<Server['mem']>>, 'vmRss' | 'vmHwm'>) =>
          resolve({ ...m, vmRss: procStatus(child.pid!, 'VmRSS'), vmHwm: procStatus(child.pid!, 'VmHWM') }),
        );
        child.send({ type: 'mem' });
      }),
    stop: () =>
      new Promise((resolve) => {
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => {
          clearTimeout(timer);
          children.delete(child);
          resolve();
        });
        child.send({ type: 'stop' });
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// Load generation

interface Creds {
  keyId: string;
  secret: string;
}
interface Probe {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  /** Throws unless the response is the full, successful page. */
  check(status: number, json: any): void;
}

/** One precomputed signature (the timestamp is good for 300 s); re-signed through setupRequest only for long runs. */
function signedRequest(creds: Creds, p: Probe): AcRequest {
  let at = 0;
  let headers: Record<string, string> = {};
  const fresh = () => {
    if (Date.now() - at > 120_000) {
      at = Date.now();
      headers = {
        ...signRequest({
          keyId: creds.keyId,
          secret: creds.secret,
          method: p.method,
          target: p.path,
          body: p.body ?? '',
        }),
        ...(p.body ? { 'content-type': 'application/json' } : {}),
      };
    }
    return headers;
  };
  const req: AcRequest = { method: p.method, path: p.path, headers: fresh(), ...(p.body ? { body: p.body } : {}) };
  if (WARMUP + SECONDS > 240) req.setupRequest = (r) => ({ ...r, headers: fresh() });
  return req;
}

interface StepResult {
  name: string;
  detail: string;
  rps: number;
  p50: number;
  p99: number;
  total: number;
  bad: number;
  /** Server CPU per request in the measured seconds: robust to other load on the machine, unlike req/s. */
  cpuUs: number;
  /** In the measured seconds: event-loop delay p99, longest GC pause, share of the time in GC. */
  loopP99Ms: number;
  gcMaxMs: number;
  gcShare: number;
}

async function loadStep(name: string, detail: string, server: Server, creds: Creds, probe: Probe): Promise<StepResult> {
  const { base } = server;
  // Correctness first: a benchmark of 401s is worthless.
  const r = signedRequest(creds, probe);
  const res = await fetch(base + probe.path, { method: probe.method, headers: r.headers, body: probe.body });
  const text = await res.text();
  try {
    probe.check(res.status, JSON.parse(text));
  } catch (e) {
    throw new Error(`${name}: probe failed (${res.status}): ${(e as Error).message}\n${text.slice(0, 500)}`);
  }
  const opts = { url: base, connections: CONNECTIONS, pipelining: 1, requests: [signedRequest(creds, probe)] };
  await autocannon({ ...opts, duration: WARMUP });
  const cpu0 = (await server.mem()).cpu;
  const out = await autocannon({ ...opts, duration: SECONDS });
  const after = await server.mem();
  const cpuUs = (after.cpu - cpu0) / Math.max(1, out.requests.total);
  const bad = out.non2xx + out.errors + out.timeouts;
  const step = {
    name,
    detail,
    rps: out.requests.total / out.duration,
    p50: out.latency.p50,
    p99: out.latency.p99,
    total: out.requests.total,
    bad,
    cpuUs,
    loopP99Ms: after.loopP99Ms,
    gcMaxMs: after.gc.maxMs,
    gcShare: after.gc.ms / (out.duration * 1000),
  };
  console.log(
    `  ${name.padEnd(22)} ${fmt(step.rps).padStart(7)} req/s  p50 ${ms(step.p50)}  p99 ${ms(step.p99)}  ${fmt(cpuUs)} µs CPU/req${bad ? `  (${bad} non-2xx/errors!)` : ''}`,
  );
  return step;
}

// ---------------------------------------------------------------------------------------------
// What metrics and tracing cost (docs/performance.md, Metrics and traces)

/** A loopback OTLP/HTTP collector that reads and drops what it gets: the cost of exporting, not of a collector. */
async function otlpSink() {
  let spans = 0;
  const server = createServer((req, res) => {
    let bytes = 0;
    req.on('data', (c: Buffer) => void (bytes += c.length));
    req.on('end', () => {
      spans += bytes > 0 ? 1 : 0;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports: () => spans,
    close: () => new Promise((r) => server.close(r)),
  };
}

/**
 * The REST step under three settings, each in a fresh app child, in the order A B C C B A so that
 * a drift in the neighbours' load weighs on each setting alike (two shared cores: compare CPU/req).
 */
async function observabilityCost(workspaceId: string, creds: Creds, probe: Probe) {
  const ratio = process.env.BENCH_OTEL_SAMPLE ?? '0.1';
  const sink = await otlpSink();
  const settings = {
    'metrics off': { SVC_METRICS: 'off', SVC_OTEL: 'off' },
    'metrics on (default)': { SVC_OTEL: 'off' },
    [`+ tracing ${ratio}`]: {
      SVC_OTEL: 'otlp',
      SVC_OTEL_SAMPLE: ratio,
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
      OTEL_TRACES_EXPORTER: 'otlp',
    },
  } as Record<string, Record<string, string>>;
  const names = Object.keys(settings);
  section(`Cost of metrics and tracing (REST step, ${names.length * 2} app children in ABCCBA order)`);
  const results = new Map<string, StepResult[]>(names.map((n) => [n, []]));
  for (const name of [...names, ...names.toReversed()]) {
    const app = await startServer('app', workspaceId, settings[name]);
    try {
      results.get(name)!.push(await loadStep(name, '', app, creds, probe));
    } finally {
      await app.stop();
    }
  }
  await sink.close();
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const base = mean(results.get(names[1])!.map((r) => r.cpuUs));
  const off = mean(results.get(names[0])!.map((r) => r.cpuUs));
  console.log();
  table(
    ['setting', 'req/s (mean)', 'p99 (mean)', 'CPU/req (mean)', 'CPU vs metrics off', 'CPU vs default'],
    names.map((n) => {
      const rs = results.get(n)!;
      const cpu = mean(rs.map((r) => r.cpuUs));
      return [
        n,
        fmt(mean(rs.map((r) => r.rps))),
        ms(mean(rs.map((r) => r.p99))),
        `${fmt(cpu)} µs`,
        `${cpu >= off ? '+' : ''}${fmt(((cpu - off) / off) * 100, 1)}%`,
        `${cpu >= base ? '+' : ''}${fmt(((cpu - base) / base) * 100, 1)}%`,
      ];
    }),
    [1, 2, 3, 4, 5],
  );
  console.log(`  (the collector received ${sink.exports()} OTLP exports from the tracing runs)`);
}

// ---------------------------------------------------------------------------------------------
// In-process rate measurement

async function rate(op: () => Promise<unknown>, seconds: number, concurrency = MICRO_CONCURRENCY) {
  const run = async (s: number) => {
    let n = 0;
    const start = performance.now();
    const end = start + s * 1000;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < end) {
          await op();
          n++;
        }
      }),
    );
    return n / ((performance.now() - start) / 1000);
  };
  await run(Math.max(0.5, seconds / 3)); // warm-up: JIT, pool connections, Prisma's query cache
  return run(seconds);
}

// ---------------------------------------------------------------------------------------------

let failed = false;
try {
  section('Environment');
  const cpus = os.cpus();
  const pgVersion = await admin(async (c) => (await c.query('SHOW server_version')).rows[0].server_version as string);
  table(
    ['what', 'value'],
    [
      ['node', process.version],
      ['cpu', `${cpus[0]?.model ?? 'unknown'}`],
      ['cores', `${cpus.length} (availableParallelism ${os.availableParallelism()})`],
      ['memory', `${fmt(os.totalmem() / 2 ** 30, 1)} GiB`],
      ['os', `${os.type()} ${os.release()} ${os.arch()}`],
      ['postgresql', `${pgVersion} at ${new URL(url || ADMIN_URL).host}`],
      [
        'load',
        `autocannon ${CONNECTIONS} connections, pipelining 1, warm-up ${WARMUP} s, measured ${SECONDS} s per step`,
      ],
      [
        'layout',
        'servers in child processes (one per step; GraphQL and REST share the app child); load generator + micro-benchmarks in the parent',
      ],
      [
        'app',
        `node flags ${serverNodeFlags.join(' ')}, env ${Object.entries(serverEnv)
          .map(([k, v]) => `${k}=${v}`)
          .join(
            ' ',
          )}, rate limiter off, LOG_LEVEL=${process.env.LOG_LEVEL ?? config.logLevel} (to /dev/null), DB pool ${config.poolSize}, key cache ${config.keyCacheMs} ms`,
      ],
    ],
  );

  if (!url) {
    dbName = `svc_bench_${randomBytes(5).toString('hex')}`;
    await admin((c) => c.query(`CREATE DATABASE ${dbName}`));
    url = withDatabase(ADMIN_URL, dbName);
  }
  process.env.DATABASE_URL = url;
  const t0 = performance.now();
  const applied = await migrate(url);
  console.log(
    `\ndatabase ${new URL(url).pathname.slice(1)}${dbName ? ' (fresh, dropped at the end)' : ' (from DATABASE_URL, kept)'}; ${applied.length} migrations applied in ${fmt(performance.now() - t0)} ms`,
  );
  openDatabase(url);

  // Seed: one workspace with 30 active and 2 revoked keys besides the bootstrap key.
  const ws = await bootstrapWorkspace({ name: 'Bench' });
  const creds: Creds = { keyId: ws.apiKey.keyId, secret: ws.apiKey.key };
  // listed, never used to sign: one ciphertext for every seeded row (it would not decrypt for any of them)
  const sealed = Buffer.from(encrypt(signingKeyOf(`sk_test_${randomHex(24)}`), 'bench seed'));
  const seededIds: string[] = [];
  for (let i = 1; i <= 32; i++) {
    const id = newId('apiKey');
    seededIds.push(id);
    const restricted = i % 3 === 0;
    await db().system.query(
      `INSERT INTO api_keys (id, "workspaceId", mode, "keyId", name, role, scopes, "signingKey", "createdAt", "revokedAt")
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() - make_interval(mins => $9), $10)`,
      [
        id,
        ws.workspaceId,
        i % 4 === 0 ? 'live' : 'test',
        `pk_test_${randomHex(6)}`,
        `bench key ${i}`,
        restricted ? 'restricted' : 'read_only',
        restricted ? ['svc:payment:read', 'svc:refund:read'] : [],
        sealed,
        i,
        i > 30 ? new Date() : null,
      ],
    );
  }
  const insertsWs = await bootstrapWorkspace({ name: 'Bench inserts' });
  console.log(`seeded workspace ${ws.workspaceId}: 31 active keys (+2 revoked); GET ${TARGET} returns 20 and hasMore`);

  // -------------------------------------------------------------------------------------------
  section(`Layer ladder: GET ${TARGET}`);
  const pageOf = (data: unknown) => {
    if (!Array.isArray(data) || data.length !== LIMIT) throw new Error(`expected ${LIMIT} items`);
  };
  const bareProbe: Probe = {
    method: 'GET',
    path: TARGET,
    check: (s, j) => {
      if (s !== 200) throw new Error('status');
      pageOf(j.data);
      if (!j.meta.page.hasMore) throw new Error('hasMore');
    },
  };
  const gqlDoc = readFileSync(join(import.meta.dirname, '../rest-compat/operations/api-keys.graphql'), 'utf8');
  const fragment = /fragment ApiKeyFields[^}]*}/.exec(gqlDoc)![0];
  const listOp = /query listApiKeys[\s\S]*?\n}/.exec(gqlDoc)![0];
  const gqlProbe: Probe = {
    method: 'POST',
    path: '/graphql',
    body: JSON.stringify({
      query: `${fragment}\n\n${listOp}`,
      operationName: 'listApiKeys',
      variables: { first: LIMIT },
    }),
    check: (s, j) => {
      if (s !== 200 || j.errors) throw new Error(JSON.stringify(j.errors));
      pageOf(j.data.apiKeys.edges);
      if (!j.data.apiKeys.pageInfo.hasNextPage) throw new Error('hasNextPage');
    },
  };

  const steps: StepResult[] = [];
  const ladder = [
    { mode: 'bare', name: '1 bare', detail: 'node:http + pg tenant transaction + JSON.stringify' },
    { mode: 'hmac', name: '2 + HMAC', detail: '+ authenticate() per request' },
    { mode: 'prisma', name: '3 + Prisma', detail: 'query via inTenant + tx.apiKey.findMany' },
  ] as const;
  for (const s of APP_ONLY ? [] : REST_ONLY ? ladder.slice(0, 1) : ladder) {
    const server = await startServer(s.mode, ws.workspaceId);
    try {
      steps.push(await loadStep(s.name, s.detail, server, creds, bareProbe));
    } finally {
      await server.stop();
    }
  }
  const app = await startServer('app', ws.workspaceId);
  const memBefore = await app.mem();
  let memAfter;
  try {
    if (!REST_ONLY)
      steps.push(await loadStep('4 + GraphQL', 'real app, POST /graphql listApiKeys', app, creds, gqlProbe));
    steps.push(await loadStep('5 + REST translation', `real app, GET ${TARGET}`, app, creds, bareProbe));
    memAfter = await app.mem();
    if (process.env.BENCH_SMAPS) console.log(smaps(app.pid));
  } finally {
    await app.stop();
  }
  console.log();
  table(
    ['step', 'req/s', 'p50', 'p99', 'vs previous', 'vs bare', 'CPU/req', 'bare CPU / CPU', 'what'],
    steps.map((s, i) => [
      s.name,
      fmt(s.rps),
      ms(s.p50),
      ms(s.p99),
      i ? x(s.rps / steps[i - 1].rps) : '-',
      x(s.rps / steps[0].rps),
      `${fmt(s.cpuUs)} µs`,
      x(steps[0].cpuUs / s.cpuUs),
      s.detail + (s.bad ? ` [${s.bad} non-2xx/errors]` : ''),
    ]),
    [1, 2, 3, 4, 5, 6, 7],
  );

  // -------------------------------------------------------------------------------------------
  section('Where the tail comes from (server child, measured seconds)');
  table(
    ['step', 'p99', 'event-loop delay p99', 'longest GC pause', 'time in GC'],
    steps.map((s) => [s.name, ms(s.p99), ms(s.loopP99Ms), ms(s.gcMaxMs), `${fmt(s.gcShare * 100, 1)}%`]),
    [1, 2, 3, 4],
  );

  section('App server memory (child process)');
  const memRow = (when: string, m: Awaited<ReturnType<Server['mem']>>) => [
    when,
    mb(m.rss),
    m.vmHwm ? mb(m.vmHwm) : '-',
    mb(m.heapUsed),
    mb(m.heapTotal),
    mb(m.external),
    mb(m.rss - m.heapTotal - m.external),
  ];
  table(
    ['when', 'RSS', 'VmHWM (peak)', 'heap used', 'heap total', 'external (incl. wasm)', 'rest (code, malloc, stacks)'],
    [memRow('after start', memBefore), memRow('after steps 4-5', memAfter!)],
    [1, 2, 3, 4, 5, 6],
  );

  if (REST_ONLY) {
    const [bare, rest] = steps;
    const rps = rest.rps / bare.rps;
    const cpu = bare.cpuUs / rest.cpuUs;
    console.log(`\n  REST vs bare: ${x(rps)} req/s, ${x(cpu)} CPU per request (bare CPU / REST CPU)`);
    const file = writeResults('rest', {
      target: TARGET,
      connections: CONNECTIONS,
      warmupSeconds: WARMUP,
      seconds: SECONDS,
      steps,
      ratios: { restVsBareRps: rps, bareCpuOverRestCpu: cpu },
    });
    console.log(`  written to ${file}`);
  }

  if (process.env.BENCH_OBSERVABILITY !== '0' && !REST_ONLY) await observabilityCost(ws.workspaceId, creds, bareProbe);

  if (!APP_ONLY && !REST_ONLY) {
    // -------------------------------------------------------------------------------------------
    section(
      `Prisma vs pg, in process (${MICRO_CONCURRENCY} in flight, ${fmt(MICRO_SECONDS, 1)} s each, after warm-up)`,
    );
    const scope = { workspaceId: ws.workspaceId, modes: ['test', 'live'] as const };
    const insScope = { workspaceId: insertsWs.workspaceId, modes: ['test', 'live'] as const };
    const COLS = `id, "workspaceId", mode, "keyId", name, role, scopes, "signingKey", "memberId", "lastUsedAt", "revokedAt", "createdAt"`;
    const COLS_SQL = sql.raw(
      'id, "workspaceId", mode, "keyId", name, role, scopes, "signingKey", "memberId", "lastUsedAt", "revokedAt", "createdAt"',
    );
    const SET_SCOPE = `SELECT set_config('app.workspace_id', $1, true), set_config('app.modes', $2, true)`;
    const byId = seededIds[4];
    const keyRow = () => ({
      id: newId('apiKey'),
      workspaceId: insertsWs.workspaceId,
      mode: 'test',
      keyId: `pk_test_${randomHex(6)}`,
      name: 'micro',
      role: 'read_only',
      scopes: [] as string[],
      signingKey: sealed,
      createdAt: new Date(),
    });
    const micro = [
      {
        name: 'find by id',
        prisma: () =>
          inTenant(scope, (tx) => tx.apiKey.findFirst({ where: { id: byId, workspaceId: scope.workspaceId } })),
        pg: () =>
          tenantQuery(
            scope,
            sql`SELECT ${COLS_SQL} FROM api_keys WHERE id = ${byId} AND "workspaceId" = ${scope.workspaceId} LIMIT 1`,
          ),
      },
      {
        name: 'list 20',
        prisma: () =>
          inTenant(scope, (tx) =>
            tx.apiKey.findMany({
              where: { workspaceId: scope.workspaceId, revokedAt: null },
              orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
              take: LIMIT + 1,
            }),
          ),
        pg: () =>
          tenantQuery(
            scope,
            sql`SELECT ${COLS_SQL} FROM api_keys WHERE "workspaceId" = ${scope.workspaceId} AND "revokedAt" IS NULL
            ORDER BY "createdAt" DESC, id DESC LIMIT ${LIMIT + 1}`,
          ),
      },
      {
        name: '3-insert transaction',
        prisma: () =>
          inTenant(insScope, async (tx) => {
            for (let i = 0; i < 3; i++) await tx.apiKey.create({ data: keyRow() });
          }),
        pg: async () => {
          const c = await db().app.connect();
          try {
            await c.query('BEGIN');
            await c.query(SET_SCOPE, [insScope.workspaceId, insScope.modes.join(',')]);
            for (let i = 0; i < 3; i++) {
              const r = keyRow();
              await c.query(
                `INSERT INTO api_keys (id, "workspaceId", mode, "keyId", name, role, scopes, "signingKey", "createdAt") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COLS}`,
                [r.id, r.workspaceId, r.mode, r.keyId, r.name, r.role, r.scopes, r.signingKey, r.createdAt],
              );
            }
            await c.query('COMMIT');
          } catch (e) {
            await c.query('ROLLBACK').catch(() => {});
            throw e;
          } finally {
            c.release();
          }
        },
      },
    ];
    const microRows: { name: string; prisma: number; pg: number }[] = [];
    for (const m of micro) {
      const pgOps = await rate(m.pg, MICRO_SECONDS);
      const prismaOps = await rate(m.prisma, MICRO_SECONDS);
      microRows.push({ name: m.name, prisma: prismaOps, pg: pgOps });
    }
    table(
      ['operation', 'pg ops/s', 'Prisma ops/s', 'Prisma/pg'],
      microRows.map((r) => [r.name, fmt(r.pg), fmt(r.prisma), x(r.prisma / r.pg)]),
      [1, 2, 3],
    );

    // -------------------------------------------------------------------------------------------
    section(`Row-level security: list 20 as ${APP_ROLE} (policy) vs as the table owner (no RLS)`);
    const rlsPool = new pg.Pool({ connectionString: url, max: MICRO_CONCURRENCY });
    const asApp = new WeakSet<pg.PoolClient>();
    const checkout = async (pool: pg.Pool) => {
      const c = await pool.connect();
      if (pool === rlsPool && !asApp.has(c)) {
        await c.query(`SET ROLE ${APP_ROLE}`);
        asApp.add(c);
      }
      return c;
    };
    const ownerPool = new pg.Pool({ connectionString: url, max: MICRO_CONCURRENCY });
    // Idle clients are cut when the bench database is dropped at the end: not an error worth a crash.
    for (const pool of [rlsPool, ownerPool]) pool.on('error', () => {});
    const LIST = `SELECT ${COLS} FROM api_keys WHERE "workspaceId" = $1 AND "revokedAt" IS NULL ORDER BY "createdAt" DESC, id DESC LIMIT 21`;
    const listIn = (pool: pg.Pool) => async () => {
      const c = await checkout(pool);
      try {
        await c.query('BEGIN');
        await c.query(SET_SCOPE, [scope.workspaceId, 'test,live']);
        const { rows } = await c.query(LIST, [scope.workspaceId]);
        await c.query('COMMIT');
        return rows;
      } finally {
        c.release();
      }
    };
    let rlsRatio = NaN;
    try {
      // Sanity: the policy is really on for svc_app (no scope, no rows) and off for the owner.
      const probe = await checkout(rlsPool);
      const unscoped = await probe
        .query(`SELECT current_user AS u, count(*)::int AS n FROM api_keys`)
        .finally(() => probe.release());
      const owned = await ownerPool.query(`SELECT current_user AS u, count(*)::int AS n FROM api_keys`);
      // ABBA order: drift on the machine (the app child just stopped, autovacuum) falls on both alike.
      const policyA = await rate(listIn(rlsPool), MICRO_SECONDS);
      const ownerB = await rate(listIn(ownerPool), MICRO_SECONDS);
      const ownerB2 = await rate(listIn(ownerPool), MICRO_SECONDS);
      const policyA2 = await rate(listIn(rlsPool), MICRO_SECONDS);
      const withPolicy = (policyA + policyA2) / 2;
      const withoutPolicy = (ownerB + ownerB2) / 2;
      rlsRatio = withPolicy / withoutPolicy;
      table(
        ['role', 'ops/s', 'rows visible without a scope'],
        [
          [`${unscoped.rows[0].u} (RLS policy)`, fmt(withPolicy), String(unscoped.rows[0].n)],
          [`${owned.rows[0].u} (owner, RLS bypassed)`, fmt(withoutPolicy), String(owned.rows[0].n)],
        ],
        [1, 2],
      );
      console.log(`  RLS / no RLS: ${x(rlsRatio)}`);
    } finally {
      await Promise.allSettled([rlsPool.end(), ownerPool.end()]);
    }

    // -------------------------------------------------------------------------------------------
    section('Targets');
    const [bare, , , gql, rest] = steps;
    const worstMicro = microRows.reduce((a, b) => (b.prisma / b.pg < a.prisma / a.pg ? b : a));
    const rss = Math.max(memAfter!.rss, memAfter!.vmHwm ?? 0);
    const p99 = Math.max(gql.p99, rest.p99);
    const targets: [string, string, boolean][] = [
      [
        'REST >= 50% of bare',
        `${fmt((rest.rps / bare.rps) * 100, 1)}% (${fmt(rest.rps)} vs ${fmt(bare.rps)} req/s)`,
        rest.rps >= 0.5 * bare.rps,
      ],
      [
        'REST within 10% of GraphQL',
        `${x(rest.rps / gql.rps)} (${fmt(rest.rps)} vs ${fmt(gql.rps)} req/s)`,
        rest.rps >= 0.9 * gql.rps,
      ],
      [
        'Prisma >= 0.5x pg per query',
        microRows.map((r) => `${r.name} ${x(r.prisma / r.pg)}`).join(', '),
        worstMicro.prisma / worstMicro.pg >= 0.5,
      ],
      ['RLS >= 0.9x', x(rlsRatio), rlsRatio >= 0.9],
      [`p99 < 50 ms at ${CONNECTIONS} connections`, `GraphQL ${ms(gql.p99)}, REST ${ms(rest.p99)}`, p99 < 50],
      ['RSS < 300 MB', `${mb(rss)} (max of RSS after the run and peak VmHWM)`, rss < 300 * 1024 * 1024],
    ];
    const clean = steps.every((s) => s.bad === 0);
    if (!clean) targets.push(['every request 2xx', steps.map((s) => `${s.name}: ${s.bad}`).join(', '), false]);
    table(
      ['target', 'result', 'measured'],
      targets.map(([t, m, ok]) => [t, ok ? 'PASS' : 'MISS', m]),
    );
  }
  if (CPU_PROF)
    console.log(
      `\nCPU profiles of the server children: ${CPU_PROF}/*.cpuprofile (tsx bench/profile-summary.ts <file>)`,
    );
} catch (e) {
  failed = true;
  console.error(e);
} finally {
  await cleanup();
}
process.exit(failed ? 1 : 0);
