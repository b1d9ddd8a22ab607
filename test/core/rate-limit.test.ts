import { afterAll, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { useServer } from '../helpers/server.ts';
import { RedisRateLimiter, MemoryRateLimiter } from '../../src/core/rate-limit.ts';
import { config } from '../../src/core/config.ts';

const server = useServer();

/**
 * The limiter refills from Date.now(); the server runs in this process, so freezing Date.now()
 * for the length of a burst makes the count exact (no refill while the requests are in flight).
 */
async function frozen<T>(fn: () => Promise<T>, aheadMs = 0): Promise<T> {
  const at = Date.now() + aheadMs;
  const spy = vi.spyOn(Date, 'now').mockReturnValue(at);
  try {
    return await fn();
  } finally {
    spy.mockRestore();
  }
}

function expectRateLimited(r: { status: number; headers: Headers; json: any }) {
  expect(r.status).toBe(429);
  expect(r.json).toMatchObject({ data: null, error: { code: 'RATE_LIMITED' } });
  expect(typeof r.json.error.message).toBe('string');
  expect(r.json.meta.requestId).toBe(r.headers.get('x-request-id'));
  const retry = r.headers.get('retry-after');
  expect(retry).toMatch(/^\d+$/);
  expect(Number(retry)).toBeGreaterThanOrEqual(1);
}

describe('read class over HTTP (burst 200, 100/s)', () => {
  it('lets exactly the burst through, then answers 429 RATE_LIMITED with Retry-After; other workspaces are unaffected', async () => {
    expect(config.rateLimits.read).toEqual({ perSec: 100, burst: 200 });
    const a = await server.workspace();
    const b = await server.workspace();
    const { results, other } = await frozen(async () => {
      const results = await Promise.all(Array.from({ length: 260 }, () => a.client.get('/v1/api-keys?limit=1')));
      const other = await Promise.all(Array.from({ length: 20 }, () => b.client.get('/v1/events?limit=1')));
      return { results, other };
    });
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(statuses.filter((s) => s === 200)).toHaveLength(200);
    const limited = results.filter((r) => r.status === 429);
    expect(limited).toHaveLength(60);
    for (const r of limited) {
      expectRateLimited(r);
      expect(r.headers.get('retry-after')).toBe('1'); // one token at 100/s, rounded up to whole seconds
    }
    // every success is a real page, every refusal a real envelope
    for (const r of results.filter((x) => x.status === 200)) expect(r.json.meta.page.limit).toBe(1);
    expect(other.map((r) => r.status)).toEqual(Array(20).fill(200));

    // the limited workspace recovers after Retry-After (1 s on the limiter's clock, no sleep)
    expect((await frozen(() => a.client.get('/v1/api-keys?limit=1'), 1000)).status).toBe(200);
  });

  it('without a frozen clock a 400-request burst still meets 429s and no 5xx', async () => {
    const ws = await server.workspace();
    expect((await ws.client.get('/v1/api-keys?limit=1')).status).toBe(200); // warm the key cache
    const results = await Promise.all(Array.from({ length: 400 }, () => ws.client.get('/v1/api-keys?limit=1')));
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    expect(results.every((r) => r.status === 200 || r.status === 429)).toBe(true);
    const limited = results.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(results.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(199);
    for (const r of limited) expectRateLimited(r);
  });

  it('GraphQL queries share the read bucket and answer 429 with RATE_LIMITED', async () => {
    const ws = await server.workspace();
    const results = await frozen(async () => {
      const gql = await Promise.all(
        Array.from({ length: 150 }, () => ws.client.graphql('{ apiKeys(first: 1) { limit } }')),
      );
      const rest = await Promise.all(Array.from({ length: 60 }, () => ws.client.get('/v1/api-keys?limit=1')));
      return [...gql, ...rest];
    });
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    expect(results.filter((r) => r.status === 200)).toHaveLength(200);
    const limited = results.filter((r) => r.status === 429);
    expect(limited).toHaveLength(10);
    for (const r of limited) {
      const code = r.json.errors ? r.json.errors[0].extensions.code : r.json.error.code;
      expect(code).toBe('RATE_LIMITED');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
  });

  it('mutations use their own class: an exhausted read bucket does not block writes', async () => {
    const ws = await server.workspace();
    await frozen(async () => {
      const reads = await Promise.all(Array.from({ length: 210 }, () => ws.client.get('/v1/events?limit=1')));
      expect(reads.filter((r) => r.status === 429)).toHaveLength(10);
      const write = await ws.client.patch(`/v1/workspaces/${ws.workspaceId}`, { name: 'still writable' });
      expect(write.status).toBe(200);
    });
  });
});

describe('MemoryRateLimiter', () => {
  it('is a token bucket: burst, then refill at the class rate', async () => {
    const l = new MemoryRateLimiter();
    const now = 1_000_000;
    for (let i = 0; i < 200; i++) expect(await l.take('ws_a', 'read', now)).toBe(0);
    expect(await l.take('ws_a', 'read', now)).toBe(1);
    expect(await l.take('ws_b', 'read', now)).toBe(0);
    expect(await l.take('ws_a', 'mutating_heavy', now)).toBe(0);
    // 50 ms at 100/s = 5 tokens
    for (let i = 0; i < 5; i++) expect(await l.take('ws_a', 'read', now + 50)).toBe(0);
    expect(await l.take('ws_a', 'read', now + 50)).toBeGreaterThanOrEqual(1);
  });
});

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('RedisRateLimiter (shared bucket)', () => {
  const limiters: RedisRateLimiter[] = [];
  const keys: string[] = [];
  const make = () => {
    const l = new RedisRateLimiter(redisUrl);
    limiters.push(l);
    return l;
  };
  const workspace = () => {
    const id = `ws_rltest_${randomUUID()}`;
    keys.push(...['read', 'mutating_light', 'mutating_heavy'].map((c) => `svc:rl:${id}:${c}`));
    return id;
  };
  afterAll(async () => {
    const r = new Redis(redisUrl);
    if (keys.length) await r.del(...keys);
    r.disconnect();
    await Promise.all(limiters.map((l) => l.close()));
  });

  it('two instances draw from one bucket', async () => {
    const one = make();
    const two = make();
    const ws = workspace();
    const now = Date.now();
    const waits = [];
    for (let i = 0; i < 200; i++) waits.push(await (i % 2 ? one : two).take(ws, 'read', now));
    expect(waits.every((w) => w === 0)).toBe(true);
    // the bucket is empty for both instances
    expect(await one.take(ws, 'read', now)).toBe(1);
    expect(await two.take(ws, 'read', now)).toBe(1);
    // refill is shared too: 100 ms at 100/s = 10 tokens across both
    let granted = 0;
    for (let i = 0; i < 20; i++) if ((await (i % 2 ? one : two).take(ws, 'read', now + 100)) === 0) granted++;
    expect(granted).toBe(10);
  });

  it('concurrent takes from two instances never exceed the burst', async () => {
    const one = make();
    const two = make();
    const ws = workspace();
    const now = Date.now();
    const waits = await Promise.all(
      Array.from({ length: 60 }, (_, i) => (i % 2 ? one : two).take(ws, 'mutating_heavy', now)),
    );
    expect(waits.filter((w) => w === 0)).toHaveLength(20); // mutating_heavy burst
    for (const w of waits.filter((w) => w > 0)) expect(w).toBeGreaterThanOrEqual(1);
  });

  it('reports the wait in whole seconds and keys buckets by workspace and class', async () => {
    const l = make();
    const a = workspace();
    const b = workspace();
    const now = Date.now();
    for (let i = 0; i < 20; i++) await l.take(a, 'mutating_heavy', now);
    // empty at 10/s: one token is 0.1 s away, rounded up to 1 s
    expect(await l.take(a, 'mutating_heavy', now)).toBe(1);
    expect(await l.take(a, 'read', now)).toBe(0);
    expect(await l.take(b, 'mutating_heavy', now)).toBe(0);
    // buckets expire once they would be full again
    const r = new Redis(redisUrl);
    const ttl = await r.pttl(`svc:rl:${a}:mutating_heavy`);
    r.disconnect();
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(3000);
  });
});
