import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { db, untilPublished, useServer } from '../helpers/server.ts';
import { startReceiver, until, type Receiver } from '../helpers/receiver.ts';
import { sandboxPayment } from '../helpers/payments.ts';
import { config } from '../../src/core/config.ts';
import { BACKLOG } from '../../src/server/metrics.ts';
import { signedSocket } from '../helpers/sockets.ts';
import { collect } from '../helpers/subscription.ts';

const server = useServer({ background: 'worker' });
const receivers: Receiver[] = [];
// These tests scrape over loopback as a co-located Prometheus would on a port declared private.
beforeEach(() => {
  config.metrics.private = true;
});
afterEach(async () => {
  config.metrics.token = undefined;
  config.metrics.private = false;
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

const scrape = async (headers: Record<string, string> = {}) => {
  const res = await fetch(`${server.url}/metrics`, { headers });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
};

/** The value of one sample, by metric name and exact labels (in the order prom-client prints them). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const l = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',');
  const prefix = l ? `${name}{${l}} ` : `${name} `;
  const line = text.split('\n').find((x) => x.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(prefix.length));
}

describe('GET /metrics', () => {
  it('after a real payment: request latency by route pattern, operations, deliveries, outbox, pools, queues', async () => {
    const ws = await server.workspace();
    const good = await startReceiver(() => 200);
    const bad = await startReceiver(() => 500);
    receivers.push(good, bad);
    await untilPublished();
    for (const url of [good.url, bad.url]) {
      const r = await ws.client.post('/v1/webhook-endpoints', { url, events: ['payment.succeeded'] });
      expect(r.status, r.text).toBe(201);
    }
    const payment = await sandboxPayment(server, ws);
    expect(payment.status).toBe('succeeded');
    const q = await ws.client.graphql(`query { payment(id: "${payment.id}") { id status } }`);
    expect(q.status, q.text).toBe(200);
    expect((await ws.client.get('/v1/no-such-route/pay_123')).status).toBe(404);
    const bogus = await ws.client.graphql('query { payment(id: "pay_nope") { id } }');
    expect(bogus.status).toBe(200);
    // A queue nobody works: its depth must show.
    const boss = server.worker!.boss;
    await boss.createQueue('metrics-probe');
    await boss.send('metrics-probe', {});
    await boss.send('metrics-probe', {});

    await until(() => good.received.length >= 1 && bad.received.length >= 1, 'both endpoints attempted');
    let m = await scrape();
    await until(async () => {
      m = await scrape();
      return (sample(m.text, 'svc_webhook_delivery_attempts_total', { outcome: 'failed' }) ?? 0) >= 1;
    }, 'the failed attempt recorded');

    expect(m.status).toBe(200);
    expect(m.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const t = m.text;
    // Requests by route pattern and status; the raw URL (with the id) never appears.
    expect(
      sample(t, 'svc_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/v1/checkout-sessions',
        status: '201',
      }),
    ).toBe(1);
    expect(
      sample(t, 'svc_http_request_duration_seconds_count', { method: 'GET', route: '/v1/payments/:id', status: '200' }),
    ).toBe(1);
    expect(
      sample(t, 'svc_http_request_duration_seconds_count', { method: 'POST', route: '/graphql', status: '200' }),
    ).toBe(2);
    expect(
      sample(t, 'svc_http_request_duration_seconds_bucket', {
        le: '+Inf',
        method: 'POST',
        route: '/v1/webhook-endpoints',
        status: '201',
      }),
    ).toBe(2);
    expect(
      sample(t, 'svc_http_request_duration_seconds_count', { method: 'GET', route: 'unmatched', status: '404' }),
    ).toBe(1);
    expect(t).not.toContain('pay_123');
    expect(t).not.toContain(payment.id);
    expect(t).not.toContain(ws.workspaceId);
    // GraphQL operations, REST's and /graphql's, by type and root field; an error result counted as one.
    expect(
      sample(t, 'svc_graphql_operation_duration_seconds_count', {
        transport: 'rest',
        type: 'mutation',
        field: 'createCheckoutSession',
        outcome: 'ok',
      }),
    ).toBe(1);
    expect(
      sample(t, 'svc_graphql_operation_duration_seconds_count', {
        transport: 'graphql',
        type: 'query',
        field: 'payment',
        outcome: 'ok',
      }),
    ).toBe(1);
    expect(
      sample(t, 'svc_graphql_operation_duration_seconds_count', {
        transport: 'graphql',
        type: 'query',
        field: 'payment',
        outcome: 'error',
      }),
    ).toBe(1);
    // Webhooks: one success, one failure, the first attempts' lag, the failed one waiting for its retry.
    expect(sample(t, 'svc_webhook_delivery_attempts_total', { outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(sample(t, 'svc_webhook_delivery_attempts_total', { outcome: 'failed' })).toBeGreaterThanOrEqual(1);
    expect(sample(t, 'svc_webhook_delivery_lag_seconds_count')).toBeGreaterThanOrEqual(2);
    expect(sample(t, 'svc_webhook_deliveries_pending')).toBeGreaterThanOrEqual(1);
    expect(sample(t, 'svc_webhook_deliveries_failed')).toBe(0);
    expect(sample(t, 'svc_webhook_delivery_backlog_seconds')).toBeGreaterThanOrEqual(0);
    // Outbox: everything published by now.
    // (Backlogs are cached for 2 s: poll until the scrape shows the relay caught up.)
    await untilPublished();
    let after = '';
    await until(async () => {
      after = (await scrape()).text;
      return sample(after, 'svc_outbox_pending_events') === 0;
    }, 'the outbox drained in /metrics');
    expect(sample(after, 'svc_outbox_lag_seconds')).toBe(0);
    // Pools and queues.
    expect(sample(t, 'svc_db_pool_connections', { pool: 'app', state: 'max' })).toBe(config.poolSize);
    expect(sample(t, 'svc_db_pool_connections', { pool: 'app', state: 'total' })).toBeGreaterThanOrEqual(1);
    expect(sample(t, 'svc_queue_jobs', { queue: 'metrics-probe', state: 'created' })).toBe(2);
  });

  it('a subscription over the socket is an operation like the others: counted with transport "socket"', async () => {
    const ws = await server.workspace();
    const socket = signedSocket(server.url, ws);
    const events = { transport: 'socket', type: 'subscription', field: 'events' };
    const count = async (outcome: string) =>
      sample((await scrape()).text, 'svc_graphql_operation_duration_seconds_count', { ...events, outcome });
    const before = (await count('ok')) ?? 0;
    try {
      const sub = collect<{ id: string }>(socket.client, 'subscription { events { id } }', 'events');
      await until(async () => (await count('ok')) === before + 1, 'the subscribe counted');
      expect(sub.errors).toEqual([]);
      expect(await count('error')).toBeUndefined();
    } finally {
      await socket.client.dispose();
    }
  });

  it('reads the backlogs through partial indexes: a scrape costs the backlog, not every delivery kept', async () => {
    // The test tables are small enough for any plan; with sequential scans priced out, the plan
    // shows which index can answer each predicate (a status renamed in the state table, or an
    // index dropped, and the scrape would scan the whole table on every call).
    const c = await db().system.connect();
    try {
      await c.query('BEGIN');
      await c.query('SET LOCAL enable_seqscan = off');
      const plan = JSON.stringify((await c.query(`EXPLAIN (FORMAT JSON) ${BACKLOG}`)).rows[0]);
      for (const index of ['events_unpublished_idx', 'webhook_deliveries_pending_idx', 'webhook_deliveries_failed_idx'])
        expect(plan).toContain(`"Index Name":"${index}"`);
      expect(plan).not.toContain('"Node Type":"Seq Scan"');
    } finally {
      await c.query('ROLLBACK');
      c.release();
    }
  });

  it('requires the token unless SVC_METRICS_PRIVATE says the port is private', async () => {
    // A proxy on the same host that adds no forwarding header is a loopback peer like this one.
    config.metrics.private = false;
    const stranger = await scrape();
    expect(stranger.status).toBe(404);
    expect(JSON.parse(stranger.text).error.code).toBe('not_found');
    config.metrics.token = 'metrics-secret-token-1234567890';
    expect((await scrape()).status).toBe(404);
    expect((await scrape({ authorization: 'Bearer metrics-secret-token-1234567890' })).status).toBe(200);
  });

  it('on a private port: loopback only, not through a proxy; with a token, the bearer from anywhere', async () => {
    expect((await scrape()).status).toBe(200);
    // A reverse proxy on the same host is a loopback peer: its forwarding headers refuse.
    const proxied = await scrape({ 'x-forwarded-for': '203.0.113.9' });
    expect(proxied.status).toBe(404);
    expect(JSON.parse(proxied.text).error.code).toBe('not_found');
    expect((await scrape({ forwarded: 'for=203.0.113.9' })).status).toBe(404);

    config.metrics.token = 'metrics-secret-token-1234567890';
    expect((await scrape({ authorization: 'Bearer wrong', 'x-forwarded-for': '203.0.113.9' })).status).toBe(404);
    expect((await scrape({ authorization: 'Bearer metrics-secret-token-1234567890' })).status).toBe(200);
    expect(
      (await scrape({ authorization: 'Bearer metrics-secret-token-1234567890', 'x-forwarded-for': '203.0.113.9' }))
        .status,
    ).toBe(200);
  });

  it('a peer that is not on loopback gets 404', async () => {
    // The server listens on 127.0.0.1 only here; reach it from another local address via the socket's view.
    const { mayReadMetrics } = await import('../../src/server/metrics.ts');
    const req = (remoteAddress: string) =>
      ({ headers: {}, socket: { remoteAddress } }) as unknown as Parameters<typeof mayReadMetrics>[0];
    expect(mayReadMetrics(req('127.0.0.1'))).toBe(true);
    expect(mayReadMetrics(req('::1'))).toBe(true);
    expect(mayReadMetrics(req('::ffff:127.0.0.1'))).toBe(true);
    expect(mayReadMetrics(req('10.0.0.5'))).toBe(false);
    expect(mayReadMetrics(req('::ffff:192.0.2.1'))).toBe(false);
  });
});
