// A create whose COMMIT reached the server but whose answer was lost (the connection died: a
// failover) has an unknown outcome. Its idempotency claim must survive the failure: the retry with
// the same key waits for the lease (409, in flight), then takes the claim over and finds
// the object the first run committed. Releasing the claim would let the retry create it twice.
// The server reaches PostgreSQL through a proxy that cuts the connection right after a COMMIT.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useServer, db } from '../helpers/server.ts';
import { pgProxy } from '../helpers/pg-proxy.ts';
import { clock } from '../../src/core/clock.ts';
import { config } from '../../src/core/config.ts';

let proxy: Awaited<ReturnType<typeof pgProxy>>;
const server = useServer({
  background: 'none',
  connectThrough: async (url) => {
    proxy = await pgProxy(url);
    return proxy.url(url);
  },
});
afterAll(() => proxy?.close());
afterEach(() => clock.reset());

const sessions = async (workspaceId: string) =>
  (await db().system.query(`SELECT id FROM checkout_sessions WHERE "workspaceId" = $1`, [workspaceId])).rows.map(
    (r) => r.id as string,
  );

const body = {
  amount: 100000,
  currency: 'IDR',
  methods: ['card'],
  successUrl: 'https://shop.example/thanks',
  cancelUrl: 'https://shop.example/cart',
};

describe('an idempotent create whose commit outcome was lost', () => {
  it('REST: the retry with the same key waits for the lease, then answers the one object the first run made', async () => {
    const ws = await server.workspace();
    const key = { 'idempotency-key': randomUUID() };
    const cut = proxy.cutNextCommit();
    const first = await ws.client.post('/v1/checkout-sessions', body, key);
    await cut;
    expect(first.status, first.text).toBe(503);
    expect(first.json.error.code).toBe('service_unavailable');
    // The COMMIT went through: the object exists although its creator never heard so.
    const made = await sessions(ws.workspaceId);
    expect(made).toHaveLength(1);

    // At once: the claim is still held (the first run's outcome is unknown), not released.
    const early = await ws.client.post('/v1/checkout-sessions', body, key);
    expect(early.status, early.text).toBe(409);
    expect(early.json.error.message).toMatch(/still in flight/);
    expect(await sessions(ws.workspaceId)).toEqual(made);

    // After the lease: the same request takes the claim over and finds what the first run committed.
    clock.advance(config.idempotencyLeaseSec * 1000 + 1000);
    const retry = await ws.client.post('/v1/checkout-sessions', body, key);
    expect(retry.status, retry.text).toBe(201);
    expect(retry.json.data.id).toBe(made[0]);
    const replay = await ws.client.post('/v1/checkout-sessions', body, key);
    expect(replay.status, replay.text).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await sessions(ws.workspaceId)).toEqual(made);
  });

  it('GraphQL: the same, for a mutation answered 200 with a service_unavailable error', async () => {
    const ws = await server.workspace();
    const key = { 'idempotency-key': randomUUID() };
    const mutation = `mutation {
      createCheckoutSession(input: { amount: 100000, currency: "IDR", methods: ["card"],
        successUrl: "https://shop.example/thanks", cancelUrl: "https://shop.example/cart" }) { id }
    }`;
    const cut = proxy.cutNextCommit();
    const first = await ws.client.graphql(mutation, {}, key);
    await cut;
    expect(first.text).toMatch(/service_unavailable/);
    const made = await sessions(ws.workspaceId);
    expect(made).toHaveLength(1);

    const early = await ws.client.graphql(mutation, {}, key);
    expect(early.text).toMatch(/still in flight/);
    expect(await sessions(ws.workspaceId)).toEqual(made);

    clock.advance(config.idempotencyLeaseSec * 1000 + 1000);
    const retry = await ws.client.graphql(mutation, {}, key);
    expect(retry.status, retry.text).toBe(200);
    expect(retry.json.data.createCheckoutSession.id).toBe(made[0]);
    expect(await sessions(ws.workspaceId)).toEqual(made);
  });
});
