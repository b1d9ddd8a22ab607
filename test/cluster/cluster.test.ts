// `npm run test:cluster` (never part of `npm test`): svc on a PostgreSQL cluster managed by Patroni
// (scripts/cluster: etcd, three nodes in synchronous mode, HAProxy), as the shared TOPOLOGY guide's
// Part 3 describes. Two `svc serve` (A, B) and two `svc worker` on the writer port; idempotent
// checkout-session creates through A and B, retried as a client would (same key after a 503, a lost
// answer or 409 in flight); a graphql-ws subscriber on B. Faults on the primary, each after
// CLUSTER_LOAD_SEC of load and followed by CLUSTER_AFTER_SEC: `kill -9` of its postmaster, a
// switchover, `kill -9` of its Patroni. Needs root and Debian's patroni, etcd-server, etcd-client
// and haproxy; skips with one line otherwise. Prints the figures per fault.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Client as WsClient } from 'graphql-ws';
import { ROOT, SVC_BIN, freePort, svc } from '../helpers/cli.ts';
import { signedSocket } from '../helpers/sockets.ts';
import { until } from '../helpers/receiver.ts';
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
const LOAD_MS = Number(process.env.CLUSTER_LOAD_SEC ?? 20) * 1000;
const AFTER_MS = Number(process.env.CLUSTER_AFTER_SEC ?? 60) * 1000;
const topo = mkdtempSync(join(tmpdir(), 'svc-cluster-'));
const clusterEnv = { ...process.env, TOPO: topo, CLUSTER_PORT_PREFIX: PREFIX };
const script = (name: string, ...args: string[]) =>
  execFileSync(join(SCRIPTS, name), args, { env: clusterEnv, encoding: 'utf8', timeout: 240_000 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
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
    key = JSON.parse(boot.stdout).apiKey;
    [a, b] = urls.map((baseUrl) => createClient({ baseUrl, keyId: key.keyId, secret: key.key }));
    console.log(`cluster and four svc processes up in ${Date.now() - started} ms`);
  }, 600_000);

  it('loses no acknowledged create, makes none twice, writes again after each fault, keeps every process and socket', async () => {
    const statuses = new Map<string, number>();
    const count = (s: string) => statuses.set(s, (statuses.get(s) ?? 0) + 1);
    const acknowledged = new Map<string, string>(); // Idempotency-Key -> session id
    const body = {
      amount: 100000,
      currency: 'IDR',
      methods: ['card'],
      successUrl: 'https://shop.example/thanks',
      cancelUrl: 'https://shop.example/cart',
    };
    /** One create under its own key, retried until 201 (503, a lost answer, 409 in flight). */
    const create = async (client: Client) => {
      const k = randomUUID();
      for (let attempt = 0; attempt < 600; attempt++) {
        const r = await client
          .post('/v1/checkout-sessions', body, { 'idempotency-key': k })
          .catch((e: Error) => ({ status: 0, text: e.message, json: null as never }));
        count(String(r.status));
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

    // A subscriber on B: the close codes it sees (a new socket after each close).
    const closes: number[] = [];
    const subscribe = () => {
      const s = signedSocket(urls[1], { keyId: key.keyId, secret: key.key }, { lazy: false });
      sockets.push(s.client);
      s.client.subscribe(
        { query: 'subscription { events { id } }' },
        {
          next: () => {},
          error: () => {},
          complete: () => {},
        },
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

    const figures: Record<string, string | number>[] = [];
    for (const fault of ['kill-postgres', 'switchover', 'kill-patroni'] as const) {
      await sleep(LOAD_MS);
      const leader = script('leader.sh').trim();
      const t0 = Date.now();
      if (fault === 'switchover') script('switchover.sh');
      else script('node.sh', fault, leader);
      // Writes again: the first 201 through A under a fresh key after the first failure (a fault can
      // leave the old primary taking writes for a moment, until HAProxy's checks mark it down).
      let failedMs = 0;
      let again = 0;
      await until(
        async () => {
          const r = await a
            .post('/v1/checkout-sessions', body, { 'idempotency-key': randomUUID() })
            .catch(() => ({ status: 0, json: null as never }));
          if (r.status === 201) acknowledged.set(randomUUID(), r.json.data.id);
          else if (!failedMs) failedMs = Date.now() - t0;
          // No failure at all within 40 s: the fault cost no write.
          if (r.status === 201 && (failedMs || Date.now() - t0 > 40_000)) again = Date.now() - t0;
          return again > 0;
        },
        `writes again after ${fault}`,
        90_000,
      );
      const newLeader = await (async () => {
        for (;;) {
          try {
            return script('leader.sh').trim();
          } catch {
            await sleep(200);
          }
        }
      })();
      figures.push({ fault, leader: `n${leader} -> n${newLeader}`, firstFailureMs: failedMs, writesAgainMs: again });
      // The old leader's Patroni comes back (it rejoins as a replica, rewound if needed).
      if (fault === 'kill-patroni') script('node.sh', 'start', leader);
      await sleep(AFTER_MS);
    }
    stop = true;
    await load;

    // 1: every acknowledged create is there; 3: one object per key (no object outside them).
    const w = new pg.Client({ connectionString: databaseUrl });
    await w.connect();
    const ids = [...acknowledged.values()];
    const { rows } = await w.query<{ id: string }>('SELECT id FROM checkout_sessions');
    await w.end();
    const present = new Set(rows.map((r) => r.id));
    const missingAcks = ids.filter((id) => !present.has(id));
    const extra = rows.filter((r) => !ids.includes(r.id));
    // 9: the four processes alive, no level >= 50 line about the database.
    const fatal = procs.flatMap((p) =>
      p.log
        .split('\n')
        .filter((l) => /^\{.*"level":\s*(5\d|6\d)\b/.test(l))
        .map((l) => `${p.name}: ${l.slice(0, 300)}`),
    );
    console.log(
      JSON.stringify(
        {
          figures,
          creates: acknowledged.size,
          statuses: Object.fromEntries(statuses),
          missingAcks: missingAcks.length,
          duplicates: extra.length,
          socketCloses: closes,
          errorLines: fatal.length,
        },
        null,
        2,
      ),
    );
    expect(missingAcks).toEqual([]);
    expect(extra).toEqual([]);
    for (const f of figures) expect(f.writesAgainMs as number, String(f.fault)).toBeLessThan(30_000);
    expect(procs.filter((p) => p.exited).map((p) => `${p.name} ${p.exited}`)).toEqual([]);
    expect(fatal).toEqual([]);
    expect(closes.filter((c) => c === 4403)).toEqual([]);
  }, 900_000);
});
