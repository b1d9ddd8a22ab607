// Member sign-in to the dashboard (docs/dashboard.md): OpenID Connect with PKCE against the
// development identity provider over real HTTP, the session cookie, the session as a credential of
// the one admission pipeline (role bounds, CSRF, mode), sign-out, a removed member, invitations.
import { describe, expect, it } from 'vitest';
import { invitationMail, useMailOutbox } from '../helpers/members.ts';
import { until } from '../helpers/receiver.ts';
import { db, useServer } from '../helpers/server.ts';
import { dashboardGraphQL, sessionSocket, signIn, useDevIdp } from '../helpers/dashboard.ts';

const server = useServer();
const outbox = useMailOutbox();
const dev = useDevIdp(server);

const CUSTOMERS = 'query { customers(first: 5) { edges { node { id name } } } }';
const CREATE_CUSTOMER =
  'mutation($input: CreateCustomerInput!) { createCustomer(input: $input, idempotencyKey: "k-%") { id name } }';

async function invited(ws: { workspaceId: string; client: any }, email: string, role: string) {
  const res = await ws.client.post(`/v1/workspaces/${ws.workspaceId}/members`, { email, role });
  expect(res.status, res.text).toBe(201);
  return { id: res.json.data.id as string, token: invitationMail(outbox.dir, res.json.data.id).token };
}

describe('dashboard sign-in', () => {
  it('the owner signs in with PKCE; the session cookie is HttpOnly, SameSite=Lax, and authenticates GraphQL', async () => {
    const ws = await server.workspace();
    const login = await fetch(`${server.url}/dashboard/auth/login`, { redirect: 'manual' });
    expect(login.status).toBe(302);
    const to = new URL(login.headers.get('location')!);
    expect(to.origin).toBe(dev.idp.issuer);
    expect(to.searchParams.get('code_challenge_method')).toBe('S256');
    expect(to.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(login.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");

    const s = await signIn(server.url, 'owner@example.com');
    expect(s.me.workspace.id).toBe(ws.workspaceId);
    expect(s.me.member.role).toBe('owner');
    const set = s.setCookie.find((c) => c.startsWith('svc_session='))!;
    expect(set).toMatch(/HttpOnly/);
    expect(set).toMatch(/SameSite=Lax/);
    expect(set).not.toMatch(/Secure/); // plain http on loopback
    // Only the hash is stored.
    const token = decodeURIComponent(s.cookie.split('=')[1]!);
    const { rows } = await db().system.query(`SELECT "tokenHash" FROM dashboard_sessions WHERE "memberId" = $1`, [
      s.me.member.id,
    ]);
    expect(rows.length).toBe(1);
    expect(rows[0].tokenHash).not.toContain(token);

    const made = await dashboardGraphQL(server.url, s, CREATE_CUSTOMER.replace('%', 'owner'), {
      input: { name: 'Made in the dashboard' },
    });
    expect(made.json.errors, JSON.stringify(made.json)).toBeUndefined();
    const listed = await dashboardGraphQL(server.url, s, CUSTOMERS);
    expect(listed.json.data.customers.edges.map((e: any) => e.node.name)).toContain('Made in the dashboard');
    // The same customer, seen by the owner's API key: the session acted in the workspace's test mode.
    const api = await ws.client.get('/v1/customers?limit=5');
    expect(api.json.data.map((c: any) => c.name)).toContain('Made in the dashboard');
  });

  it('refuses a request without the CSRF header, with a wrong one, and a wrong password at the provider', async () => {
    await server.workspace();
    const s = await signIn(server.url, 'owner@example.com');
    for (const csrf of [null, 'x'.repeat(64)]) {
      const res = await dashboardGraphQL(server.url, s, CUSTOMERS, {}, { csrf });
      expect(res.status).toBe(401);
      expect(res.json.errors[0].extensions.code).toBe('invalid_signature');
    }
    await expect(signIn(server.url, 'owner@example.com', { password: 'wrong' })).rejects.toThrow(/401/);
    await expect(signIn(server.url, 'nobody@example.com')).rejects.toThrow(/401/);
  });

  it('a read_only member joins through sign-in, reads, and the API refuses its mutation', async () => {
    const ws = await server.workspace();
    dev.idp.addUser({ sub: 'dev-ro-1', email: 'ro1@example.com', name: 'Ro One' });
    const inv = await invited(ws, 'ro1@example.com', 'read_only');
    // The emailed link's page offers the sign-in that accepts it.
    const offer = await (await fetch(`${server.url}/invitations/${inv.token}`)).text();
    expect(offer).toContain(`href="/dashboard/auth/login?invitation=${inv.token}"`);
    const s = await signIn(server.url, 'ro1@example.com', { invitation: inv.token });
    expect(s.me.member).toMatchObject({ id: inv.id, role: 'read_only' });
    const { rows } = await db().system.query(
      `SELECT status, "identityIssuer", "identitySubject" FROM members WHERE id = $1`,
      [inv.id],
    );
    expect(rows[0]).toEqual({ status: 'joined', identityIssuer: dev.idp.issuer, identitySubject: 'dev-ro-1' });
    expect((await dashboardGraphQL(server.url, s, CUSTOMERS)).json.data.customers).toBeTruthy();
    const forced = await dashboardGraphQL(server.url, s, CREATE_CUSTOMER.replace('%', 'ro'), { input: { name: 'No' } });
    expect(forced.status).toBe(403);
    expect(forced.json.errors[0].extensions.code).toBe('insufficient_scope');
    // Signing in again finds the member by its identity; the used invitation is no way back in.
    const again = await signIn(server.url, 'ro1@example.com');
    expect(again.me.member.id).toBe(inv.id);
    await expect(signIn(server.url, 'ro1@example.com', { invitation: inv.token })).rejects.toThrow(/404/);
  });

  it('live mode is refused while the workspace is not live', async () => {
    await server.workspace();
    const s = await signIn(server.url, 'owner@example.com');
    const res = await dashboardGraphQL(server.url, s, CUSTOMERS, {}, { mode: 'live' });
    expect(res.json.errors[0].extensions.code).toBe('live_mode_inactive');
  });

  it('sign-out revokes the session; the cookie stops working and its socket closes', async () => {
    await server.workspace();
    const s = await signIn(server.url, 'owner@example.com');
    const socket = sessionSocket(server.url, s);
    await until(() => socket.state.connected, 'the session socket connects');
    const refused = await fetch(`${server.url}/dashboard/auth/logout`, {
      method: 'POST',
      headers: { cookie: s.cookie },
    });
    expect(refused.status).toBe(403); // no CSRF header: a cross-site form cannot sign anyone out
    const out = await fetch(`${server.url}/dashboard/auth/logout`, {
      method: 'POST',
      headers: { cookie: s.cookie, 'x-svc-csrf': s.csrf },
    });
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie()[0]).toMatch(/^svc_session=; .*Max-Age=0/);
    expect((await dashboardGraphQL(server.url, s, CUSTOMERS)).status).toBe(401);
    expect((await fetch(`${server.url}/dashboard/auth/session`, { headers: { cookie: s.cookie } })).status).toBe(401);
    await until(() => socket.closes.some((c) => c.code === 4403), 'the socket closes 4403', 10_000);
  });

  it("a removed member's session and socket stop within seconds", async () => {
    const ws = await server.workspace();
    dev.idp.addUser({ sub: 'dev-m-2', email: 'm2@example.com', name: 'M Two' });
    const inv = await invited(ws, 'm2@example.com', 'member');
    const s = await signIn(server.url, 'm2@example.com', { invitation: inv.token });
    const socket = sessionSocket(server.url, s);
    await until(() => socket.state.connected, 'the session socket connects');
    expect((await dashboardGraphQL(server.url, s, CUSTOMERS)).status).toBe(200);
    const removed = await ws.client.delete(`/v1/workspaces/${ws.workspaceId}/members/${inv.id}`);
    expect(removed.status).toBe(204);
    const t0 = Date.now();
    await until(async () => (await dashboardGraphQL(server.url, s, CUSTOMERS)).status === 401, 'HTTP refuses', 5000);
    await until(() => socket.closes.some((c) => c.code === 4403), 'the socket closes 4403', 10_000);
    expect(Date.now() - t0).toBeLessThan(8000);
  });
});
