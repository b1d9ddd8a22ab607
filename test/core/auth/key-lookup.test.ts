// The API key lookup behind the 2 s cache (src/core/auth/authenticate.ts): requests that miss
// together share one read, and a read that a revocation on this instance overtook is not cached.
import { afterEach, expect, it, vi } from 'vitest';
import { db, useServer } from '../../helpers/server.ts';
import { forgetKey } from '../../../src/core/auth/authenticate.ts';

const server = useServer();
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
const isKeyRead = (text: unknown) => typeof text === 'string' && text.includes('FROM api_keys k JOIN workspaces');

/** Counts the key reads; while `gate` is set, each one waits for it before going to the database. */
function watchKeyReads() {
  const pool = db().system;
  const original = pool.query.bind(pool);
  const seen = { reads: 0, gate: null as Promise<void> | null, reached: deferred() };
  vi.spyOn(pool, 'query').mockImplementation((async (text: unknown, values?: unknown[]) => {
    if (isKeyRead(text)) {
      seen.reads++;
      seen.reached.resolve();
      if (seen.gate) await seen.gate;
    }
    return original(text as string, values);
  }) as never);
  return seen;
}

afterEach(() => {
  vi.restoreAllMocks();
});

it('twenty requests that miss the cache together read the key once', async () => {
  const ws = await server.workspace();
  forgetKey(ws.keyId);
  const seen = watchKeyReads();
  const answers = await Promise.all(Array.from({ length: 20 }, () => ws.client.get('/v1/api-keys')));
  expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
  expect(seen.reads).toBe(1);
});

it('a read overtaken by a revocation on this instance is not cached: the next request reads again', async () => {
  const ws = await server.workspace();
  forgetKey(ws.keyId);
  const seen = watchKeyReads();
  const release = deferred();
  seen.gate = release.promise;
  const first = ws.client.get('/v1/api-keys');
  await seen.reached.promise;
  forgetKey(ws.keyId); // what a revocation through this instance does
  seen.gate = null;
  release.resolve();
  expect((await first).status).toBe(200); // sent before the revocation
  expect(seen.reads).toBe(1);
  expect((await ws.client.get('/v1/api-keys')).status).toBe(200);
  expect(seen.reads).toBe(2);
});
