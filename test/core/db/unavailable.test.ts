import { afterEach, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { useServer, db } from '../../helpers/server.ts';
import { config } from '../../../src/core/config.ts';
import { logger } from '../../../src/core/logger.ts';
import { isDatabaseUnavailable, warnUnavailable } from '../../../src/core/db/unavailable.ts';

// Set before the server opens its pools (beforeAll): a short acquire timeout keeps the test quick.
config.dbAcquireTimeoutMs = 400;
const server = useServer({ background: 'none' });

/** Checks out every connection of both pools and keeps them: the state a stuck walker left the server in (issue 23). */
async function exhaustPools() {
  const held: pg.PoolClient[] = [];
  for (const pool of [db().app, db().system])
    for (let i = 0; i < (pool.options.max ?? 10); i++) held.push(await pool.connect());
  return () => {
    for (const c of held) c.release();
  };
}

describe('database unavailable: 503 service_unavailable with Retry-After, never a hang', () => {
  let release: (() => void) | undefined;
  afterEach(() => {
    release?.();
    release = undefined;
  });

  it('REST, GraphQL, a hosted page and /healthz answer 503 within the acquire timeout while every connection is busy', async () => {
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
    const [rest, gql, page, health] = await Promise.all([
      ws.client.get('/v1/checkout-sessions?limit=1'),
      ws.client.graphql('{ checkoutSessions(first: 1) { edges { node { id } } } }'),
      fetch(`${server.url}${hostedPath}`, { headers: { accept: 'text/html' } }),
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

    expect(health.status).toBe(503);
    expect(health.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await health.json()).error.code).toBe('service_unavailable');

    // And the next request, once connections are free again, is served.
    release();
    release = undefined;
    const again = await ws.client.get('/v1/checkout-sessions?limit=1');
    expect(again.status, again.text).toBe(200);
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
