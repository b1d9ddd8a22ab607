/**
 * One benchmark server, run as a child process of bench/run.ts (the load generator stays in the
 * parent, so on a small machine the server gets a core of its own instead of sharing one with
 * autocannon's event loop).
 *
 *   tsx bench/server.ts bare|hmac|prisma|app
 *
 * bare    node:http + pg: the tenant transaction of `tenantQuery` (BEGIN; set_config; SELECT; COMMIT as svc_app)
 * hmac    bare + authenticate() on every request
 * prisma  hmac, with the SELECT through inTenant() + tx.apiKey.findMany
 * app     the real server: buildApp() (GraphQL at /graphql, REST translation at /v1/...)
 *
 * Env: DATABASE_URL (required), BENCH_WORKSPACE_ID (bare mode: the workspace to list).
 * Talks to the parent over IPC: sends {type:'ready', port}; answers {type:'mem'} and {type:'gc'} (a full
 * collection, with --expose-gc); exits on {type:'stop'}.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';

process.env.SVC_RATE_LIMIT ??= 'off';

type Mode = 'create' | 'bare' | 'hmac' | 'prisma' | 'app';
const mode = process.argv[2] as Mode;
if (!['bare', 'hmac', 'prisma', 'app', 'create'].includes(mode)) throw new Error(`unknown server mode ${mode}`);
const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL is required');

// After the env is set: config is read at import time.
const { openDatabase, closeDatabase, tenantQuery, inTenant, db } = await import('../src/core/db/client.ts');
const { sql } = await import('../src/core/db/sql-template.ts');
const { newId } = await import('../src/core/ids.ts');
const { authenticate, flushUsage } = await import('../src/core/auth/authenticate.ts');
openDatabase(url);

const BOTH = ['test', 'live'] as const;
/** Every column, as Prisma's findMany selects them; the wire shape drops signingKey and memberId. */
const listSql = (workspaceId: string, limit: number) =>
  sql`SELECT id, "workspaceId", mode, "keyId", name, role, scopes, "signingKey", "memberId", "lastUsedAt",
    "revokedAt", "createdAt"
  FROM api_keys WHERE "workspaceId" = ${workspaceId} AND "revokedAt" IS NULL ORDER BY "createdAt" DESC, id DESC
  LIMIT ${limit}`;

interface Row {
  id: string;
  keyId: string;
  name: string;
  role: string;
  scopes: string[];
  mode: string;
  lastUsedAt: Date | null;
  createdAt: Date;
  revokedAt: Date | null;
}
const wire = (r: Row) => ({
  id: r.id,
  keyId: r.keyId,
  name: r.name,
  role: r.role,
  scopes: r.scopes,
  environment: r.mode,
  lastUsedAt: r.lastUsedAt?.toISOString() ?? null,
  createdAt: r.createdAt.toISOString(),
  revokedAt: r.revokedAt?.toISOString() ?? null,
});

function send(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(chunks.length ? Buffer.concat(chunks) : Buffer.alloc(0)));
    req.on('error', reject);
  });
}

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/**
 * The create-session baseline (bench/checkout.ts): the same writes as the app's create with an
 * Idempotency-Key (the key row with its stored response, the session row, an outbox row) in one
 * pg transaction under the tenant scope, no HMAC, no validation, no GraphQL.
 */
async function createHandler(req: IncomingMessage, res: ServerResponse) {
  try {
    const body = JSON.parse((await readBody(req)).toString('utf8'));
    const workspaceId = process.env.BENCH_WORKSPACE_ID!;
    const now = new Date();
    const id = newId('checkoutSession');
    const session = { id, status: 'open', ...body, createdAt: now.toISOString() };
    const text = JSON.stringify({ data: session, error: null });
    const c = await db().app.connect();
    try {
      await c.query('BEGIN');
      await c.query(`SELECT set_config('app.workspace_id', $1, true), set_config('app.modes', 'test', true)`, [
        workspaceId,
      ]);
      await c.query(
        `INSERT INTO idempotency_keys ("workspaceId", mode, key, fingerprint, state, "statusCode", headers, body, "createdAt", "expiresAt")
         VALUES ($1, 'test', $2, 'f', 'done', 201, '{}', $3, $4, $4::timestamptz + interval '24 hours')`,
        [workspaceId, String(one(req.headers['idempotency-key'])), Buffer.from(text), now],
      );
      await c.query(
        `INSERT INTO checkout_sessions (id, "workspaceId", mode, status, amount, currency, methods, "lineItems", "successUrl", "cancelUrl", "expiresAt", "createdAt", "updatedAt")
         VALUES ($1, $2, 'test', 'open', $3, $4, $5, '[]', $6, $7, $8::timestamptz + interval '1 day', $8, $8)`,
        [id, workspaceId, body.amount, body.currency, body.methods, body.successUrl, body.cancelUrl, now],
      );
      await c.query(
        `INSERT INTO events (id, "workspaceId", mode, type, "objectId", sequence, "occurredAt", "createdAt", data, metadata) VALUES ($1, $2, 'test', 'bench.created', $3, 1, $4, $4, $5, '{}')`,
        [newId('event'), workspaceId, id, now, JSON.stringify({ id })],
      );
      await c.query('COMMIT');
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      c.release();
    }
    res.writeHead(201, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
  } catch (e) {
    send(res, 500, { error: { code: 'internal_error', message: (e as Error).message } });
  }
}

async function bareHandler(req: IncomingMessage, res: ServerResponse) {
  try {
    const u = new URL(req.url ?? '/', 'http://internal');
    if (req.method !== 'GET' || u.pathname !== '/v1/api-keys') return send(res, 404, { error: { code: 'not_found' } });
    const body = await readBody(req);
    const limit = Number(u.searchParams.get('limit') ?? 50);
    let workspaceId = process.env.BENCH_WORKSPACE_ID!;
    if (mode !== 'bare') {
      const auth = await authenticate({
        method: req.method,
        target: req.url!,
        body,
        authorization: one(req.headers.authorization),
        timestamp: one(req.headers['x-svc-timestamp']),
      });
      workspaceId = auth.workspaceId;
    }
    const scope = { workspaceId, modes: BOTH };
    const rows: Row[] =
      mode === 'prisma'
        ? await inTenant(scope, (tx) =>
            tx.apiKey.findMany({
              where: { workspaceId, revokedAt: null },
              orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
              take: limit + 1,
            }),
          )
        : await tenantQuery<Row & Record<string, unknown>>(scope, listSql(workspaceId, limit + 1));
    const hasMore = rows.length > limit;
    send(res, 200, { data: rows.slice(0, limit).map(wire), error: null, meta: { page: { limit, hasMore } } });
  } catch (e) {
    const err = e as Error & { status?: number; canonical?: string };
    send(res, err.status ?? 500, { error: { code: err.canonical ?? 'internal_error', message: err.message } });
  }
}

let close: () => Promise<void>;
let port: number;
if (mode === 'app') {
  const { buildApp } = await import('../app/server.ts');
  const { LISTEN_BACKLOG } = await import('../src/server/http.ts');
  const app = await buildApp();
  await app.fastify.listen({ port: 0, host: '127.0.0.1', backlog: LISTEN_BACKLOG });
  port = (app.fastify.server.address() as AddressInfo).port;
  close = () => app.close();
} else {
  const server = createServer((req, res) => void (mode === 'create' ? createHandler(req, res) : bareHandler(req, res)));
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  close = () => new Promise<void>((resolve) => server.close(() => resolve()).closeAllConnections());
}

// What makes the tail: event-loop delay and GC pauses since the parent last asked (a `mem` message).
const loop = monitorEventLoopDelay({ resolution: 5 });
loop.enable();
let gc = { count: 0, ms: 0, maxMs: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gc.count++;
    gc.ms += e.duration;
    gc.maxMs = Math.max(gc.maxMs, e.duration);
  }
}).observe({ entryTypes: ['gc'] });

process.on('message', async (msg: { type: string }) => {
  if (msg.type === 'gc') {
    (globalThis as { gc?: () => void }).gc?.();
    process.send!({ type: 'gc', done: !!(globalThis as { gc?: () => void }).gc });
  } else if (msg.type === 'mem') {
    const m = process.memoryUsage();
    process.send!({
      type: 'mem',
      rss: m.rss,
      heapUsed: m.heapUsed,
      heapTotal: m.heapTotal,
      // The young generation's reserved size (new_space): it grows under allocation and shrinks when idle.
      newSpace: getHeapSpaceStatistics().find((x) => x.space_name === 'new_space')?.space_size ?? 0,
      external: m.external,
      arrayBuffers: m.arrayBuffers,
      cpu: process.cpuUsage().user + process.cpuUsage().system,
      loopP99Ms: loop.count ? loop.percentile(99) / 1e6 : 0,
      gc,
    });
    loop.reset();
    gc = { count: 0, ms: 0, maxMs: 0 };
  } else if (msg.type === 'stop') {
    await close().catch(() => {});
    await flushUsage().catch(() => {});
    await closeDatabase();
    process.exit(0); // also writes the --cpu-prof profile, when asked for
  }
});
process.on('disconnect', () => process.exit(0));
process.send!({ type: 'ready', port });
