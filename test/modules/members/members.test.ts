// Members over real HTTP (spec Workspace and member, Workspaces and members; DECISIONS §2, §7):
// invite (a row and an email with a one-use link), accept (the link's page, the CLI), list, change
// role, remove (its keys stop on REST, GraphQL and open sockets), transfer ownership, expiry.
import { afterAll, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { clock } from '../../../src/core/clock.ts';
import { config } from '../../../src/core/config.ts';
import { sha256Hex } from '../../../src/core/crypto.ts';
import { signedSocket } from '../../helpers/sockets.ts';
import { expireInvitations } from '../../../src/modules/members/service.ts';
import { childEnv, svc } from '../../helpers/cli.ts';
import { invitationMail, joinMember, keyOnPage, useMailOutbox } from '../../helpers/members.ts';
import { until } from '../../helpers/receiver.ts';
import { leaves, parseMime } from '../../helpers/mime.ts';
import { startSmtp } from '../../helpers/smtp.ts';
import { createClient, db, useServer, type Workspace } from '../../helpers/server.ts';

const server = useServer();
const outbox = useMailOutbox();

type Res = { status: number; json: any; text?: string };
function expectError(res: Res, status: number, code: string, field?: string) {
  expect({ status: res.status, code: res.json?.error?.code }, res.text).toEqual({ status, code });
  expect(res.json.data).toBeNull();
  if (field !== undefined) expect(res.json.error.field).toBe(field);
}

const members = (ws: Workspace) => `/v1/workspaces/${ws.workspaceId}/members`;
const invite = (ws: Workspace, body: Record<string, unknown>, client = ws.client) => client.post(members(ws), body);
const eventsOf = async (workspaceId: string, type: string) =>
  (
    await db().system.query(
      `SELECT type, mode, "objectId", data, metadata FROM events WHERE "workspaceId" = $1 AND type = $2 ORDER BY position`,
      [workspaceId, type],
    )
  ).rows;
const ownerOf = async (workspaceId: string) =>
  (await db().system.query(`SELECT * FROM members WHERE "workspaceId" = $1 AND role = 'owner'`, [workspaceId])).rows[0];
const page = (token: string, method: 'GET' | 'POST' = 'GET') =>
  fetch(`${server.url}/invitations/${token}`, { method }).then(async (r) => ({
    status: r.status,
    html: await r.text(),
  }));

describe('invite', () => {
  it('201: an invited member row, workspace.member_invited, and an email whose link carries a secret stored only as a hash', async () => {
    const ws = await server.workspace({ name: 'Team Shop' });
    const before = Date.now();
    const res = await invite(ws, { email: 'Sari@Example.com', role: 'admin' });
    expect(res.status, res.text).toBe(201);
    const m = res.json.data;
    expect(m).toEqual({
      id: expect.stringMatching(/^mem_/),
      email: 'sari@example.com',
      role: 'admin',
      status: 'invited',
      joinedAt: null,
      invitedAt: expect.any(String),
      expiresAt: expect.any(String),
    });
    expect(Date.parse(m.expiresAt) - Date.parse(m.invitedAt)).toBe(7 * 24 * 3600 * 1000);
    expect(Date.parse(m.invitedAt)).toBeGreaterThanOrEqual(before - 1000);

    const mail = invitationMail(outbox.dir, m.id);
    expect(mail.mail.headers.to).toBe('sari@example.com');
    // A fixed subject: the workspace's name (anyone's choice) is only quoted in the body.
    expect(mail.mail.headers.subject).toBe('You are invited to join a workspace');
    expect(mail.text).toContain('to join the workspace \u201cTeam Shop\u201d as an admin.');
    expect(mail.text).toContain('owner@example.com invited you');
    const html = mail.mail.parts.length ? mail.mail : null;
    expect(html).not.toBeNull(); // multipart: text and HTML (MJML)
    const secret = mail.token.split('_').pop()!;
    const { rows } = await db().system.query(`SELECT * FROM members WHERE id = $1`, [m.id]);
    expect(rows[0].inviteTokenHash).toBe(sha256Hex(secret));
    expect(JSON.stringify(rows[0])).not.toContain(secret);
    expect(rows[0]).toMatchObject({ inviteMode: 'test', invitedBy: (await ownerOf(ws.workspaceId)).id });

    const events = await eventsOf(ws.workspaceId, 'workspace.member_invited');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ mode: 'test', objectId: m.id, data: { id: m.id, object: m } });
  });

  it('refuses owner, unknown roles, bad emails, unknown fields (400) and a joined email (409)', async () => {
    const ws = await server.workspace();
    expectError(await invite(ws, { email: 'a@example.com', role: 'owner' }), 400, 'validation_error', 'role');
    expectError(await invite(ws, { email: 'a@example.com', role: 'superuser' }), 400, 'validation_error', 'role');
    expectError(await invite(ws, { email: 'not-an-email', role: 'member' }), 400, 'validation_error', 'email');
    expectError(await invite(ws, { email: 'a@example.com, b@example.com', role: 'member' }), 400, 'validation_error');
    expectError(await invite(ws, { email: `${'x'.repeat(250)}@example.com`, role: 'member' }), 400, 'validation_error');
    expectError(await invite(ws, { role: 'member' }), 400, 'validation_error');
    expectError(
      await invite(ws, { email: 'a@example.com', role: 'member', status: 'joined' }),
      400,
      'validation_error',
    );
    expectError(await invite(ws, { email: 'OWNER@example.com', role: 'member' }), 409, 'conflict');
    const { rows } = await db().system.query(`SELECT count(*)::int AS n FROM members WHERE "workspaceId" = $1`, [
      ws.workspaceId,
    ]);
    expect(rows[0].n).toBe(1);
    expect(await eventsOf(ws.workspaceId, 'workspace.member_invited')).toEqual([]);
  });

  it("another workspace's path is 404 and invites nothing there", async () => {
    const a = await server.workspace();
    const b = await server.workspace();
    expectError(await b.client.post(members(a), { email: 'x@example.com', role: 'member' }), 404, 'not_found');
    expectError(await b.client.get(members(a)), 404, 'not_found');
    const { rows } = await db().system.query(`SELECT count(*)::int AS n FROM members WHERE "workspaceId" = $1`, [
      a.workspaceId,
    ]);
    expect(rows[0].n).toBe(1);
  });

  it('inviting a pending email again sends a new link (the old one stops) and emits member_invited again', async () => {
    const ws = await server.workspace();
    const first = (await invite(ws, { email: 'dewi@example.com', role: 'member' })).json.data;
    const oldToken = invitationMail(outbox.dir, first.id).token;
    const again = await invite(ws, { email: 'dewi@example.com', role: 'read_only' });
    expect(again.status).toBe(201);
    expect(again.json.data).toMatchObject({ id: first.id, role: 'read_only', status: 'invited' });
    const fresh = invitationMail(outbox.dir, first.id);
    expect(fresh.count).toBe(2);
    expect(fresh.token).not.toBe(oldToken);
    expect((await page(oldToken, 'POST')).status).toBe(404);
    expect((await page(fresh.token)).status).toBe(200);
    expect(await eventsOf(ws.workspaceId, 'workspace.member_invited')).toHaveLength(2);
  });

  it('a workspace invites at most SVC_INVITATIONS_PER_DAY addresses in 24 hours: then 429 with Retry-After', async () => {
    const ws = await server.workspace({ name: 'Bulk Mailer' });
    const previous = config.invitationsPerDay;
    config.invitationsPerDay = 2;
    try {
      for (const email of ['a1@example.com', 'a2@example.com'])
        expect((await invite(ws, { email, role: 'member' })).status).toBe(201);
      const sent = () => db().system.query(`SELECT 1 FROM members WHERE "workspaceId" = $1`, [ws.workspaceId]);
      const rows = (await sent()).rows.length;
      const mails = readdirSync(outbox.dir).length;
      for (const email of ['a3@example.com', 'a1@example.com']) {
        const over = await ws.client.post(members(ws), { email, role: 'member' });
        expectError(over, 429, 'RATE_LIMITED'); // spelled as the spec does everywhere
        const wait = Number(over.headers.get('retry-after'));
        expect(wait).toBeGreaterThan(24 * 3600 - 120);
        expect(wait).toBeLessThanOrEqual(24 * 3600);
      }
      expect((await sent()).rows.length).toBe(rows);
      expect(readdirSync(outbox.dir).length).toBe(mails); // nothing mailed
      // Another workspace has its own quota; a day later this one invites again.
      const other = await server.workspace();
      expect((await invite(other, { email: 'a3@example.com', role: 'member' })).status).toBe(201);
      await db().system.query(
        `UPDATE members SET "invitedAt" = "invitedAt" - interval '24 hours' WHERE "workspaceId" = $1`,
        [ws.workspaceId],
      );
      expect((await invite(ws, { email: 'a3@example.com', role: 'member' })).status).toBe(201);
      // Gone again: the expiry test's sweep counts every pending invitation of the database.
      await db().system.query(`DELETE FROM members WHERE "workspaceId" = ANY($1) AND role <> 'owner'`, [
        [ws.workspaceId, other.workspaceId],
      ]);
    } finally {
      config.invitationsPerDay = previous;
    }
  });
});

describe('accept', () => {
  it('GET shows the invitation without accepting; POST joins once, emits member_joined, and shows the first key', async () => {
    const ws = await server.workspace({ name: 'Warung' });
    const m = (await invite(ws, { email: 'budi@example.com', role: 'member' })).json.data;
    const { token } = invitationMail(outbox.dir, m.id);

    const shown = await page(token);
    expect(shown.status).toBe(200);
    expect(shown.html).toContain('budi@example.com');
    expect(shown.html).toContain('Warung');
    expect(shown.html).toContain('<form method="post">');
    expect((await db().system.query(`SELECT status FROM members WHERE id = $1`, [m.id])).rows[0].status).toBe(
      'invited',
    );

    const accepted = await page(token, 'POST');
    expect(accepted.status, accepted.html).toBe(200);
    const key = keyOnPage(accepted.html)!;
    expect(key.keyId).toMatch(/^pk_test_/);
    const { rows } = await db().system.query(`SELECT * FROM members WHERE id = $1`, [m.id]);
    expect(rows[0]).toMatchObject({
      status: 'joined',
      inviteTokenHash: null,
      expiresAt: null,
      identityIssuer: 'svc:email-link',
      identitySubject: 'budi@example.com',
    });
    expect(rows[0].joinedAt).toBeInstanceOf(Date);
    const keyRow = (await db().system.query(`SELECT * FROM api_keys WHERE "keyId" = $1`, [key.keyId])).rows[0];
    expect(keyRow).toMatchObject({ memberId: m.id, role: 'full_access', mode: 'test', revokedAt: null });

    // The key acts for the member: it reads the team, and cannot administer it (role member).
    const client = createClient({ baseUrl: server.url, keyId: key.keyId, secret: key.secret });
    const list = await client.get(members(ws));
    expect(list.status).toBe(200);
    expect(list.json.data.find((x: { id: string }) => x.id === m.id)).toMatchObject({
      status: 'joined',
      joinedAt: rows[0].joinedAt.toISOString(),
      invitedAt: m.invitedAt,
    });
    expectError(await invite(ws, { email: 'x@example.com', role: 'read_only' }, client), 403, 'insufficient_scope');
    expectError(await client.post('/v1/api-keys', { name: 'more' }), 403, 'insufficient_scope');

    const joined = await eventsOf(ws.workspaceId, 'workspace.member_joined');
    expect(joined).toHaveLength(1);
    expect(joined[0]).toMatchObject({ mode: 'test', objectId: m.id, metadata: { source: 'invitation' } });
    expect(joined[0].data.object).toMatchObject({ id: m.id, status: 'joined', role: 'member' });
    // spec: member_invited is not emitted on accept.
    expect(await eventsOf(ws.workspaceId, 'workspace.member_invited')).toHaveLength(1);

    // One use.
    expect((await page(token, 'POST')).status).toBe(404);
    expect((await page(token)).status).toBe(404);
  });

  it('a wrong secret, a malformed token or a bare member id is 404 (an HTML page)', async () => {
    const ws = await server.workspace();
    const m = (await invite(ws, { email: 'eka@example.com', role: 'member' })).json.data;
    const { token } = invitationMail(outbox.dir, m.id);
    const wrong = `${m.id}_${'0'.repeat(40)}`;
    for (const t of [wrong, m.id, 'nope', `${token}x`]) {
      const r = await page(t, 'POST');
      expect(r.status, t).toBe(404);
      expect(r.html).toContain('This invitation link is not valid');
    }
    expect((await page(token, 'POST')).status).toBe(200);
  });

  it('an archived workspace answers 410 on its links; nobody joins it', async () => {
    const ws = await server.workspace();
    const m = (await invite(ws, { email: 'archived@example.com', role: 'member' })).json.data;
    const { token } = invitationMail(outbox.dir, m.id);
    expect((await ws.client.delete(`/v1/workspaces/${ws.workspaceId}`)).status).toBe(204);
    expect((await page(token)).status).toBe(410);
    expect((await page(token, 'POST')).status).toBe(410);
    expect((await db().system.query(`SELECT status FROM members WHERE id = $1`, [m.id])).rows[0].status).toBe(
      'invited',
    );
  });

  it('svc members accept <token> --json joins and prints the member and its key', async () => {
    const ws = await server.workspace();
    const m = (await invite(ws, { email: 'cli@example.com', role: 'read_only' })).json.data;
    const { link } = invitationMail(outbox.dir, m.id);
    const r = await svc(['members', 'accept', link, '--json'], childEnv(server.dbUrl));
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      workspaceId: ws.workspaceId,
      member: { id: m.id, status: 'joined', role: 'read_only' },
      apiKey: { environment: 'test', role: 'full_access' },
    });
    const client = createClient({ baseUrl: server.url, keyId: out.apiKey.keyId, secret: out.apiKey.key });
    expect((await client.get(members(ws))).status).toBe(200);
    expectError(await client.post('/v1/customers', { name: 'No' }), 403, 'insufficient_scope');
    const again = await svc(['members', 'accept', link], childEnv(server.dbUrl));
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/No such invitation/);
  });
});

describe('list', () => {
  it('lists the team newest first, without removed members unless asked, with status filter and pages', async () => {
    const ws = await server.workspace();
    const a = await joinMember(server, outbox, ws, 'admin');
    const b = (await invite(ws, { email: 'b@example.com', role: 'member' })).json.data;
    const c = await joinMember(server, outbox, ws, 'read_only');
    expect((await ws.client.delete(`${members(ws)}/${c.id}`)).status).toBe(204);
    const owner = await ownerOf(ws.workspaceId);

    const all = await ws.client.get(members(ws));
    expect(all.status).toBe(200);
    expect(all.json.data.map((x: { id: string }) => x.id)).toEqual([b.id, a.id, owner.id]);
    expect(all.json.meta.page).toEqual({ limit: 50, hasMore: false, nextCursor: null });
    expect((await ws.client.get(`${members(ws)}?status=removed`)).json.data.map((x: any) => x.id)).toEqual([c.id]);
    expect((await ws.client.get(`${members(ws)}?status=invited`)).json.data.map((x: any) => x.id)).toEqual([b.id]);
    const first = await ws.client.get(`${members(ws)}?limit=2`);
    expect(first.json.meta.page.hasMore).toBe(true);
    const next = await ws.client.get(`${members(ws)}?limit=2&cursor=${first.json.meta.page.nextCursor}`);
    expect(next.json.data.map((x: { id: string }) => x.id)).toEqual([owner.id]);
    expectError(await ws.client.get(`${members(ws)}?status=ghost`), 400, 'validation_error', 'status');
    expectError(await ws.client.get(`${members(ws)}?limit=0`), 400, 'invalid_limit');
  });

  it('GraphQL: members(workspaceId) and Workspace.members, and inviteMember with extensions.code', async () => {
    const ws = await server.workspace();
    const q = await ws.client.graphql(
      `query($id: ID!) { members(workspaceId: $id) { edges { node { id role status } } }
         me { workspace { members { edges { node { email role } } } } } }`,
      { id: ws.workspaceId },
    );
    expect(q.json.errors).toBeUndefined();
    expect(q.json.data.members.edges.map((e: any) => e.node.role)).toEqual(['owner']);
    expect(q.json.data.me.workspace.members.edges[0].node).toEqual({ email: 'owner@example.com', role: 'owner' });
    const bad = await ws.client.graphql(
      `mutation($id: ID!) { inviteMember(workspaceId: $id, input: { email: "x@example.com", role: "owner" }) { id } }`,
      { id: ws.workspaceId },
    );
    expect(bad.json.errors?.[0].extensions).toMatchObject({ code: 'validation_error', field: 'role' });
    const ok = await ws.client.graphql(
      `mutation($id: ID!) { inviteMember(workspaceId: $id, input: { email: "g@example.com", role: "member" }) { id status } }`,
      { id: ws.workspaceId },
    );
    expect(ok.json.data.inviteMember.status).toBe('invited');
  });
});

describe('change role', () => {
  it('the owner promotes and demotes; member_role_changed carries previousAttributes.role; keys follow at once', async () => {
    const ws = await server.workspace();
    const m = await joinMember(server, outbox, ws, 'member');
    expect((await m.client.post('/v1/customers', { name: 'Allowed' })).status).toBe(201);

    const demoted = await ws.client.patch(`${members(ws)}/${m.id}`, { role: 'read_only' });
    expect(demoted.status, demoted.text).toBe(200);
    expect(demoted.json.data).toMatchObject({ id: m.id, role: 'read_only', status: 'joined' });
    expectError(await m.client.post('/v1/customers', { name: 'Refused' }), 403, 'insufficient_scope');

    const promoted = await ws.client.patch(`${members(ws)}/${m.id}`, { role: 'admin' });
    expect(promoted.json.data.role).toBe('admin');
    expect((await m.client.post('/v1/api-keys', { name: 'admin now' })).status).toBe(201);

    const events = await eventsOf(ws.workspaceId, 'workspace.member_role_changed');
    expect(events.map((e) => [e.data.previousAttributes.role, e.data.object.role])).toEqual([
      ['member', 'read_only'],
      ['read_only', 'admin'],
    ]);
    // The same role again is a no-op: no event.
    expect((await ws.client.patch(`${members(ws)}/${m.id}`, { role: 'admin' })).status).toBe(200);
    expect(await eventsOf(ws.workspaceId, 'workspace.member_role_changed')).toHaveLength(2);
  });

  it('an admin changes roles below its own only; the owner is 409 owner_immutable; owner is not a role to give', async () => {
    const ws = await server.workspace();
    const admin = await joinMember(server, outbox, ws, 'admin');
    const other = await joinMember(server, outbox, ws, 'admin');
    const m = await joinMember(server, outbox, ws, 'member');
    const owner = await ownerOf(ws.workspaceId);

    expect((await admin.client.patch(`${members(ws)}/${m.id}`, { role: 'read_only' })).status).toBe(200);
    expectError(await admin.client.patch(`${members(ws)}/${m.id}`, { role: 'admin' }), 403, 'insufficient_scope');
    expectError(await admin.client.patch(`${members(ws)}/${other.id}`, { role: 'member' }), 403, 'insufficient_scope');
    expectError(await admin.client.patch(`${members(ws)}/${admin.id}`, { role: 'member' }), 403, 'insufficient_scope');
    expectError(await admin.client.patch(`${members(ws)}/${owner.id}`, { role: 'member' }), 409, 'owner_immutable');
    expectError(await ws.client.patch(`${members(ws)}/${owner.id}`, { role: 'admin' }), 409, 'owner_immutable');
    expectError(await ws.client.patch(`${members(ws)}/${m.id}`, { role: 'owner' }), 400, 'validation_error', 'role');
    expectError(
      await ws.client.patch(`${members(ws)}/${m.id}`, { role: 'member', email: 'x@y.z' }),
      400,
      'validation_error',
    );
    // A member-role key administers nobody.
    const reader = await joinMember(server, outbox, ws, 'member');
    expectError(await reader.client.patch(`${members(ws)}/${m.id}`, { role: 'member' }), 403, 'insufficient_scope');
    // An admin changes an invitation's role below its own only, like a member's.
    const pending = (await invite(ws, { email: 'p@example.com', role: 'member' })).json.data;
    expectError(await admin.client.patch(`${members(ws)}/${pending.id}`, { role: 'admin' }), 403, 'insufficient_scope');
    // Another workspace's member: 404.
    const stranger = await server.workspace();
    const theirs = await ownerOf(stranger.workspaceId);
    expectError(await ws.client.patch(`${members(ws)}/${theirs.id}`, { role: 'admin' }), 404, 'not_found');
    expect((await db().system.query(`SELECT role FROM members WHERE id = $1`, [other.id])).rows[0].role).toBe('admin');
  });
});

describe("an invitation's role (DECISIONS §7)", () => {
  it('changes before acceptance: it stays invited, its link joins with the new role; an expired one is 409', async () => {
    const ws = await server.workspace();
    const invited = (await invite(ws, { email: 'budi@example.com', role: 'member' })).json.data;
    const changed = await ws.client.patch(`${members(ws)}/${invited.id}`, { role: 'read_only' });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.json.data).toMatchObject({ id: invited.id, role: 'read_only', status: 'invited' });
    const [event] = await eventsOf(ws.workspaceId, 'workspace.member_role_changed');
    expect(event).toMatchObject({ objectId: invited.id });
    // The same link (no new email) now joins as read_only.
    const { token, count } = invitationMail(outbox.dir, invited.id);
    expect(count).toBe(1);
    expect((await page(token)).html).toContain('as read-only member');
    const accepted = await page(token, 'POST');
    expect(accepted.status, accepted.html).toBe(200);
    const key = keyOnPage(accepted.html)!;
    const joined = createClient({ baseUrl: server.url, ...key });
    expectError(await joined.post('/v1/customers', { name: 'Sari' }), 403, 'insufficient_scope');
    const list = (await ws.client.get(members(ws))).json.data as { id: string }[];
    expect(list.find((m) => m.id === invited.id)).toMatchObject({ role: 'read_only', status: 'joined' });

    // An expired invitation is not changed.
    const stale = (await invite(ws, { email: 'stale@example.com', role: 'member' })).json.data;
    await db().system.query(`UPDATE members SET status = 'expired' WHERE id = $1`, [stale.id]);
    expectError(await ws.client.patch(`${members(ws)}/${stale.id}`, { role: 'admin' }), 409, 'conflict');
  });
});

describe('key administration follows the member role', () => {
  it("an admin revokes keys of members below it, not the owner's or another admin's; the owner revokes an admin's", async () => {
    const ws = await server.workspace();
    const admin = await joinMember(server, outbox, ws, 'admin');
    const other = await joinMember(server, outbox, ws, 'admin');
    const m = await joinMember(server, outbox, ws, 'member');
    const keyRow = async (keyId: string) =>
      (await db().system.query(`SELECT id FROM api_keys WHERE "keyId" = $1`, [keyId])).rows[0].id as string;
    expectError(await admin.client.delete(`/v1/api-keys/${ws.apiKeyId}`), 403, 'insufficient_scope');
    expectError(await admin.client.delete(`/v1/api-keys/${await keyRow(other.keyId)}`), 403, 'insufficient_scope');
    expect((await admin.client.delete(`/v1/api-keys/${await keyRow(m.keyId)}`)).status).toBe(204);
    expectError(await m.client.get(members(ws)), 401, 'invalid_key');
    // Its own keys, minted by itself, it may revoke.
    const own = await admin.client.post('/v1/api-keys', { name: 'own' });
    expect((await admin.client.delete(`/v1/api-keys/${own.json.data.id}`)).status).toBe(204);
    expect((await ws.client.delete(`/v1/api-keys/${await keyRow(other.keyId)}`)).status).toBe(204);
    expect((await ws.client.get(members(ws))).status).toBe(200);
  });
});

describe('remove', () => {
  it('204; member_removed; its keys are revoked and refused at once on REST and GraphQL', async () => {
    const ws = await server.workspace();
    const m = await joinMember(server, outbox, ws, 'member');
    const minted = await m.client.graphql('{ me { workspaceId } }');
    expect(minted.json.data.me.workspaceId).toBe(ws.workspaceId);

    const res = await ws.client.delete(`${members(ws)}/${m.id}`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expectError(await m.client.get(members(ws)), 401, 'invalid_key');
    const gql = await m.client.graphql('{ me { workspaceId } }');
    expect(gql.status).toBe(401);
    const keys = await db().system.query(`SELECT "revokedAt" FROM api_keys WHERE "memberId" = $1`, [m.id]);
    expect(keys.rows.length).toBe(1);
    expect(keys.rows[0].revokedAt).toBeInstanceOf(Date);
    // Key revocation is audited, not broadcast (spec Events); so was the key's creation on acceptance.
    const audited = await db().system.query(
      `SELECT a.action, a."actorMember" FROM audit_log a JOIN api_keys k ON k.id = a."targetId"
        WHERE k."memberId" = $1 ORDER BY a.at, a.id`,
      [m.id],
    );
    expect(audited.rows).toEqual([
      { action: 'api_key.created', actorMember: m.id },
      { action: 'api_key.revoked', actorMember: (await ownerOf(ws.workspaceId)).id },
    ]);
    const row = (await db().system.query(`SELECT status, "removedAt" FROM members WHERE id = $1`, [m.id])).rows[0];
    expect(row.status).toBe('removed');
    const events = await eventsOf(ws.workspaceId, 'workspace.member_removed');
    expect(events).toHaveLength(1);
    expect(events[0].data.object).toMatchObject({ id: m.id, status: 'removed', role: 'member' });

    // Again: 204, no second event. The same email can be invited again as a new member.
    expect((await ws.client.delete(`${members(ws)}/${m.id}`)).status).toBe(204);
    expect(await eventsOf(ws.workspaceId, 'workspace.member_removed')).toHaveLength(1);
    const back = await invite(ws, { email: m.email, role: 'member' });
    expect(back.status).toBe(201);
    expect(back.json.data.id).not.toBe(m.id);
  });

  it('the owner is 409 owner_immutable; admins remove only below them; removing an invitation kills its link', async () => {
    const ws = await server.workspace();
    const owner = await ownerOf(ws.workspaceId);
    const admin = await joinMember(server, outbox, ws, 'admin');
    const other = await joinMember(server, outbox, ws, 'admin');
    expectError(await admin.client.delete(`${members(ws)}/${owner.id}`), 409, 'owner_immutable');
    expectError(await ws.client.delete(`${members(ws)}/${owner.id}`), 409, 'owner_immutable');
    expectError(await admin.client.delete(`${members(ws)}/${other.id}`), 403, 'insufficient_scope');
    const pending = (await invite(ws, { email: 'gone@example.com', role: 'read_only' }, admin.client)).json.data;
    const { token } = invitationMail(outbox.dir, pending.id);
    expect((await admin.client.delete(`${members(ws)}/${pending.id}`)).status).toBe(204);
    expect((await page(token, 'POST')).status).toBe(404);
    expectError(await ws.client.delete(`${members(ws)}/mem_01J0000000000000000000000`), 404, 'not_found');
  });

  it('an open graphql-ws socket of the removed member closes with 4403 within seconds', async () => {
    const ws = await server.workspace();
    const m = await joinMember(server, outbox, ws, 'member');
    const { client: socket, closes, state } = signedSocket(server.url, m, { lazy: false });
    try {
      socket.subscribe(
        { query: 'subscription { events { id } }' },
        { next: () => {}, error: () => {}, complete: () => {} },
      );
      await until(() => state.connected, 'the connection', 8000);
      expect((await ws.client.delete(`${members(ws)}/${m.id}`)).status).toBe(204);
      await until(() => closes.length > 0, 'the close', config.keyCacheMs * 3 + 2000);
      expect(closes[0].code).toBe(4403);
    } finally {
      await socket.dispose();
    }
  });
});

describe('ownership transfer', () => {
  it('owner only (403 owner_required otherwise); the owner becomes admin; the event carries both members', async () => {
    const ws = await server.workspace();
    const owner = await ownerOf(ws.workspaceId);
    const admin = await joinMember(server, outbox, ws, 'admin');
    const url = `/v1/workspaces/${ws.workspaceId}/transfer-ownership`;
    expectError(await admin.client.post(url, { memberId: admin.id }), 403, 'owner_required');
    const pending = (await invite(ws, { email: 'later@example.com', role: 'admin' })).json.data;
    expectError(await ws.client.post(url, { memberId: pending.id }), 409, 'conflict');
    expectError(await ws.client.post(url, { memberId: owner.id }), 409, 'conflict');
    expectError(await ws.client.post(url, { memberId: 'mem_01J0000000000000000000000' }), 404, 'not_found');
    expectError(await ws.client.post(url, {}), 400, 'validation_error');

    const res = await ws.client.post(url, { memberId: admin.id });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toMatchObject({
      workspaceId: ws.workspaceId,
      previousOwner: { id: owner.id, role: 'admin', status: 'joined' },
      newOwner: { id: admin.id, role: 'owner', status: 'joined', email: admin.email },
    });
    const events = await eventsOf(ws.workspaceId, 'workspace.ownership_transferred');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ objectId: ws.workspaceId, mode: 'test' });
    expect(events[0].data).toEqual({ id: ws.workspaceId, object: res.json.data });

    // The old owner's key is an admin's now; the new owner's key may transfer (back).
    expectError(await ws.client.post(url, { memberId: owner.id }), 403, 'owner_required');
    expectError(await ws.client.delete(`${members(ws)}/${admin.id}`), 409, 'owner_immutable');
    const back = await admin.client.post(url, { memberId: owner.id });
    expect(back.status).toBe(200);
    expect(back.json.data.newOwner.id).toBe(owner.id);
    const { rows } = await db().system.query(
      `SELECT count(*)::int AS n FROM members WHERE "workspaceId" = $1 AND role = 'owner'`,
      [ws.workspaceId],
    );
    expect(rows[0].n).toBe(1);
  });
});

describe('expiry', () => {
  it('after 7 days on the injected clock the link answers 410 and the sweep marks the invitation expired', async () => {
    const ws = await server.workspace();
    const m = (await invite(ws, { email: 'late@example.com', role: 'member' })).json.data;
    const { token } = invitationMail(outbox.dir, m.id);
    clock.advance(7 * 24 * 3600 * 1000 - 60_000);
    try {
      // The sweep is global: invitations of earlier cases (older on a loaded machine) may expire now; this one does not.
      await expireInvitations();
      const { rows } = await db().system.query(`SELECT status FROM members WHERE id = $1`, [m.id]);
      expect(rows[0].status).toBe('invited');
      expect((await page(token)).status).toBe(200);
      clock.advance(61_000);
      // Past expiresAt the link is refused even before the sweep runs.
      const gone = await page(token, 'POST');
      expect(gone.status).toBe(410);
      expect(gone.html).toContain('This invitation has expired');
      expect(await expireInvitations()).toBeGreaterThanOrEqual(1);
      expect((await page(token)).status).toBe(410);
      // Without the secret, an expired invitation is as unknown as any other link.
      expect((await page(`${m.id}_${'0'.repeat(40)}`)).status).toBe(404);
    } finally {
      clock.reset();
    }
    const listed = await ws.client.get(`${members(ws)}?status=expired`);
    expect(listed.json.data).toEqual([expect.objectContaining({ id: m.id, status: 'expired' })]);
    expect(await eventsOf(ws.workspaceId, 'workspace.member_joined')).toEqual([]);
    // Inviting again re-opens it with a new link.
    const again = await invite(ws, { email: 'late@example.com', role: 'member' });
    expect(again.json.data).toMatchObject({ id: m.id, status: 'invited' });
    expect((await page(invitationMail(outbox.dir, m.id).token, 'POST')).status).toBe(200);
  });
});

afterAll(() => clock.reset());

describe('the invitation email over SMTP', () => {
  it('goes to the invited address as MJML HTML and text; a refusing server is 502 email_failed with the invitation saved', async () => {
    const smtp = await startSmtp();
    const previous = config.smtpUrl;
    try {
      config.smtpUrl = smtp.url;
      const ws = await server.workspace({ name: 'Kopi Kita' });
      await db().system.query(`UPDATE workspaces SET mode = 'live' WHERE id = $1`, [ws.workspaceId]);
      const res = await invite(ws, { email: 'rina@example.com', role: 'read_only' });
      expect(res.status).toBe(201);
      await until(() => smtp.received.length > 0, 'the invitation email');
      expect(smtp.received[0].rcpt).toEqual(['rina@example.com']);
      const mail = parseMime(smtp.received[0].raw);
      // The sender's name is ours, fixed: the workspace's name (anyone's choice) is only in the text.
      expect(mail.headers.from).toBe(`${config.smtpFromName} <${config.smtpFrom}>`);
      expect(mail.headers.from).not.toContain('Kopi Kita');
      const parts = leaves(mail);
      const html = parts.find((p) => (p.headers['content-type'] ?? '').startsWith('text/html'))!.body.toString();
      const text = parts.find((p) => (p.headers['content-type'] ?? '').startsWith('text/plain'))!.body.toString();
      const token = /\/invitations\/(mem_\w+?_[0-9a-f]{40})/.exec(text)![1];
      expect(html).toContain(`/invitations/${token}`);
      expect(html).toContain('Kopi Kita');
      expect(text).toContain('read-only member');
      expect((await page(token, 'POST')).status).toBe(200);

      // A mail server that is not there: 502, and the invitation exists; inviting again resends.
      config.smtpUrl = 'smtp://127.0.0.1:9';
      const refused = await invite(ws, { email: 'tono@example.com', role: 'member' });
      expectError(refused, 502, 'email_failed');
      const { rows } = await db().system.query(`SELECT status FROM members WHERE email = 'tono@example.com'`);
      expect(rows.map((r) => r.status)).toEqual(['invited']);
      config.smtpUrl = smtp.url;
      expect((await invite(ws, { email: 'tono@example.com', role: 'member' })).status).toBe(201);
      await until(() => smtp.received.length > 1, 'the resent invitation');
      expect(smtp.received[1].rcpt).toEqual(['tono@example.com']);
    } finally {
      config.smtpUrl = previous;
      await smtp.close();
    }
  });
});

describe('what an invitation carries, and to whom a sandbox sends it', () => {
  it('quotes a URL-like workspace name defanged, in the body only; the subject never names the workspace', async () => {
    const name = 'Pay at bank-login.example now: http://evil.example/verify';
    const ws = await server.workspace({ name });
    const res = await invite(ws, { email: 'dina@example.com', role: 'member' });
    expect(res.status, res.text).toBe(201);
    const mail = invitationMail(outbox.dir, res.json.data.id);
    expect(mail.mail.headers.subject).toBe('You are invited to join a workspace');
    const html = leaves(mail.mail)
      .filter((p) => (p.headers['content-type'] ?? '').startsWith('text/html'))
      .map((p) => p.body.toString('utf8'))
      .join('\n');
    const quoted = 'Pay at bank-login[.]example now: hxxp://evil[.]example/verify';
    expect(mail.text.split('\n')[0]).toBe(
      `owner@example.com invited you to join the workspace \u201c${quoted}\u201d as a member.`,
    );
    expect(html).toContain(quoted);
    for (const body of [mail.text, html, mail.mail.headers.subject]) {
      expect(body).not.toContain('bank-login.example');
      expect(body).not.toContain('http://evil');
    }
  });

  it('over SMTP, a workspace not activated for live mode invites only addresses that have signed in: else 422 recipient_unverified', async () => {
    const smtp = await startSmtp();
    const previous = config.smtpUrl;
    try {
      const sandbox = await server.workspace({ name: 'Sandbox Shop' });
      // An address that signed in before: a member elsewhere who opened its invitation link.
      const other = await server.workspace({ name: 'Other Shop' });
      const known = await joinMember(server, outbox, other, 'member', { email: 'known@example.com' });
      config.smtpUrl = smtp.url;

      const refused = await invite(sandbox, { email: 'stranger@example.com', role: 'admin' });
      expectError(refused, 422, 'recipient_unverified', 'email');
      expect(refused.json.error.message).toContain('invites only addresses that have signed in before');
      const { rows } = await db().system.query(`SELECT id FROM members WHERE email = 'stranger@example.com'`);
      expect(rows).toEqual([]);
      // GraphQL says the same.
      const gql = await sandbox.client.graphql(
        'mutation($id: ID!) { inviteMember(workspaceId: $id, input: { email: "stranger2@example.com", role: "member" }) { id } }',
        { id: sandbox.workspaceId },
      );
      expect(gql.json.errors?.[0]?.extensions?.code).toBe('recipient_unverified');

      const ok = await invite(sandbox, { email: known.email.toUpperCase(), role: 'member' });
      expect(ok.status, ok.text).toBe(201);
      await until(() => smtp.received.length > 0, 'the invitation to an address that signed in');
      expect(smtp.received.map((m) => m.rcpt)).toEqual([['known@example.com']]);

      // Once live, the workspace invites any address.
      await db().system.query(`UPDATE workspaces SET mode = 'live' WHERE id = $1`, [sandbox.workspaceId]);
      expect((await invite(sandbox, { email: 'stranger@example.com', role: 'admin' })).status).toBe(201);
      await until(() => smtp.received.length > 1, 'the invitation from the live workspace');
    } finally {
      config.smtpUrl = previous;
      await smtp.close();
    }
  });
});

describe('races and partners', () => {
  it('two acceptances of one link at once: exactly one joins', async () => {
    const ws = await server.workspace();
    const m = (await invite(ws, { email: 'twice@example.com', role: 'member' })).json.data;
    const { token } = invitationMail(outbox.dir, m.id);
    const results = await Promise.all([page(token, 'POST'), page(token, 'POST'), page(token, 'POST')]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 404, 404]);
    expect(await eventsOf(ws.workspaceId, 'workspace.member_joined')).toHaveLength(1);
    const keys = await db().system.query(`SELECT count(*)::int AS n FROM api_keys WHERE "memberId" = $1`, [m.id]);
    expect(keys.rows[0].n).toBe(1);
  });

  it("a partner manages a merchant's team on behalf (not its ownership); without the header it is 403", async () => {
    const partner = await server.workspace({ platformAdmin: true });
    const merchant = (await partner.client.post('/v1/workspaces', { name: 'Merchant', businessEmail: 'm@example.com' }))
      .json.data;
    const onBehalf = createClient({
      baseUrl: server.url,
      keyId: partner.keyId,
      secret: partner.secret,
      onBehalfOf: merchant.accountId,
    });
    const path = `/v1/workspaces/${merchant.id}/members`;
    expectError(await partner.client.get(path), 403, 'insufficient_scope');
    const list = await onBehalf.get(path);
    expect(list.json.data.map((x: { email: string; role: string }) => [x.email, x.role])).toEqual([
      ['m@example.com', 'owner'],
    ]);
    const invited = await onBehalf.post(path, { email: 'staff@example.com', role: 'admin' });
    expect(invited.status).toBe(201);
    const events = await eventsOf(merchant.id, 'workspace.member_invited');
    expect(events).toHaveLength(1);
    expectError(
      await onBehalf.post(`/v1/workspaces/${merchant.id}/transfer-ownership`, { memberId: invited.json.data.id }),
      403,
      'owner_required',
    );
    // The partner's own team is not the merchant's.
    expect((await partner.client.get(`/v1/workspaces/${partner.workspaceId}/members`)).json.data).toHaveLength(1);
  });
});
