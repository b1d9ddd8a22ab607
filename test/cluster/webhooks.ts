// Webhook deliveries across the faults for test/cluster: an endpoint for every event type on a
// loopback receiver (always 200), and event triggers through an API node in a loop. Afterwards every
// event GET /v1/events lists as created after the endpoint has reached the receiver at least once.
import { randomUUID } from 'node:crypto';
import type { Client } from '../../src/client/index.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { deadline, sleep } from './faults.ts';

export async function webhookLoad(client: Client, triggerThrough: Client) {
  const rx = await startReceiver();
  const created = await client.post('/v1/webhook-endpoints', { url: rx.url, events: ['*'] });
  if (created.status !== 201) throw new Error(`webhook endpoint ${created.status}: ${created.text}`);
  const since = Date.parse(created.json.data.createdAt);
  const delivered = () => new Set(rx.received.map((r) => String(r.headers['x-svc-event-id'])));
  const triggers: Record<string, number> = {};
  let stop = false;
  // Event triggers, each under its own key, retried with it until 2xx (as the other creates).
  const done = (async () => {
    for (let i = 0; !stop; i++) {
      const k = randomUUID();
      for (let attempt = 0; attempt < 300 && !stop; attempt++) {
        const r = await triggerThrough
          .post('/v1/events/trigger', { type: 'cluster.test', aggregateId: `agg_${i % 10}` }, { 'idempotency-key': k })
          .catch(() => ({ status: 0 }));
        triggers[r.status] = (triggers[r.status] ?? 0) + 1;
        if (r.status === 201) break;
        await sleep(300);
      }
      await sleep(200);
    }
  })();
  return {
    triggers,
    async stop() {
      stop = true;
      await done;
    },
    /** Waits up to `ms` for every listed event created after the endpoint; the ones never delivered. */
    async missing(listed: { id: string; createdAt: string }[], ms: number) {
      const expected = listed.filter((e) => Date.parse(e.createdAt) > since).map((e) => e.id);
      const started = Date.now();
      await deadline(() => expected.every((id) => delivered().has(id)), 'every event delivered', ms).catch(() => {});
      const got = delivered();
      return {
        expected: expected.length,
        deliveries: rx.received.length,
        waitedMs: Date.now() - started,
        missing: expected.filter((id) => !got.has(id)),
      };
    },
    close: () => rx.close(),
  };
}
