// Accepting an invitation in the dashboard (docs/dashboard.md, Accepting an invitation) over real HTTP
// with the development identity provider: only the identity whose verified email is the invited one
// joins, only by the page's POST with its CSRF token, and a signed-in session is never replaced.
import { describe, expect, it } from 'vitest';
import { invitationMail, useMailOutbox } from '../helpers/members.ts';
import { acceptForm, Jar, postAccept, signIn, useDevIdp, walk } from '../helpers/dashboard.ts';
import { db, useServer, type Workspace } from '../helpers/server.ts';

const server = useServer();
const outbox = useMailOutbox();
const dev = useDevIdp(server);

async function invite(ws: Workspace, email: string, role: string) {
  const res = await ws.client.post(`/v1/workspaces/${ws.workspaceId}/members`, { email, role });
  expect(res.status, res.text).toBe(201);
  return { id: res.json.data.id as string, token: invitationMail(outbox.dir, res.json.data.id).token };
}
const memberRow = async (id: string) =>
  (await db().system.query(`SELECT status, "identityIssuer", "identitySubject" FROM members WHERE id = $1`, [id]))
    .rows[0];
const membershipsOf = async (workspaceId: string, subject: string) =>
  (
    await db().system.query(`SELECT id FROM members WHERE "workspaceId" = $1 AND "identitySubject" = $2`, [
      workspaceId,
      subject,
    ])
  ).rows;
const sessionOf = async (cookie: string) => {
  const res = await fetch(`${server.url}/dashboard/auth/session`, { headers: { cookie } });
  return { status: res.status, json: res.status === 200 ? await res.json() : null };
};
const loginUrl = (token: string) => `${server.url}/dashboard/auth/login?invitation=${token}`;
const svcSession = (setCookies: string[]) => setCookies.filter((c) => c.startsWith('svc_session='));

describe('an invitation link opened by someone else', () => {
  it('a signed-in victim with another email: the page says so; no membership, the session unchanged', async () => {
    const victimWs = await server.workspace({ name: 'Toko Korban' });
    const jar = new Jar();
    const victim = await signIn(server.url, 'owner@example.com', { jar });
    expect(victim.me.workspace.id).toBe(victimWs.workspaceId);
    // The attacker's workspace may carry the victim's workspace's name; it invites the attacker's own address.
    const attackerWs = await server.workspace({ name: 'Toko Korban' });
    const inv = await invite(attackerWs, 'attacker@example.com', 'admin');

    const opened = await walk(jar, loginUrl(inv.token));
    const html = await opened.res.text();
    expect(opened.res.status, html).toBe(403);
    expect(html).toContain('signed in to the dashboard as owner@example.com');
    expect(html).not.toContain('<form');
    expect(svcSession(opened.setCookies)).toEqual([]);
    expect(await memberRow(inv.id)).toMatchObject({ status: 'invited', identityIssuer: null });
    expect(await membershipsOf(attackerWs.workspaceId, 'dev-owner')).toEqual([]);
    // A POST with the victim's own CSRF token is refused the same way.
    const forced = await postAccept(jar, server.url, { invitation: inv.token, csrf: victim.csrf });
    expect(forced.res.status).toBe(403);
    expect(svcSession(forced.setCookies)).toEqual([]);
    expect(await memberRow(inv.id)).toMatchObject({ status: 'invited' });
    const still = await sessionOf(victim.cookie);
    expect(still.status).toBe(200);
    expect(still.json.workspace.id).toBe(victimWs.workspaceId);
    expect(still.json.workspaces.map((w: { id: string }) => w.id)).toEqual([victimWs.workspaceId]);
  });

  it('a victim signed in only at the provider: refused after the provider answers; no session, no membership', async () => {
    await server.workspace({ name: 'Toko Saya' });
    const jar = new Jar();
    const victim = await signIn(server.url, 'owner@example.com', { jar });
    const out = await walk(jar, `${server.url}/dashboard/auth/logout`, {
      method: 'POST',
      headers: { 'x-svc-csrf': victim.csrf },
    });
    expect(out.res.status).toBe(204); // the dashboard session is gone; the provider's stays
    const attackerWs = await server.workspace({ name: 'Toko Saya' });
    const inv = await invite(attackerWs, 'attacker@example.com', 'admin');

    const opened = await walk(jar, loginUrl(inv.token));
    const html = await opened.res.text();
    expect(opened.url).toContain('/dashboard/auth/accept');
    expect(opened.res.status, html).toBe(403);
    expect(html).toContain('the identity provider signed you in as owner@example.com');
    expect(acceptForm(html)).toBeNull();
    expect(svcSession(opened.setCookies)).toEqual([]);
    expect(jar.header(server.url)).not.toContain('svc_session=');
    expect(await memberRow(inv.id)).toMatchObject({ status: 'invited', identityIssuer: null });
    expect(await membershipsOf(attackerWs.workspaceId, 'dev-owner')).toEqual([]);
  });

  it('an identity whose email the provider did not verify joins nothing, even with the invited address', async () => {
    const ws = await server.workspace();
    dev.idp.addUser({ sub: 'dev-unverified', email: 'unverified@example.com', name: 'U', emailVerified: false });
    const inv = await invite(ws, 'unverified@example.com', 'member');
    await expect(signIn(server.url, 'unverified@example.com', { invitation: inv.token })).rejects.toThrow(
      /403.*did not confirm your email address/s,
    );
    expect(await memberRow(inv.id)).toMatchObject({ status: 'invited', identityIssuer: null });
  });
});

describe('the accept page', () => {
  it('GET never accepts; a POST without or with a wrong CSRF token is 403; the invited email joins by the form', async () => {
    const ws = await server.workspace({ name: 'Toko Baru' });
    dev.idp.addUser({ sub: 'dev-new-1', email: 'New1@Example.com', name: 'New One' });
    const inv = await invite(ws, ' new1@example.com', 'admin');
    const jar = new Jar();
    const form = await walk(jar, loginUrl(inv.token));
    const done = await walk(jar, form.url, {
      method: 'POST',
      body: new URLSearchParams({ email: 'new1@example.com', password: 'dev' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    // The callback (a GET) accepted nothing and signed nobody in: it led to the question.
    expect(done.url).toBe(`${server.url}/dashboard/auth/accept?invitation=${inv.token}`);
    const html = await done.res.text();
    expect(done.res.status, html).toBe(200);
    const slug = (await db().system.query(`SELECT slug FROM workspaces WHERE id = $1`, [ws.workspaceId])).rows[0].slug;
    expect(html).toContain(`Join Toko Baru (${slug}) as admin?`);
    expect(done.res.headers.get('content-security-policy')).toContain("form-action 'self'");
    expect(svcSession(done.setCookies)).toEqual([]);
    // Asked again, in Indonesian for an Indonesian browser: still only asked.
    const again = await fetch(done.url, {
      headers: { cookie: jar.header(done.url), 'accept-language': 'id-ID,id;q=0.9' },
    });
    expect(await again.text()).toContain(`Bergabung ke Toko Baru (${slug}) sebagai admin?`);
    expect(await memberRow(inv.id)).toMatchObject({ status: 'invited', identityIssuer: null });

    const fields = acceptForm(html)!;
    for (const csrf of [null, 'x'.repeat(64), fields.csrf.replace(/.$/, (c) => (c === '0' ? '1' : '0'))]) {
      const refused = await postAccept(
        jar,
        server.url,
        csrf === null ? { invitation: inv.token } : { ...fields, csrf },
      );
      expect(refused.res.status).toBe(403);
      expect(svcSession(refused.setCookies)).toEqual([]);
    }
    // Another origin's form cannot post for this browser: without its cookies there is nobody to accept.
    const bare = await fetch(`${server.url}/dashboard/auth/accept`, {
      method: 'POST',
      body: new URLSearchParams(fields).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(bare.status).toBe(401);
    expect(await memberRow(inv.id)).toMatchObject({ status: 'invited', identityIssuer: null });

    const accepted = await postAccept(jar, server.url, fields);
    expect(accepted.url).toBe(`${server.url}/dashboard/`);
    expect(svcSession(accepted.setCookies)).toHaveLength(1);
    expect(await memberRow(inv.id)).toEqual({
      status: 'joined',
      identityIssuer: dev.idp.issuer,
      identitySubject: 'dev-new-1',
    });
    const cookie = `svc_session=${jar.header(server.url).match(/svc_session=([^;]+)/)![1]}`;
    const me = await sessionOf(cookie);
    expect(me.json).toMatchObject({ workspace: { id: ws.workspaceId }, member: { id: inv.id, role: 'admin' } });
  });

  it('a signed-in member with the invited email joins another workspace; its session stays as it was', async () => {
    const a = await server.workspace({ name: 'Toko A' });
    const b = await server.workspace({ name: 'Toko B' });
    dev.idp.addUser({ sub: 'dev-both', email: 'both@example.com', name: 'Both' });
    const jar = new Jar();
    const inA = await signIn(server.url, 'both@example.com', {
      jar,
      invitation: (await invite(a, 'both@example.com', 'member')).token,
    });
    expect(inA.me.workspace.id).toBe(a.workspaceId);
    const inv = await invite(b, 'both@example.com', 'read_only');

    const opened = await walk(jar, loginUrl(inv.token));
    const html = await opened.res.text();
    expect(opened.res.status, html).toBe(200);
    expect(html).toContain('You are signed in as both@example.com.');
    expect(await memberRow(inv.id)).toMatchObject({ status: 'invited' });
    const fields = acceptForm(html)!;
    expect(fields.csrf).toBe(inA.csrf);
    const accepted = await postAccept(jar, server.url, fields);
    expect(accepted.res.status).toBe(200);
    expect(await accepted.res.text()).toContain('You joined Toko B.');
    expect(svcSession(accepted.setCookies)).toEqual([]);
    expect(await memberRow(inv.id)).toEqual({
      status: 'joined',
      identityIssuer: dev.idp.issuer,
      identitySubject: 'dev-both',
    });
    const me = await sessionOf(inA.cookie);
    expect(me.json.workspace.id).toBe(a.workspaceId);
    expect(me.json.workspaces.map((w: { id: string }) => w.id)).toEqual([a.workspaceId, b.workspaceId]);
  });
});
