import type { Redis } from 'ioredis';
import { config, type RateClass } from './config.ts';
import { DomainError } from './errors.ts';
import { BoundedCache } from './bounded-cache.ts';

/** Token bucket per workspace (or hosted client address) and class (spec Numbers). */
export interface RateLimiter {
  /** Takes `tokens` (default 1) or none: seconds to wait when the bucket holds fewer, else 0. */
  take(workspaceId: string, cls: RateClass, nowMs: number, tokens?: number): Promise<number>;
  close(): Promise<void>;
}

function refill(tokens: number, lastMs: number, nowMs: number, cls: RateClass) {
  const { perSec, burst } = config.rateLimits[cls];
  // A clock that stepped back (NTP, another instance) refills nothing rather than draining the bucket.
  return Math.min(burst, tokens + (Math.max(0, nowMs - lastMs) / 1000) * perSec);
}

export class MemoryRateLimiter implements RateLimiter {
  // Bounded: dropping the least recently used bucket refills it, which only matters to a caller
  // that is idle while rateLimitBuckets other keys are busy.
  private buckets = new BoundedCache<string, { tokens: number; at: number }>(config.rateLimitBuckets);
  get size() {
    return this.buckets.size;
  }
  async take(workspaceId: string, cls: RateClass, nowMs: number, tokens = 1) {
    const k = `${workspaceId}:${cls}`;
    const b = this.buckets.get(k) ?? { tokens: config.rateLimits[cls].burst, at: nowMs };
    b.tokens = refill(b.tokens, b.at, nowMs, cls);
    b.at = nowMs;
    this.buckets.set(k, b);
    if (b.tokens >= tokens) {
      b.tokens -= tokens;
      return 0;
    }
    return Math.max(1, Math.ceil((tokens - b.tokens) / config.rateLimits[cls].perSec));
  }
  async close() {}
}

// One atomic round trip: refill, take, and report the wait; shared by every instance.
const LUA = `
local b = redis.call('HMGET', KEYS[1], 't', 'a')
local burst, rate, now, n = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local tokens = tonumber(b[1]) or burst
local at = tonumber(b[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) / 1000 * rate)
local wait = 0
if tokens >= n then tokens = tokens - n else wait = math.max(1, math.ceil((n - tokens) / rate)) end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'a', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return wait`;

export class RedisRateLimiter implements RateLimiter {
  // ioredis loads only where a Redis URL is configured, not in every process at boot.
  private redis: Promise<Redis>;
  constructor(url: string) {
    this.redis = import('ioredis').then(({ Redis }) => new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2 }));
  }
  async take(workspaceId: string, cls: RateClass, nowMs: number, tokens = 1) {
    const { perSec, burst } = config.rateLimits[cls];
    const redis = await this.redis;
    return Number(await redis.eval(LUA, 1, `svc:rl:${workspaceId}:${cls}`, burst, perSec, nowMs, tokens));
  }
  async close() {
    (await this.redis).disconnect();
  }
}

export function createRateLimiter(): RateLimiter {
  return config.redisUrl ? new RedisRateLimiter(config.redisUrl) : new MemoryRateLimiter();
}

export async function enforceRate(limiter: RateLimiter, workspaceId: string, cls: RateClass, tokens = 1) {
  if (config.rateLimitDisabled || tokens <= 0) return;
  const wait = await limiter.take(workspaceId, cls, Date.now(), tokens);
  if (wait > 0)
    throw new DomainError('rate_limited', `Rate limit for ${cls} requests exceeded`, {
      headers: { 'retry-after': String(wait) },
    });
}
