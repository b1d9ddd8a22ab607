// The database goes away and comes back: a real `svc start` (API and worker)
// over a PostgreSQL cluster of its own, under load (event triggers with webhook deliveries,
// checkout-session creates retried with their Idempotency-Key, sandbox payments), while the
// cluster is restarted, killed with -9, stopped for a while and its backends terminated. The
// process never exits; the API answers again within 2 s of the database; nothing is lost or done
// twice; the ledger balances. `npm test` runs the short plan, `npm run test:faults` the long one
// (FAULTS=long) and prints its table.
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { ROOT, SVC_BIN, freePort, svc } from '../helpers/cli.ts';
import { startReceiver, until } from '../helpers/receiver.ts';
import { createClient, type Client } from '../../src/client/index.ts';
import { config } from '../../src/core/config.ts';
import { assertReachableByOthers, embeddedBinaries } from '../../src/core/db/embedded.ts';

const LONG = process.env.FAULTS === 'long';
const CONCURRENCY = LONG ? 12 : 4;
const dir = mkdtempSync(join(tmpdir(), 'svc-faults-'));
chmodSync(dir, 0o755);
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The folder of PostgreSQL's programs: the embedded package's, or, as root in a checkout the OS user
 * "postgres" cannot enter (a private `mktemp -d` clone), the machine's own (`pg_config --bindir`).
 */
function clusterBinaries(): string {
  const embedded = join(embeddedBinaries(), 'native', 'bin');
  if (process.getuid?.() !== 0) return embedded;
  try {
    assertReachableByOthers(embeddedBinaries());
    return embedded;
  } catch {
    return execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
  }
}

/** A PostgreSQL cluster of the test's own, in its own process group. */
function ownCluster(port: number) {
  const binDir = clusterBinaries();
  const bin = (name: string) => join(binDir, name);
  const ids =
    process.getuid?.() === 0
      ? {
          uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
          gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
        }
      : {};
  const data = join(dir, 'pg');
  mkdirSync(data, { mode: 0o700 });
  if (ids.uid !== undefined) chownSync(data, ids.uid, ids.gid!);
  const init = spawnSync(bin('initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C'], {
    ...ids,
    encoding: 'utf8',
  });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const cluster = {
    url: `postgresql://postgres@127.0.0.1:${port}/svc`,
    async start() {
      for (let attempt = 1; ; attempt++) {
        const c = spawn(
          bin('postgres'),
          ['-D', data, '-p', String(port), '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
          { ...ids, detached: true, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_MESSAGES: 'C' } },
        );
        let log = '';
        const ready = await new Promise<boolean>((resolve) => {
          c.stderr!.on('data', (d: Buffer) => {
            log += d;
            if (log.includes('ready to accept connections')) resolve(true);
          });
          c.once('exit', () => resolve(false));
        });
        if (ready) {
          child = c;
          exited = new Promise((r) => (c.exitCode !== null ? r() : c.once('exit', () => r())));
          return;
        }
        // After a kill -9 the old shared memory may still be held a moment.
        if (attempt >= 20) throw new Error(`postgres did not start:\n${log}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    },
    /** `SIGINT`: fast shutdown (clients disconnected); `SIGKILL`: the whole group at once, a crash. */
    async stop(signal: 'SIGINT' | 'SIGKILL' = 'SIGINT') {
      if (!child) return;
      if (signal === 'SIGKILL') process.kill(-child.pid!, 'SIGKILL');
      else child.kill('SIGINT');
      await exited;
      child = undefined;
    },
    async query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []) {
      const c = new pg.Client({ connectionString: cluster.url });
      await c.connect();
      try {
        return (await c.query<R>(text, values)).rows;
      } finally {
        await c.end();
      }
    },
  };
  return cluster;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe(`the database goes away and comes back (${LONG ? 'long' : 'short'} run)`, () => {
  it('the service stays up, answers within 2 s of the database, loses and doubles nothing', async () => {
    const [pgPort, port] = [await freePort(), await freePort()];
    const cluster = ownCluster(pgPort);
    await cluster.start();
    cleanups.push(() => cluster.stop('SIGKILL'));
    const admin = new pg.Client({ connectionString: cluster.url.replace(/\/svc$/, '/postgres') });
    await admin.connect();
    await admin.query('CREATE DATABASE svc');
    await admin.end();

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      SVC_LOG_FORMAT: 'json',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL: cluster.url,
      SVC_APP_PASSWORD: 'faults',
      SVC_MASTER_KEY: config.masterKey.toString('hex'),
      SVC_DB_POOL: '8',
      SVC_DB_ACQUIRE_TIMEOUT_MS: '2000',
      SVC_RATE_LIMIT: 'off',
      // Short leases: a claim left by an attempt the outage cut is taken over by its retry within seconds.
      SVC_IDEMPOTENCY_LEASE_SEC: '5',
      SVC_WEBHOOK_ALLOW_LOOPBACK: '1',
      SVC_DATA_DIR: join(dir, 'data'),
    };
    const service = spawn(process.execPath, [SVC_BIN, 'start'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    service.stdout!.on('data', (d) => (output += d));
    service.stderr!.on('data', (d) => (output += d));
    let exit: string | null = null;
    service.once('exit', (code, signal) => (exit = `${code ?? signal}`));
    cleanups.push(async () => {
      if (exit === null) {
        service.kill('SIGTERM');
        await new Promise((r) => service.once('exit', r));
      }
    });
    const url = `http://127.0.0.1:${port}`;
    await until(() => output.includes('svc worker running') || exit !== null, `svc start up (${output})`, 120_000);
    expect(exit, output).toBeNull();

    const boot = await svc(['bootstrap', '--name', 'Faults', '--json'], env, { timeoutMs: 60_000 });
    expect(boot.code, boot.stderr).toBe(0);
    const key = JSON.parse(boot.stdout).apiKey;
    const client: Client = createClient({ baseUrl: url, keyId: key.keyId, secret: key.key });
    const rx = await startReceiver();
    cleanups.push(() => rx.close());
    const endpoint = await client.post('/v1/webhook-endpoints', { url: rx.url, events: ['*'] });
    expect(endpoint.status, endpoint.text).toBe(201);

    // The load. Every call is retried as a client would (same Idempotency-Key) until it succeeds.
    const statuses = new Map<string, number>();
    const count = (s: string) => statuses.set(s, (statuses.get(s) ?? 0) + 1);
    const send = async (
      call: () => Promise<{ status: number; text: string }>,
      done: (s: number) => boolean,
    ): Promise<any> => {
      for (let attempt = 0; ; attempt++) {
        const r = await call().catch((e: Error) => ({ status: 0, text: e.message }));
        count(String(r.status));
        if (done(r.status)) return r;
        // 503: the database is away; 409 in flight: the failed attempt's claim outlived it (its release
        // needed the database) and the same request takes it over after the lease, as a client retrying would.
        const inFlight = r.status === 409 && /in flight/.test(r.text);
        if (r.status !== 0 && r.status !== 503 && !inFlight) throw new Error(`unexpected ${r.status}: ${r.text}`);
        if (attempt > 200) throw new Error(`no success after 200 attempts: ${r.status} ${r.text}`);
        await sleep(inFlight ? 1000 : 100);
      }
    };
    const triggered: string[] = [];
    const sessions: string[] = [];
    let stopLoad = false;
    const createSession = async () => {
      const k = randomUUID();
      const body = {
        amount: 100000,
        currency: 'IDR',
        methods: ['card'],
        successUrl: 'https://shop.example/thanks',
        cancelUrl: 'https://shop.example/cart',
        metadata: { key: k },
      };
      const r = (await send(
        () => client.post('/v1/checkout-sessions', body, { 'idempotency-key': k }),
        (s) => s === 201 || s === 200,
      )) as { json: { data: { id: string; hostedUrl: string } } };
      sessions.push(r.json.data.id);
      return r.json.data;
    };
    const worker = async (w: number) => {
      for (let i = w; !stopLoad; i += CONCURRENCY) {
        if (i % 3 === 0) {
          const r = (await send(
            () =>
              client.post(
                '/v1/events/trigger',
                { type: 'faults.test', aggregateId: `agg_${i % 10}`, data: { i: String(i) } },
                { 'idempotency-key': randomUUID() },
              ),
            (s) => s === 201,
          )) as { json: { data: { id: string } } };
          triggered.push(r.json.data.id);
        } else if (i % 3 === 1) await createSession();
        else {
          const s = await createSession();
          const token = new URL(s.hostedUrl).pathname;
          const hosted = (path: string, body: unknown) => () =>
            fetch(`${url}${token}${path}`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(body),
            }).then(async (res) => ({ status: res.status, text: await res.text() }));
          // A retry of a step that had committed answers 409: already done, as the customer would see.
          await send(hosted('/attempt', { method: 'card' }), (st) => st === 200 || st === 409);
          await send(hosted('/simulate', { outcome: 'success' }), (st) => st === 200 || st === 409);
        }
      }
    };
    const load = Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));

    // The faults, each followed by the time the API took to answer again once the database was back.
    const table: { fault: string; exited: boolean; recoveryMs: number }[] = [];
    const recovered = async (fault: string) => {
      const back = Date.now();
      for (;;) {
        const r = await client.get('/v1/checkout-sessions?limit=1').catch(() => ({ status: 0 }));
        if (r.status === 200) break;
        if (Date.now() - back > 30_000) break;
        await sleep(50);
      }
      table.push({ fault, exited: exit !== null, recoveryMs: Date.now() - back });
    };
    const restart = async () => {
      await cluster.stop('SIGINT');
      await cluster.start();
    };
    const terminate = () =>
      cluster.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'svc' AND pid <> pg_backend_pid()`,
      );
    await sleep(2000);
    const plan: [string, () => Promise<unknown>][] = LONG
      ? [
          ['fast restart', restart],
          ['fast restart', restart],
          ...Array.from({ length: 5 }, (_, n): [string, () => Promise<unknown>] => [
            `fast restart ${n + 1} of 5, 10 s apart`,
            async () => {
              await sleep(n ? 8000 : 0);
              await restart();
            },
          ]),
          [
            'kill -9, up after 5 s',
            async () => {
              await cluster.stop('SIGKILL');
              await sleep(5000);
              await cluster.start();
            },
          ],
          ...Array.from({ length: 2 }, (): [string, () => Promise<unknown>] => [
            'stopped 20 s',
            async () => {
              await cluster.stop('SIGINT');
              await sleep(20_000);
              await cluster.start();
            },
          ]),
          ...Array.from({ length: 4 }, (): [string, () => Promise<unknown>] => ['backends terminated', terminate]),
        ]
      : [
          ['fast restart', restart],
          [
            'kill -9, up after 2 s',
            async () => {
              await cluster.stop('SIGKILL');
              await sleep(2000);
              await cluster.start();
            },
          ],
          [
            'stopped 5 s',
            async () => {
              await cluster.stop('SIGINT');
              await sleep(5000);
              await cluster.start();
            },
          ],
          ['backends terminated', terminate],
        ];
    for (const [fault, act] of plan) {
      await act();
      await recovered(fault);
      await sleep(LONG ? 2000 : 1000);
    }
    stopLoad = true;
    await load;

    // Everything committed reaches the receiver; nothing is charged or created twice; the ledger balances.
    const events = await cluster.query<{ id: string }>(`SELECT id FROM events WHERE type = 'faults.test'`);
    const received = () => new Set(rx.received.map((r) => String(r.headers['x-svc-event-id'])));
    await until(() => events.every((e) => received().has(e.id)), 'every committed event delivered', 90_000).catch(
      () => {},
    );
    const got = received();
    const lost = events.filter((e) => !got.has(e.id)).length;
    const triggeredMissing = triggered.filter((id) => !events.some((e) => e.id === id)).length;
    const doubleCharges = await cluster.query(
      `SELECT "checkoutSessionId" FROM payments WHERE "checkoutSessionId" IS NOT NULL AND status <> 'failed'
        GROUP BY 1 HAVING count(*) > 1`,
    );
    const duplicateKeys = await cluster.query(
      `SELECT metadata->>'key' AS key FROM checkout_sessions WHERE metadata->>'key' IS NOT NULL GROUP BY 1 HAVING count(*) > 1`,
    );
    const unbalanced = await cluster.query(
      `SELECT "txId" FROM ledger_entries GROUP BY "txId", currency
        HAVING sum(CASE direction WHEN 'debit' THEN amount ELSE -amount END) <> 0`,
    );
    const lines = output.split('\n').filter((l) => l.startsWith('{'));
    const errors = lines.filter((l) => (JSON.parse(l) as { level: number }).level >= 50);
    const warnings = lines.filter((l) => (JSON.parse(l) as { level: number }).level === 40);
    const summary = {
      faults: table,
      requests: Object.fromEntries(statuses),
      sessions: sessions.length,
      events: events.length,
      lost,
      triggeredMissing,
      doubleCharges: doubleCharges.length,
      duplicateKeys: duplicateKeys.length,
      unbalanced: unbalanced.length,
      errorLines: errors.length,
      warningLines: warnings.length,
    };
    console.log(`db faults: ${JSON.stringify(summary, null, 1)}`);
    if (errors.length) console.log(errors.slice(0, 10).join('\n'));

    expect(exit, output.slice(-5000)).toBeNull();
    for (const row of table) {
      expect(row.exited, row.fault).toBe(false);
      expect(row.recoveryMs, row.fault).toBeLessThan(2000);
    }
    expect(sessions.length).toBeGreaterThan(10);
    expect(events.length).toBeGreaterThan(5);
    expect(lost).toBe(0);
    expect(triggeredMissing).toBe(0);
    expect(doubleCharges).toEqual([]);
    expect(duplicateKeys).toEqual([]);
    expect(unbalanced).toEqual([]);
    // While the database is away: warnings once per component per interval, not an error per request.
    expect(errors).toEqual([]);
  }, 600_000);
});
