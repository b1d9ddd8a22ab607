/**
 * `npm run bench:ledger`: the ledger at scale.
 *  Seeds BENCH_LEDGER_ROWS (1,000,000) balanced entries for one workspace over a year and as many
 *  for another workspace, with set-based SQL (generate_series; triggers off for the load, then
 *  `ledger_daily` rebuilt with one GROUP BY, as the migration does), then against the real app in
 *  a child process measures:
 *   - GET /v1/ledger/balances p95
 *   - GET /v1/ledger first page vs a page ~90% deep (keyset cursor), p50 and p95
 *   - GET /v1/reports/pnl for the year (whole days) and for an instant range (edges from entries)
 *   - GET /v1/reports/ledger.csv of every row: rows/s and the server's RSS: before, peak (sampled
 *     every 50 ms and the kernel's VmHWM, reset just before) and the export's own growth
 * Env: BENCH_ADMIN_URL, BENCH_LEDGER_ROWS, BENCH_REPS (50), BENCH_GC=1 (a full collection in the
 * app before the export: shows how much of the RSS before is garbage of the read steps).
 *
 * The export's target is its growth (peak - before): constant memory means it does not grow with
 * the rows. The process's RSS before it is the read steps' garbage under the app's heap flags
 * (bin/node-flags.js), held to the app's < 300 MB (docs/performance.md, Ledger CSV export).
 */
import os from 'node:os';
import type { ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import {
  fmt,
  num,
  rebuildLedgerDaily,
  resetPeakRss,
  procStatus,
  scratchDatabase,
  startApp,
  printTargets,
} from './lib.ts';
import { progress, type Progress } from '../src/cli/progress.ts';

const ROWS = num('BENCH_LEDGER_ROWS', 1_000_000);
const REPS = num('BENCH_REPS', 50);

const { migrate } = await import('../src/core/db/migrate.ts');
const { openDatabase, closeDatabase, db } = await import('../src/core/db/client.ts');
const { bootstrapWorkspace } = await import('../src/modules/workspaces/service.ts');
const { signRequest } = await import('../src/core/auth/signing.ts');
const { encodeCursor } = await import('../src/core/pagination.ts');

const scratch = scratchDatabase();
const url = scratch.url;
let child: ChildProcess | undefined;

async function startAppChild() {
  const app = await startApp(url, process.env.BENCH_GC ? { env: { NODE_OPTIONS: '--expose-gc' } } : {});
  child = app.child;
  return app.base;
}

const memPeak = { heapUsed: 0, heapTotal: 0, newSpace: 0, external: 0, arrayBuffers: 0 };
/** The last sample: the figures at a point in time (memPeak keeps the maxima). */
const memNow = { ...memPeak };
const rss = () =>
  new Promise<number>((resolve) => {
    const on = (m: { type: string; rss: number } & typeof memPeak) => {
      if (m.type !== 'mem') return;
      child!.off('message', on);
      for (const k of Object.keys(memPeak) as (keyof typeof memPeak)[]) {
        memPeak[k] = Math.max(memPeak[k], m[k]);
        memNow[k] = m[k];
      }
      resolve(m.rss);
    };
    child!.on('message', on);
    child!.send({ type: 'mem' });
  });

/**
 * `rows` entries (rows / 2 balanced two-leg transactions) for one workspace, spread over 2025:
 * 70% payments, 10% fees, 10% refunds, 10% paid payouts, IDR.
 */
async function seed(c: pg.PoolClient, workspaceId: string, rows: number, tag: string, bar: Progress) {
  const n = Math.floor(rows / 2);
  // In slices, so a terminal shows progress (src/cli/progress.ts); the rows are the same as one statement's.
  const slice = Math.max(1, Math.ceil(n / 20));
  for (let from = 1; from <= n; from += slice) {
    const to = Math.min(n, from + slice - 1);
    await insertSlice(c, workspaceId, tag, n, from, to);
    bar.tick(to - from + 1);
  }
  return n * 2;
}

async function insertSlice(c: pg.PoolClient, workspaceId: string, tag: string, n: number, from: number, to: number) {
  await c.query(
    `INSERT INTO ledger_entries (id, "workspaceId", mode, "txId", code, direction, amount, currency, "sourceType", "sourceId", memo, "postedAt", "createdAt")
     SELECT 'le_${tag}' || lpad(g::text, 10, '0') || leg, $1, 'test', 'tx_${tag}' || g,
            CASE WHEN g % 10 < 7 THEN (CASE leg WHEN 1 THEN 'settlement:provider_a' ELSE 'payments' END)
                 WHEN g % 10 = 7 THEN (CASE leg WHEN 1 THEN 'gateway:provider_a' ELSE 'settlement:provider_a' END)
                 WHEN g % 10 = 8 THEN (CASE leg WHEN 1 THEN 'refunds' ELSE 'settlement:provider_a' END)
                 ELSE (CASE leg WHEN 1 THEN 'payout' ELSE 'settlement:disbursed' END) END,
            CASE leg WHEN 1 THEN 'debit' ELSE 'credit' END,
            CASE WHEN g % 10 < 7 THEN 10000 + (g % 97) * 1000 ELSE 1000 + (g % 13) * 100 END,
            'IDR',
            CASE WHEN g % 10 < 8 THEN 'checkout_session' WHEN g % 10 = 8 THEN 'refund' ELSE 'payout' END,
            'src_${tag}' || g, CASE WHEN g % 50 = 0 THEN 'memo, with "quotes"' END,
            timestamptz '2025-01-01 00:00:00+00' + ((g - 1)::float8 / $2) * interval '365 days', now()
       FROM generate_series($3::int, $4::int) g CROSS JOIN (VALUES (1), (2)) legs(leg)`,
    [workspaceId, n, from, to],
  );
}

function signedGet(base: string, keyId: string, secret: string) {
  return async (target: string) => {
    const headers = signRequest({ keyId, secret, method: 'GET', target, body: '' });
    const s = performance.now();
    const res = await fetch(base + target, { headers });
    const text = await res.text();
    const ms = performance.now() - s;
    if (res.status !== 200) throw new Error(`${target}: ${res.status} ${text.slice(0, 300)}`);
    return { ms, text };
  };
}

async function timeIt(reps: number, fn: () => Promise<{ ms: number }>) {
  for (let i = 0; i < 3; i++) await fn();
  const t: number[] = [];
  for (let i = 0; i < reps; i++) t.push((await fn()).ms);
  t.sort((a, b) => a - b);
  return { p50: t[Math.floor(0.5 * t.length)], p95: t[Math.min(t.length - 1, Math.floor(0.95 * t.length))] };
}

let failed = false;
try {
  const cpus = os.cpus();
  console.log(
    `node ${process.version}, ${cpus[0]?.model} x ${cpus.length}, ${fmt(os.totalmem() / 2 ** 30, 1)} GiB; ${fmt(ROWS)} entries for the measured workspace + ${fmt(ROWS)} for another`,
  );
  await scratch.create();
  await migrate(url);
  openDatabase(url);
  const ws = await bootstrapWorkspace({ name: 'Bench books' });
  const other = await bootstrapWorkspace({ name: 'Someone else' });

  let t0 = performance.now();
  const c = await db().system.connect();
  try {
    // A bulk load of rows balanced by construction: the per-row balance trigger and the daily trigger are off
    // for the load (replica role), and the daily totals are rebuilt in one statement afterwards.
    await c.query('BEGIN');
    await c.query('SET LOCAL session_replication_role = replica');
    const bar = progress('seeding ledger', 2 * Math.floor(ROWS / 2));
    const a = await seed(c, ws.workspaceId, ROWS, 'a', bar);
    const b = await seed(c, other.workspaceId, ROWS, 'b', bar);
    bar.done();
    await rebuildLedgerDaily(c);
    await c.query('COMMIT');
    const unbalanced = (
      await c.query(
        `SELECT count(*)::int AS n FROM (SELECT "txId" FROM ledger_entries GROUP BY "workspaceId", "txId" HAVING sum(CASE direction WHEN 'debit' THEN amount ELSE -amount END) <> 0) x`,
      )
    ).rows[0].n;
    await c.query('ANALYZE ledger_entries');
    await c.query('ANALYZE ledger_daily');
    const daily = (await c.query(`SELECT count(*)::int AS n FROM ledger_daily`)).rows[0].n;
    console.log(
      `seeded ${fmt(a + b)} entries (${unbalanced} unbalanced txIds), ${fmt(daily)} ledger_daily rows in ${fmt((performance.now() - t0) / 1000, 1)} s`,
    );
  } finally {
    c.release();
  }

  const base = await startAppChild();
  const get = signedGet(base, ws.apiKey.keyId, ws.apiKey.key);
  const balances = await timeIt(REPS, () => get('/v1/ledger/balances'));
  const check = JSON.parse((await get('/v1/ledger/balances')).text).data as {
    code: string;
    debits: number;
    credits: number;
  }[];
  const first = await timeIt(REPS, () => get('/v1/ledger?limit=100'));
  const [deep] = (
    await db().system.query(
      `SELECT id, "postedAt" FROM ledger_entries WHERE "workspaceId" = $1 ORDER BY "postedAt" DESC, id DESC OFFSET $2 LIMIT 1`,
      [ws.workspaceId, Math.floor(ROWS * 0.9)],
    )
  ).rows;
  const cursor = encodeCursor(
    ws.workspaceId,
    { txId: null, code: null, sourceType: null, sourceId: null, order: 'desc' },
    { at: deep.postedAt.toISOString(), id: deep.id },
  );
  const deepPage = await timeIt(REPS, () => get(`/v1/ledger?limit=100&cursor=${cursor}`));
  const pnlYear = await timeIt(REPS, () => get('/v1/reports/pnl?from=2025-01-01&to=2025-12-31&currency=IDR'));
  const pnlEdges = await timeIt(REPS, () =>
    get('/v1/reports/pnl?from=2025-01-01T13:30:00Z&to=2025-12-30T09:15:00Z&currency=IDR'),
  );
  const cashFlow = await timeIt(Math.min(REPS, 20), () =>
    get('/v1/reports/cash-flow?from=2025-01-01&to=2025-12-31&currency=IDR'),
  );

  // CSV export of the whole year: stream it, count rows, sample the server's RSS.
  if (process.env.BENCH_GC) {
    const rssPre = await rss();
    const heapPre = memPeak.heapUsed;
    await new Promise((done) => {
      child!.once('message', done);
      child!.send({ type: 'gc' });
    });
    memPeak.heapUsed = 0;
    const rssPost = await rss();
    console.log(
      `full GC before the export: RSS ${fmt(rssPre / 2 ** 20)} -> ${fmt(rssPost / 2 ** 20)} MiB, heap used (peak so far ${fmt(heapPre / 2 ** 20)}) -> ${fmt(memPeak.heapUsed / 2 ** 20)} MiB`,
    );
  }
  const rssBefore = await rss();
  const heapBefore = { ...memPeak };
  const now = { ...memNow };
  for (const k of Object.keys(memPeak) as (keyof typeof memPeak)[]) memPeak[k] = memNow[k];
  // The kernel's own peak (VmHWM), reset now: exact where the 50 ms samples can miss a spike.
  const hwmReset = resetPeakRss(child!.pid!);
  let peak = rssBefore;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, await rss());
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const target = '/v1/reports/ledger.csv?from=2025-01-01&to=2025-12-31';
  t0 = performance.now();
  const res = await fetch(base + target, {
    headers: signRequest({ keyId: ws.apiKey.keyId, secret: ws.apiKey.key, method: 'GET', target, body: '' }),
  });
  if (res.status !== 200) throw new Error(`export: ${res.status} ${await res.text()}`);
  let lines = 0;
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) lines++;
  }
  const exportS = (performance.now() - t0) / 1000;
  sampling = false;
  await sampler;
  const hwm = hwmReset ? (procStatus(child!.pid!, 'VmHWM') ?? 0) : 0;
  const exportPeak = Math.max(peak, hwm);
  const exported = lines - 1;

  const mib = (n: number) => fmt(n / 2 ** 20);
  const ms = (x: { p50: number; p95: number }) => `p50 ${fmt(x.p50, 1)} ms, p95 ${fmt(x.p95, 1)} ms`;
  console.log(`\n  GET /v1/ledger/balances             ${ms(balances)} (${check.length} rows)`);
  console.log(`  GET /v1/ledger first page (100)     ${ms(first)}`);
  console.log(`  GET /v1/ledger page ~${fmt(ROWS * 0.9)} deep   ${ms(deepPage)}`);
  console.log(`  GET /v1/reports/pnl (year, days)    ${ms(pnlYear)}`);
  console.log(`  GET /v1/reports/pnl (instant edges) ${ms(pnlEdges)}`);
  console.log(`  GET /v1/reports/cash-flow (year)    ${ms(cashFlow)}`);
  console.log(
    `  CSV export                          ${fmt(exported)} rows, ${fmt(bytes / 2 ** 20, 1)} MiB in ${fmt(exportS, 2)} s = ${fmt(exported / exportS)} rows/s; server RSS ${fmt(rssBefore / 2 ** 20)} MiB before, peak ${fmt(peak / 2 ** 20)} MiB sampled, ${hwmReset ? `${fmt(hwm / 2 ** 20)} MiB VmHWM` : 'VmHWM n/a'} (+${fmt((exportPeak - rssBefore) / 2 ** 20)} MiB) (during it, before -> peak: heap used ${mib(now.heapUsed)} -> ${mib(memPeak.heapUsed)}, heap total ${mib(now.heapTotal)} -> ${mib(memPeak.heapTotal)} of which young generation ${mib(now.newSpace)} -> ${mib(memPeak.newSpace)}, external ${mib(now.external)} -> ${mib(memPeak.external)} MiB; heap used peak of the read steps ${mib(heapBefore.heapUsed)})`,
  );
  const targets: [string, boolean, string][] = [
    ['balances p95 < 200 ms', balances.p95 < 200, `${fmt(balances.p95, 1)} ms`],
    ['P&L (year) p95 < 200 ms', pnlYear.p95 < 200, `${fmt(pnlYear.p95, 1)} ms`],
    ['deep page within 2x of first (p50)', deepPage.p50 <= 2 * first.p50, `${fmt(deepPage.p50 / first.p50, 2)}x`],
    ['export >= 100,000 rows/s', exported / exportS >= 100_000, `${fmt(exported / exportS)} rows/s`],
    [
      'export RSS growth < 32 MiB',
      exportPeak - rssBefore < 32 * 2 ** 20,
      `+${fmt((exportPeak - rssBefore) / 2 ** 20, 1)} MiB`,
    ],
    ['process peak RSS < 300 MB (app)', exportPeak < 300 * 1e6, `${fmt(exportPeak / 1e6)} MB`],
    ['every row exported', exported === ROWS - (ROWS % 2), `${fmt(exported)}`],
  ];
  printTargets('ledger', targets);
} catch (e) {
  failed = true;
  console.error(e);
} finally {
  child?.kill('SIGTERM');
  await closeDatabase().catch(() => {});
  await scratch.drop();
}
process.exit(failed ? 1 : 0);
