// `npm run test:cluster` (never part of `npm test`): svc on a PostgreSQL cluster managed by Patroni
// (scripts/cluster: etcd, three nodes in synchronous mode, HAProxy), as the shared TOPOLOGY guide's
// Part 3 describes. Two `svc serve` (A, B) and two `svc worker` on the writer port; idempotent
// checkout-session creates through A and B, retried as a client would (same key after a 503, a lost
// answer or 409 in flight); a graphql-ws subscriber on B. Faults on the primary, each after
// CLUSTER_LOAD_SEC of load and followed by CLUSTER_AFTER_SEC: `kill -9` of its postmaster, a
// switchover, `kill -9` of its Patroni. Needs root and Debian's patroni, etcd-server, etcd-client
// and haproxy; skips with one line otherwise. Prints the figures per fault.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Client as WsClient } from 'graphql-ws';
import { ROOT, SVC_BIN, freePort, svc } from '../helpers/cli.ts';
import { signedSocket } from '../helpers/sockets.ts';
import { until } from '../helpers/receiver.ts';
import {
  type Outcome,
  byStatus,
  clusterProbe,
  deadline,
  haproxyUp,
  healthy,
  lagProbe,
  metric,
  percentile,
  sleep,
  writeProbe,
  writesAgain,
} from './faults.ts';
import { renewalLoad } from './renewals.ts';
import { webhookLoad } from './webhooks.ts';
import { cpuMeter, reportCost, reportLoop } from './report-cost.ts';
import { createClient, type Client } from '../../src/client/index.ts';
import { config } from '../../src/core/config.ts';

const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const missing = ['patroni', 'patronictl', 'etcd', 'etcdctl', 'haproxy'].filter((t) => !has(t));
const runnable = missing.length === 0 && process.getuid?.() === 0;
if (!runnable)
  console.log(
    `test:cluster skipped: ${missing.length ? `missing ${missing.join(', ')}` : 'needs root'} (docs/deploy.md)`,
  );

const SCRIPTS = join(ROOT, 'scripts/cluster');
const PREFIX = process.env.CLUSTER_PORT_PREFIX ?? '27';
const LOAD_MS = Number(process.env.CLUSTER_LOAD_SEC ?? 10) * 1000;
const AFTER_MS = Number(process.env.CLUSTER_AFTER_SEC ?? 20) * 1000;
const topo = mkdtempSync(join(tmpdir(), 'svc-cluster-'));
const clusterEnv = { ...process.env, TOPO: topo, CLUSTER_PORT_PREFIX: PREFIX };
const script = (name: string, ...args: string[]) =>
  execFileSync(join(SCRIPTS, name), args, { env: clusterEnv, encoding: 'utf8', timeout: 240_000 });
/** A script run without blocking the samplers. */
const run = async (name: string, ...args: string[]) =>
  (await execFileAsync(join(SCRIPTS, name), args, { env: clusterEnv, encoding: 'utf8', timeout: 120_000 })).stdout;
const restPorts = [1, 2, 3].map((i) => `${PREFIX}00${i}`);
const sessionBody = {
  amount: 100000,
  currency: 'IDR',
  methods: ['card'],
  successUrl: 'https://shop.example/thanks',
  cancelUrl: 'https://shop.example/cart',
};
const execFileAsync = promisify(execFile);
const readerUrl = `postgresql://svc_app_login:cluster@127.0.0.1:${PREFIX}441/svc`;
const MAX_LAG_MS = 5000;
// TOPOLOGY's target 13: 60 s windows, alone and with the report loop, alternated twice.
const COST_PAIRS = Number(process.env.CLUSTER_COST_PAIRS ?? 2);
const COST_WINDOW_MS = Number(process.env.CLUSTER_COST_WINDOW_SEC ?? 60) * 1000;
/** Each of the two report loops runs a P&L report and a ledger export every this many ms (0: back to back). */
const COST_REPORT_GAP_MS = Number(process.env.CLUSTER_COST_REPORT_GAP_MS ?? 0);
// Reports may cost the money path at most 10% (throughput and p95), with the replicas on CPUs of
// their own: the CPUs are split in two halves with `taskset` (docs/deploy.md, CPUs per node). The
// commit path (the primary, its synchronous standby, A and the workers) on the first; the
// asynchronous standby, which HAProxy's readers port prefers, and B (which serves the report loop)
// on the second. One CPU cannot be split: the cost is then only printed.
const CPUS = cpus().length;
const WRITER_CPUS = CPUS >= 2 ? `0-${Math.floor(CPUS / 2) - 1}` : null;
const READER_CPUS = CPUS >= 2 ? `${Math.floor(CPUS / 2)}-${CPUS - 1}` : null;
// TOPOLOGY's 10% is asserted from four CPUs up. On two, one CPU each, it is printed: five runs on
// a 2-vCPU machine measured a throughput cost of 4% to 28% (docs/deploy.md, Known gaps).
const COST_MAX = Number(process.env.CLUSTER_COST_MAX ?? (CPUS >= 4 ? 0.1 : 1));
/** Every thread of `pid` and of its descendants on `cpus` (a PostgreSQL node: its postmaster and backends). */
function pin(pid: number, cpuList: string) {
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    const kids = spawnSync('pgrep', ['-P', String(tree[i])], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter(Boolean);
    tree.push(...kids.map(Number));
  }
  for (const p of tree) spawnSync('taskset', ['-a', '-p', '-c', cpuList, String(p)], { stdio: 'ignore' });
  return tree.length;
}
const nodePids = (i: string) => ({
  postmaster: Number(readFileSync(join(topo, `data/n${i}/postmaster.pid`), 'utf8').split('\n')[0]),
  patroni: Number(readFileSync(join(topo, `run/patroni-n${i}.pid`), 'utf8').trim()),
});
/** Whether node i's Patroni says it is the synchronous standby. */
const isSyncStandby = async (i: string) =>
  (await fetch(`http://127.0.0.1:${PREFIX}00${i}/sync`).catch(() => null))?.status === 200;
/** The PostgreSQL nodes pinned by role (the commit path's half, the readers' half), with their Patroni. */
async function pinNodes(leader: string) {
  const out: Record<string, string> = {};
  for (const i of ['1', '2', '3']) {
    const commitPath = i === leader || (await isSyncStandby(i));
    const cpuList = commitPath ? WRITER_CPUS! : READER_CPUS!;
    const { postmaster, patroni } = nodePids(i);
    out[`n${i}`] =
      `${i === leader ? 'primary' : commitPath ? 'sync standby' : 'async standby'} on ${cpuList} (${pin(postmaster, cpuList)} processes)`;
    pin(patroni, cpuList);
  }
  return out;
}
const databaseUrl = `postgresql://svc:svc@127.0.0.1:${PREFIX}440/svc`;

interface Proc {
  name: string;
  child: ChildProcess;
  log: string;
  exited: string | null;
}
const procs: Proc[] = [];
function start(name: string, command: 'serve' | 'worker', env: NodeJS.ProcessEnv): Proc {
  const child = spawn(process.execPath, [SVC_BIN, command], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const p: Proc = { name, child, log: '', exited: null };
  child.stdout!.on('data', (d) => (p.log += d));
  child.stderr!.on('data', (d) => (p.log += d));
  child.once('exit', (code, signal) => (p.exited = `${code ?? signal}`));
  procs.push(p);
  return p;
}

let up = false;
const sockets: WsClient[] = [];
afterAll(async () => {
  await Promise.all(sockets.map((s) => s.dispose()));
  for (const p of procs) if (!p.exited) p.child.kill('SIGTERM');
  await Promise.all(procs.map((p) => (p.exited ? null : new Promise((r) => p.child.once('exit', r)))));
  if (up) script('down.sh');
  rmSync(topo, { recursive: true, force: true });
}, 120_000);

describe.skipIf(!runnable)('svc on a Patroni cluster under faults', () => {
  let env: NodeJS.ProcessEnv;
  let a: Client;
  let b: Client;
  let urls: string[];
  let key: { keyId: string; key: string };
  let workspaceId: string;
  /** A query on the writer as the owner. */
  const sys = async <R extends pg.QueryResultRow = Record<string, unknown>>(text: string, values: unknown[]) => {
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    try {
      return (await c.query<R>(text, values)).rows;
    } finally {
      await c.end();
    }
  };
  const hostedPathOf = async (sessionId: string) =>
    (await a.get(`/v1/checkout-sessions/${sessionId}`)).json?.data?.hostedUrl as string | undefined;

  beforeAll(async () => {
    const started = Date.now();
    up = true;
    script('up.sh');
    env = {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      SVC_LOG_FORMAT: 'json',
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      SVC_APP_PASSWORD: 'cluster',
      SVC_MASTER_KEY: config.masterKey.toString('hex'),
      SVC_DB_POOL: '8',
      SVC_DB_ACQUIRE_TIMEOUT_MS: '2000',
      SVC_RATE_LIMIT: 'off',
      SVC_IDEMPOTENCY_LEASE_SEC: '10',
      SVC_WEBHOOK_ALLOW_LOOPBACK: '1',
      SVC_METRICS_PRIVATE: '1',
      // Reports and the ledger export on HAProxy's reader port (a replica within the lag bound).
      SVC_READ_DATABASE_URL: readerUrl,
      SVC_READ_MAX_LAG_MS: String(MAX_LAG_MS),
    };
    const migrated = await svc(['migrate'], env, { timeoutMs: 120_000 });
    expect(migrated.code, migrated.stderr).toBe(0);
    const ports = [await freePort(), await freePort()];
    urls = ports.map((p) => `http://127.0.0.1:${p}`);
    for (const [i, port] of ports.entries()) start(`api ${'AB'[i]}`, 'serve', { ...env, PORT: String(port) });
    for (const i of [1, 2]) start(`worker ${i}`, 'worker', env);
    for (const url of urls)
      await until(async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok === true, `${url} up`, 120_000);
    await until(
      () => procs.every((p) => p.name.startsWith('api') || p.log.includes('svc worker running')),
      'workers',
      120_000,
    );
    const boot = await svc(['bootstrap', '--name', 'Cluster', '--json'], env, { timeoutMs: 60_000 });
    expect(boot.code, boot.stderr).toBe(0);
    const booted = JSON.parse(boot.stdout);
    key = booted.apiKey;
    workspaceId = booted.workspaceId;
    [a, b] = urls.map((baseUrl) => createClient({ baseUrl, keyId: key.keyId, secret: key.key }));
    console.log(`cluster and four svc processes up in ${Date.now() - started} ms`);
  }, 600_000);

  it('loses no acknowledged create, makes none twice, writes again after each fault, keeps every process and socket', async () => {
    const loadOutcomes: Outcome[] = [];
    const acknowledged = new Map<string, string>(); // Idempotency-Key -> session id
    // 13: completions through A with and without the report loop on B's reader, on the settled cluster
    // before any other load and the faults (alternating windows, medians), each side on its CPUs.
    // Patroni names the synchronous standby some seconds after the cluster is up: until then both
    // standbys are asynchronous to HAProxy, and the pinning below would put the future synchronous
    // one beside the reports (a clean-clone run measured 39% so).
    await deadline(
      async () =>
        (await healthy(restPorts, `${PREFIX}480`)) &&
        (await haproxyUp(`${PREFIX}480`, 'async_replicas')).split(' ').filter(Boolean).length === 1,
      'a synchronous standby, and HAProxy reading from the other one',
      120_000,
    );
    const pinned = WRITER_CPUS ? await pinNodes((await run('leader.sh')).trim()) : {};
    if (WRITER_CPUS) {
      for (const p of procs) {
        const cpuList = p.name === 'api B' ? READER_CPUS! : WRITER_CPUS;
        pinned[p.name] = `${cpuList} (${pin(p.child.pid!, cpuList)} processes)`;
      }
      // This process drives the money path's load: the commit path's half too.
      pinned.load = `${WRITER_CPUS} (${pin(process.pid, WRITER_CPUS)} processes)`;
    }
    // The report loop's own client runs beside B, on the readers' CPUs.
    const reportClient = reportLoop({
      baseUrl: urls[1],
      keyId: key.keyId,
      secret: key.key,
      gapMs: COST_REPORT_GAP_MS,
      cpuList: READER_CPUS,
      cwd: ROOT,
    });
    const pidFile = (name: string) => Number(readFileSync(join(topo, `run/${name}.pid`), 'utf8').trim());
    const meter = cpuMeter(() => ({
      ...Object.fromEntries(['1', '2', '3'].map((i) => [`n${i}`, [nodePids(i).postmaster]])),
      patroni: ['1', '2', '3'].map((i) => nodePids(i).patroni),
      etcd: [pidFile('etcd')],
      haproxy: [pidFile('haproxy')],
      ...Object.fromEntries(procs.map((p) => [p.name, [p.child.pid!]])),
      load: [process.pid],
      'report loop': [reportClient.pid],
    }));
    const cost = await reportCost({
      a,
      aUrl: urls[0],
      reports: reportClient,
      body: sessionBody,
      pairs: COST_PAIRS,
      windowMs: COST_WINDOW_MS,
      warmupMs: 10_000,
      meter,
    }).finally(() => reportClient.close());
    for (const [k, id] of cost.created) acknowledged.set(k, id);
    /** One create under key `k`, retried until 201 (503, a lost answer, 409 in flight). */
    const create = async (client: Client, k: string = randomUUID()) => {
      for (let attempt = 0; attempt < 600; attempt++) {
        const t = Date.now();
        const r = await client
          .post('/v1/checkout-sessions', sessionBody, { 'idempotency-key': k })
          .catch((e: Error) => ({ status: 0, text: e.message, json: null as never }));
        loadOutcomes.push({ t, status: r.status });
        if (r.status === 201) {
          acknowledged.set(k, r.json.data.id);
          return;
        }
        const inFlight = r.status === 409 && /in flight/.test(r.text);
        if (r.status !== 0 && r.status !== 503 && !inFlight) throw new Error(`unexpected ${r.status}: ${r.text}`);
        await sleep(inFlight ? 1000 : 200);
      }
      throw new Error(`create under ${k} never succeeded`);
    };
    let stop = false;
    const load = Promise.all(
      [a, a, b, b].map(async (client) => {
        while (!stop) await create(client);
      }),
    );
    const probe = writeProbe(a, sessionBody, 100);
    const cluster = clusterProbe({ writerUrl: databaseUrl, statsPort: `${PREFIX}480` });

    // A subscriber on B: the events it receives, in order, resuming with `after:` after a close.
    const closes: number[] = [];
    const received: string[] = [];
    const subscribe = () => {
      const s = signedSocket(urls[1], { keyId: key.keyId, secret: key.key }, { lazy: false });
      sockets.push(s.client);
      s.client.subscribe<{ events: { id: string } }>(
        {
          query: 'subscription ($after: ID) { events(after: $after) { id } }',
          variables: { after: received.at(-1) ?? null },
        },
        { next: (m) => m.data && received.push(m.data.events.id), error: () => {}, complete: () => {} },
      );
      const seen = s.closes.length;
      const watch = setInterval(() => {
        if (s.closes.length > seen) {
          clearInterval(watch);
          closes.push(...s.closes.map((c) => c.code));
          if (!stop) setTimeout(subscribe, 500);
        }
      }, 100);
    };
    subscribe();

    // Reports and the ledger export in a loop through B (on the reader); replica lag sampled.
    const reportStatuses: Record<string, number> = {};
    const reports = (async () => {
      while (!stop) {
        const started = Date.now();
        for (const r of await Promise.all([
          b.post('/graphql', { query: 'query { pnlReport(from: "2026-01-01", to: "2027-12-31") { currency } }' }),
          b.get('/v1/reports/ledger.csv?from=2026-01-01&to=2027-12-31'),
        ]).catch(() => [{ status: 0 }]))
          reportStatuses[r.status] = (reportStatuses[r.status] ?? 0) + 1;
        await sleep(Math.max(0, 500 - (Date.now() - started)));
      }
    })();
    const lag = lagProbe({
      writerUrl: databaseUrl,
      readerUrl: databaseUrl.replace(`:${PREFIX}440/`, `:${PREFIX}441/`),
    });

    // Paid sessions through A's hosted page and the sandbox: ledger entries and payment events.
    const payStatuses: Record<string, number> = {};
    const paying = (async () => {
      while (!stop) {
        const k = randomUUID();
        await create(a, k);
        const hostedUrl = await hostedPathOf(acknowledged.get(k)!).catch(() => undefined);
        if (!hostedUrl) continue; // the read failed in a fault: the next session
        const path = new URL(hostedUrl).pathname;
        for (const [step, body] of [
          ['attempt', { method: 'card' }],
          ['simulate', { outcome: 'success' }],
        ] as const) {
          const r = await fetch(`${urls[0]}${path}/${step}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          }).catch(() => ({ status: 0 }));
          payStatuses[`${step} ${r.status}`] = (payStatuses[`${step} ${r.status}`] ?? 0) + 1;
          if (r.status !== 200) break;
        }
        await sleep(300);
      }
    })();

    // 10: subscriptions on a daily plan renewing off session as a test clock advances a day at a time
    // through A (plans bill by the day at the shortest, so a test clock stands in for the wall clock).
    const renewals = await renewalLoad(a, sys);
    // An endpoint for every event on a loopback receiver; event triggers through B.
    const hooks = await webhookLoad(a, b);

    // Payments emit events (a session's create does not): the subscriber hears the first.
    await deadline(() => received.length > 0, 'the first event on B', 60_000);

    // 12: a second key, used on A and B, revoked through A: refused on every node within 5 s.
    const minted = await a.post('/v1/api-keys', { name: 'revocable' });
    expect(minted.status, minted.text).toBe(201);
    const [a2, b2] = urls.map((baseUrl) =>
      createClient({ baseUrl, keyId: minted.json.data.keyId, secret: minted.json.data.key }),
    );
    for (const c of [a2, b2]) expect((await c.get('/v1/events?limit=1')).status).toBe(200);
    const revokedAt = Date.now();
    expect((await a.delete(`/v1/api-keys/${minted.json.data.id}`)).status).toBe(204);
    const refusedMs = await Promise.all(
      [a2, b2].map(async (c) => {
        await deadline(
          async () => (await c.get('/v1/events?limit=1')).status === 401,
          'the revoked key refused',
          10_000,
        );
        return Date.now() - revokedAt;
      }),
    );

    const figures: Record<string, unknown>[] = [];
    const marks: number[] = [Date.now()];
    await sleep(LOAD_MS);
    for (const fault of ['kill-postgres', 'switchover', 'kill-patroni'] as const) {
      const leader = (await run('leader.sh')).trim();
      const t0 = Date.now();
      marks.push(t0);
      await (fault === 'switchover' ? run('switchover.sh') : run('node.sh', fault, leader));
      // Writes again: a 2xx through A after the first failed write (no failure within 40 s: none cost).
      await deadline(
        () => {
          const w = writesAgain(probe.outcomes, t0);
          return w.first2xxMs !== null || (w.firstFailureMs === null && Date.now() - t0 > 40_000);
        },
        `writes again after ${fault}`,
        90_000,
      );
      let newLeader = '';
      await deadline(async () => !!(newLeader = (await run('leader.sh').catch(() => '')).trim()), 'a leader', 60_000);
      // The old leader's Patroni comes back (it rejoins as a replica, rewound if needed).
      if (fault === 'kill-patroni') await run('node.sh', 'start', leader);
      await deadline(() => healthy(restPorts, `${PREFIX}480`), `the cluster whole after ${fault}`, 180_000);
      figures.push({
        fault,
        leader: `n${leader} -> n${newLeader}`,
        ...writesAgain(probe.outcomes, t0),
        ...cluster.promotion(t0, newLeader),
        wholeAgainMs: Date.now() - t0,
      });
      await sleep(Math.max(0, t0 + AFTER_MS - Date.now()));
    }
    stop = true;
    await Promise.all([load, probe.stop(), cluster.stop(), reports, paying, lag.stop(), renewals.stop(), hooks.stop()]);
    marks.push(Date.now());
    const renewed = await renewals.check();
    // Renewals resumed after each fault: a day advanced (every subscription renewed) after each one.
    const renewedAfter = marks.slice(1, 4).map((m) => renewals.advances.filter((x) => x.t > m).length);
    // The first day renewed (every subscription) that was started after the last fault, from the fault.
    const firstAfterLast = renewals.advances.find((x) => x.t > marks[3]);
    const lastRenewal = firstAfterLast ? firstAfterLast.done - marks[3] : null;
    // The probe's creates whose answer was lost resolve under their own key (one object each).
    const resolveStarted = Date.now();
    for (const k of probe.inDoubt) await create(a, k);
    const resolveMs = Date.now() - resolveStarted;
    for (const [k, id] of probe.acknowledged) acknowledged.set(k, id);

    // 1: every acknowledged create is there; 3: one object per key (no object outside them).
    const w = new pg.Client({ connectionString: databaseUrl });
    await w.connect();
    const ids = new Set(acknowledged.values());
    const { rows } = await w.query<{ id: string }>('SELECT id FROM checkout_sessions');
    await w.end();
    const present = new Set(rows.map((r) => r.id));
    const missingAcks = [...ids].filter((id) => !present.has(id));
    const extra = rows.filter((r) => !ids.has(r.id));
    // 9: the four processes alive, no level >= 50 line about the database.
    const fatal = procs.flatMap((p) =>
      p.log
        .split('\n')
        .filter((l) => /^\{.*"level":\s*(5\d|6\d)\b/.test(l))
        .map((l) => `${p.name}: ${l.slice(0, 300)}`),
    );
    // 5: B's subscriber against the events listed by GET /v1/events, once the relay has published all.
    const published = async () =>
      (
        await sys<{ id: string }>(
          `SELECT id FROM events WHERE "workspaceId" = $1 AND mode = 'test' AND "publishedPosition" IS NOT NULL
            ORDER BY "publishedPosition"`,
          [workspaceId],
        )
      ).map((r) => r.id);
    await deadline(
      async () =>
        (await sys(`SELECT 1 FROM events WHERE "publishedPosition" IS NULL LIMIT 1`, [])).length === 0 &&
        received.at(-1) === (await published()).at(-1),
      'the subscriber on B caught up',
      60_000,
    );
    const listedEvents: { id: string; createdAt: string }[] = [];
    for (let cursor: string | null = null, first = true; first || cursor; first = false) {
      const page: { json: any } = await a.get(
        `/v1/events?order=asc&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      for (const e of page.json.data as { id: string; createdAt: string }[]) listedEvents.push(e);
      cursor = page.json.meta?.page?.nextCursor ?? null;
    }
    const listed = new Set(listedEvents.map((e) => e.id));
    // 4: every listed event created after the endpoint reached the receiver at least once.
    const webhooks = await hooks.missing(listedEvents, 120_000);
    await hooks.close();
    const order = await published();
    const expected = order.slice(order.indexOf(received[0]));
    const missingEvents = expected.filter((id) => !received.includes(id));
    const notListed = received.filter((id) => !listed.has(id));
    const repeated = received.length - new Set(received).size;
    const outOfOrder = received.filter((id, i) => i > 0 && order.indexOf(id) < order.indexOf(received[i - 1])).length;
    // 7: every ledger transaction balances per currency.
    const unbalanced = await sys(
      `SELECT "txId", currency FROM ledger_entries GROUP BY "txId", currency
        HAVING sum(CASE direction WHEN 'debit' THEN amount ELSE -amount END) <> 0`,
      [],
    );
    const entries = Number((await sys<{ n: string }>('SELECT count(*) AS n FROM ledger_entries', []))[0].n);
    // 11: reports served by a replica, by B's own count.
    const metrics = await (await fetch(`${urls[1]}/metrics`)).text();
    const reads = {
      replica: metric(metrics, 'svc_reads_total', { target: 'replica' }),
      writerLagging: metric(metrics, 'svc_reads_total', { target: 'writer', reason: 'lagging' }),
      writerUnreachable: metric(metrics, 'svc_reads_total', { target: 'writer', reason: 'unreachable' }),
    };
    const all = [...loadOutcomes, ...probe.outcomes];
    const faultWindows = figures.map((f, i) => [marks[i + 1], marks[i + 1] + (f.wholeAgainMs as number)]);
    const lagFigures = (xs: number[]) => ({
      samples: xs.length,
      p50: percentile(xs, 0.5)?.toFixed(1),
      p99: percentile(xs, 0.99)?.toFixed(1),
      max: percentile(xs, 1)?.toFixed(1),
    });
    const windows = ['load', 'kill-postgres', 'switchover', 'kill-patroni'].map((name, i) => ({
      window: name,
      ...byStatus(all, marks[i], marks[i + 1]),
    }));
    console.log(
      JSON.stringify(
        {
          figures,
          windows,
          creates: { acknowledged: ids.size, lost: missingAcks.length, duplicated: extra.length },
          probeInDoubt: probe.inDoubt.length,
          revokedKeyRefusedMs: { A: refusedMs[0], B: refusedMs[1] },
          subscriberOnB: {
            received: received.length,
            missing: missingEvents.length,
            notListed: notListed.length,
            repeated,
            outOfOrder,
          },
          ledger: { entries, unbalanced: unbalanced.length },
          payments: payStatuses,
          reports: reportStatuses,
          reads,
          replicaLagMs: {
            all: lagFigures(lag.lags.map((l) => l.ms)),
            // Outside each fault's window (from the fault until the cluster was whole again).
            steady: lagFigures(
              lag.lags.filter((l) => !faultWindows.some(([f, t]) => l.t >= f && l.t <= t)).map((l) => l.ms),
            ),
          },
          reportCost: {
            alone: cost.alone,
            withReports: cost.withReports,
            throughputCost: cost.throughputCost.toFixed(3),
            p50Cost: cost.p50Cost.toFixed(3),
            p95Cost: cost.p95Cost.toFixed(3),
            pinned,
            windows: cost.windows.map(
              (w) =>
                `${w.reports ? 'reports' : 'alone'} ${w.perSec}/s p50 ${w.p50} ms p95 ${w.p95} ms (${w.reportRuns} report runs); CPUs busy ${w.cpu.busy.join(' ')}; CPU s ${Object.entries(
                  w.cpu.seconds,
                )
                  .map(([g, sec]) => `${g} ${sec}`)
                  .join(', ')}`,
            ),
          },
          webhooks: { ...webhooks, missing: webhooks.missing.length, triggers: hooks.triggers },
          renewals: {
            ...renewed.figures,
            daysAfterEachFault: renewedAfter,
            lastDayAfterLastFaultMs: lastRenewal,
          },
          inDoubtResolvedMs: resolveMs,
          socketCloses: closes,
          errorLines: fatal.length,
        },
        null,
        2,
      ),
    );
    expect(missingAcks).toEqual([]);
    expect(extra).toEqual([]);
    for (const f of figures)
      expect(f.first2xxMs ?? 0, String(f.fault)).toBeLessThan(f.fault === 'switchover' ? 10_000 : 30_000);
    expect(procs.filter((p) => p.exited).map((p) => `${p.name} ${p.exited}`)).toEqual([]);
    expect(fatal).toEqual([]);
    expect(closes.filter((c) => c === 4403)).toEqual([]);
    for (const ms of refusedMs) expect(ms).toBeLessThan(5000);
    expect({ missingEvents, notListed, repeated, outOfOrder }).toEqual({
      missingEvents: [],
      notListed: [],
      repeated: 0,
      outOfOrder: 0,
    });
    expect(unbalanced).toEqual([]);
    expect(entries).toBeGreaterThan(0);
    expect(reads.replica).toBeGreaterThan(0);
    expect({ twice: renewed.twice, doubleCharged: renewed.doubleCharged, gaps: renewed.gaps }).toEqual({
      twice: [],
      doubleCharged: [],
      gaps: [],
    });
    expect(renewed.notCurrent).toEqual([]);
    for (const n of renewedAfter) expect(n).toBeGreaterThan(0);
    // Renewing again within 2 min of the last fault.
    expect(lastRenewal).not.toBeNull();
    expect(lastRenewal!).toBeLessThan(120_000);
    expect(webhooks.missing).toEqual([]);
    expect(webhooks.expected).toBeGreaterThan(0);
    expect(cost.withReports.perSec).toBeGreaterThan(0);
    expect(cost.throughputCost).toBeLessThanOrEqual(COST_MAX);
    expect(cost.p95Cost).toBeLessThanOrEqual(COST_MAX);
  }, 900_000);
});
