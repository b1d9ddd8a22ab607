import { describe, expect, it } from 'vitest';
import { createClient, db, useServer } from '../../helpers/server.ts';
import { mintKey, mintLiveKey } from '../../helpers/keys.ts';
import type { components } from '../../../src/client/generated/openapi.ts';

const server = useServer();
/** The wire object, as the published OpenAPI document types it. */
type Entry = components['schemas']['AuditLogEntry'];

describe('GET /v1/audit-log', () => {
  it('records what emits no event: who, what, on which object, under which request; newest first', async () => {
    const ws = await server.workspace();
    const minted = await ws.client.post('/v1/api-keys', { name: 'audited', role: 'read_only' });
    expect(minted.status).toBe(201);
    const revoked = await ws.client.delete(`/v1/api-keys/${minted.json.data.id}`);
    expect(revoked.status).toBe(204);

    const res = await ws.client.get('/v1/audit-log');
    expect(res.status).toBe(200);
    expect(res.json.meta.page).toEqual({ limit: 50, hasMore: false, nextCursor: null });
    const entries = res.json.data as Entry[];
    const owner = await db().system.query(`SELECT id FROM members WHERE "workspaceId" = $1 AND role = 'owner'`, [
      ws.workspaceId,
    ]);
    expect(entries.slice(0, 2)).toEqual([
      {
        id: expect.stringMatching(/^aud_/),
        action: 'api_key.revoked',
        actorKeyId: ws.apiKeyId,
        actorMemberId: owner.rows[0].id,
        targetId: minted.json.data.id,
        requestId: revoked.headers.get('x-request-id'),
        at: expect.any(String),
      },
      {
        id: expect.stringMatching(/^aud_/),
        action: 'api_key.created',
        actorKeyId: ws.apiKeyId,
        actorMemberId: owner.rows[0].id,
        targetId: minted.json.data.id,
        requestId: minted.headers.get('x-request-id'),
        at: expect.any(String),
      },
    ]);
    expect(Date.parse(entries[0].at)).toBeGreaterThanOrEqual(Date.parse(entries[1].at));
  });

  it('filters by action and target, pages by cursor bound to the filters, and refuses bad input', async () => {
    const ws = await server.workspace();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const k = await ws.client.post('/v1/api-keys', { name: `k${i}`, role: 'read_only' });
      ids.push(k.json.data.id);
    }
    await ws.client.delete(`/v1/api-keys/${ids[1]}`);

    const byTarget = await ws.client.get(`/v1/audit-log?targetId=${ids[1]}`);
    expect((byTarget.json.data as Entry[]).map((e) => e.action)).toEqual(['api_key.revoked', 'api_key.created']);
    const byAction = await ws.client.get('/v1/audit-log?action=api_key.created&order=asc');
    expect((byAction.json.data as Entry[]).map((e) => e.targetId)).toEqual(ids);

    // Pages of one: every created key once, in order, then no more.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; text: string; json: any } = await ws.client.get(
        `/v1/audit-log?action=api_key.created&order=asc&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.status, page.text).toBe(200);
      seen.push(...(page.json.data as Entry[]).map((e) => e.targetId!));
      cursor = page.json.meta.page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(ids);

    // A cursor is bound to its filters.
    const first = await ws.client.get('/v1/audit-log?action=api_key.created&limit=1');
    const moved = await ws.client.get(
      `/v1/audit-log?action=api_key.revoked&limit=1&cursor=${first.json.meta.page.nextCursor}`,
    );
    expect(moved.status).toBe(400);

    for (const bad of ['action=', `targetId=${'x'.repeat(101)}`, 'order=sideways', 'limit=0', 'cursor=garbage']) {
      const r = await ws.client.get(`/v1/audit-log?${bad}`);
      expect([r.status, r.json.data], bad).toEqual([400, null]);
    }
    expect((await ws.client.get('/v1/audit-log?targetId=aud_nothing_here')).json.data).toEqual([]);
  });

  it("never shows another workspace's or another mode's entries; needs svc:audit:read; a revoked key gets 401", async () => {
    const a = await server.workspace();
    const b = await server.workspace({ name: 'Other' });
    const made = await a.client.post('/v1/api-keys', { name: 'a-only', role: 'read_only' });
    expect(made.status).toBe(201);
    // Another workspace, even naming a's object: nothing.
    expect((await b.client.get(`/v1/audit-log?targetId=${made.json.data.id}`)).json.data).toEqual([]);
    expect(
      ((await b.client.get('/v1/audit-log')).json.data as Entry[]).some((e) => e.targetId === made.json.data.id),
    ).toBe(false);
    // The live mode of the same workspace: its own log only.
    const live = createClient({ baseUrl: server.url, ...(await mintLiveKey(a.workspaceId)) });
    const liveLog = await live.get('/v1/audit-log');
    expect(liveLog.status).toBe(200);
    expect((liveLog.json.data as Entry[]).some((e) => e.targetId === made.json.data.id)).toBe(false);

    // Every role reads it; a restricted key without the scope does not.
    const readOnly = createClient({
      baseUrl: server.url,
      ...(await mintKey(a.workspaceId, 'test', { role: 'read_only' })),
    });
    expect((await readOnly.get('/v1/audit-log')).status).toBe(200);
    const narrow = createClient({
      baseUrl: server.url,
      ...(await mintKey(a.workspaceId, 'test', { role: 'restricted', scopes: ['customers:read'] })),
    });
    const refused = await narrow.get('/v1/audit-log');
    expect([refused.status, refused.json.error.code, refused.json.data]).toEqual([403, 'insufficient_scope', null]);

    const doomed = await mintKey(a.workspaceId, 'test', { role: 'full_access' });
    await a.client.delete(`/v1/api-keys/${doomed.id}`);
    const gone = await createClient({ baseUrl: server.url, ...doomed }).get('/v1/audit-log');
    expect([gone.status, gone.json.data]).toEqual([401, null]);
  });

  it('GraphQL auditLog answers the same entries as REST', async () => {
    const ws = await server.workspace();
    const k = await ws.client.post('/v1/api-keys', { name: 'gql', role: 'read_only' });
    const rest = await ws.client.get(`/v1/audit-log?targetId=${k.json.data.id}`);
    const gql = await ws.client.graphql(
      `query($t: String) { auditLog(first: 5, targetId: $t) { edges { node { id action actorKeyId actorMemberId targetId requestId at } } } }`,
      { t: k.json.data.id },
    );
    expect(gql.json.errors).toBeUndefined();
    expect(gql.json.data.auditLog.edges.map((e: { node: Entry }) => e.node)).toEqual(rest.json.data);
  });
});
