/**
 * `npm run bench:billing`: billing at scale, in sections (BENCH_SECTIONS=list,finalize,... picks some;
 * default all). Each section is a function of the shared context below and returns its target rows,
 * so a new part (invoice PDF, hosted invoice page) is one more entry in `sections`.
 *
 *  setup     a scratch database, one workspace, BENCH_INVOICES (100,000) invoices with 2 lines each
 *            for it (set-based SQL, triggers off for the load) and as many for another workspace,
 *            the real app in a child process
 *  list      GET /v1/invoices?limit=100 (lines on every item, loaded in one query per page) p50/p95
 *  finalize  BENCH_FINALIZE (500) drafts finalized over HTTP with BENCH_CONCURRENCY (8) in flight, in one
 *            workspace: invoices per second. Numbers are gapless, so every finalize of a workspace and mode
 *            takes the counter row's lock and holds it to commit: they run one after another, and the rate
 *            is about 1 / (the time from the counter bump to COMMIT), not the core count.
 *  pdf       GET /v1/invoices/:id/invoice.pdf (and the 302 of /pdf) over HTTP, p50/p95
 *  hosted    GET /i/<token> (the hosted invoice page, public) with BENCH_CONCURRENCY (8) connections, p50/p95
 *  renewals  two real `svc worker` processes; BENCH_RENEWALS (10,000) monthly subscriptions
 *            (pm_test_success) of one workspace due at one instant, then the same spread as 10 workspaces:
 *            the `billing-batch` jobs (as the minute's tick sends them) drain them: invoiced, finalized,
 *            charged, receipted, posted, events committed; seconds until all are paid, and the pg-boss
 *            job rows of every queue (billing batches, receipt emails, ticks) during the burst (target <= renewals / 50)
 *  crash     (B4) BENCH_CRASH_SUBSCRIPTIONS (1,500) renewals drained by two `bench/billing-drain.ts` processes, one
 *            SIGKILLed mid-burst: duplicates, double charges, numbering gaps, unbalanced txIds, charges left pending
 * BENCH_ANALYZE_MS (default 0: never): ANALYZE every so many ms during a burst or a clock's advance, on
 * top of what the product does (the renewal path analyzes the tables a burst grew: src/core/db/analyze.ts).
 * Env: BENCH_ADMIN_URL, BENCH_INVOICES, BENCH_REPS (50), BENCH_FINALIZE, BENCH_CONCURRENCY, BENCH_SECTIONS,
 *      BENCH_RENEWALS, BENCH_CLOCK_SUBSCRIPTIONS (1,000), BENCH_CLOCK_CYCLES (12), BENCH_CRASH_SUBSCRIPTIONS.
 */
import os from 'node:os';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fmt, num, scratchDatabase, startApp, startWorkers as spawnWorkers, printTargets } from './lib.ts';

const INVOICES = num('BENCH_INVOICES', 100_000);
const REPS = num('BENCH_REPS', 50);
const FINALIZE = num('BENCH_FINALIZE', 500);
const CONCURRENCY = num('BENCH_CONCURRENCY', 8);
const RENEWALS = num('BENCH_RENEWALS', 10_000);
const only = process.env.BENCH_SECTIONS?.split(',').map((s) => s.trim());

const { migrate } = await import('../src/core/db/migrate.ts');
const { openDatabase, closeDatabase, db } = await import('../src/core/db/client.ts');
const { bootstrapWorkspace } = await import('../src/modules/workspaces/service.ts');
const { signRequest } = await import('../src/core/auth/signing.ts');

const scratch = scratchDatabase();
const url = scratch.url;
let child: ChildProcess | undefined;

async function startAppChild() {
  const app = await startApp(url);
  child = app.child;
  return app.base;
}

/** A signed request to the app, timed; throws unless the status is `expect`. */
function signedClient(base: string, keyId: string, secret: string) {
  return async (method: 'GET' | 'POST', target: string, body?: unknown, expect = method === 'GET' ? 200 : 201) => {
    const text = body === undefined ? '' : JSON.stringify(body);
    const headers: Record<string, string> = {
      ...signRequest({ keyId, secret, method, target, body: text }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(method === 'POST' ? { 'idempotency-key': randomBytes(12).toString('hex') } : {}),
    };
    const s = performance.now();
    const res = await fetch(base + target, {
      method,
      headers,
      body: body === undefined ? undefined : text,
      redirect: 'manual',
    });
    const out = await res.text();
    const ms = performance.now() - s;
    if (res.status !== expect) throw new Error(`${method} ${target}: ${res.status} ${out.slice(0, 300)}`);
    return { ms, text: out, status: res.status, headers: res.headers };
  };
}

export type Request = ReturnType<typeof signedClient>;

/** What every section gets. */
export interface BenchContext {
  base: string;
  request: Request;
  workspaceId: string;
  customerId: string;
  /** Open invoices of the measured workspace (seeded), for sections that read or render one. */
  openInvoiceIds: string[];
}

/** One row of the final table: the target, whether it was met, what was measured. */
export type Target = [string, boolean, string];

export async function timeIt(reps: number, fn: () => Promise<{ ms: number }>) {
  for (let i = 0; i < 3; i++) await fn();
  const t: number[] = [];
  for (let i = 0; i < reps; i++) t.push((await fn()).ms);
  t.sort((a, b) => a - b);
  return { p50: t[Math.floor(0.5 * t.length)], p95: t[Math.min(t.length - 1, Math.floor(0.95 * t.length))] };
}

const ms = (x: { p50: number; p95: number }) => `p50 ${fmt(x.p50, 1)} ms, p95 ${fmt(x.p95, 1)} ms`;

/**
 * `n` invoices with two lines each for one workspace, newest last: 60% paid, 30% open, 10% drafts
 * (numbered like finalization would: the counter is set to the count). Triggers (and so the
 * lock-after-draft checks and foreign keys) are off for the load; the rows satisfy the CHECKs.
 */
async function seed(workspaceId: string, customerId: string, n: number, tag: string) {
  const c = await db().system.connect();
  try {
    await c.query('BEGIN');
    await c.query('SET LOCAL session_replication_role = replica');
    await c.query(
      `INSERT INTO invoices (id, "workspaceId", mode, "customerId", status, number, currency, subtotal, discount, tax,
         total, "amountPaid", "amountDue", "issuedAt", "paidAt", "billingReason", "createdAt", "updatedAt")
       SELECT 'inv_${tag}' || lpad(g::text, 20, '0'), $1, 'test', $2,
              CASE WHEN g % 10 = 0 THEN 'draft' WHEN g % 10 < 4 THEN 'open' ELSE 'paid' END,
              CASE WHEN g % 10 = 0 THEN NULL ELSE 'SVC-2025-01-' || lpad(g::text, 6, '0') END,
              'IDR', 150000, 0, 0, 150000,
              CASE WHEN g % 10 >= 4 THEN 150000 ELSE 0 END, CASE WHEN g % 10 >= 4 THEN 0 ELSE 150000 END,
              CASE WHEN g % 10 = 0 THEN NULL ELSE t END, CASE WHEN g % 10 >= 4 THEN t END, 'manual', t, t
         FROM generate_series(1, $3) g,
              LATERAL (SELECT timestamptz '2025-01-01 00:00:00+00' + g * interval '1 minute' AS t) x`,
      [workspaceId, customerId, n],
    );
    await c.query(
      `INSERT INTO invoice_lines (id, "workspaceId", mode, "invoiceId", position, description, quantity, "unitAmount",
         amount, "createdAt")
       SELECT 'il_${tag}' || lpad(g::text, 20, '0') || p, $1, 'test', 'inv_${tag}' || lpad(g::text, 20, '0'), p,
              CASE p WHEN 0 THEN 'Subscription, monthly' ELSE 'Support hours' END,
              CASE p WHEN 0 THEN 1 ELSE 2 END, CASE p WHEN 0 THEN 100000 ELSE 25000 END,
              CASE p WHEN 0 THEN 100000 ELSE 50000 END, now()
         FROM generate_series(1, $2) g CROSS JOIN (VALUES (0), (1)) lines(p)`,
      [workspaceId, n],
    );
    await c.query(
      `INSERT INTO counters ("workspaceId", mode, name, value) VALUES ($1, 'test', 'invoice', $2)
       ON CONFLICT ("workspaceId", mode, name) DO UPDATE SET value = EXCLUDED.value`,
      [workspaceId, n],
    );
    await c.query('COMMIT');
    await c.query('ANALYZE invoices');
    await c.query('ANALYZE invoice_lines');
  } finally {
    c.release();
  }
}

/**
 * ANALYZE every BENCH_ANALYZE_MS (default 0: never) while a measured burst runs: maintenance the
 * product does not do, kept only to compare with the product's own analyze step (the renewal path
 * analyzes the tables a burst grew: src/core/db/analyze.ts; docs/performance.md, Billing).
 */
const ANALYZE_MS = num('BENCH_ANALYZE_MS', 0);
function analyzeWhileRunning() {
  if (!ANALYZE_MS) return () => {};
  const timer = setInterval(() => {
    db()
      .system.query('ANALYZE subscriptions, invoices, invoice_lines, payments, receipts, ledger_entries, events')
      .catch(() => {});
  }, ANALYZE_MS);
  return () => clearInterval(timer);
}

const CLOCK_SUBS = num('BENCH_CLOCK_SUBSCRIPTIONS', 1000);
const CLOCK_CYCLES = num('BENCH_CLOCK_CYCLES', 12);
/** The stored method charged at each renewal (`none`: no charge, the invoice waits for the hosted page). */
const CLOCK_METHOD = process.env.BENCH_CLOCK_METHOD === 'none' ? null : 'pm_test_success';

/**
 * `n` active monthly subscriptions of one customer on a test clock, paid for period 0 from `anchor`
 * (rows, as the test helper writes them: what is measured is the clock's advance).
 */
async function seedClockSubscriptions(ctx: BenchContext, n: number, anchor: string) {
  const post = async (path: string, body: unknown) => JSON.parse((await ctx.request('POST', path, body)).text).data;
  const clock = await post('/v1/test-clocks', { frozenTime: anchor, name: `bench ${n}` });
  const plan = await post('/v1/plans', {
    name: 'Clocked',
    interval: 'month',
    portalFeatures: Object.fromEntries(
      ['selfServeCancel', 'selfServePause', 'selfServeUpgrade', 'selfServeDowngrade', 'updatePaymentMethod'].map(
        (k) => [k, true],
      ),
    ),
    prices: [{ currency: 'IDR', model: 'flat', unitAmount: 150000 }],
  });
  const customer = await post('/v1/customers', { name: 'Clocked', testClockId: clock.id });
  await db().system.query(
    `INSERT INTO subscriptions (id, "workspaceId", mode, status, "customerId", "planId", "priceId", currency, quantity,
       "paymentMethod", "anchorAt", "periodIndex", "currentPeriodStart", "currentPeriodEnd", "cancelAtPeriodEnd",
       "testClockId", "createdAt", "updatedAt")
     SELECT 'sub_bench' || $7 || lpad(g::text, 12, '0'), $1, 'test', 'active', $2, $3, $4, 'IDR', 1, $9,
            $5::timestamptz, 0, $5::timestamptz, $5::timestamptz + interval '1 month', false, $6, $5::timestamptz,
            $5::timestamptz
       FROM generate_series(1, $8) g`,
    [ctx.workspaceId, customer.id, plan.id, plan.prices[0].id, anchor, clock.id, n, n, CLOCK_METHOD],
  );
  return clock.id as string;
}

/** Advances a clock and waits for `ready` (polling GET); returns the elapsed milliseconds. */
async function advanceUntilReady(ctx: BenchContext, clockId: string, frozenTime: string) {
  const s = performance.now();
  const res = JSON.parse((await ctx.request('POST', `/v1/test-clocks/${clockId}/advance`, { frozenTime }, 200)).text);
  let status = res.data.status as string;
  const answered = performance.now() - s;
  while (status === 'advancing') {
    await new Promise((r) => setTimeout(r, 100));
    status = JSON.parse((await ctx.request('GET', `/v1/test-clocks/${clockId}`)).text).data.status;
  }
  if (status !== 'ready') throw new Error(`test clock ended ${status}`);
  return { total: performance.now() - s, answered, sync: res.data.status === 'ready' };
}

const sections: Record<string, (ctx: BenchContext) => Promise<Target[]>> = {
  /** B3 (docs/billing.md, Targets): a clock taking 1,000 subscriptions through 12 monthly cycles; a small advance. */
  async clock(ctx) {
    const { startWorker } = await import('../jobs/worker.ts');
    const worker = await startWorker(url);
    try {
      const anchor = '2025-01-31T00:00:00.000Z';
      const small = await seedClockSubscriptions(ctx, 10, anchor);
      const one = await advanceUntilReady(ctx, small, '2025-02-28T00:00:00.000Z');
      const big = await seedClockSubscriptions(ctx, CLOCK_SUBS, anchor);
      const target = new Date(Date.UTC(2025, 0 + CLOCK_CYCLES, 31)).toISOString();
      const stopAnalyze = analyzeWhileRunning();
      const year = await advanceUntilReady(ctx, big, target).finally(stopAnalyze);
      const { rows } = await db().system.query(
        `SELECT count(*)::int AS n, count(*) FILTER (WHERE i.status = 'paid')::int AS paid
           FROM invoices i WHERE i."workspaceId" = $1 AND i."testClockId" = $2`,
        [ctx.workspaceId, big],
      );
      const renewals = CLOCK_SUBS * CLOCK_CYCLES;
      const rate = renewals / (year.total / 1000);
      console.log(
        `  clock: ${CLOCK_SUBS} subscriptions x ${CLOCK_CYCLES} cycles: ${fmt(year.total / 1000, 1)} s ` +
          `(${rows[0].n} invoices, ${rows[0].paid} paid, ${fmt(rate, 0)} renewals/s; answered in ${fmt(year.answered, 0)} ms)`,
      );
      console.log(`  clock: 10 subscriptions x 1 cycle: ${fmt(one.total, 0)} ms (${one.sync ? 'ready' : 'advancing'})`);
      return [
        [
          `clock ${CLOCK_SUBS} x ${CLOCK_CYCLES} ready < 60 s`,
          year.total < 60_000 && rows[0].n === renewals && rows[0].paid === renewals,
          `${fmt(year.total / 1000, 1)} s, ${rows[0].paid}/${renewals} paid`,
        ],
        ['clock advance <= 10 subs sync < 500 ms', one.sync && one.total < 500, `${fmt(one.total, 0)} ms`],
      ];
    } finally {
      await worker.stop();
    }
  },
  async list({ request }) {
    const page = await timeIt(REPS, () => request('GET', '/v1/invoices?limit=100'));
    const body = JSON.parse((await request('GET', '/v1/invoices?limit=100')).text);
    const lines = body.data.reduce((s: number, i: { lines: unknown[] }) => s + i.lines.length, 0);
    // The page holds whichever invoices are newest (the clock section's cycle invoices have one line,
    // the seeded ones two): each must carry exactly the lines the database holds for it.
    const stored = await db().system.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM invoice_lines WHERE "invoiceId" = ANY($1::text[])`,
      [body.data.map((i: { id: string }) => i.id)],
    );
    const open = await timeIt(REPS, () => request('GET', '/v1/invoices?limit=100&status=open'));
    console.log(`  GET /v1/invoices?limit=100            ${ms(page)} (${body.data.length} invoices, ${lines} lines)`);
    console.log(`  GET /v1/invoices?limit=100&status=open ${ms(open)}`);
    return [
      ['list (100, with lines) p95 < 50 ms', page.p95 < 50, `${fmt(page.p95, 1)} ms`],
      ['every item has its lines', lines === stored.rows[0].n && lines >= body.data.length, `${lines} lines`],
    ];
  },

  async finalize({ request, customerId }) {
    const drafts = async (n: number) => {
      const out: string[] = [];
      for (let i = 0; i < n; i++) {
        const res = await request('POST', '/v1/invoices', {
          customerId,
          currency: 'IDR',
          lines: [{ description: 'Bench', quantity: 1, unitAmount: 10000 }],
        });
        out.push(JSON.parse(res.text).data.id);
      }
      return out;
    };
    /** Finalizes `ids` with `inFlight` requests at a time: seconds taken and the numbers given. */
    const run = async (ids: string[], inFlight: number) => {
      const numbers: string[] = [];
      let next = 0;
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: inFlight }, async () => {
          while (next < ids.length) {
            const res = await request('POST', `/v1/invoices/${ids[next++]}/finalize`, undefined, 200);
            numbers.push(JSON.parse(res.text).data.number);
          }
        }),
      );
      return { s: (performance.now() - t0) / 1000, numbers };
    };
    const serial = await run(await drafts(Math.min(100, FINALIZE)), 1);
    const { s, numbers } = await run(await drafts(FINALIZE), CONCURRENCY);
    const seq = numbers.map((n) => Number(n.split('-').at(-1))).sort((a, b) => a - b);
    const contiguous = seq.every((v, i) => i === 0 || v === seq[i - 1] + 1);
    const serialRate = serial.numbers.length / serial.s;
    const each = fmt((1000 * serial.s) / serial.numbers.length, 1);
    console.log(`  finalize, one at a time                ${fmt(serialRate)} invoices/s (${each} ms each)`);
    const range = `numbers ${seq[0]}..${seq.at(-1)}`;
    console.log(
      `  finalize x ${fmt(FINALIZE)} (${CONCURRENCY} in flight)      ${fmt(s, 2)} s = ` +
        `${fmt(FINALIZE / s)} invoices/s; ${range}`,
    );
    return [
      ['finalize numbers distinct and contiguous', contiguous && new Set(seq).size === FINALIZE, `${seq.length}`],
      ['finalize throughput (one workspace)', true, `${fmt(FINALIZE / s)} /s (${fmt(serialRate)} /s serial)`],
    ];
  },

  /** The invoice PDF over HTTP (load, view, render, send): B8, p95 < 50 ms. */
  async pdf({ request, openInvoiceIds }) {
    let i = 0;
    const next = () => openInvoiceIds[i++ % openInvoiceIds.length];
    const pdf = await timeIt(REPS * 2, () => request('GET', `/v1/invoices/${next()}/invoice.pdf`, undefined, 200));
    const redirect = await timeIt(REPS, () => request('GET', `/v1/invoices/${next()}/pdf`, undefined, 302));
    console.log(`  GET /v1/invoices/:id/invoice.pdf       ${ms(pdf)}`);
    console.log(`  GET /v1/invoices/:id/pdf (302)         ${ms(redirect)}`);
    return [['invoice PDF p95 < 50 ms', pdf.p95 < 50, `${fmt(pdf.p95, 1)} ms`]];
  },

  /** The hosted invoice page, public, `CONCURRENCY` (8) connections at once: B8, p95 < 100 ms. */
  async hosted({ base, request, customerId }) {
    // Issued through the API (the seeded rows' ids are not ULIDs, so their tokens do not parse).
    const pages: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await request('POST', '/v1/invoices', {
        customerId,
        currency: 'IDR',
        status: 'open',
        tax: 11000,
        lines: [
          { description: 'Subscription, monthly', quantity: 1, unitAmount: 100000 },
          { description: 'Support hours', quantity: 2, unitAmount: 25000 },
        ],
      });
      pages.push(JSON.parse(res.text).data.hostedInvoiceUrl.replace(/^https?:\/\/[^/]+/, base));
    }
    const get = async (u: string) => {
      const s = performance.now();
      const res = await fetch(u);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`GET ${u}: ${res.status}`);
      return performance.now() - s;
    };
    for (const u of pages.slice(0, 16)) await get(u); // warm: renderers loaded, tokens known
    const total = Math.max(400, REPS * 8);
    const t: number[] = [];
    let n = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (n < total) t.push(await get(pages[n++ % pages.length]));
      }),
    );
    const secs = (performance.now() - t0) / 1000;
    t.sort((a, b) => a - b);
    const q = { p50: t[Math.floor(0.5 * t.length)], p95: t[Math.min(t.length - 1, Math.floor(0.95 * t.length))] };
    console.log(
      `  GET /i/<token> x ${t.length}, ${CONCURRENCY} connections  ${ms(q)}, ${fmt(t.length / secs)} pages/s`,
    );
    return [[`hosted invoice page p95 < 100 ms, ${CONCURRENCY} conn`, q.p95 < 100, `${fmt(q.p95, 1)} ms`]];
  },
};

/** `n` `svc worker` processes on the scratch database. */
const startWorkers = (n: number) =>
  spawnWorkers(n, { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn', SVC_DB_POOL: '10' });

/** `n` subscriptions per workspace due one second ago, by one statement each (a month-old anchor). */
async function seedDue(workspaceIds: string[], n: number) {
  const due = new Date(Date.now() - 1000);
  for (const ws of workspaceIds) {
    const tag = randomBytes(4).toString('hex');
    await db().system.query(
      `WITH c AS (INSERT INTO customers (id, "workspaceId", mode, name) VALUES ($2 || 'c', $1, 'test', 'Bench')
         RETURNING id),
       d AS (INSERT INTO plans (id, "workspaceId", mode, name, interval, "portalFeatures")
         VALUES ($2 || 'p', $1, 'test', 'Bench', 'month', '{}'::jsonb) RETURNING id),
       pr AS (INSERT INTO prices (id, "workspaceId", mode, "planId", position, currency, model, "unitAmount")
         SELECT $2 || 'r', $1, 'test', d.id, 0, 'IDR', 'flat', 150000 FROM d RETURNING id, "planId")
       INSERT INTO subscriptions (id, "workspaceId", mode, status, "customerId", "planId", "priceId", currency,
         quantity, "paymentMethod", "anchorAt", "periodIndex", "currentPeriodStart", "currentPeriodEnd",
         "createdAt", "updatedAt")
       SELECT 'sub_bench' || $2 || lpad(g::text, 13, '0'), $1, 'test', 'active', c.id, pr."planId", pr.id, 'IDR', 1,
         'pm_test_success', $3::timestamptz - interval '1 month', 0, $3::timestamptz - interval '1 month',
         $3::timestamptz, $3::timestamptz - interval '1 month', $3::timestamptz - interval '1 month'
       FROM c, pr, generate_series(1, $4) g`,
      [ws, `bench${tag}`, due, n],
    );
  }
}

async function burst(label: string, workspaceIds: string[], perWorkspace: number, limitS: number): Promise<Target[]> {
  const { PgBoss } = await import('pg-boss');
  const total = workspaceIds.length * perWorkspace;
  await seedDue(workspaceIds, perWorkspace);
  const jobsBefore = await billingJobs();
  const boss = new PgBoss({ connectionString: url, schema: 'pgboss' });
  await boss.start();
  const t0 = performance.now();
  // What the minute's tick does (jobs/billing-tick.ts): a few batch jobs, never one per subscription.
  const { DRAINERS, batchQueue } = await import('../jobs/billing-tick.ts');
  const stopAnalyze = analyzeWhileRunning();
  for (let i = 0; i < DRAINERS; i++) await boss.send(batchQueue, {}, { singletonKey: `bench-${label}-${i}` });
  let paid = 0;
  let maxJobs = 0;
  for (;;) {
    const r = await db().system.query(
      `SELECT count(*)::int AS n FROM invoices WHERE "workspaceId" = ANY($1) AND status = 'paid'
         AND "billingReason" = 'subscription_cycle'`,
      [workspaceIds],
    );
    paid = r.rows[0].n;
    maxJobs = Math.max(maxJobs, (await billingJobs()) - jobsBefore);
    if (paid >= total || performance.now() - t0 > Math.max(240_000, 3 * limitS * 1000)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const secs = (performance.now() - t0) / 1000;
  stopAnalyze();
  await boss.stop({ graceful: false });
  const { rows } = await db().system.query(
    `SELECT count(*)::int AS n FROM (SELECT "invoiceId" FROM payments WHERE "workspaceId" = ANY($1) AND status = 'succeeded'
       GROUP BY "invoiceId" HAVING count(*) > 1) d`,
    [workspaceIds],
  );
  console.log(
    `  ${label}: ${fmt(paid)} of ${fmt(total)} renewals paid in ${fmt(secs, 1)} s (${fmt(paid / secs)}/s); ` +
      `pg-boss job rows (all queues) ${maxJobs}; double charges ${rows[0].n}`,
  );
  return [
    [`${label} within ${limitS} s`, paid >= total && secs <= limitS, `${fmt(secs, 1)} s, ${fmt(paid)}/${fmt(total)}`],
    [`${label}: job rows <= renewals/50`, maxJobs <= total / 50, `${maxJobs} rows`],
  ];
}

/** pg-boss job rows of every queue (the billing queues, the receipt emails, the sweeps' ticks). */
async function billingJobs(): Promise<number> {
  const r = await db()
    .system.query(`SELECT count(*)::int AS n FROM pgboss.job`)
    .catch(() => ({ rows: [{ n: 0 }] }));
  return r.rows[0].n;
}

sections.renewals = async () => {
  const workers = await startWorkers(2);
  try {
    const one = await bootstrapWorkspace({ name: 'Bench renewals' });
    const out = await burst(`B1 ${fmt(RENEWALS)} renewals, one workspace`, [one.workspaceId], RENEWALS, 30);
    const ten: string[] = [];
    for (let i = 0; i < 10; i++) ten.push((await bootstrapWorkspace({ name: `Bench renewals ${i}` })).workspaceId);
    out.push(...(await burst(`B1 10 x ${fmt(RENEWALS / 10)} across workspaces`, ten, RENEWALS / 10, 20)));
    return out;
  } finally {
    for (const w of workers) w.kill('SIGTERM');
  }
};

const CRASH = num('BENCH_CRASH_SUBSCRIPTIONS', 1500);

/**
 * B4 (the crash run of test/modules/subscriptions/renewals-crash.test.ts, its figures printed): two
 * `bench/billing-drain.ts` processes drain a burst of one workspace, one is SIGKILLed once a fifth of the
 * invoices exist, then the next passes (after the attempt lease) finish what it held.
 */
sections.crash = async () => {
  const { spawn } = await import('node:child_process');
  const { processDue } = await import('../src/modules/subscriptions/renewals.ts');
  const { ATTEMPT_LEASE_MS } = await import('../src/modules/collection/dunning.ts');
  const ws = await bootstrapWorkspace({ name: 'Bench crash' });
  await seedDue([ws.workspaceId], CRASH);
  const at = new Date();
  const drain = () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'billing-drain.ts')], {
      env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent', SVC_DB_POOL: '6', BILLING_AT: at.toISOString() },
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    return { child, exited: new Promise<number | null>((r) => child.once('exit', (code) => r(code))) };
  };
  const one = async (text: string) => (await db().system.query(text, [ws.workspaceId])).rows[0];
  const t0 = performance.now();
  const a = drain();
  const b = drain();
  let killedAt = 0;
  for (;;) {
    const { n } = await one(`SELECT count(*)::int AS n FROM invoices WHERE "workspaceId" = $1`);
    if (n >= CRASH / 5 || a.child.exitCode !== null) {
      killedAt = n;
      break;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  a.child.kill('SIGKILL');
  await a.exited;
  const code = await b.exited;
  await processDue({ scope: null, at, testClockId: null });
  await processDue({ scope: null, at: new Date(at.getTime() + ATTEMPT_LEASE_MS), testClockId: null });
  const secs = (performance.now() - t0) / 1000;
  const dup = await one(`SELECT count(*)::int AS n FROM (SELECT 1 FROM invoices WHERE "workspaceId" = $1
    GROUP BY "subscriptionId", "periodStart", "billingReason" HAVING count(*) > 1) d`);
  const double = await one(`SELECT count(*)::int AS n FROM (SELECT 1 FROM payments WHERE "workspaceId" = $1
    AND status = 'succeeded' GROUP BY "invoiceId" HAVING count(*) > 1) d`);
  const inv = await one(`SELECT count(*)::int AS n, coalesce(max(split_part(number, '-', 4)::int), 0) AS max,
    count(*) FILTER (WHERE status = 'paid')::int AS paid FROM invoices WHERE "workspaceId" = $1`);
  const rc = await one(`SELECT count(*)::int AS n, coalesce(max(split_part(number, '-', 5)::int), 0) AS max
    FROM receipts WHERE "workspaceId" = $1`);
  const unbalanced = await one(`SELECT count(*)::int AS n FROM (SELECT 1 FROM ledger_entries WHERE "workspaceId" = $1
    GROUP BY "txId", currency HAVING sum(CASE direction WHEN 'debit' THEN amount ELSE -amount END) <> 0) d`);
  const pending = await one(`SELECT count(*)::int AS n FROM payments WHERE "workspaceId" = $1 AND status = 'pending'`);
  const gaps = inv.max - inv.n + (rc.max - rc.n);
  console.log(
    `  crash: ${fmt(CRASH)} renewals, one of two workers SIGKILLed at ${fmt(killedAt)} invoices (survivor exit ${code}): ` +
      `${fmt(inv.n)} invoices, ${fmt(inv.paid)} paid, ${fmt(rc.n)} receipts in ${fmt(secs, 1)} s; duplicates ${dup.n}, ` +
      `double charges ${double.n}, numbering gaps ${gaps}, unbalanced txIds ${unbalanced.n}, pending ${pending.n}`,
  );
  const ok = dup.n === 0 && double.n === 0 && gaps === 0 && unbalanced.n === 0 && pending.n === 0;
  return [
    [
      'B4 crash: 0 dup, 0 double, 0 gaps, balanced',
      ok && inv.n === CRASH && inv.paid === CRASH && rc.n === CRASH,
      `${dup.n}/${double.n}/${gaps}/${unbalanced.n}, ${fmt(inv.paid)}/${fmt(CRASH)} paid`,
    ],
  ];
};

let failed = false;
try {
  const cpus = os.cpus();
  const machine = `node ${process.version}, ${cpus[0]?.model} x ${cpus.length}, ${fmt(os.totalmem() / 2 ** 30, 1)} GiB`;
  console.log(`${machine}; ${fmt(INVOICES)} invoices (2 lines each) for the measured workspace + as many for another`);
  await scratch.create();
  await migrate(url);
  openDatabase(url);
  const ws = await bootstrapWorkspace({ name: 'Bench billing' });
  const other = await bootstrapWorkspace({ name: 'Someone else' });
  const customer = async (workspaceId: string) => {
    const id = `cus_bench${randomBytes(8).toString('hex')}`;
    await db().system.query(
      `INSERT INTO customers (id, "workspaceId", mode, name, email) VALUES ($1, $2, 'test', $3, $4)`,
      [id, workspaceId, 'Bench Customer', 'bench@example.com'],
    );
    return id;
  };
  const customerId = await customer(ws.workspaceId);
  const t0 = performance.now();
  await seed(ws.workspaceId, customerId, INVOICES, 'a');
  await seed(other.workspaceId, await customer(other.workspaceId), INVOICES, 'b');
  console.log(`seeded ${fmt(2 * INVOICES)} invoices in ${fmt((performance.now() - t0) / 1000, 1)} s\n`);
  const openInvoiceIds = (
    await db().system.query(
      `SELECT id FROM invoices WHERE "workspaceId" = $1 AND status = 'open' ORDER BY "createdAt" DESC LIMIT 100`,
      [ws.workspaceId],
    )
  ).rows.map((r) => r.id as string);
  const base = await startAppChild();
  const ctx: BenchContext = {
    base,
    request: signedClient(base, ws.apiKey.keyId, ws.apiKey.key),
    workspaceId: ws.workspaceId,
    customerId,
    openInvoiceIds,
  };
  const targets: Target[] = [];
  for (const [name, run] of Object.entries(sections))
    if (!only || only.includes(name)) targets.push(...(await run(ctx)));
  printTargets('billing', targets);
} catch (e) {
  failed = true;
  console.error(e);
} finally {
  child?.kill('SIGTERM');
  await closeDatabase().catch(() => {});
  await scratch.drop();
}
process.exit(failed ? 1 : 0);
