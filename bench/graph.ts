/**
 * `npm run bench:graph`: the graph's dashboard document at scale.
 *  Seeds one workspace with BENCH_GRAPH_PAYMENTS (100,000) payments over BENCH_GRAPH_CUSTOMERS (1,000)
 *  customers, each with its checkout session and receipt, and a refund on every 4th payment
 *  (set-based SQL: test/helpers/graph-seed.ts), plus a second workspace of the same size, then
 *  against the real app in a child process (statement counting on: `x-svc-statements`) sends one
 *  customer page per request from BENCH_CONNECTIONS (8) concurrent clients for BENCH_SECONDS (10 s,
 *  after 3 s of warm-up): a random customer, its last 20 payments each with refunds and receipt,
 *  and its last 20 checkout sessions. Prints p50/p95/p99, requests/s and statements per request.
 * Env: BENCH_ADMIN_URL, BENCH_GRAPH_PAYMENTS, BENCH_GRAPH_CUSTOMERS, BENCH_CONNECTIONS, BENCH_SECONDS,
 * BENCH_CPU_PROF=<dir> (the app child writes graph.cpuprofile there; summarise with bench/profile-summary.ts).
 */
import os from 'node:os';
import type { ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fmt, num, scratchDatabase, startApp, printTargets } from './lib.ts';
import { seedGraph } from '../test/helpers/graph-seed.ts';

const PAYMENTS = num('BENCH_GRAPH_PAYMENTS', 100_000);
const CUSTOMERS = num('BENCH_GRAPH_CUSTOMERS', 1_000);
const CONNECTIONS = num('BENCH_CONNECTIONS', 8);
const SECONDS = num('BENCH_SECONDS', 10);
const WARMUP = 3;

const { migrate } = await import('../src/core/db/migrate.ts');
const { openDatabase, closeDatabase, db } = await import('../src/core/db/client.ts');
const { bootstrapWorkspace } = await import('../src/modules/workspaces/service.ts');
const { signRequest } = await import('../src/core/auth/signing.ts');

const scratch = scratchDatabase();
const url = scratch.url;
let child: ChildProcess | undefined;

async function startAppChild() {
  const app = await startApp(url, { env: { SVC_COUNT_STATEMENTS: '1' }, profileName: 'graph.cpuprofile' });
  child = app.child;
  return app.base;
}

const CUSTOMER_PAGE = `query CustomerPage($id: ID!) {
  customer(id: $id) {
    id name email createdAt
    payments(first: 20) { pageInfo { hasNextPage endCursor } edges { node {
      id amount currency status amountRefunded createdAt
      refunds { edges { node { id amount status createdAt } } }
      receipt { receiptId number paidAt total }
    } } }
    checkoutSessions(first: 20) { edges { node { id status amount currency createdAt } } }
  }
}`;

let failed = false;
try {
  const cpus = os.cpus();
  console.log(
    `node ${process.version}, ${cpus[0]?.model} x ${cpus.length}; ${fmt(PAYMENTS)} payments over ${fmt(CUSTOMERS)} customers (+ another workspace as large)`,
  );
  await scratch.create();
  await migrate(url);
  openDatabase(url);
  const ws = await bootstrapWorkspace({ name: 'Bench shop' });
  const other = await bootstrapWorkspace({ name: 'Someone else' });
  const t0 = performance.now();
  const perCustomer = Math.ceil(PAYMENTS / CUSTOMERS);
  for (const [w, tag] of [
    [ws, 'm'],
    [other, 'o'],
  ] as const)
    await seedGraph(db().system, {
      workspaceId: w.workspaceId,
      mode: 'test',
      tag,
      customers: CUSTOMERS,
      paymentsPerCustomer: perCustomer,
      refundEvery: 4,
    });
  await db().system.query('ANALYZE');
  console.log(`seeded in ${fmt((performance.now() - t0) / 1000, 1)} s`);

  const base = await startAppChild();
  const { keyId, key: secret } = ws.apiKey;
  const request = async () => {
    const body = JSON.stringify({
      query: CUSTOMER_PAGE,
      variables: { id: `cus_m_${1 + Math.floor(Math.random() * CUSTOMERS)}` },
    });
    const headers = {
      ...signRequest({ keyId, secret, method: 'POST', target: '/graphql', body }),
      'content-type': 'application/json',
    };
    const s = performance.now();
    const res = await fetch(`${base}/graphql`, { method: 'POST', headers, body });
    const json = (await res.json()) as { data?: { customer: { payments: { edges: unknown[] } } }; errors?: unknown };
    const ms = performance.now() - s;
    if (res.status !== 200 || json.errors || json.data?.customer.payments.edges.length !== Math.min(20, perCustomer))
      throw new Error(`customer page: ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
    return { ms, statements: Number(res.headers.get('x-svc-statements')) };
  };

  const run = async (seconds: number) => {
    const times: number[] = [];
    const statements = new Map<number, number>();
    const end = performance.now() + seconds * 1000;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (performance.now() < end) {
          const r = await request();
          times.push(r.ms);
          statements.set(r.statements, (statements.get(r.statements) ?? 0) + 1);
        }
      }),
    );
    const elapsed = (performance.now() - start) / 1000;
    times.sort((a, b) => a - b);
    const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))];
    return { n: times.length, rps: times.length / elapsed, p50: at(0.5), p95: at(0.95), p99: at(0.99), statements };
  };
  await run(WARMUP);
  const r = await run(SECONDS);
  // The key cache (2 s) is refreshed by one request in a while: that one reads the key too.
  const counts = [...r.statements].sort((a, b) => b[1] - a[1]);
  const stmts = counts.map(([n, times]) => `${n} (${fmt((100 * times) / r.n, 1)}%)`).join(', ');
  console.log(`\n  customer page (POST /graphql, ${CONNECTIONS} connections, ${SECONDS} s, ${fmt(r.n)} requests)`);
  console.log(`  ${fmt(r.rps)} req/s  p50 ${fmt(r.p50, 1)} ms  p95 ${fmt(r.p95, 1)} ms  p99 ${fmt(r.p99, 1)} ms`);
  console.log(`  SQL statements per request: ${stmts}`);
  const targets: [string, boolean, string][] = [
    ['p95 < 50 ms at 8 connections', r.p95 < 50, `${fmt(r.p95, 1)} ms`],
    ['statements per request constant (+1 key read)', counts.length <= 2 && counts[0][0] <= 8, stmts],
  ];
  printTargets('graph', targets);
} catch (e) {
  failed = true;
  console.error(e);
} finally {
  if (child?.connected) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.send({ type: 'stop' });
    await exited; // the profile is written at exit
  }
  child?.kill('SIGTERM');
  await closeDatabase().catch(() => {});
  await scratch.drop();
}
process.exit(failed ? 1 : 0);
