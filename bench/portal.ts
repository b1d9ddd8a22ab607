/**
 * `npm run bench:portal`: the hosted customer portal ("p95 < 100 ms at 8 connections").
 *  Seeds one workspace over the API of the real app (a child process): BENCH_PORTAL_PLANS (8) plans,
 *  BENCH_PORTAL_CUSTOMERS (40) customers, each with 2 subscriptions charged to the test card and
 *  BENCH_PORTAL_INVOICES (6) open invoices, and one portal session each. Then BENCH_CONNECTIONS (8)
 *  clients open portal pages for BENCH_SECONDS (10 s, after 3 s of warm-up): a random session's page
 *  (`GET /portal/<ps_id>`) and the state its script loads (`GET /portal/<ps_id>/api/state` with the
 *  token), as a browser does. Prints p50/p95/p99 of the page view (both requests) and of each request.
 * Env: BENCH_ADMIN_URL, BENCH_CONNECTIONS, BENCH_SECONDS, BENCH_PORTAL_CUSTOMERS, BENCH_PORTAL_PLANS,
 * BENCH_PORTAL_INVOICES.
 */
import os from 'node:os';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { fmt, num, scratchDatabase, startApp, printTargets } from './lib.ts';

const CONNECTIONS = num('BENCH_CONNECTIONS', 8);
const SECONDS = num('BENCH_SECONDS', 10);
const CUSTOMERS = num('BENCH_PORTAL_CUSTOMERS', 40);
const PLANS = num('BENCH_PORTAL_PLANS', 8);
const INVOICES = num('BENCH_PORTAL_INVOICES', 6);
const WARMUP = 3;

const { migrate } = await import('../src/core/db/migrate.ts');
const { openDatabase, closeDatabase, db } = await import('../src/core/db/client.ts');
const { bootstrapWorkspace } = await import('../src/modules/workspaces/service.ts');
const { createClient } = await import('../src/client/index.ts');

const scratch = scratchDatabase();
const url = scratch.url;
let child: ChildProcess | undefined;

const features = {
  selfServeCancel: true,
  selfServePause: true,
  selfServeUpgrade: true,
  selfServeDowngrade: true,
  updatePaymentMethod: true,
};

let failed = false;
try {
  const cpus = os.cpus();
  console.log(
    `node ${process.version}, ${cpus[0]?.model} x ${cpus.length}, load ${os
      .loadavg()
      .map((l) => fmt(l, 1))
      .join(' ')}; ` + `${CUSTOMERS} customers x (2 subscriptions, ${INVOICES} open invoices), ${PLANS} plans`,
  );
  await scratch.create();
  await migrate(url);
  openDatabase(url);
  const ws = await bootstrapWorkspace({ name: 'Bench portal' });
  const app = await startApp(url);
  child = app.child;
  const base = app.base;
  const client = createClient({ baseUrl: base, keyId: ws.apiKey.keyId, secret: ws.apiKey.key });
  const ok = <T extends { status: number; json: any }>(r: T, what: string) => {
    if (r.status >= 300) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`);
    return r.json.data;
  };

  const t0 = performance.now();
  const prices: string[] = [];
  for (let p = 0; p < PLANS; p++) {
    const plan = ok(
      await client.post(
        '/v1/plans',
        {
          name: `Plan ${p + 1}`,
          interval: 'month',
          portalFeatures: features,
          prices: [{ currency: 'IDR', model: 'flat', unitAmount: 50_000 * (p + 1) }],
        },
        { 'idempotency-key': randomUUID() },
      ),
      'plan',
    );
    prices.push(plan.prices[0].id);
  }
  const sessions: { id: string; token: string }[] = [];
  for (let c = 0; c < CUSTOMERS; c++) {
    const cus = ok(
      await client.post('/v1/customers', { name: `Customer ${c}`, email: `c${c}@example.com` }),
      'customer',
    );
    for (const price of [prices[c % PLANS], prices[(c + 3) % PLANS]])
      ok(
        await client.post(
          '/v1/subscriptions',
          { customerId: cus.id, priceId: price, paymentMethod: 'pm_test_success' },
          { 'idempotency-key': randomUUID() },
        ),
        'subscription',
      );
    for (let i = 0; i < INVOICES; i++)
      ok(
        await client.post('/v1/invoices', {
          customerId: cus.id,
          currency: 'IDR',
          status: 'open',
          lines: [{ description: `Item ${i}`, quantity: 1 + i, unitAmount: 25_000 }],
        }),
        'invoice',
      );
    const ps = ok(
      await client.post('/v1/portal-sessions', { customerId: cus.id, returnUrl: 'https://shop.example' }),
      'session',
    );
    const u = new URL(ps.url);
    sessions.push({ id: u.pathname.split('/')[2], token: u.hash.slice('#t='.length) });
  }
  await db().system.query('ANALYZE');
  console.log(`seeded over the API in ${fmt((performance.now() - t0) / 1000, 1)} s`);

  const view = async () => {
    const s = sessions[Math.floor(Math.random() * sessions.length)];
    const a = performance.now();
    const page = await fetch(`${base}/portal/${s.id}`);
    const html = await page.text();
    const b = performance.now();
    const res = await fetch(`${base}/portal/${s.id}/api/state`, { headers: { 'x-portal-token': s.token } });
    const json = (await res.json()) as { data?: { subscriptions: unknown[]; invoices: unknown[] } };
    const c = performance.now();
    if (page.status !== 200 || !html.includes('<script>') || res.status !== 200)
      throw new Error(`portal: ${page.status} ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
    if (json.data?.subscriptions.length !== 2 || json.data.invoices.length !== INVOICES + 2)
      throw new Error(`portal state: ${JSON.stringify(json).slice(0, 300)}`);
    return { page: b - a, state: c - b, view: c - a };
  };
  const run = async (seconds: number) => {
    const out = { page: [] as number[], state: [] as number[], view: [] as number[] };
    const end = performance.now() + seconds * 1000;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (performance.now() < end) {
          const r = await view();
          out.page.push(r.page);
          out.state.push(r.state);
          out.view.push(r.view);
        }
      }),
    );
    const elapsed = (performance.now() - start) / 1000;
    const stats = (xs: number[]) => {
      xs.sort((x, y) => x - y);
      const at = (p: number) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))];
      return { p50: at(0.5), p95: at(0.95), p99: at(0.99) };
    };
    return {
      n: out.view.length,
      rps: out.view.length / elapsed,
      ...Object.fromEntries((['page', 'state', 'view'] as const).map((k) => [k, stats(out[k])])),
    } as { n: number; rps: number } & Record<'page' | 'state' | 'view', { p50: number; p95: number; p99: number }>;
  };
  await run(WARMUP);
  const r = await run(SECONDS);
  const line = (label: string, x: { p50: number; p95: number; p99: number }) =>
    console.log(`  ${label.padEnd(36)}p50 ${fmt(x.p50, 1)} ms  p95 ${fmt(x.p95, 1)} ms  p99 ${fmt(x.p99, 1)} ms`);
  console.log(`\n  portal page views (${CONNECTIONS} connections, ${SECONDS} s, ${fmt(r.n)} views, ${fmt(r.rps)}/s)`);
  line('GET /portal/<ps_id> (the page)', r.page);
  line('GET /portal/<ps_id>/api/state', r.state);
  line('page view (both, in sequence)', r.view);
  const targets: [string, boolean, string][] = [
    ['page p95 < 100 ms at 8 connections', r.page.p95 < 100, `${fmt(r.page.p95, 1)} ms`],
    ['page view with its state p95 < 100 ms', r.view.p95 < 100, `${fmt(r.view.p95, 1)} ms`],
  ];
  printTargets('portal', targets);
} catch (e) {
  failed = true;
  console.error(e);
} finally {
  if (child?.connected) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.send({ type: 'stop' });
    await exited;
  }
  child?.kill('SIGTERM');
  await closeDatabase().catch(() => {});
  await scratch.drop();
}
process.exit(failed ? 1 : 0);
