// Crash safety of webhook delivery (issue: "delivery you can trust"): events flow at up to 200/s
// through a real `svc serve` into a real `svc worker`, both separate processes; the worker is
// SIGKILLed three times and the API server once. Every committed event must reach the receiver at
// least once (duplicates carry the same event id and body), in-flight deliveries must be retried
// within 60 s of the last restart, and `sequence` stays strictly increasing per object.
// The crashes are paced by progress, not by the wall clock: each comes once PHASE more events have
// committed and the running worker has delivered, so every phase carries real traffic however slow
// the machine. Throughput is measured by `npm run bench:webhooks`, not here.
import { afterAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useServer, db, createClient } from '../../helpers/server.ts';
import { startInstance, startWorkerProcess, type Instance } from '../../helpers/cli.ts';
import { startReceiver, until } from '../../helpers/receiver.ts';
import { verifyWebhook } from '../../../src/client/webhooks.ts';

const server = useServer({ background: 'none' });
const env = { SVC_RATE_LIMIT: 'off', SVC_WEBHOOK_ALLOW_LOOPBACK: '1' };
const RATE = 200; // events offered per second
const PHASE = 50; // events committed between two crashes
const MAX_INFLIGHT = RATE; // one second of load: a slow server is loaded, not buried under a backlog
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
    let ok = 0;
    let failed = 0;
    const failures = new Map<string, number>();
    const failure = (why: string) => (failed++, failures.set(why, (failures.get(why) ?? 0) + 1));
    const inflight = new Set<Promise<unknown>>();
    // A connection failure is expected only for a request the API kill cut or one sent while the
    // API was down; any other is a failure of a running server.
    let apiUp = true;
    let apiKills = 0;
    const fire = (i: number) => {
      const [up, kills] = [apiUp, apiKills];
      const client = createClient({ baseUrl: api.url, keyId: ws.keyId, secret: ws.secret });
      const p = client
        .post(
          '/v1/events/trigger',
          { type: 'crash.test', aggregateId: `agg_${i % 20}`, data: { i: String(i) } },
          { 'idempotency-key': randomUUID() },
        )
        .then(
          (r) => (r.status === 201 ? ok++ : failure(`${r.status} ${r.json?.error?.code}`)),
          (e: Error) => {
            const why = `${e.message} ${(e.cause as { code?: string } | undefined)?.code ?? ''}`.trim();
            failure(up && kills === apiKills ? `while the API was up: ${why}` : why);
          },
        )
        .finally(() => inflight.delete(p));
      inflight.add(p);
    };
    const started = Date.now();
    let offered = 0;
    let flowing = true;
    const ticker = setInterval(() => {
      const due = Math.floor(((Date.now() - started) * RATE) / 1000);
      while (flowing && offered < due) {
        offered++;
        if (inflight.size < MAX_INFLIGHT) fire(sent++);
      }
    }, 10);

    const log: string[] = [];
    const phases: number[] = []; // events committed (201) in each phase
    let phaseStart = 0;
    // A phase ends once PHASE more events committed and the current worker delivered at least one
    // request of its own, so each kill interrupts a worker that is delivering under load.
    const endPhase = async (what: string) => {
      const target = phaseStart + PHASE;
      const receivedAt = rx.received.length;
      await until(
        () => ok >= target && rx.received.length > receivedAt,
        `${PHASE} more committed events and a delivery before ${what} (${ok} committed, ${failed} failed; ${log.join(', ')})`,
        60_000,
      );
      phases.push(ok - phaseStart);
      phaseStart = ok;
    };
    const killWorker = async () => {
      await endPhase('a worker kill');
      await sigkill(worker);
      log.push(`worker killed at ${Date.now() - started} ms`);
      worker = await startWorkerProcess(server.dbUrl, env);
    };
    await killWorker();
    await killWorker();
    await endPhase('the API kill');
    apiUp = false;
    apiKills++;
    await sigkill(api);
    log.push(`api killed at ${Date.now() - started} ms`);
    api = await startInstance(server.dbUrl, { env });
    apiUp = true;
    await killWorker();
    const lastRestart = Date.now();
    await endPhase('the end of the flow');
    flowing = false;
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
    // The flow really ran through every crash: each of the five phases committed PHASE events or
    // more. The database holds every event the API answered 201 for; beyond those, at most the
    // requests that failed (a request cut by the API kill may have committed without its answer).
    expect(phases).toHaveLength(5);
    for (const n of phases) expect(n).toBeGreaterThanOrEqual(PHASE);
    expect(committed.length).toBeGreaterThanOrEqual(ok);
    expect(committed.length).toBeLessThanOrEqual(ok + failed);
    expect(recoveredMs).toBeLessThan(60_000);
    // Only connection failures while the API process was down: a running server never errs here.
    expect([...failures.keys()].filter((k) => /^\d|^while the API was up/.test(k))).toEqual([]);
    console.info(
      `crash test: ${sent} sent (${offered} offered), ${ok} committed per phase ${JSON.stringify(phases)}, ${failed} failed at the API (${JSON.stringify(Object.fromEntries(failures))}), ${committed.length} committed, ${rx.received.length} received (${duplicates} duplicates); ${log.join(', ')}; all delivered ${recoveredMs} ms after the last restart`,
    );
  }, 180_000);
});
