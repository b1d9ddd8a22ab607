import { afterEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { useServer, db } from '../helpers/server.ts';
import { clockedSender } from '../helpers/clocked.ts';
import { clock } from '../../src/core/clock.ts';

const server = useServer();

afterEach(() => clock.reset());

const send = clockedSender(server);

const keyCount = async (workspaceId: string, name: string) =>
  Number(
    (
      await db().system.query(`SELECT count(*)::int AS n FROM api_keys WHERE "workspaceId" = $1 AND name = $2`, [
        workspaceId,
        name,
      ])
    ).rows[0].n,
  );

const idem = (key: string) => ({ 'idempotency-key': key });

/** What a replay returns: the first response with the new key's secret as null (never stored). */
const stored = (text: string) => text.replace(/"sk_(test|live)_[0-9a-f]+"/g, 'null');

describe('Idempotency-Key on POST /v1/api-keys', () => {
  it('replays the first response byte for byte (the new key secret as null) and creates one key', async () => {
    const ws = await server.workspace();
    const key = randomUUID();
    const first = await ws.client.post('/v1/api-keys', { name: 'replayed' }, idem(key));
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const second = await ws.client.post('/v1/api-keys', { name: 'replayed' }, idem(key));
    expect(second.status).toBe(201);
    expect(second.text).toBe(stored(first.text));
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.headers.get('content-type')).toMatch(/^application\/json/);
    // the replay is a new request with its own id; the stored body keeps the original one
    expect(second.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(second.json.meta.requestId).toBe(first.headers.get('x-request-id'));
    expect(await keyCount(ws.workspaceId, 'replayed')).toBe(1);
    // a third replay is still identical
    const third = await ws.client.post('/v1/api-keys', { name: 'replayed' }, idem(key));
    expect(third.text).toBe(stored(first.text));
  });

  it('the same key with a different body is 409 idempotency_conflict', async () => {
    const ws = await server.workspace();
    const key = randomUUID();
    expect((await ws.client.post('/v1/api-keys', { name: 'one' }, idem(key))).status).toBe(201);
    const other = await ws.client.post('/v1/api-keys', { name: 'two' }, idem(key));
    expect(other.status).toBe(409);
    expect(other.json.data).toBeNull();
    expect(other.json.error.code).toBe('idempotency_conflict');
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    // whitespace is a different body too: the fingerprint is over the bytes sent
    const spaced = await send(ws, 'POST', '/v1/api-keys', '{ "name": "one" }', idem(key));
    expect(spaced.status).toBe(409);
    expect(spaced.json.error.code).toBe('idempotency_conflict');
    expect(await keyCount(ws.workspaceId, 'two')).toBe(0);
    expect(await keyCount(ws.workspaceId, 'one')).toBe(1);
  });

  it.each([2, 3, 5])('%i concurrent requests with one key create exactly one key', async (n) => {
    const ws = await server.workspace();
    const key = randomUUID();
    const name = `concurrent-${n}`;
    const results = await Promise.all(
      Array.from({ length: n }, () => ws.client.post('/v1/api-keys', { name }, idem(key))),
    );
    const fresh = results.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
    expect(fresh).toHaveLength(1);
    for (const r of results) {
      if (r === fresh[0]) continue;
      if (r.status === 201) {
        expect(r.headers.get('idempotent-replayed')).toBe('true');
        expect(r.text).toBe(stored(fresh[0].text));
      } else {
        expect(r.status).toBe(409);
        expect(r.json.error.code).toBe('idempotency_conflict');
      }
    }
    expect(results.every((r) => r.status < 500)).toBe(true);
    expect(await keyCount(ws.workspaceId, name)).toBe(1);
    // once settled, a retry replays
    const later = await ws.client.post('/v1/api-keys', { name }, idem(key));
    expect(later.text).toBe(stored(fresh[0].text));
    expect(later.headers.get('idempotent-replayed')).toBe('true');
  });

  it('keys are per workspace', async () => {
    const a = await server.workspace();
    const b = await server.workspace();
    const key = randomUUID();
    const inA = await a.client.post('/v1/api-keys', { name: 'shared' }, idem(key));
    const inB = await b.client.post('/v1/api-keys', { name: 'shared' }, idem(key));
    expect(inA.status).toBe(201);
    expect(inB.status).toBe(201);
    expect(inB.headers.get('idempotent-replayed')).toBeNull();
    expect(inB.json.data.id).not.toBe(inA.json.data.id);
    expect(await keyCount(a.workspaceId, 'shared')).toBe(1);
    expect(await keyCount(b.workspaceId, 'shared')).toBe(1);
    // B replays its own response, not A's
    const b2 = await b.client.post('/v1/api-keys', { name: 'shared' }, idem(key));
    expect(b2.text).toBe(stored(inB.text));
  });

  it('a validation error is stored and replayed', async () => {
    const ws = await server.workspace();
    const key = randomUUID();
    const first = await ws.client.post('/v1/api-keys', { name: '' }, idem(key));
    expect(first.status).toBe(400);
    expect(first.json.error).toMatchObject({ code: 'validation_error', field: 'name' });
    const again = await ws.client.post('/v1/api-keys', { name: '' }, idem(key));
    expect(again.status).toBe(400);
    expect(again.text).toBe(stored(first.text));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // a different body under the same key conflicts rather than succeeding
    const fixed = await ws.client.post('/v1/api-keys', { name: 'fixed' }, idem(key));
    expect(fixed.status).toBe(409);
    expect(await keyCount(ws.workspaceId, 'fixed')).toBe(0);
  });

  it('without the header every request creates a key', async () => {
    const ws = await server.workspace();
    await ws.client.post('/v1/api-keys', { name: 'plain' });
    await ws.client.post('/v1/api-keys', { name: 'plain' });
    expect(await keyCount(ws.workspaceId, 'plain')).toBe(2);
  });

  it('a key older than 24 hours is treated as new', async () => {
    const ws = await server.workspace();
    const key = randomUUID();
    const first = await send(ws, 'POST', '/v1/api-keys', { name: 'expiring' }, idem(key));
    expect(first.status).toBe(201);

    clock.advance(23 * 3600_000);
    const within = await send(ws, 'POST', '/v1/api-keys', { name: 'expiring' }, idem(key));
    expect(within.headers.get('idempotent-replayed')).toBe('true');
    expect(within.text).toBe(stored(first.text));

    clock.reset();
    clock.advance(24 * 3600_000 + 1000);
    const after = await send(ws, 'POST', '/v1/api-keys', { name: 'expiring' }, idem(key));
    expect(after.status).toBe(201);
    expect(after.headers.get('idempotent-replayed')).toBeNull();
    expect(after.json.data.id).not.toBe(first.json.data.id);
    expect(await keyCount(ws.workspaceId, 'expiring')).toBe(2);
    // and the renewed key replays the new response from then on
    const again = await send(ws, 'POST', '/v1/api-keys', { name: 'expiring' }, idem(key));
    expect(again.text).toBe(stored(after.text));
    // an expired key may also be reused with a different body
    clock.advance(24 * 3600_000 + 1000);
    const changed = await send(ws, 'POST', '/v1/api-keys', { name: 'expiring-2' }, idem(key));
    expect(changed.status).toBe(201);
  });

  it('rejects a malformed Idempotency-Key', async () => {
    const ws = await server.workspace();
    const long = await ws.client.post('/v1/api-keys', { name: 'x' }, idem('k'.repeat(256)));
    expect(long.status).toBe(400);
    expect(long.json.error.code).toBe('validation_error');
    expect(await keyCount(ws.workspaceId, 'x')).toBe(0);
  });
});

const CREATE = `mutation Create($input: CreateApiKeyInput!, $key: String) {
  createApiKey(input: $input, idempotencyKey: $key) { id name key }
}`;

describe('Idempotency on POST /graphql', () => {
  it('the Idempotency-Key header replays a mutation', async () => {
    const ws = await server.workspace();
    const key = randomUUID();
    const body = { query: 'mutation { createApiKey(input: { name: "gql-header" }) { id name key } }' };
    const first = await ws.client.post('/graphql', body, idem(key));
    expect(first.status).toBe(200);
    expect(first.json.errors).toBeUndefined();
    expect(first.json.data.createApiKey.name).toBe('gql-header');
    const second = await ws.client.post('/graphql', body, idem(key));
    expect(second.text).toBe(stored(first.text));
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await keyCount(ws.workspaceId, 'gql-header')).toBe(1);
    const conflict = await ws.client.post(
      '/graphql',
      { query: 'mutation { createApiKey(input: { name: "other" }) { id } }' },
      idem(key),
    );
    expect(conflict.json.errors[0].extensions.code).toBe('idempotency_conflict');
    expect(await keyCount(ws.workspaceId, 'other')).toBe(0);
  });

  it('the idempotencyKey argument replays a mutation (literal and variable)', async () => {
    const ws = await server.workspace();
    const key = randomUUID();
    const literal = {
      query: `mutation { createApiKey(input: { name: "gql-arg" }, idempotencyKey: "${key}") { id name key } }`,
    };
    const first = await ws.client.post('/graphql', literal);
    expect(first.json.data.createApiKey.id).toMatch(/^akey_/);
    const second = await ws.client.post('/graphql', literal);
    expect(second.text).toBe(stored(first.text));
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await keyCount(ws.workspaceId, 'gql-arg')).toBe(1);

    const vkey = randomUUID();
    const v1 = await ws.client.graphql(CREATE, { input: { name: 'gql-var' }, key: vkey });
    const v2 = await ws.client.graphql(CREATE, { input: { name: 'gql-var' }, key: vkey });
    expect(v1.json.data.createApiKey.id).toMatch(/^akey_/);
    expect(v2.text).toBe(stored(v1.text));
    expect(v2.headers.get('idempotent-replayed')).toBe('true');
    expect(await keyCount(ws.workspaceId, 'gql-var')).toBe(1);
  });

  it('the argument wins over the header', async () => {
    const ws = await server.workspace();
    const arg = randomUUID();
    const v1 = await ws.client.graphql(CREATE, { input: { name: 'gql-win' }, key: arg }, idem(randomUUID()));
    // same argument, another header: still the argument's key, so a replay
    const v2 = await ws.client.graphql(CREATE, { input: { name: 'gql-win' }, key: arg }, idem(randomUUID()));
    expect(v2.headers.get('idempotent-replayed')).toBe('true');
    expect(v2.text).toBe(stored(v1.text));
    expect(await keyCount(ws.workspaceId, 'gql-win')).toBe(1);
  });

  it('concurrent GraphQL mutations with one key create one key', async () => {
    const ws = await server.workspace();
    const key = randomUUID();
    const results = await Promise.all(
      Array.from({ length: 4 }, () => ws.client.graphql(CREATE, { input: { name: 'gql-race' }, key })),
    );
    expect(results.every((r) => r.status < 500)).toBe(true);
    const created = results.filter((r) => r.json.data?.createApiKey && r.headers.get('idempotent-replayed') === null);
    expect(created).toHaveLength(1);
    for (const r of results) {
      if (r === created[0]) continue;
      if (r.headers.get('idempotent-replayed') === 'true') expect(r.text).toBe(stored(created[0].text));
      else expect(r.json.errors?.[0].extensions.code).toBe('idempotency_conflict');
    }
    expect(await keyCount(ws.workspaceId, 'gql-race')).toBe(1);
  });
});
