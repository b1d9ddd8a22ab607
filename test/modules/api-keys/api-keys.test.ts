import { describe, expect, it } from 'vitest';
import { createClient, useServer } from '../../helpers/server.ts';
import { mintKey, mintLiveKey } from '../../helpers/keys.ts';

const server = useServer();

describe('API keys over REST', () => {
  it('lists keys in the envelope with meta.page', async () => {
    const ws = await server.workspace();
    const res = await ws.client.get('/v1/api-keys');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe(res.json.meta.requestId);
    expect(res.json.error).toBeNull();
    expect(res.json.data).toHaveLength(1);
    expect(res.json.data[0]).toMatchObject({
      id: ws.apiKeyId,
      keyId: ws.keyId,
      role: 'full_access',
      environment: 'test',
    });
    expect(res.json.meta.page).toEqual({ limit: 50, hasMore: false, nextCursor: null });
  });

  it('mints a key whose secret is shown once and which signs requests', async () => {
    const ws = await server.workspace();
    const created = await ws.client.post('/v1/api-keys', { name: 'reporting', role: 'read_only' });
    expect(created.status).toBe(201);
    expect(created.json.data.key).toMatch(/^sk_test_[0-9a-f]{48}$/);
    expect(created.json.data.keyId).toMatch(/^pk_test_[0-9a-f]{12}$/);
    const fetched = await ws.client.get(`/v1/api-keys/${created.json.data.id}`);
    expect(fetched.json.data).not.toHaveProperty('key');
  });

  it('refuses to revoke the signing key and revokes another', async () => {
    const ws = await server.workspace();
    const self = await ws.client.delete(`/v1/api-keys/${ws.apiKeyId}`);
    expect(self.status).toBe(409);
    expect(self.json.error.code).toBe('cannot_revoke_self');
    const other = await ws.client.post('/v1/api-keys', { name: 'other' });
    const revoked = await ws.client.delete(`/v1/api-keys/${other.json.data.id}`);
    expect(revoked.status).toBe(204);
  });

  it('a key acts on its own environment only: no minting or revoking across test and live', async () => {
    const ws = await server.workspace();
    const live = createClient({ baseUrl: server.url, ...(await mintLiveKey(ws.workspaceId)) });
    const liveKeys = await live.get('/v1/api-keys?environment=live');
    const liveKeyId = liveKeys.json.data[0].id;
    // a test key sees live keys in the list (spec: both environments) but cannot revoke one
    const listed = await ws.client.get('/v1/api-keys');
    expect(listed.json.data.map((k: { id: string }) => k.id)).toContain(liveKeyId);
    const revoke = await ws.client.delete(`/v1/api-keys/${liveKeyId}`);
    expect(revoke.status).toBe(403);
    expect(revoke.json.error.code).toBe('insufficient_scope');
    expect((await live.get('/v1/api-keys')).status).toBe(200);
    // nor mint one: only the first live keys of an activated workspace come from a test key (of its
    // owner or an admin), and this one has a live key (test/modules/workspaces/lifecycle.test.ts);
    // a read-only key cannot, whatever the workspace's mode
    const ro = createClient({ baseUrl: server.url, ...(await mintKey(ws.workspaceId, 'test', { role: 'read_only' })) });
    expect((await ro.post('/v1/api-keys', { name: 'x', environment: 'live' })).status).toBe(403);
    const mint = await ws.client.post('/v1/api-keys', { name: 'x', environment: 'live' });
    expect(mint.status).toBe(403);
    expect(mint.json.error.code).toBe('insufficient_scope');
    // and a live key cannot touch test keys either
    expect((await live.delete(`/v1/api-keys/${ws.apiKeyId}`)).status).toBe(403);
    expect((await live.post('/v1/api-keys', { name: 'y', environment: 'test' })).status).toBe(403);
    expect((await ws.client.get('/v1/api-keys')).status).toBe(200);
    // without an environment a key mints in its own
    const own = await live.post('/v1/api-keys', { name: 'z' });
    expect(own.status).toBe(201);
    expect(own.json.data).toMatchObject({ environment: 'live' });
    expect(own.json.data.keyId).toMatch(/^pk_live_/);
  });
});
