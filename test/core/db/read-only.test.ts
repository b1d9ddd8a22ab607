// A failover's new primary answers for a moment as a read-only server (SQLSTATE 25006) while the
// load balancer already sends it connections. Here the test's own database is made read-only for
// new sessions (`ALTER DATABASE ... SET default_transaction_read_only`) and its sessions are
// terminated: the server's next connections can read and not write, as on that node.
import { afterAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { useServer } from '../../helpers/server.ts';
import { admin } from '../../helpers/db.ts';
import { isDatabaseUnavailable } from '../../../src/core/db/unavailable.ts';
import { onConnection } from '../../../src/core/db/client.ts';

const server = useServer({ background: 'none' });
const dbName = () => new URL(server.dbUrl).pathname.slice(1);

async function readOnly(on: boolean) {
  await admin(async (c) => {
    await c.query(
      on
        ? `ALTER DATABASE ${dbName()} SET default_transaction_read_only = on`
        : `ALTER DATABASE ${dbName()} RESET default_transaction_read_only`,
    );
    if (on) await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [dbName()]);
  });
}
afterAll(() => readOnly(false));

const session = () => ({
  amount: 100000,
  currency: 'IDR',
  methods: ['card'],
  successUrl: 'https://shop.example/thanks',
  cancelUrl: 'https://shop.example/cart',
});

describe('a read-only server (25006) is the database unavailable, not a fault', () => {
  it('isDatabaseUnavailable recognises 25006 from the real server', async () => {
    const c = new pg.Client({ connectionString: server.dbUrl });
    await c.connect();
    try {
      await c.query('SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY');
      const e = await c.query('CREATE TABLE read_only_probe (id int)').then(
        () => null,
        (err: unknown) => err,
      );
      expect((e as { code?: string }).code).toBe('25006');
      expect(isDatabaseUnavailable(e)).toBe(true);
    } finally {
      await c.end();
    }
  });

  it('a pooled connection that answered 25006 is closed on release, not handed out again', async () => {
    const pid = await onConnection(async (client) => {
      await client.query('SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY');
      return (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    });
    const failed = await onConnection(async (client) => {
      expect((await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid).toBe(pid);
      await client.query('CREATE TEMP SEQUENCE read_only_probe');
      return client.query(`SELECT nextval('read_only_probe')`);
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect((failed as { code?: string }).code).toBe('25006');
    const next = await onConnection(
      async (client) => (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid,
    );
    expect(next).not.toBe(pid);
  });

  it('creates answer 503 service_unavailable with Retry-After while it lasts, and 201 right after', async () => {
    const ws = await server.workspace();
    // Authentication is answered from the key cache; past it, the lookup reads (reads still work).
    await readOnly(true);
    const rest = await ws.client.post('/v1/checkout-sessions', session(), { 'idempotency-key': randomUUID() });
    expect(rest.status, rest.text).toBe(503);
    expect(rest.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(rest.json.error.code).toBe('service_unavailable');
    const noKey = await ws.client.post('/v1/customers', { email: 'ro@example.com' });
    expect(noKey.status, noKey.text).toBe(503);
    expect(noKey.json.error.code).toBe('service_unavailable');
    const gql = await ws.client.graphql(
      'mutation { createCustomer(input: { email: "ro@example.com" }) { id } }',
      {},
      { 'idempotency-key': randomUUID() },
    );
    expect(gql.text).not.toMatch(/internal_error/);
    expect(gql.text).toMatch(/service_unavailable/);

    // The node is writable again: the connections that saw 25006 are gone, so the next create works.
    await readOnly(false);
    const again = await ws.client.post('/v1/checkout-sessions', session(), { 'idempotency-key': randomUUID() });
    expect(again.status, again.text).toBe(201);
    const customer = await ws.client.post('/v1/customers', { email: 'ro@example.com' });
    expect(customer.status, customer.text).toBe(201);
  });
});
