/**
 * `npm run bench:webhooks`: webhook delivery end to end, through real `svc serve` and `svc worker`
 * processes, to a receiver on loopback in this process.
 *  1. Sustained: events at BENCH_RATE/s (200) for BENCH_SECONDS (30) through POST /v1/events/trigger;
 *     latency = arrival at the receiver - the event's createdAt (its commit), first delivery of each.
 *  2. Peak: 8 endpoints, one POST /v1/events/replay of BENCH_PEAK_EVENTS (2000) ids: 16,000
 *     deliveries; deliveries/s from the first to the last arrival.
 *  3. Soak (BENCH_SOAK_SECONDS, e.g. 600; off by default): BENCH_RATE events/s for that long to one
 *     endpoint, printing the pg-boss job table of the delivery queue (rows, bytes) and the delivery
 *     rows every minute. Events are written by the outbox's own insert statement (what every
 *     `emit()` runs) every 50 ms, not through the API: on 2 shared cores the API cannot also serve
 *     200 trigger calls/s for 10 minutes, and the soak is about the queue, not the API.
 * Env: BENCH_ADMIN_URL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fmt, num, scratchDatabase, printTargets } from './lib.ts';

const RATE = num('BENCH_RATE', 200);
const SECONDS = num('BENCH_SECONDS', 30);
const PEAK_EVENTS = num('BENCH_PEAK_EVENTS', 2000);
const PEAK_ENDPOINTS = 8;
const SOAK_SECONDS = num('BENCH_SOAK_SECONDS', 0);
const ROOT = join(import.meta.dirname, '..');

const env = {
  ...process.env,
  NODE_ENV: 'production',
  LOG_LEVEL: 'warn',
  HOST: '127.0.0.1',
  SVC_RATE_LIMIT: 'off',
  SVC_WEBHOOK_ALLOW_LOOPBACK: '1',
  SVC_MASTER_KEY: process.env.SVC_MASTER_KEY ?? randomBytes(32).toString('hex'),
};
process.env.SVC_MASTER_KEY = env.SVC_MASTER_KEY;

const scratch = scratchDatabase();
const children = new Set<ChildProcess>();
/** Warnings and errors the children logged (LOG_LEVEL=warn), printed at the end. */
const childLogs: string[] = [];

/** `svc <command>` as a child; resolves when its ready line appears on stderr. */
function svc(command: 'serve' | 'worker', port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(ROOT, 'bin/svc.js'), command], {
    cwd: ROOT,
    env: { ...env, DATABASE_URL: scratch.url, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.add(child);
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d) => {
      err += d;
      if (/svc (listening|worker running)/.test(err)) resolve(child);
      for (const line of String(d).split('\n')) if (line.startsWith('{')) childLogs.push(`${command}: ${line}`);
    });
    child.once('exit', (code) => reject(new Error(`svc ${command} exited ${code}:\n${err}`)));
  });
}

/** Receives deliveries; records each event's first arrival. */
async function receiver() {
  const first = new Map<string, number>();
  let total = 0;
  let firstAt = 0;
  let lastAt = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const now = Date.now();
      total++;
      firstAt ||= now;
      lastAt = now;
      const key = `${req.url}|${req.headers['x-svc-event-id']}`;
      if (!first.has(key)) first.set(key, now);
      res.writeHead(200).end('ok');
      void chunks;
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    first,
    stats: () => ({ total, firstAt, lastAt }),
    reset() {
      first.clear();
      total = firstAt = lastAt = 0;
    },
    close: () => new Promise((r) => server.close(r)),
  };
}

/** A child's resident memory, from /proc (Linux). */
const rssMiB = (child: ChildProcess) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function main() {
  await scratch.create();
  const { migrate } = await import('../src/core/db/migrate.ts');
  await migrate(scratch.url);
  const { openDatabase, closeDatabase, db } = await import('../src/core/db/client.ts');
  openDatabase(scratch.url);
  const { bootstrapWorkspace } = await import('../src/modules/workspaces/service.ts');
  const { createClient } = await import('../src/client/index.ts');
  const ws = await bootstrapWorkspace({ name: 'Bench hooks' });
  await db().system.query(`UPDATE workspaces SET tier = 'enterprise' WHERE id = $1`, [ws.workspaceId]);
  const apiPort = 40_000 + Math.floor(Math.random() * 10_000);
  const [api] = await Promise.all([svc('serve', apiPort), svc('worker', 0)]);
  const client = createClient({
    baseUrl: `http://127.0.0.1:${apiPort}`,
    keyId: ws.apiKey.keyId,
    secret: ws.apiKey.key,
  });
  const rx = await receiver();
  const endpoint = async (path: string) => {
    const res = await client.post('/v1/webhook-endpoints', { url: `${rx.base}${path}` });
    if (res.status !== 201) throw new Error(JSON.stringify(res.json));
    return res.json.data.id as string;
  };
  const trigger = (i: number) =>
    client.post(
      '/v1/events/trigger',
      { type: 'bench.tick', aggregateId: `agg_${i % 50}` },
      { 'idempotency-key': randomUUID() },
    );

  /** RATE events/s for `seconds`; returns the ids committed. */
  async function flow(
    seconds: number,
    onMinute?: (elapsedS: number, progress: { sent: number; committed: number; errors: number }) => Promise<void>,
  ) {
    const ids: string[] = [];
    let sent = 0;
    let errors = 0;
    const kinds = new Map<string, number>();
    const failed = (why: string) => (errors++, kinds.set(why, (kinds.get(why) ?? 0) + 1));
    const pending = new Set<Promise<void>>();
    const started = Date.now();
    let nextReport = 60;
    while (Date.now() - started < seconds * 1000) {
      const due = Math.floor(((Date.now() - started) * RATE) / 1000);
      while (sent < due) {
        const p = trigger(sent++).then(
          (r) => void (r.status === 201 ? ids.push(r.json.data.id) : failed(`${r.status} ${r.json?.error?.code}`)),
          (e: Error) => void failed(e.message),
        );
        pending.add(p.finally(() => pending.delete(p)));
      }
      if (onMinute && (Date.now() - started) / 1000 >= nextReport) {
        await onMinute(nextReport, { sent, committed: ids.length, errors });
        nextReport += 60;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    await Promise.all(pending);
    return { ids, sent, errors, kinds: Object.fromEntries(kinds), seconds: (Date.now() - started) / 1000 };
  }

  /** RATE events/s written as the outbox writes them, 10 per statement every 50 ms. */
  async function emitFlow(
    seconds: number,
    onMinute: (elapsedS: number, progress: { sent: number; committed: number; errors: number }) => Promise<void>,
  ) {
    const { eventRow, eventsCte } = await import('../src/core/outbox.ts');
    const { sql, compile } = await import('../src/core/db/sql-template.ts');
    const ids: string[] = [];
    const started = Date.now();
    let nextReport = 60;
    while (Date.now() - started < seconds * 1000) {
      const due = Math.floor(((Date.now() - started) * RATE) / 1000);
      const rows = Array.from({ length: due - ids.length }, (_, k) =>
        eventRow(
          { workspaceId: ws.workspaceId, mode: 'test' },
          'bench.tick',
          { aggregateId: `agg_${(ids.length + k) % 50}` },
          { source: 'bench' },
        ),
      );
      if (rows.length) {
        await db().system.query(compile(sql`WITH ${eventsCte(rows)} SELECT count(*) FROM inserted_events`));
        ids.push(...rows.map((r) => r.id));
      }
      if ((Date.now() - started) / 1000 >= nextReport) {
        await onMinute(nextReport, { sent: ids.length, committed: ids.length, errors: 0 });
        nextReport += 60;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    return { ids, sent: ids.length, errors: 0, seconds: (Date.now() - started) / 1000 };
  }

  async function drained(keys: string[], timeoutMs = 120_000) {
    const deadline = Date.now() + timeoutMs;
    while (keys.some((k) => !rx.first.has(k))) {
      if (Date.now() > deadline) throw new Error(`${keys.filter((k) => !rx.first.has(k)).length} deliveries missing`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function latencies(ids: string[], path: string) {
    const { rows } = await db().system.query<{ id: string; createdAt: Date }>(
      'SELECT id, "createdAt" FROM events WHERE id = ANY($1)',
      [ids],
    );
    return rows.map((r) => rx.first.get(`${path}|${r.id}`)! - r.createdAt.getTime()).sort((a, b) => a - b);
  }

  const jobTable = async () => {
    const { rows } = await db().system.query(
      `SELECT table_name AS t FROM pgboss.queue WHERE name = 'webhook-delivery'`,
    );
    const t = `pgboss.${rows[0].t}`;
    const size = await db().system.query(
      `SELECT count(*)::int AS n, pg_total_relation_size($1::regclass) AS bytes FROM ${t} WHERE name = 'webhook-delivery'`,
      [t],
    );
    return { table: t, rows: size.rows[0].n as number, bytes: Number(size.rows[0].bytes) };
  };

  // 1. Sustained
  const sustainedEndpoint = await endpoint('/sustained');
  for (let i = 0; i < 50; i++) await trigger(i); // warm-up
  await new Promise((r) => setTimeout(r, 2000));
  rx.reset();
  console.log(`sustained: ${RATE} events/s for ${SECONDS} s to 1 endpoint ...`);
  const sustained = await flow(SECONDS);
  await drained(sustained.ids.map((id) => `/sustained|${id}`));
  const lat = await latencies(sustained.ids, '/sustained');
  console.log(
    `  ${fmt(sustained.ids.length)} of ${fmt(sustained.sent)} events committed (the last answer ${fmt(sustained.seconds, 1)} s after the first request), ${sustained.errors} API errors${sustained.errors ? ` ${JSON.stringify(sustained.kinds)}` : ''}`,
  );
  console.log(
    `  event -> delivery latency  p50 ${fmt(pct(lat, 50))} ms  p95 ${fmt(pct(lat, 95))} ms  p99 ${fmt(pct(lat, 99))} ms  max ${fmt(lat.at(-1)!)} ms`,
  );

  // 2. Peak: 8 endpoints, one replay of PEAK_EVENTS ids.
  await client.delete(`/v1/webhook-endpoints/${sustainedEndpoint}`);
  const peakEndpoints: string[] = [];
  for (let i = 0; i < PEAK_ENDPOINTS; i++) peakEndpoints.push(await endpoint(`/peak${i}`));
  await new Promise((r) => setTimeout(r, 1500));
  rx.reset();
  const ids = sustained.ids.slice(0, PEAK_EVENTS);
  const replay = await client.post('/v1/events/replay', { eventIds: ids }, { 'idempotency-key': randomUUID() });
  if (replay.status !== 201) throw new Error(JSON.stringify(replay.json));
  const replayed: string[] = replay.json.data.eventIds;
  const t0 = Date.now();
  await drained(Array.from({ length: PEAK_ENDPOINTS }, (_, e) => replayed.map((id) => `/peak${e}|${id}`)).flat());
  const s = rx.stats();
  const deliveries = replayed.length * PEAK_ENDPOINTS;
  console.log(`peak: ${fmt(replayed.length)} events x ${PEAK_ENDPOINTS} endpoints = ${fmt(deliveries)} deliveries`);
  console.log(
    `  ${fmt(deliveries / ((s.lastAt - s.firstAt) / 1000))} deliveries/s (first to last arrival, ${fmt((s.lastAt - s.firstAt) / 1000, 2)} s); ${fmt((s.lastAt - t0) / 1000, 2)} s from the replay's answer; ${fmt(s.total - deliveries)} duplicates`,
  );

  const job = await jobTable();
  console.log(`job table ${job.table}: ${fmt(job.rows)} delivery jobs, ${fmt(job.bytes / 1024)} KiB`);

  // 3. Soak
  if (SOAK_SECONDS) {
    for (const id of peakEndpoints.slice(1)) await client.delete(`/v1/webhook-endpoints/${id}`);
    console.log(`soak: ${RATE} events/s (outbox inserts) for ${SOAK_SECONDS} s to 1 endpoint ...`);
    // Deleted jobs leave dead rows that only vacuum reclaims; a server without autovacuum (as on
    // the development machines) would show that, not the queue's own size.
    const autovacuum = (await db().system.query('SHOW autovacuum')).rows[0].autovacuum === 'on';
    if (!autovacuum)
      console.log(
        '  autovacuum is off on this server: the bench vacuums the job table every minute, as autovacuum would',
      );
    const soakStart = rx.stats().total;
    const soak = await emitFlow(SOAK_SECONDS, async (t, p) => {
      if (!autovacuum) await db().system.query(`VACUUM ${(await jobTable()).table}`);
      const j = await jobTable();
      const d = await db().system.query(`SELECT count(*)::int AS n FROM webhook_deliveries`);
      console.log(
        `  t=${t}s: sent ${fmt(p.sent)}, committed ${fmt(p.committed)}, API errors ${fmt(p.errors)}, delivered ${fmt(rx.stats().total - soakStart)}; job table ${fmt(j.rows)} rows, ${fmt(j.bytes / 1024)} KiB; webhook_deliveries ${fmt(d.rows[0].n)} rows; API RSS ${fmt(rssMiB(api))} MiB`,
      );
    });
    await drained(soak.ids.map((id) => `/peak0|${id}`));
    const soakLat = await latencies(soak.ids, '/peak0');
    const j = await jobTable();
    console.log(
      `  soak done: ${fmt(soak.sent)} sent, ${fmt(soak.ids.length)} events committed, ${fmt(soak.errors)} API errors; latency p50 ${fmt(pct(soakLat, 50))} ms p95 ${fmt(pct(soakLat, 95))} ms p99 ${fmt(pct(soakLat, 99))} ms; job table ${fmt(j.rows)} rows, ${fmt(j.bytes / 1024)} KiB`,
    );
  }

  const targets = [
    [`event -> delivery p95 < 1 s at ${RATE}/s`, pct(lat, 95) < 1000, `${fmt(pct(lat, 95))} ms`],
    [
      `peak >= 1,000 deliveries/s (${PEAK_ENDPOINTS} endpoints)`,
      deliveries / ((s.lastAt - s.firstAt) / 1000) >= 1000,
      `${fmt(deliveries / ((s.lastAt - s.firstAt) / 1000))}/s`,
    ],
  ] as const;
  printTargets('webhooks', targets);
  console.log(
    `child warnings/errors: ${childLogs.length}${childLogs.length ? `\n${childLogs.slice(0, 5).join('\n')}` : ''}`,
  );
  await rx.close();
  await closeDatabase();
}

main()
  .catch((e) => {
    console.error(e);
    process.exitCode = 1;
  })
  .finally(async () => {
    for (const c of children) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1500));
    await scratch.drop();
  });
