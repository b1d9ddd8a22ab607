import { describe, expect, it } from 'vitest';
import { useServer } from './helpers/server.ts';

const server = useServer();

describe('API keys over REST', () => {
  it('lists keys in the envelope with meta.page', async () => {
    const ws = await server.workspace();
    const res = await ws.client.get('/v1/api-keys');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe(res.json.meta.requestId);
    expect(res.json.error).toBeNull();
    expect(res.json.data).toHaveLength(1);
    expect(res.json.data[0]).toMatchObject({ id: ws.apiKeyId, keyId: ws.keyId, role: 'full_access', environment: 'test' });
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
});
