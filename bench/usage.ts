/**
 * `npm run bench:usage`: usage ingestion through the real HTTP API (docs/usage.md, The request).
 * The app runs in a child process (as `svc serve`); this process signs `POST /v1/usage-events` batches
 * of BENCH_USAGE_BATCH (1,000) events, BENCH_USAGE_INFLIGHT (1) requests in flight, for
 * BENCH_USAGE_SECONDS (10) after one warm-up batch, over BENCH_USAGE_CUSTOMERS (1,000) customers and
 * 3 meters on one eventName (~100 bytes of properties per event), and prints accepted events/s and
 * request latency (p50, p99). Rate limits are off (bench/lib.ts).
 */
import { performance } from 'node:perf_hooks';
import type { ChildProcess } from 'node:child_process';
import { fmt, num, printTargets, scratchDatabase, startApp } from './lib.ts';

const BATCH = num('BENCH_USAGE_BATCH', 1000);
const INFLIGHT = num('BENCH_USAGE_INFLIGHT', 1);
const SECONDS = num('BENCH_USAGE_SECONDS', 10);
const CUSTOMERS = num('BENCH_USAGE_CUSTOMERS', 1000);

const { migrate } = await import('../src/core/db/migrate.ts');
const { openDatabase, closeDatabase } = await import('../src/core/db/client.ts');
const { bootstrapWorkspace } = await import('../src/modules/workspaces/service.ts');
const { createClient } = await import('../src/client/index.ts');

const scratch = scratchDatabase();
let child: ChildProcess | undefined;

async function seed(base: string) {
  openDatabase(scratch.url);
  const ws = await bootstrapWorkspace({ name: 'Usage bench' });
  const client = createClient({ baseUrl: base, keyId: ws.apiKey.keyId, secret: ws.apiKey.key });
  const meter = (key: string, extra: Record<string, unknown>) =>
    client.post('/v1/meters', { key, name: key, eventName: 'api.call', ...extra }, { 'idempotency-key': key });
  await meter('calls', { aggregation: 'count' });
  await meter('tokens', { aggregation: 'sum', valueProperty: 'tokens' });
  await meter('eu_tokens', { aggregation: 'max', valueProperty: 'tokens', filters: { region: ['eu'] } });
  const ids: string[] = [];
  for (let i = 0; i < CUSTOMERS; i += 50) {
    const made = await Promise.all(
      Array.from({ length: Math.min(50, CUSTOMERS - i) }, (_, k) =>
        client.post('/v1/customers', { name: `c${i + k}`, externalId: `ext-${i + k}` }),
      ),
    );
    ids.push(...made.map((r) => r.json.data.id as string));
  }
  return { client, ids };
}

let serial = 0;
function batch(ids: string[]) {
  const events = [];
  for (let i = 0; i < BATCH; i++) {
    const n = serial++;
    events.push({
      id: `ev-${n}`,
      eventName: 'api.call',
      customerId: ids[n % ids.length],
      properties: { tokens: n % 997, model: 'gpt-large', region: n % 2 ? 'eu' : 'us', route: '/v1/chat' },
    });
  }
  return { events };
}

try {
  await scratch.create();
  await migrate(scratch.url);
  const app = await startApp(scratch.url);
  child = app.child;
  const { client, ids } = await seed(app.base);
  await client.post('/v1/usage-events', batch(ids));
  const latencies: number[] = [];
  let accepted = 0;
  let failed = 0;
  const start = performance.now();
  const until = start + SECONDS * 1000;
  const loop = async () => {
    while (performance.now() < until) {
      const body = batch(ids);
      const t = performance.now();
      const res = await client.post('/v1/usage-events', body);
      latencies.push(performance.now() - t);
      if (res.status === 200) accepted += res.json.data.accepted;
      else failed++;
    }
  };
  await Promise.all(Array.from({ length: INFLIGHT }, loop));
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))];
  const rate = accepted / elapsed;
  console.log(
    `${fmt(accepted)} events accepted in ${fmt(elapsed, 1)} s over ${latencies.length} requests ` +
      `(${BATCH} per batch, ${INFLIGHT} in flight): ${fmt(rate)} events/s; ` +
      `request p50 ${fmt(pct(0.5))} ms, p99 ${fmt(pct(0.99))} ms; ${failed} failed`,
  );
  printTargets('usage', [
    ['0 failed requests', failed === 0, String(failed)],
    [`events/s (one client, ${INFLIGHT} in flight)`, null, fmt(rate)],
  ]);
} finally {
  child?.kill();
  await closeDatabase();
  await scratch.drop();
}
