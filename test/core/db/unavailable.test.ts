import { unthrottled } from '../../helpers/payments.ts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { useServer, db, exhaustPools } from '../../helpers/server.ts';
import { config } from '../../../src/core/config.ts';
import { logger } from '../../../src/core/logger.ts';
import { isDatabaseUnavailable, warnUnavailable } from '../../../src/core/db/unavailable.ts';
import { onConnection } from '../../../src/core/db/client.ts';
import { admin } from '../../helpers/db.ts';

// Set before the server opens its pools (beforeAll): a short acquire timeout keeps the test quick.
config.dbAcquireTimeoutMs = 400;
const server = useServer({ background: 'none' });

describe('database unavailable: 503 service_unavailable with Retry-After, never a hang', () => {
  let release: (() => void) | undefined;
  afterEach(() => {
    release?.();
    release = undefined;
  });

  it('REST, GraphQL, a hosted page and /readyz answer 503 (/healthz 200) within the acquire timeout while every connection is busy', async () => {
    const ws = await server.workspace();
    const created = await ws.client.post(
      '/v1/checkout-sessions',
      {
        amount: 100000,
        currency: 'IDR',
        methods: ['card'],
        successUrl: 'https://shop.example/thanks',
        cancelUrl: 'https://shop.example/cart',
      },
      { 'idempotency-key': randomUUID() },
    );
    expect(created.status, created.text).toBe(201);
    const hostedPath = new URL(created.json.data.hostedUrl).pathname;
    // The key cache would answer authentication from memory: wait until it must ask the database.
    await new Promise((r) => setTimeout(r, config.keyCacheMs + 100));
    release = await exhaustPools();

    const started = Date.now();
    const [rest, gql, page, ready, live] = await Promise.all([
      ws.client.get('/v1/checkout-sessions?limit=1'),
      ws.client.graphql('{ checkoutSessions(first: 1) { edges { node { id } } } }'),
      fetch(`${server.url}${hostedPath}`, { headers: { accept: 'text/html' } }),
      fetch(`${server.url}/readyz`),
      fetch(`${server.url}/healthz`),
    ]);
    const elapsed = Date.now() - started;
    expect(elapsed).toBeLessThan(config.dbAcquireTimeoutMs * 2 + 1000);

    expect(rest.status, rest.text).toBe(503);
    expect(rest.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(rest.json.error.code).toBe('service_unavailable');
    expect(rest.json.data).toBeNull();
    expect(rest.json.meta.requestId).toMatch(/^req/);

    expect(gql.status, gql.text).toBe(503);
    expect(gql.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(gql.json.errors?.[0].extensions.code).toBe('service_unavailable');

    expect(page.status).toBe(503);
    expect(page.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);

    // Readiness fails (a load balancer drains the instance); liveness holds (nothing to restart).
    expect(ready.status).toBe(503);
    expect(ready.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await ready.json()).error.code).toBe('service_unavailable');
    expect(live.status).toBe(200);

    // And the next request, once connections are free again, is served.
    release();
    release = undefined;
    const again = await ws.client.get('/v1/checkout-sessions?limit=1');
    expect(again.status, again.text).toBe(200);
  });
});

describe('a connection lost while checked out', () => {
  it('fails the unit of work that held it, kills nothing, and the next unit gets a fresh connection', async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown) => uncaught.push(e);
    process.on('uncaughtException', onUncaught);
    try {
      const failed = await onConnection(async (client) => {
        const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        // Between two statements, as a request holds it: the server drops the connection.
        await admin((c) => c.query('SELECT pg_terminate_backend($1)', [rows[0].pid]));
        await new Promise((r) => setTimeout(r, 200));
        return client.query('SELECT 1');
      }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isDatabaseUnavailable(failed), String(failed)).toBe(true);
      const again = await onConnection((client) => client.query<{ one: number }>('SELECT 1 AS one'));
      expect(again.rows).toEqual([{ one: 1 }]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
    expect(uncaught).toEqual([]);
  });

  it('terminating every backend of the server under requests: each answer is 200 or 503, and the API answers again at once', async () => {
    const ws = await server.workspace();
    const statuses: number[] = [];
    let stop = false;
    // Four loops as fast as the server answers: on an idle machine they outrun one key's read limit,
    // and a 429 is not what this test is about (the limits are tested in test/core/rate-limit.test.ts).
    const load = unthrottled(() =>
      Promise.all(
        Array.from({ length: 4 }, async () => {
          while (!stop) {
            const r = await ws.client.get('/v1/checkout-sessions?limit=1');
            statuses.push(r.status);
          }
        }),
      ),
    );
    const dbName = new URL(server.dbUrl).pathname.slice(1);
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setTimeout(r, 150));
      await admin((c) =>
        c.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [dbName],
        ),
      );
    }
    await new Promise((r) => setTimeout(r, 150));
    stop = true;
    await load;
    expect(statuses.length).toBeGreaterThan(4);
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    const started = Date.now();
    const after = await ws.client.get('/v1/checkout-sessions?limit=1');
    expect(after.status, after.text).toBe(200);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('isDatabaseUnavailable', () => {
  it('recognises what node-postgres and Prisma raise when the server is gone, and nothing else', async () => {
    // Nothing listens on port 1.
    const refused = new pg.Client({ connectionString: 'postgresql://x@127.0.0.1:1/x', connectionTimeoutMillis: 1000 });
    const connectError = await refused.connect().then(
      () => null,
      (e: unknown) => e,
    );
    expect(isDatabaseUnavailable(connectError)).toBe(true);

    // A backend terminated while its client holds it: 57P01 on the running query.
    const held = await db().system.connect();
    try {
      const pid = (await held.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      const sleeping = held.query('SELECT pg_sleep(5)').then(
        () => null,
        (e: unknown) => e,
      );
      await new Promise((r) => setTimeout(r, 100));
      const killer = await db().system.connect();
      await killer.query('SELECT pg_terminate_backend($1)', [pid]);
      killer.release();
      const terminated = await sleeping;
      expect(isDatabaseUnavailable(terminated)).toBe(true);
      held.release(terminated as Error);
    } catch (e) {
      held.release(true);
      throw e;
    }

    // Prisma over a pool that cannot connect wraps the driver's error.
    const { PrismaClient } = await import('../../../src/generated/prisma/client.ts');
    const { PrismaPg } = await import('@prisma/adapter-pg');
    const deadPool = new pg.Pool({ connectionString: 'postgresql://x@127.0.0.1:1/x', connectionTimeoutMillis: 500 });
    const prisma = new PrismaClient({ adapter: new PrismaPg(deadPool) });
    const prismaError = await prisma.$queryRawUnsafe('SELECT 1').then(
      () => null,
      (e: unknown) => e,
    );
    await prisma.$disconnect().catch(() => {});
    await deadPool.end().catch(() => {});
    expect(isDatabaseUnavailable(prismaError)).toBe(true);

    // pg-boss's LISTEN connection closing without an error, missing its heartbeat or its LISTEN (pg-boss/dist/db.js).
    expect(isDatabaseUnavailable(new Error('LISTEN/NOTIFY connection ended'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('LISTEN/NOTIFY heartbeat timed out'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('LISTEN/NOTIFY channel registration was lost'))).toBe(true);

    // A statement's own failure is not an outage.
    const syntax = await db()
      .system.query('SELEC 1')
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(isDatabaseUnavailable(syntax)).toBe(false);
    const unique = await db()
      .system.query(`SELECT 1/0`)
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(isDatabaseUnavailable(unique)).toBe(false);
    expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
  });

  it('warns once per component per interval while the database is away', () => {
    const warn = vi.spyOn(logger, 'warn');
    try {
      const outage = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      for (let i = 0; i < 50; i++) warnUnavailable('test-component', outage);
      warnUnavailable('other-component', outage);
      const lines = warn.mock.calls.filter((c) => c[1] === 'database unavailable');
      expect(lines.map((c) => (c[0] as { component: string }).component)).toEqual([
        'test-component',
        'other-component',
      ]);
    } finally {
      warn.mockRestore();
    }
  });
});
