/**
 * Nothing a caller sends before it is authenticated grows memory without bound.
 * Shapes are validated first, every cache is a BoundedCache, WebSocket frames are capped.
 */
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createClient as createWsClient } from 'graphql-ws';
import { useServer, untilPublished } from '../helpers/server.ts';
import { collect } from '../helpers/subscription.ts';
import { BoundedCache } from '../../src/core/bounded-cache.ts';
import { authenticate, keyCacheSize } from '../../src/core/auth/authenticate.ts';
import { signRequest } from '../../src/core/auth/signing.ts';
import { MemoryRateLimiter } from '../../src/core/rate-limit.ts';
import { config } from '../../src/core/config.ts';
import { newId } from '../../src/core/ids.ts';

const server = useServer();

const signedAs = (keyId: string) => {
  const h = signRequest({ keyId, secret: 'sk_test_x', method: 'GET', target: '/v1/api-keys' });
  return {
    method: 'GET',
    target: '/v1/api-keys',
    body: Buffer.alloc(0),
    authorization: h.authorization,
    timestamp: h['x-svc-timestamp'],
  };
};

describe('BoundedCache', () => {
  it('keeps at most its size, dropping the least recently used', () => {
    const c = new BoundedCache<string, number>(3);
    c.set('a', 1).set('b', 2).set('c', 3);
    expect(c.get('a')).toBe(1); // a is now the most recent
    c.set('d', 4);
    expect(c.size).toBe(3);
    expect(c.get('b')).toBeUndefined();
    expect([c.get('a'), c.get('c'), c.get('d')]).toEqual([1, 3, 4]);
    for (let i = 0; i < 100_000; i++) c.set(`k${i}`, i);
    expect(c.size).toBe(3);
  });
});

describe('the key cache before authentication', () => {
  it('100k malformed key ids never reach the cache (or the database)', async () => {
    const before = keyCacheSize();
    // Outcomes tallied by code, one assertion at the end: 100k `expect().rejects` calls cost more
    // than the code under test and made this case's time depend on the machine's load.
    const outcomes = new Map<string, number>();
    for (let i = 0; i < 100_000; i++) {
      const code = await authenticate(signedAs(`pk_test_${i}x`)).then(
        () => 'authenticated',
        (e: { extensions?: { code?: string } }) => e.extensions?.code ?? String(e),
      );
      outcomes.set(code, (outcomes.get(code) ?? 0) + 1);
    }
    expect(Object.fromEntries(outcomes)).toEqual({ invalid_key: 100_000 });
    expect(keyCacheSize()).toBe(before);
  }, 120_000);

  it('distinct well-formed unknown key ids leave the cache at its cap (10,000)', async () => {
    const ids = Array.from({ length: 10_500 }, (_, i) => `pk_test_${i.toString(16).padStart(12, '0')}`);
    for (let i = 0; i < ids.length; i += 50) {
      await Promise.all(
        ids
          .slice(i, i + 50)
          .map((id) =>
            expect(authenticate(signedAs(id))).rejects.toMatchObject({ extensions: { code: 'invalid_key' } }),
          ),
      );
    }
    expect(keyCacheSize()).toBe(10_000);
  }, 120_000);

  it('a real key still authenticates', async () => {
    const ws = await server.workspace();
    expect((await ws.client.get('/v1/api-keys')).status).toBe(200);
  });
});

describe('the in-memory rate limiter', () => {
  it('keeps at most SVC_RATE_BUCKETS buckets', async () => {
    const saved = config.rateLimitBuckets;
    config.rateLimitBuckets = 1000;
    try {
      const limiter = new MemoryRateLimiter();
      for (let i = 0; i < 50_000; i++)
        await limiter.take(`hosted-ip:10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, 'hosted', Date.now());
      expect(limiter.size).toBe(1000);
    } finally {
      config.rateLimitBuckets = saved;
    }
  });

  it('hosted requests for attacker-chosen ids create no bucket per id', async () => {
    const size = () => (server.app.limiter as MemoryRateLimiter).size;
    await fetch(`${server.url}/c/x/status`); // this address's bucket
    const before = size();
    expect(before).toBeGreaterThan(0);
    for (let i = 0; i < 30; i++) await fetch(`${server.url}/c/${newId('checkoutSession')}/status`);
    for (let i = 0; i < 30; i++) await fetch(`${server.url}/c/${'z'.repeat(i + 1)}/cancel`, { method: 'POST' });
    expect(size()).toBe(before);
  });
});

describe('WebSocket frames are capped at 64 KiB', () => {
  const wsUrl = () => `${server.url.replace(/^http/, 'ws')}/graphql`;

  it('a 1 MiB frame before connection_init closes the socket with 1009', async () => {
    const socket = new WebSocket(wsUrl(), 'graphql-transport-ws');
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    socket.send(JSON.stringify({ type: 'connection_init', payload: { pad: 'x'.repeat(1024 * 1024) } }));
    expect(await closed).toBe(1009);
  });

  it('a frame just over the cap closes too; a normal subscription still works', async () => {
    const big = new WebSocket(wsUrl(), 'graphql-transport-ws');
    await new Promise((resolve, reject) => big.once('open', resolve).once('error', reject));
    const closed = new Promise<number>((resolve) => big.once('close', (code) => resolve(code)));
    big.send('x'.repeat(64 * 1024 + 1));
    expect(await closed).toBe(1009);

    const ws = await server.workspace();
    await untilPublished();
    const client = createWsClient({
      url: wsUrl(),
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: () => {
        const h = signRequest({ keyId: ws.keyId, secret: ws.secret, method: 'GET', target: '/graphql', body: '' });
        return { authorization: h.authorization, timestamp: h['x-svc-timestamp'] };
      },
    });
    try {
      const sub = collect<{ type: string }>(client, 'subscription { events { id type workspaceId } }', 'events');
      let n = 0;
      await sub.until(
        () => sub.received.length > 0,
        () => ws.client.patch(`/v1/workspaces/${ws.workspaceId}`, { name: `Bounded ${n++}` }),
      );
      expect(sub.received[0].type).toBe('workspace.updated');
      sub.dispose();
    } finally {
      await client.dispose();
    }
  });
});
