import { timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { Gauge } from 'prom-client';
import { config } from '../core/config.ts';
import { db } from '../core/db/client.ts';
import { sha256 } from '../core/crypto.ts';
import { metricsEnabled, observeRequest, registry, requestObserver } from '../core/metrics.ts';
import { envelope } from './envelope.ts';
import { sweepNames } from '../core/sweep.ts';
import { webhookDeliveryMachine } from '../modules/webhooks/states.ts';

const pendingStatus = webhookDeliveryMachine.moves.create.to;
const failedStatus = webhookDeliveryMachine.moves.failed_final.to;

/**
 * Backlogs, read at scrape time on the owner pool (they span tenants: docs/scaling.md), so they
 * are right whichever process (server or `svc worker`) does the work. Cached for a few seconds:
 * a burst of scrapes costs the database one read.
 */
export const BACKLOG = `
  SELECT
    (SELECT count(*) FROM events WHERE "publishedAt" IS NULL)::int AS "outboxPending",
    (SELECT COALESCE(EXTRACT(EPOCH FROM now() - min("createdAt")), 0) FROM events
      WHERE "publishedAt" IS NULL)::float8 AS "outboxLag",
    (SELECT count(*) FROM webhook_deliveries WHERE status = '${pendingStatus}')::int AS "deliveriesPending",
    (SELECT COALESCE(EXTRACT(EPOCH FROM now() - min(COALESCE("nextRetryAt", "createdAt"))), 0)
      FROM webhook_deliveries WHERE status = '${pendingStatus}')::float8 AS "deliveryLag",
    (SELECT count(*) FROM webhook_deliveries WHERE status = '${failedStatus}')::int AS "deliveriesFailed"`;
/** pg-boss's schema exists once a worker has started on this database; until then no queue. */
const JOBS = `
  SELECT name AS queue, state::text AS state, count(*)::int AS n FROM pgboss.job
  WHERE state IN ('created', 'retry', 'active') GROUP BY 1, 2`;

/** Rows each sweep holds in quarantine (src/core/sweep.ts); the table is small, read whole. */
const QUARANTINE = 'SELECT sweep, count(*)::int AS n FROM sweep_quarantine GROUP BY 1';

interface Backlog {
  quarantined: { sweep: string; n: number }[];
  outboxPending: number;
  outboxLag: number;
  deliveriesPending: number;
  deliveryLag: number;
  deliveriesFailed: number;
  jobs: { queue: string; state: string; n: number }[];
}
const CACHE_MS = 2000;
let cached: { at: number; value: Promise<Backlog> } | null = null;

async function readBacklog(): Promise<Backlog> {
  const system = db().system;
  const [b, quarantined, jobs] = await Promise.all([
    system.query<Omit<Backlog, 'jobs' | 'quarantined'>>(BACKLOG),
    system.query<Backlog['quarantined'][number]>(QUARANTINE).then((r) => r.rows),
    system.query<Backlog['jobs'][number]>(JOBS).then(
      (r) => r.rows,
      (e) => {
        if ((e as { code?: string }).code === '42P01') return []; // undefined_table: no worker yet
        throw e;
      },
    ),
  ]);
  return { ...b.rows[0], quarantined, jobs };
}
function backlog(): Promise<Backlog> {
  const now = Date.now();
  if (!cached || now - cached.at > CACHE_MS) {
    const value = readBacklog();
    cached = { at: now, value };
    value.catch(() => (cached = null));
  }
  return cached.value;
}

const gauge = (name: string, help: string, read: (b: Backlog) => number) =>
  new Gauge({
    name,
    help,
    registers: [registry],
    async collect() {
      this.set(read(await backlog()));
    },
  });

gauge('svc_outbox_pending_events', 'Committed events the relay has not published yet', (b) => b.outboxPending);
gauge('svc_outbox_lag_seconds', 'Age of the oldest unpublished event (0 when none)', (b) => b.outboxLag);
gauge(
  'svc_webhook_deliveries_pending',
  'Webhook deliveries waiting for an attempt or a retry',
  (b) => b.deliveriesPending,
);
gauge(
  'svc_webhook_delivery_backlog_seconds',
  'How long the oldest pending delivery has been due (since creation, or since its retry time)',
  (b) => Math.max(0, b.deliveryLag),
);
gauge(
  'svc_webhook_deliveries_failed',
  'Webhook deliveries that ended failed, all retries spent (kept until purged)',
  (b) => b.deliveriesFailed,
);
new Gauge({
  name: 'svc_queue_jobs',
  help: 'pg-boss jobs by queue and state (created, retry, active)',
  labelNames: ['queue', 'state'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    for (const j of (await backlog()).jobs) this.set({ queue: j.queue, state: j.state }, j.n);
  },
});
new Gauge({
  name: 'svc_sweep_quarantined_rows',
  help: 'Rows (or whole tenants) a sweep failed on, left out until their retry time, by sweep (docs/sweeps.md)',
  labelNames: ['sweep'] as const,
  registers: [registry],
  async collect() {
    const held = new Map((await backlog()).quarantined.map((q) => [q.sweep, q.n]));
    for (const sweep of sweepNames) this.set({ sweep }, held.get(sweep) ?? 0);
  },
});
new Gauge({
  name: 'svc_db_pool_connections',
  help: 'Database pool connections by pool (app: tenant queries, system: infrastructure) and state',
  labelNames: ['pool', 'state'] as const,
  registers: [registry],
  collect() {
    const d = db();
    for (const [name, p] of [
      ['app', d.app],
      ['system', d.system],
    ] as const) {
      this.set({ pool: name, state: 'total' }, p.totalCount);
      this.set({ pool: name, state: 'idle' }, p.idleCount);
      this.set({ pool: name, state: 'waiting' }, p.waitingCount);
      this.set({ pool: name, state: 'max' }, p.options.max ?? 10);
    }
  },
});

const loopback = (addr: string | undefined) =>
  !!addr && (addr === '::1' || addr.startsWith('127.') || addr.startsWith('::ffff:127.'));

/**
 * Who may read /metrics (docs/decisions.md, Metrics): a request bearing SVC_METRICS_TOKEN
 * (compared in constant time). Without the token, only when the operator declared the port
 * private (SVC_METRICS_PRIVATE): then a loopback peer that sent no forwarding header. A proxy on
 * the same host that adds no such header is a loopback peer too, so loopback alone proves nothing.
 */
export function mayReadMetrics(req: FastifyRequest): boolean {
  const token = config.metrics.token;
  const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
  if (token && m && timingSafeEqual(sha256(Buffer.from(m[1])), sha256(Buffer.from(token)))) return true;
  if (!config.metrics.private) return false;
  if (req.headers['x-forwarded-for'] || req.headers.forwarded || req.headers['x-real-ip']) return false;
  return loopback(req.socket.remoteAddress);
}

/**
 * Request latency by route pattern and status: each route gets its own onResponse hook holding
 * its pattern and series (nothing looked up or built per request); unmatched URLs are observed as
 * `unmatched` (never the raw URL: one series per id otherwise). Call before routes are added.
 */
export function observeRequests(fastify: FastifyInstance) {
  if (!metricsEnabled()) return;
  fastify.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    const byMethod = new Map(methods.map((m) => [m, requestObserver(m, route.url)]));
    const hook = (req: FastifyRequest, reply: { statusCode: number; elapsedTime: number }, done: () => void) => {
      byMethod.get(req.method)?.(reply.statusCode, reply.elapsedTime);
      done();
    };
    route.onResponse = [...[route.onResponse ?? []].flat(), hook] as never;
  });
  fastify.addHook('onResponse', (req, reply, done) => {
    if (req.is404) observeRequest(req.method, 'unmatched', reply.statusCode, reply.elapsedTime);
    done();
  });
}

export function mountMetrics(fastify: FastifyInstance) {
  if (!config.metrics.enabled) return;
  fastify.get('/metrics', async (req, reply) => {
    // 404, not 403: the route does not admit it exists to a stranger.
    if (!mayReadMetrics(req))
      return reply
        .status(404)
        .type('application/json; charset=utf-8')
        .send(envelope(req.id, null, { code: 'not_found', message: `No route GET ${req.url.split('?')[0]}` }));
    const body = await registry.metrics();
    return reply.type(registry.contentType).send(body);
  });
}

/** `svc worker` on its own: /metrics alone, same rules, on its own port. */
export async function serveMetricsAlone(port: number, host: string): Promise<FastifyInstance> {
  const fastify = Fastify({ logger: false });
  mountMetrics(fastify);
  await fastify.listen({ port, host });
  return fastify;
}
