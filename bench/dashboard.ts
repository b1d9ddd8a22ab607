/**
 * `npm run bench:dashboard`: the dashboard at scale (docs/dashboard.md, Benchmark).
 *  Seeds one workspace with BENCH_DASHBOARD_PAYMENTS (100,000) payments over BENCH_DASHBOARD_CUSTOMERS
 *  (1,000) customers with their ledger entries (test/helpers/graph-seed.ts), starts the real app in a
 *  child process (statement counting on) and the outbox relay here, and signs in BENCH_CONNECTIONS (8)
 *  member sessions (rows made directly: the bench measures the dashboard, not the identity provider).
 *  1. The GraphQL operations behind each screen (home, payments first page, a later page, a payment),
 *     from the 8 sessions at once for BENCH_SECONDS (10 s) each: p50/p95 and statements per operation.
 *  2. Chromium: the home and the payments list loaded BENCH_LOADS (20) times each: first contentful
 *     paint and the moment their data is on screen, p95.
 *  3. An event (a customer created over the API) reaching the open home's feed after its commit, p95
 *     over BENCH_EVENTS (20).
 * Env: BENCH_ADMIN_URL, BENCH_DASHBOARD_PAYMENTS, BENCH_DASHBOARD_CUSTOMERS, BENCH_CONNECTIONS,
 * BENCH_SECONDS, BENCH_LOADS, BENCH_EVENTS, CHROMIUM_PATH.
 */
import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { chromium } from 'playwright-core';
import { seedGraph } from '../test/helpers/graph-seed.ts';
import { fmt, num, printTargets, scratchDatabase, startApp, type Target } from './lib.ts';
import { HomeDocument, PaymentDocument, PaymentsDocument } from '../src/dashboard/app/operations.ts';

const PAYMENTS = num('BENCH_DASHBOARD_PAYMENTS', 100_000);
const CUSTOMERS = num('BENCH_DASHBOARD_CUSTOMERS', 1_000);
const CONNECTIONS = num('BENCH_CONNECTIONS', 8);
const SECONDS = num('BENCH_SECONDS', 10);
const LOADS = num('BENCH_LOADS', 20);
const EVENTS = num('BENCH_EVENTS', 20);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const { migrate } = await import('../src/core/db/migrate.ts');
const { openDatabase, closeDatabase, db } = await import('../src/core/db/client.ts');
const { bootstrapWorkspace } = await import('../src/modules/workspaces/service.ts');
const { createSession, csrfOf } = await import('../src/auth/session.ts');
const { signRequest } = await import('../src/core/auth/signing.ts');
const { startRelay } = await import('../jobs/outbox-relay.ts');
const { eventBus } = await import('../src/core/pubsub.ts');

const scratch = scratchDatabase();
let child: ChildProcess | undefined;
let stopRelay: (() => void) | undefined;
const p = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
};
const rows: Target[] = [];

let failed = false;
try {
  const cpus = os.cpus();
  console.log(
    `node ${process.version}, ${cpus[0]?.model} x ${cpus.length}; ${fmt(PAYMENTS)} payments, ${fmt(CUSTOMERS)} customers`,
  );
  await scratch.create();
  await migrate(scratch.url);
  openDatabase(scratch.url);
  const ws = await bootstrapWorkspace({ name: 'Bench shop' });
  const t0 = performance.now();
  await seedGraph(db().system, {
    workspaceId: ws.workspaceId,
    mode: 'test',
    tag: 'm',
    customers: CUSTOMERS,
    paymentsPerCustomer: Math.ceil(PAYMENTS / CUSTOMERS),
    refundEvery: 4,
    ledger: true,
  });
  await db().system.query('ANALYZE');
  console.log(`seeded in ${fmt((performance.now() - t0) / 1000, 1)} s`);
  const owner = (
    await db().system.query(`SELECT id FROM members WHERE "workspaceId" = $1 AND role = 'owner'`, [ws.workspaceId])
  ).rows[0].id as string;
  const sessions = await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      const s = await createSession({
        workspaceId: ws.workspaceId,
        memberId: owner,
        issuer: 'bench',
        subject: 'bench',
      });
      return { cookie: `svc_session=${s.token}`, csrf: csrfOf(s.token), token: s.token };
    }),
  );
  const app = await startApp(scratch.url, { env: { SVC_COUNT_STATEMENTS: '1' } });
  child = app.child;
  const base = app.base;
  // The relay as the worker runs it: woken by each commit's notification, not only by its 1 s poll.
  await eventBus.start(scratch.url);
  stopRelay = startRelay();

  // 1. The operations behind the screens.
  const day = (d: Date) => d.toISOString().slice(0, 10);
  const now = new Date();
  const first = await gql(sessions[0]!, PaymentsDocument, { first: 20 });
  const cursor = first.json.data.payments.pageInfo.endCursor;
  const somePayment = first.json.data.payments.edges[5].node.id;
  const ops: [string, string, Record<string, unknown>][] = [
    ['home', HomeDocument, { from: day(new Date(now.getTime() - 29 * 86400_000)), to: day(now) }],
    ['payments (first page)', PaymentsDocument, { first: 20 }],
    ['payments (next page)', PaymentsDocument, { first: 20, after: cursor }],
    ['payment detail', PaymentDocument, { id: somePayment, objectId: somePayment }],
  ];
  console.log(`\n  GraphQL behind each screen (${CONNECTIONS} sessions at once, ${SECONDS} s each)`);
  for (const [name, query, variables] of ops) {
    const times: number[] = [];
    const statements = new Set<number>();
    const end = performance.now() + SECONDS * 1000;
    await Promise.all(
      sessions.map(async (s) => {
        while (performance.now() < end) {
          const t = performance.now();
          const r = await gql(s, query, variables);
          times.push(performance.now() - t);
          statements.add(r.statements);
        }
      }),
    );
    const p95 = p(times, 0.95);
    const stmts = [...statements].sort((a, b) => a - b).join('/');
    console.log(
      `  ${name.padEnd(24)} n ${fmt(times.length)}  p50 ${fmt(p(times, 0.5), 1)} ms  p95 ${fmt(p95, 1)} ms  statements ${stmts}`,
    );
    rows.push([`${name}: p95 < 50 ms`, p95 < 50, `${fmt(p95, 1)} ms, ${stmts} statements`]);
  }

  // 2. First contentful paint and data on screen, in Chromium.
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu'],
  });
  const host = new URL(base).hostname;
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addCookies([
    { name: 'svc_session', value: sessions[0]!.token, domain: host, path: '/', httpOnly: true },
  ]);
  for (const [name, path, selector] of [
    ['home', '/dashboard/', '[data-testid=balance-IDR]'],
    ['payments list', '/dashboard/payments', 'tr[data-payment-id]'],
  ] as const) {
    const fcp: number[] = [];
    const data: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      const page = await context.newPage();
      const t = Date.now();
      await page.goto(`${base}${path}`);
      await page.locator(selector).first().waitFor();
      data.push(Date.now() - t);
      fcp.push(
        await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN),
      );
      await page.close();
    }
    console.log(`  ${name.padEnd(24)} FCP p95 ${fmt(p(fcp, 0.95))} ms  data on screen p95 ${fmt(p(data, 0.95))} ms`);
    rows.push([`${name}: first contentful paint p95 < 1 s`, p(fcp, 0.95) < 1000, `${fmt(p(fcp, 0.95))} ms`]);
    rows.push([`${name}: data on screen p95 < 1 s`, p(data, 0.95) < 1000, `${fmt(p(data, 0.95))} ms`]);
  }

  // 3. An event's commit to the open home's feed.
  const home = await context.newPage();
  await home.goto(`${base}/dashboard/`);
  await home.locator('.dot.on').waitFor();
  const key = { keyId: ws.apiKey.keyId, secret: ws.apiKey.key };
  const lags: number[] = [];
  for (let i = 0; i < EVENTS; i++) {
    const body = JSON.stringify({ name: `Live ${i}` });
    const target = '/v1/customers';
    const res = await fetch(`${base}${target}`, {
      method: 'POST',
      headers: {
        ...signRequest({ ...key, method: 'POST', target, body }),
        'content-type': 'application/json',
        'idempotency-key': `bench-${i}-${Date.now()}`,
      },
      body,
    });
    const committed = Date.now();
    const id = ((await res.json()) as { data: { id: string } }).data.id;
    await home.locator(`[data-testid=feed] li[data-live]:has-text("${id}")`).waitFor({ timeout: 10_000 });
    lags.push(Date.now() - committed);
  }
  console.log(`  event to the open feed    p50 ${fmt(p(lags, 0.5))} ms  p95 ${fmt(p(lags, 0.95))} ms`);
  rows.push(['event reaches the dashboard p95 < 1 s', p(lags, 0.95) < 1000, `${fmt(p(lags, 0.95))} ms`]);
  await browser.close();

  printTargets('dashboard', rows);

  async function gql(s: { cookie: string; csrf: string }, query: string, variables: Record<string, unknown>) {
    const res = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: s.cookie, 'x-svc-csrf': s.csrf },
      body: JSON.stringify({ query, variables }),
    });
    const json = (await res.json()) as any;
    if (res.status !== 200 || json.errors) throw new Error(`${res.status} ${JSON.stringify(json).slice(0, 300)}`);
    return { json, statements: Number(res.headers.get('x-svc-statements')) };
  }
} catch (e) {
  failed = true;
  console.error(e);
} finally {
  stopRelay?.();
  await eventBus.stop();
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
