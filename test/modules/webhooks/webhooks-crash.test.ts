// Crash safety of webhook delivery (issue: "delivery you can trust"): events flow at 200/s through
// a real `svc serve` into a real `svc worker`, both separate processes; the worker is SIGKILLed
// three times and the API server once. Every committed event must reach the receiver at least
// once (duplicates carry the same event id and body), in-flight deliveries must be retried within
// 60 s of the last restart, and `sequence` stays strictly increasing per object.
import { afterAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useServer, db, createClient } from '../../helpers/server.ts';
import { startInstance, startWorkerProcess, type Instance } from '../../helpers/cli.ts';
import { startReceiver, until } from '../../helpers/receiver.ts';
import { verifyWebhook } from '../../../src/client/webhooks.ts';

const server = useServer({ background: 'none' });
const env = { SVC_RATE_LIMIT: 'off', SVC_WEBHOOK_ALLOW_LOOPBACK: '1' };
const RATE = 200; // events per second
const FLOW_MS = 20_000;
const children: { stop(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(children.map((c) => c.stop().catch(() => {})));
});

const sigkill = (c: { child: import('node:child_process').ChildProcess }) =>
  new Promise<void>((r) => {
    c.child.once('exit', () => r());
    c.child.kill('SIGKILL');
  });

describe('webhook delivery across crashes', () => {
  it('delivers every committed event at least once while the worker is killed 3 times and the API server once', async () => {
    const ws = await server.workspace();
    const rx = await startReceiver();
    children.push({ stop: () => rx.close() });
    const created = await ws.client.post('/v1/webhook-endpoints', { url: rx.url, events: ['*'] });
    expect(created.status).toBe(201);
    const secret: string = created.json.data.signingSecret;

    let api: Instance = await startInstance(server.dbUrl, { env });
    let worker = await startWorkerProcess(server.dbUrl, env);
    children.push({ stop: () => api.stop() }, { stop: () => worker.stop() });

    // The load: RATE trigger calls per second over 20 objects, whatever the server's state.
    let sent = 0;
    let failed = 0;
    const failures = new Map<string, number>();
    const failure = (why: string) => (failed++, failures.set(why, (failures.get(why) ?? 0) + 1));
    const inflight = new Set<Promise<unknown>>();
    const fire = (i: number) => {
      const client = createClient({ baseUrl: api.url, keyId: ws.keyId, secret: ws.secret });
      const p = client
        .post(
          '/v1/events/trigger',
          { type: 'crash.test', aggregateId: `agg_${i % 20}`, data: { i: String(i) } },
          { 'idempotency-key': randomUUID() },
        )
        .then(
          (r) => r.status !== 201 && failure(`${r.status} ${r.json?.error?.code}`),
          (e: Error) => failure(e.message),
        )
        .finally(() => inflight.delete(p));
      inflight.add(p);
    };
    const started = Date.now();
    const ticker = setInterval(() => {
      const due = Math.floor(((Date.now() - started) * RATE) / 1000);
      while (sent < due && Date.now() - started < FLOW_MS) fire(sent++);
    }, 10);

    const at = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, started + ms - Date.now())));
    const log: string[] = [];
    const killWorker = async (ms: number) => {
      await at(ms);
      await sigkill(worker);
      log.push(`worker killed at ${Date.now() - started} ms`);
      worker = await startWorkerProcess(server.dbUrl, env);
    };
    await killWorker(3_000);
    await killWorker(8_000);
    await at(11_000);
    await sigkill(api);
    log.push(`api killed at ${Date.now() - started} ms`);
    api = await startInstance(server.dbUrl, { env });
    await killWorker(15_000);
    const lastRestart = Date.now();
    await at(FLOW_MS);
    clearInterval(ticker);
    await Promise.allSettled([...inflight]);

    const committed = (
      await db().system.query<{ id: string; objectId: string; sequence: number }>(
        `SELECT id, "objectId", sequence FROM events WHERE "workspaceId" = $1 AND type = 'crash.test' ORDER BY position`,
        [ws.workspaceId],
      )
    ).rows;
    const receivedIds = () => new Set(rx.received.map((r) => String(r.headers['x-svc-event-id'])));
    await until(
      () => committed.every((e) => receivedIds().has(e.id)),
      `all ${committed.length} committed events delivered (${log.join(', ')})`,
      60_000,
    );
    const recoveredMs = Date.now() - lastRestart;

    // Every delivery is genuine and signed; duplicates are the same event, byte for byte.
    const bodies = new Map<string, string>();
    let duplicates = 0;
    for (const r of rx.received) {
      const event = verifyWebhook({ payload: r.body, headers: r.headers as Record<string, string>, secret });
      const seen = bodies.get(event.id);
      if (seen !== undefined) {
        duplicates++;
        expect(r.body.toString()).toBe(seen);
      } else bodies.set(event.id, r.body.toString());
    }
    const committedIds = new Set(committed.map((e) => e.id));
    const phantoms = [...bodies].filter(
      ([id, body]) => !committedIds.has(id) && JSON.parse(body).type === 'crash.test',
    );
    expect(phantoms, 'delivered but never committed').toEqual([]);

    // sequence per object: strictly increasing in commit order, across the crashes.
    const last = new Map<string, number>();
    for (const e of committed) {
      expect(e.sequence, `${e.objectId} after ${last.get(e.objectId)}`).toBeGreaterThan(last.get(e.objectId) ?? 0);
      last.set(e.objectId, e.sequence);
    }
    // The flow really ran (what commits depends on the machine: four restarts share its two cores).
    expect(committed.length).toBeGreaterThan(RATE * (FLOW_MS / 1000) * 0.2);
    expect(recoveredMs).toBeLessThan(60_000);
    // Only connection failures while the API process was down: a running server never errs here.
    expect([...failures.keys()].filter((k) => /^\d/.test(k))).toEqual([]);
    console.info(
      `crash test: ${sent} sent, ${failed} failed at the API (${JSON.stringify(Object.fromEntries(failures))}), ${committed.length} committed, ${rx.received.length} received (${duplicates} duplicates); ${log.join(', ')}; all delivered ${recoveredMs} ms after the last restart`,
    );
  }, 180_000);
});
