// The workspace switcher (docs/dashboard.md, Sign-in): one identity joined to two workspaces sees
// both, switches with its CSRF token to a new session in the other (the old one ends), and cannot
// switch into a workspace it has not joined.
import { describe, expect, it } from 'vitest';
import { invitationMail, useMailOutbox } from '../helpers/members.ts';
import { dashboardGraphQL, signIn, useDevIdp } from '../helpers/dashboard.ts';
import { useServer, type Workspace } from '../helpers/server.ts';

const server = useServer();
const outbox = useMailOutbox();
useDevIdp(server);

async function invite(ws: Workspace, email: string, role: string) {
  const res = await ws.client.post(`/v1/workspaces/${ws.workspaceId}/members`, { email, role });
  expect(res.status, res.text).toBe(201);
  return invitationMail(outbox.dir, res.json.data.id).token;
}

const switchTo = (s: { cookie: string; csrf: string }, workspaceId: unknown, csrf: string | null = s.csrf) =>
  fetch(`${server.url}/dashboard/auth/switch`, {
    method: 'POST',
    headers: { cookie: s.cookie, 'content-type': 'application/json', ...(csrf ? { 'x-svc-csrf': csrf } : {}) },
    body: JSON.stringify({ workspaceId }),
  });
const WHO = 'query { me { workspace { id } } }';

describe('workspace switcher', () => {
  it('lists the joined workspaces and switches to a new session there; the old session ends', async () => {
    const a = await server.workspace({ name: 'Toko A' });
    const b = await server.workspace({ name: 'Toko B' });
    const stranger = await server.workspace({ name: 'Toko C' });
    await signIn(server.url, 'admin@example.com', { invitation: await invite(a, 'admin@example.com', 'admin') });
    const inB = await signIn(server.url, 'admin@example.com', {
      invitation: await invite(b, 'admin@example.com', 'read_only'),
    });
    expect(inB.me.workspace.id).toBe(b.workspaceId);
    expect(inB.me.workspaces.map((w) => [w.id, w.role])).toEqual([
      [a.workspaceId, 'admin'],
      [b.workspaceId, 'read_only'],
    ]);

    // Refused: no CSRF header (403), a workspace not joined (404), a malformed id (404).
    expect((await switchTo(inB, a.workspaceId, null)).status).toBe(403);
    expect((await switchTo(inB, stranger.workspaceId)).status).toBe(404);
    expect((await switchTo(inB, { $ne: null })).status).toBe(404);

    const res = await switchTo(inB, a.workspaceId);
    expect(res.status).toBe(200);
    const cookie = `svc_session=${res.headers.get('set-cookie')!.match(/svc_session=([^;]+)/)![1]}`;
    const me = await (await fetch(`${server.url}/dashboard/auth/session`, { headers: { cookie } })).json();
    expect({ workspace: me.workspace.id, role: me.member.role }).toEqual({ workspace: a.workspaceId, role: 'admin' });
    const gql = await dashboardGraphQL(server.url, { cookie, csrf: me.csrf }, WHO);
    expect(gql.json.data?.me?.workspace?.id ?? gql.json.errors).toBe(a.workspaceId);
    // The session it came from is revoked at once.
    const old = await fetch(`${server.url}/dashboard/auth/session`, { headers: { cookie: inB.cookie } });
    expect(old.status).toBe(401);
  });
});
