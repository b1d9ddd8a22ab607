import { describe, expect, it } from 'vitest';
import { createHash, createHmac } from 'node:crypto';
import { useServer, createClient, db } from '../../helpers/server.ts';
import { signRequest } from '../../../src/client/index.ts';

const server = useServer();

/** A raw request with whatever headers the test chooses: nothing signed behind its back. */
async function raw(method: string, target: string, headers: Record<string, string>, body?: string) {
  const res = await fetch(server.url + target, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : null };
}

const nowSec = () => Math.floor(Date.now() / 1000);

/**
 * Runs `fn` until it starts and finishes inside one wall-clock second, so the server's idea of
 * "now" (same process clock) is exactly the second the test signed against.
 */
async function inOneSecond<T>(fn: (now: number) => Promise<T>): Promise<T> {
  for (let i = 0; i < 10; i++) {
    const before = nowSec();
    const out = await fn(before);
    if (nowSec() === before) return out;
  }
  throw new Error('could not fit a request inside one second');
}

function expectErrorEnvelope(res: { status: number; headers: Headers; json: any }, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.json).toEqual({
    data: null,
    error: { code, message: expect.any(String) },
    meta: { requestId: expect.stringMatching(/^req_[0-9A-HJKMNP-TV-Z]{26}$/), timestamp: expect.any(String) },
  });
  expect(res.json.error.message.length).toBeGreaterThan(0);
  expect(new Date(res.json.meta.timestamp).toISOString()).toBe(res.json.meta.timestamp);
  expect(res.headers.get('x-request-id')).toBe(res.json.meta.requestId);
}

/**
 * Polls with a revoked key until it is refused: it must work until then, and the refusal must come
 * for a request sent within 5 s of the revocation (spec: effective within a few seconds). Timed at
 * the send, not at the answer: a request's time in a loaded machine's queues is not the key cache's.
 */
async function expectRejectedWithin5s(victim: ReturnType<typeof createClient>, revokedAt: number) {
  let last: Awaited<ReturnType<typeof victim.get>>;
  let sentAt: number;
  do {
    sentAt = Date.now();
    last = await victim.get('/v1/api-keys');
    if (last.status === 401) break;
    expect(last.status).toBe(200);
    await new Promise((r) => setTimeout(r, 100));
  } while (sentAt - revokedAt < 5000);
  expectErrorEnvelope(last, 401, 'invalid_key');
  expect(sentAt - revokedAt).toBeLessThan(5000);
}

describe('missing and malformed credentials', () => {
  it('rejects a request without an Authorization header with 401 invalid_signature', async () => {
    const res = await raw('GET', '/v1/api-keys', { 'x-svc-timestamp': String(nowSec()) });
    expectErrorEnvelope(res, 401, 'invalid_signature');
  });

  it('rejects a request with no headers at all', async () => {
    const res = await raw('GET', '/v1/api-keys', {});
    expectErrorEnvelope(res, 401, 'invalid_signature');
  });

  it.each([
    ['another scheme', (k: string, s: string) => `Bearer ${s}`],
    ['no parameters', () => 'Svc-HMAC-SHA256'],
    ['missing signature', (k: string) => `Svc-HMAC-SHA256 keyId=${k}, scope=*`],
    ['missing keyId', (_k: string, s: string) => `Svc-HMAC-SHA256 scope=*, signature=${s}`],
    ['signature not hex', (k: string) => `Svc-HMAC-SHA256 keyId=${k}, scope=*, signature=${'z'.repeat(64)}`],
    [
      'signature too short',
      (k: string, s: string) => `Svc-HMAC-SHA256 keyId=${k}, scope=*, signature=${s.slice(0, 63)}`,
    ],
    ['parameter without =', (k: string, s: string) => `Svc-HMAC-SHA256 keyId=${k}, scope, signature=${s}`],
  ])('rejects a malformed Authorization header (%s) with 401 invalid_signature', async (_name, build) => {
    const ws = await server.workspace();
    const signed = signRequest({ keyId: ws.keyId, secret: ws.secret, method: 'GET', target: '/v1/api-keys' });
    const sig = /signature=([0-9a-f]{64})/.exec(signed.authorization)![1];
    const res = await raw('GET', '/v1/api-keys', {
      authorization: build(ws.keyId, sig),
      'x-svc-timestamp': signed['x-svc-timestamp'],
    });
    expectErrorEnvelope(res, 401, 'invalid_signature');
  });

  it('accepts the Authorization parameters in any order', async () => {
    const ws = await server.workspace();
    const signed = signRequest({ keyId: ws.keyId, secret: ws.secret, method: 'GET', target: '/v1/api-keys' });
    const sig = /signature=([0-9a-f]{64})/.exec(signed.authorization)![1];
    const res = await raw('GET', '/v1/api-keys', {
      authorization: `Svc-HMAC-SHA256 signature=${sig}, keyId=${ws.keyId}, scope=*`,
      'x-svc-timestamp': signed['x-svc-timestamp'],
    });
    expect(res.status).toBe(200);
  });

  it('rejects a missing X-Svc-Timestamp with 401 invalid_signature', async () => {
    const ws = await server.workspace();
    const signed = signRequest({ keyId: ws.keyId, secret: ws.secret, method: 'GET', target: '/v1/api-keys' });
    const res = await raw('GET', '/v1/api-keys', { authorization: signed.authorization });
    expectErrorEnvelope(res, 401, 'invalid_signature');
  });

  it.each(['abc', '', '12.5', '-5', '1e9', ' '])(
    'rejects a non-numeric X-Svc-Timestamp %j with 401 invalid_signature',
    async (ts) => {
      const ws = await server.workspace();
      const signed = signRequest({ keyId: ws.keyId, secret: ws.secret, method: 'GET', target: '/v1/api-keys' });
      const res = await raw('GET', '/v1/api-keys', { authorization: signed.authorization, 'x-svc-timestamp': ts });
      expectErrorEnvelope(res, 401, 'invalid_signature');
    },
  );
});

describe('bad signatures', () => {
  it('rejects a signature made with the wrong secret', async () => {
    const ws = await server.workspace();
    const other = await server.workspace();
    const wrong = createClient({ baseUrl: server.url, keyId: ws.keyId, secret: other.secret });
    expectErrorEnvelope(await wrong.get('/v1/api-keys'), 401, 'invalid_signature');
    // An almost-right secret is just as wrong.
    const flipped = ws.secret.slice(0, -1) + (ws.secret.endsWith('0') ? '1' : '0');
    expectErrorEnvelope(
      await createClient({ baseUrl: server.url, keyId: ws.keyId, secret: flipped }).get('/v1/api-keys'),
      401,
      'invalid_signature',
    );
  });

  it('rejects a body tampered with after signing', async () => {
    const ws = await server.workspace();
    const body = JSON.stringify({ name: 'signed name' });
    const signed = signRequest({ keyId: ws.keyId, secret: ws.secret, method: 'POST', target: '/v1/api-keys', body });
    const tampered = await raw('POST', '/v1/api-keys', signed, JSON.stringify({ name: 'other name' }));
    expectErrorEnvelope(tampered, 401, 'invalid_signature');
    // One extra byte of whitespace is tampering too.
    expectErrorEnvelope(await raw('POST', '/v1/api-keys', signed, `${body} `), 401, 'invalid_signature');
    // Nothing was created by the rejected requests; the untouched body goes through.
    const ok = await raw('POST', '/v1/api-keys', signed, body);
    expect(ok.status).toBe(201);
    const list = await ws.client.get('/v1/api-keys');
    expect(list.json.data.map((k: { name: string }) => k.name).sort()).toEqual(['bootstrap', 'signed name']);
  });

  it('rejects a body sent when the signature covered an empty body', async () => {
    const ws = await server.workspace();
    const signed = signRequest({ keyId: ws.keyId, secret: ws.secret, method: 'POST', target: '/v1/api-keys' });
    expectErrorEnvelope(
      await raw('POST', '/v1/api-keys', signed, JSON.stringify({ name: 'x' })),
      401,
      'invalid_signature',
    );
  });

  it('rejects a signature replayed on a different path, query string or method', async () => {
    const ws = await server.workspace();
    const signed = signRequest({ keyId: ws.keyId, secret: ws.secret, method: 'GET', target: '/v1/api-keys?limit=5' });
    expect((await raw('GET', '/v1/api-keys?limit=5', signed)).status).toBe(200);
    expectErrorEnvelope(await raw('GET', '/v1/api-keys?limit=6', signed), 401, 'invalid_signature');
    expectErrorEnvelope(await raw('GET', '/v1/api-keys', signed), 401, 'invalid_signature');
    expectErrorEnvelope(await raw('GET', '/v1/api-keys?limit=5&includeRevoked=true', signed), 401, 'invalid_signature');
    expectErrorEnvelope(await raw('GET', '/v1/events?limit=5', signed), 401, 'invalid_signature');
    expectErrorEnvelope(await raw('GET', `/v1/api-keys/${ws.apiKeyId}?limit=5`, signed), 401, 'invalid_signature');
  });

  it('rejects a signature replayed with a different method', async () => {
    const ws = await server.workspace();
    const other = await ws.client.post('/v1/api-keys', { name: 'other' });
    const target = `/v1/api-keys/${other.json.data.id}`;
    const signed = signRequest({ keyId: ws.keyId, secret: ws.secret, method: 'GET', target });
    expectErrorEnvelope(await raw('DELETE', target, signed), 401, 'invalid_signature');
    // Still active: the rejected DELETE did nothing.
    expect((await ws.client.get(target)).json.data.revokedAt).toBeNull();
  });

  it('rejects a timestamp header that differs from the signed one', async () => {
    const ws = await server.workspace();
    const signed = signRequest({ keyId: ws.keyId, secret: ws.secret, method: 'GET', target: '/v1/api-keys' });
    const res = await raw('GET', '/v1/api-keys', {
      ...signed,
      'x-svc-timestamp': String(Number(signed['x-svc-timestamp']) - 1),
    });
    expectErrorEnvelope(res, 401, 'invalid_signature');
  });

  it('does not sign the on-behalf-of header (a merchant key sending it still verifies)', async () => {
    const ws = await server.workspace();
    const signed = signRequest({ keyId: ws.keyId, secret: ws.secret, method: 'GET', target: '/v1/api-keys' });
    const res = await raw('GET', '/v1/api-keys', { ...signed, 'x-svc-on-behalf-of': 'acc_01HZZZZZZZZZZZZZZZZZZZZZZZ' });
    expect(res.status).toBe(200);
  });
});

describe('timestamp tolerance', () => {
  const at = async (offset: number) => {
    const ws = await server.workspace();
    return inOneSecond(async (now) => {
      const signed = signRequest({
        keyId: ws.keyId,
        secret: ws.secret,
        method: 'GET',
        target: '/v1/api-keys',
        timestamp: now + offset,
      });
      return raw('GET', '/v1/api-keys', signed);
    });
  };

  it('rejects a timestamp 301 s in the past with 401 invalid_signature', async () => {
    expectErrorEnvelope(await at(-301), 401, 'invalid_signature');
  });

  it('rejects a timestamp 301 s in the future with 401 invalid_signature', async () => {
    expectErrorEnvelope(await at(301), 401, 'invalid_signature');
  });

  it('accepts a timestamp 299 s in the past or the future', async () => {
    expect((await at(-299)).status).toBe(200);
    expect((await at(299)).status).toBe(200);
  });

  it('accepts a timestamp exactly 300 s off (the bound is inclusive)', async () => {
    expect((await at(-300)).status).toBe(200);
    expect((await at(300)).status).toBe(200);
  });

  it('checks the timestamp before the key: a stale request with an unknown key is invalid_signature', async () => {
    const res = await inOneSecond(async (now) =>
      raw(
        'GET',
        '/v1/api-keys',
        signRequest({
          keyId: 'pk_test_000000000000',
          secret: 'sk_test_x',
          method: 'GET',
          target: '/v1/api-keys',
          timestamp: now - 1000,
        }),
      ),
    );
    expectErrorEnvelope(res, 401, 'invalid_signature');
  });
});

describe('unknown and revoked keys', () => {
  it('answers 401 invalid_key for an unknown keyId', async () => {
    const client = createClient({
      baseUrl: server.url,
      keyId: 'pk_test_0123456789ab',
      secret: `sk_test_${'0'.repeat(48)}`,
    });
    expectErrorEnvelope(await client.get('/v1/api-keys'), 401, 'invalid_key');
    const live = createClient({
      baseUrl: server.url,
      keyId: 'pk_live_0123456789ab',
      secret: `sk_live_${'0'.repeat(48)}`,
    });
    expectErrorEnvelope(await live.post('/v1/api-keys', { name: 'x' }), 401, 'invalid_key');
  });

  it('answers 401 invalid_key within 5 s once a key is revoked by another key', async () => {
    const ws = await server.workspace();
    const created = await ws.client.post('/v1/api-keys', { name: 'to be revoked' });
    expect(created.status).toBe(201);
    const victim = createClient({ baseUrl: server.url, keyId: created.json.data.keyId, secret: created.json.data.key });
    // Used first, so the server holds it in its key cache when the revocation lands.
    expect((await victim.get('/v1/api-keys')).status).toBe(200);
    expect((await victim.get('/v1/events')).status).toBe(200);

    const revoked = await ws.client.delete(`/v1/api-keys/${created.json.data.id}`);
    expect(revoked.status).toBe(204);
    expect(revoked.text).toBe('');
    const revokedAt = Date.now();

    await expectRejectedWithin5s(victim, revokedAt);
    // Stays revoked, on every route and on GraphQL.
    expectErrorEnvelope(await victim.post('/v1/api-keys', { name: 'again' }), 401, 'invalid_key');
    const gql = await victim.graphql('{ apiKeys { edges { node { id } } } }');
    expect(gql.status).toBe(401);
    expect(gql.json.errors![0].extensions.code).toBe('invalid_key');

    // The signing key still works, and the revoked key is listed only with includeRevoked.
    const active = await ws.client.get('/v1/api-keys');
    expect(active.json.data.map((k: { id: string }) => k.id)).toEqual([ws.apiKeyId]);
    const all = await ws.client.get('/v1/api-keys?includeRevoked=true');
    const row = all.json.data.find((k: { id: string }) => k.id === created.json.data.id);
    expect(row.revokedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });
  it('a revocation committed elsewhere (another instance; no local cache eviction) bites within the cache window', async () => {
    const ws = await server.workspace();
    const created = await ws.client.post('/v1/api-keys', { name: 'revoked elsewhere' });
    const victim = createClient({ baseUrl: server.url, keyId: created.json.data.keyId, secret: created.json.data.key });
    expect((await victim.get('/v1/api-keys')).status).toBe(200); // now cached
    await db().system.query(`UPDATE api_keys SET "revokedAt" = now() WHERE id = $1`, [created.json.data.id]);
    const revokedAt = Date.now();
    await expectRejectedWithin5s(victim, revokedAt);
  });
});

describe('lastUsedAt', () => {
  it('is null until first use and advances within a few seconds of each signed request', async () => {
    const ws = await server.workspace();
    const created = await ws.client.post('/v1/api-keys', { name: 'rotated in', role: 'read_only' });
    const id = created.json.data.id;
    expect(created.json.data.lastUsedAt).toBeNull();
    const fresh = createClient({ baseUrl: server.url, keyId: created.json.data.keyId, secret: created.json.data.key });

    const lastUsed = async () => (await ws.client.get(`/v1/api-keys/${id}`)).json.data.lastUsedAt as string | null;
    const waitUntil = async (pred: (v: string | null) => boolean) => {
      const deadline = Date.now() + 5000;
      let v = await lastUsed();
      while (!pred(v) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        v = await lastUsed();
      }
      return v;
    };

    expect(await lastUsed()).toBeNull();
    const before = Date.now();
    expect((await fresh.get('/v1/api-keys')).status).toBe(200);
    const first = await waitUntil((v) => v !== null);
    expect(first).not.toBeNull();
    expect(new Date(first!).toISOString()).toBe(first);
    expect(new Date(first!).getTime()).toBeGreaterThanOrEqual(before - 1);
    expect(new Date(first!).getTime()).toBeLessThanOrEqual(Date.now());

    expect((await fresh.get('/v1/events')).status).toBe(200);
    const second = await waitUntil((v) => v !== null && v > first!);
    expect(new Date(second!).getTime()).toBeGreaterThan(new Date(first!).getTime());

    // Failed requests (a bad signature) are not "use".
    const wrong = createClient({ baseUrl: server.url, keyId: created.json.data.keyId, secret: ws.secret });
    expect((await wrong.get('/v1/api-keys')).status).toBe(401);
  });
});

describe('the signing recipe (spec Request signing), computed by hand', () => {
  /** HMAC-SHA256 keyed with the raw SHA-256 digest of the secret, over the canonical string. */
  function handSign(secret: string, ts: string, method: string, target: string, body: string) {
    const signingKey = createHash('sha256').update(secret, 'utf8').digest();
    expect(signingKey).toHaveLength(32);
    const bodyHash = createHash('sha256').update(body, 'utf8').digest('hex');
    const canonical = `${ts}\n${method}\n${target}\n${bodyHash}`;
    return createHmac('sha256', signingKey).update(canonical, 'utf8').digest('hex');
  }

  it('accepts a GET with a query string signed by hand', async () => {
    const ws = await server.workspace();
    const ts = String(nowSec());
    const target = '/v1/api-keys?limit=5&includeRevoked=false';
    const sig = handSign(ws.secret, ts, 'GET', target, '');
    // Same bytes the shipped helper produces.
    expect(
      signRequest({ keyId: ws.keyId, secret: ws.secret, method: 'GET', target, timestamp: Number(ts) }).authorization,
    ).toBe(`Svc-HMAC-SHA256 keyId=${ws.keyId}, scope=*, signature=${sig}`);
    const res = await raw('GET', target, {
      authorization: `Svc-HMAC-SHA256 keyId=${ws.keyId}, scope=*, signature=${sig}`,
      'x-svc-timestamp': ts,
    });
    expect(res.status).toBe(200);
    expect(res.json.data[0].id).toBe(ws.apiKeyId);
    expect(res.json.meta.page.limit).toBe(5);
  });

  it('accepts a POST with a JSON body (UTF-8) signed by hand', async () => {
    const ws = await server.workspace();
    const ts = String(nowSec());
    const body = JSON.stringify({ name: 'kunci — rotasi ✓', role: 'read_only' });
    const sig = handSign(ws.secret, ts, 'POST', '/v1/api-keys', body);
    const res = await raw(
      'POST',
      '/v1/api-keys',
      { authorization: `Svc-HMAC-SHA256 keyId=${ws.keyId}, scope=*, signature=${sig}`, 'x-svc-timestamp': ts },
      body,
    );
    expect(res.status).toBe(201);
    expect(res.json.data).toMatchObject({ name: 'kunci — rotasi ✓', role: 'read_only', environment: 'test' });
    expect(res.json.data.key).toMatch(/^sk_test_[0-9a-f]{48}$/);

    // The new secret signs by hand too.
    const ts2 = String(nowSec());
    const sig2 = handSign(res.json.data.key, ts2, 'GET', `/v1/api-keys/${res.json.data.id}`, '');
    const again = await raw('GET', `/v1/api-keys/${res.json.data.id}`, {
      authorization: `Svc-HMAC-SHA256 keyId=${res.json.data.keyId}, scope=*, signature=${sig2}`,
      'x-svc-timestamp': ts2,
    });
    expect(again.status).toBe(200);
  });

  it('rejects an HMAC keyed with the secret string itself instead of its digest', async () => {
    const ws = await server.workspace();
    const ts = String(nowSec());
    const canonical = `${ts}\nGET\n/v1/api-keys\n${createHash('sha256').update('').digest('hex')}`;
    const sig = createHmac('sha256', ws.secret).update(canonical).digest('hex');
    const res = await raw('GET', '/v1/api-keys', {
      authorization: `Svc-HMAC-SHA256 keyId=${ws.keyId}, scope=*, signature=${sig}`,
      'x-svc-timestamp': ts,
    });
    expectErrorEnvelope(res, 401, 'invalid_signature');
  });

  it('signs a DELETE with an empty body as the hash of the empty string', async () => {
    const ws = await server.workspace();
    const other = await ws.client.post('/v1/api-keys', { name: 'other' });
    const ts = String(nowSec());
    const target = `/v1/api-keys/${other.json.data.id}`;
    const sig = handSign(ws.secret, ts, 'DELETE', target, '');
    const res = await raw('DELETE', target, {
      authorization: `Svc-HMAC-SHA256 keyId=${ws.keyId}, scope=*, signature=${sig}`,
      'x-svc-timestamp': ts,
    });
    expect(res.status).toBe(204);
  });
});

describe('envelope and request id', () => {
  it('every error carries {data:null,error:{code,message},meta:{requestId,timestamp}} and X-Request-Id', async () => {
    const ws = await server.workspace();
    const notFound = await ws.client.get('/v1/api-keys/akey_01HZZZZZZZZZZZZZZZZZZZZZZZ');
    expectErrorEnvelope(notFound, 404, 'not_found');
    const unsigned = await raw('DELETE', `/v1/api-keys/${ws.apiKeyId}`, {});
    expectErrorEnvelope(unsigned, 401, 'invalid_signature');
    // Request ids are unique per request.
    expect(notFound.json.meta.requestId).not.toBe(unsigned.json.meta.requestId);
  });

  it('successes carry the same meta and header', async () => {
    const ws = await server.workspace();
    const res = await ws.client.get(`/v1/api-keys/${ws.apiKeyId}`);
    expect(res.status).toBe(200);
    expect(res.json.error).toBeNull();
    expect(res.json.meta.requestId).toMatch(/^req_/);
    expect(res.headers.get('x-request-id')).toBe(res.json.meta.requestId);
  });
});
