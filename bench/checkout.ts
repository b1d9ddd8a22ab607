/**
 * `npm run bench:checkout`: the money path's hot spots in one run.
 *  1. POST /v1/checkout-sessions (signed, a fresh Idempotency-Key per request) against the real app
 *     in a child process, and a baseline child doing the same writes with `pg` in one transaction.
 *  2. Completion end to end: attempt + simulate (two public calls) per session. After a warm-up,
 *     capacity with 32 in flight (closed loop), then latency at 200 completions/s offered (open loop).
 *  3. Receipt PDF render p95 (in process).
 * Env: BENCH_ADMIN_URL, BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (3), BENCH_CONNECTIONS (32), BENCH_COMPLETIONS (2000 per run),
 * BENCH_COMPLETION_CONCURRENCY (32), BENCH_COMPLETION_WARMUP (300 sessions), BENCH_COMPLETION_RATE (200/s),
 * BENCH_COMPLETION_RATE_SECONDS (10), BENCH_KEEP_DB=1 (leave the scratch database for inspection),
 * BENCH_CPU_PROF=<dir> (server children write .cpuprofile files; summarise with bench/profile-summary.ts).
 */
import http from 'node:http';
import os from 'node:os';
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { serverEnv, serverNodeFlags } from '../bin/node-flags.js';
import { fmt, num, scratchDatabase, printTargets } from './lib.ts';

const SECONDS = num('BENCH_SECONDS', 10);
const WARMUP = num('BENCH_WARMUP_SECONDS', 3);
const CONNECTIONS = num('BENCH_CONNECTIONS', 32);
const COMPLETIONS = num('BENCH_COMPLETIONS', 2000);
const COMPLETION_CONCURRENCY = (process.env.BENCH_COMPLETION_CONCURRENCY ?? '32').split(',').map(Number);
const COMPLETION_WARMUP = num('BENCH_COMPLETION_WARMUP', 300);
const COMPLETION_RATE = num('BENCH_COMPLETION_RATE', 200);
const COMPLETION_RATE_SECONDS = num('BENCH_COMPLETION_RATE_SECONDS', 10);

interface Timing {
  latencies: number[];
  attempts: number[];
}
interface Completion {
  label: string;
  offered?: number;
  rps: number;
  p50: number;
  p99: number;
  n: number;
  attemptP50: number;
  attemptP99: number;
}
const quantile = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))];
function summarise(label: string, t: Timing & { seconds: number }, offered?: number): Completion {
  const l = [...t.latencies].sort((x, y) => x - y);
  const a = [...t.attempts].sort((x, y) => x - y);
  return {
    label,
    offered,
    rps: l.length / t.seconds,
    p50: quantile(l, 0.5),
    p99: quantile(l, 0.99),
    n: l.length,
    attemptP50: quantile(a, 0.5),
    attemptP99: quantile(a, 0.99),
  };
}

const { migrate } = await import('../src/core/db/migrate.ts');
const { openDatabase, closeDatabase, db } = await import('../src/core/db/client.ts');
const { bootstrapWorkspace } = await import('../src/modules/workspaces/service.ts');
const { signRequest } = await import('../src/core/auth/signing.ts');
const { renderPdf } = await import('../src/modules/documents/render/pdf.ts');
const { buildReceiptView } = await import('../src/modules/receipts/view.ts');

const scratch = scratchDatabase();
let maintain = async () => {};
const url = scratch.url;
const children = new Set<ChildProcess>();

async function start(mode: 'app' | 'create', workspaceId: string) {
  const child = fork(join(import.meta.dirname, 'server.ts'), [mode], {
    execArgv: [
      '--import',
      'tsx',
      ...serverNodeFlags,
      ...(process.env.BENCH_CPU_PROF
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`, `--cpu-prof-name=${mode}.cpuprofile`]
        : []),
    ],
    env: { ...serverEnv, ...process.env, DATABASE_URL: url, BENCH_WORKSPACE_ID: workspaceId, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  children.add(child);
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { type: string; port: number }) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
  return {
    base: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => (children.delete(child), resolve()));
        child.send({ type: 'stop' });
      }),
  };
}

const body = JSON.stringify({
  amount: 150000,
  currency: 'IDR',
  methods: ['qris', 'va'],
  successUrl: 'https://shop.example/t',
  cancelUrl: 'https://shop.example/c',
});

/** Signed once (the timestamp is good for 300 s); each request gets its own Idempotency-Key. */
async function createLoad(base: string, keyId: string, secret: string) {
  const headers = {
    ...signRequest({ keyId, secret, method: 'POST', target: '/v1/checkout-sessions', body }),
    'content-type': 'application/json',
  };
  const probe = await fetch(`${base}/v1/checkout-sessions`, {
    method: 'POST',
    headers: { ...headers, 'idempotency-key': randomUUID() },
    body,
  });
  if (probe.status !== 201) throw new Error(`probe: ${probe.status} ${await probe.text()}`);
  const opts = {
    url: base,
    connections: CONNECTIONS,
    pipelining: 1,
    requests: [
      {
        method: 'POST' as const,
        path: '/v1/checkout-sessions',
        headers,
        body,
        setupRequest: (r: any) => ({ ...r, headers: { ...r.headers, 'idempotency-key': randomUUID() } }),
      },
    ],
  };
  await autocannon({ ...opts, duration: WARMUP });
  const out = await autocannon({ ...opts, duration: SECONDS });
  return {
    rps: out.requests.total / out.duration,
    p50: out.latency.p50,
    p99: out.latency.p99,
    bad: out.non2xx + out.errors + out.timeouts,
  };
}

// The load generator shares the machine's two cores with the server and PostgreSQL: a plain
// keep-alive node:http client keeps its own share small.
const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
function post(base: string, path: string, payload: unknown): Promise<any> {
  const body = JSON.stringify(payload);
  return new Promise((resolve, reject) => {
    const req = http.request(
      base + path,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200) reject(new Error(`${path}: ${res.statusCode} ${text}`));
          else resolve(JSON.parse(text));
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

let failed = false;
try {
  const cpus = os.cpus();
  console.log(
    `node ${process.version}, ${cpus[0]?.model} x ${cpus.length}, ${fmt(os.totalmem() / 2 ** 30, 1)} GiB; autocannon ${CONNECTIONS} connections, no pipelining, warm-up ${WARMUP} s, ${SECONDS} s measured`,
  );
  await scratch.create();
  await migrate(url);
  openDatabase(url);
  const ws = await bootstrapWorkspace({ name: 'Bench shop' });
  // A production server's autovacuum keeps statistics and cached plans current as tables grow. This
  // machine's PostgreSQL runs without it, and plans made on never-analysed tables pick indexes by
  // chance (the ledger's balance check then scanned every entry of the workspace), so the bench
  // does what autovacuum would before each measured phase, and says so.
  const autovacuum = (await db().system.query('SHOW autovacuum')).rows[0].autovacuum === 'on';
  if (!autovacuum)
    console.log(
      'autovacuum is off on this server: the bench runs VACUUM ANALYZE before each measured completion phase, as autovacuum would',
    );
  maintain = async () => {
    if (!autovacuum) await db().system.query('VACUUM ANALYZE');
  };
  const { keyId, key: secret } = ws.apiKey;

  // 1. Create vs baseline
  const rows: string[][] = [];
  const baseline = await start('create', ws.workspaceId);
  const b = await createLoad(baseline.base, keyId, secret).finally(() => baseline.stop());
  const app = await start('app', ws.workspaceId);
  let c;
  const completions: Completion[] = [];
  let ledger = { payments: 0, unbalanced: -1 };
  try {
    c = await createLoad(app.base, keyId, secret);
    // 2. Completion (attempt + simulate, two public calls per session) on sessions created up front:
    //    a warm-up, then capacity with CONCURRENCY in flight (closed loop), then latency at a fixed
    //    arrival rate (open loop, timed from each completion's scheduled start, so a stall counts).
    const headers = {
      ...signRequest({ keyId, secret, method: 'POST', target: '/v1/checkout-sessions', body }),
      'content-type': 'application/json',
    };
    const sessionsFor = async (n: number) => {
      const ids: string[] = [];
      for (let i = 0; i < n; i += 32) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(32, n - i) }, () =>
            fetch(`${app.base}/v1/checkout-sessions`, {
              method: 'POST',
              headers: { ...headers, 'idempotency-key': randomUUID() },
              body,
            }).then((r) => r.json() as Promise<{ data: { hostedUrl: string } }>),
          ),
        );
        // The hosted calls take the URL's token (`<id>_<secret>`), not the bare id.
        ids.push(...batch.map((x) => new URL(x.data.hostedUrl).pathname.split('/').pop()!));
      }
      return ids;
    };
    const completeOne = async (id: string, startedAt: number, timing: Timing) => {
      await post(app.base, `/c/${id}/attempt`, { method: 'qris' });
      timing.attempts.push(performance.now() - startedAt);
      const done = await post(app.base, `/c/${id}/simulate`, { outcome: 'success' });
      if (!done.data.redirectUrl) throw new Error('not completed');
      timing.latencies.push(performance.now() - startedAt);
    };
    const closedLoop = async (ids: string[], concurrency: number) => {
      const timing: Timing = { latencies: [], attempts: [] };
      let next = 0;
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < ids.length) await completeOne(ids[next++], performance.now(), timing);
        }),
      );
      return { ...timing, seconds: (performance.now() - t0) / 1000 };
    };
    const openLoop = async (ids: string[], rate: number) => {
      const timing: Timing = { latencies: [], attempts: [] };
      const t0 = performance.now();
      await Promise.all(
        ids.map(async (id, i) => {
          const due = t0 + (i * 1000) / rate;
          await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
          await completeOne(id, due, timing);
        }),
      );
      return { ...timing, seconds: (performance.now() - t0) / 1000 };
    };
    await closedLoop(await sessionsFor(COMPLETION_WARMUP), 32);
    for (const concurrency of COMPLETION_CONCURRENCY) {
      const ids = await sessionsFor(COMPLETIONS);
      await maintain();
      completions.push(summarise(`completion, ${concurrency} in flight`, await closedLoop(ids, concurrency)));
    }
    {
      const ids = await sessionsFor(Math.round(COMPLETION_RATE * COMPLETION_RATE_SECONDS));
      await maintain();
      completions.push(
        summarise(`completion at ${COMPLETION_RATE}/s offered`, await openLoop(ids, COMPLETION_RATE), COMPLETION_RATE),
      );
    }
    const check = await db().system.query(
      `SELECT (SELECT count(*) FROM payments WHERE "workspaceId" = $1)::int AS payments,
              (SELECT count(*) FROM (SELECT "txId" FROM ledger_entries WHERE "workspaceId" = $1 GROUP BY "txId"
                HAVING sum(CASE direction WHEN 'debit' THEN amount ELSE -amount END) <> 0) x)::int AS unbalanced`,
      [ws.workspaceId],
    );
    ledger = check.rows[0] as { payments: number; unbalanced: number };
  } finally {
    await app.stop();
  }
  rows.push(['baseline create (pg, one tx)', fmt(b.rps), `${b.p50} ms`, `${b.p99} ms`, '-', String(b.bad)]);
  rows.push([
    'POST /v1/checkout-sessions',
    fmt(c.rps),
    `${c.p50} ms`,
    `${c.p99} ms`,
    `${fmt((c.rps / b.rps) * 100, 1)}%`,
    String(c.bad),
  ]);
  for (const k of completions)
    rows.push([
      k.label,
      fmt(k.rps),
      `${fmt(k.p50, 1)} ms`,
      `${fmt(k.p99, 1)} ms`,
      '-',
      `${k.n} sessions; the attempt alone p50 ${fmt(k.attemptP50, 1)} ms, p99 ${fmt(k.attemptP99, 1)} ms`,
    ]);
  const sessions = COMPLETION_WARMUP + completions.reduce((n, k) => n + k.n, 0);
  const capacity = completions.find((k) => k.offered === undefined)!;
  const paced = completions.find((k) => k.offered !== undefined)!;

  // 3. PDF
  const view = buildReceiptView(
    {
      receiptId: 'rcpt_bench',
      number: 'SVC-RCPT-2026-11-0001',
      sourceType: 'checkout_session',
      sourceId: 'cs_bench',
      status: 'completed',
      paidAt: new Date().toISOString(),
      amount: 150000,
      currency: 'IDR',
      method: 'qris',
      methodLabel: 'QRIS',
      adapter: 'provider_a',
      customer: { name: 'Budi', email: 'budi@example.com', phone: null },
      merchant: {
        name: 'Warung Bench',
        logoUrl: null,
        accentColor: '#0f766e',
        tagline: null,
        address: 'Jl. Sudirman 1',
        taxId: null,
      },
      lineItems: [{ name: 'Kopi susu', qty: 3, unitPrice: 50000, subtotal: 150000 }],
      subtotal: 135135,
      taxAmount: 14865,
      total: 150000,
      template: {
        footerText: null,
        thankYouText: 'Terima kasih / Thank you',
        showTax: true,
        taxLabel: 'PPN',
        taxRate: 0.11,
        cashierLabel: 'Sari',
        showMerchantAddress: true,
        merchantAddress: null,
        merchantTaxId: null,
      },
    } as never,
    { issuedAt: new Date(), mode: 'test' },
  );
  for (let i = 0; i < 100; i++) await renderPdf(view);
  const pdfTimes: number[] = [];
  for (let i = 0; i < 500; i++) {
    const s = performance.now();
    await renderPdf(view);
    pdfTimes.push(performance.now() - s);
  }
  pdfTimes.sort((x, y) => x - y);
  const pdfP95 = pdfTimes[Math.floor(0.95 * pdfTimes.length)];

  const w = [34, 9, 10, 10, 12];
  console.log(
    `\n  ${'step'.padEnd(w[0])}${'req/s'.padStart(w[1])}${'p50'.padStart(w[2])}${'p99'.padStart(w[3])}${'vs baseline'.padStart(w[4])}  notes`,
  );
  for (const r of rows)
    console.log(
      `  ${r[0].padEnd(w[0])}${r[1].padStart(w[1])}${r[2].padStart(w[2])}${r[3].padStart(w[3])}${r[4].padStart(w[4])}  ${r[5]}`,
    );
  console.log(
    `  receipt PDF render: p50 ${fmt(pdfTimes[250], 2)} ms, p95 ${fmt(pdfP95, 2)} ms (500 renders after 100 warm-up)`,
  );
  const targets: [string, boolean, string][] = [
    ['create >= 50% of baseline', c.rps >= 0.5 * b.rps, `${fmt((c.rps / b.rps) * 100, 1)}%`],
    ['create >= 500/s', c.rps >= 500, `${fmt(c.rps)}/s`],
    ['completion >= 200/s', capacity.rps >= 200, `${fmt(capacity.rps)}/s (${capacity.label})`],
    [
      `completion p99 < 100 ms at ${COMPLETION_RATE}/s`,
      paced.p99 < 100 && paced.rps >= 0.98 * COMPLETION_RATE,
      `p99 ${fmt(paced.p99, 1)} ms, ${fmt(paced.rps)}/s done`,
    ],
    ['PDF p95 < 50 ms', pdfP95 < 50, `${fmt(pdfP95, 2)} ms`],
    [
      'every request 2xx, ledger balanced',
      c.bad === 0 && b.bad === 0 && ledger.unbalanced === 0 && ledger.payments >= sessions,
      `${ledger.payments} payments for ${sessions} sessions, ${ledger.unbalanced} unbalanced txIds`,
    ],
  ];
  printTargets('checkout', targets);
} catch (e) {
  failed = true;
  console.error(e);
} finally {
  for (const c of children) c.kill('SIGTERM');
  await closeDatabase().catch(() => {});
  if (process.env.BENCH_KEEP_DB) console.log(`kept ${scratch.url}`);
  else await scratch.drop();
}
process.exit(failed ? 1 : 0);
