/**
 * A workspace's team (spec Workspace and member; DECISIONS §2, §7): list, invite, change role,
 * remove, transfer ownership, and the acceptance that makes an invitation a member. Members are
 * workspace-level (no mode); their events go to the acting key's mode (acceptance: the
 * invitation's). Every change, its event and the keys it revokes commit together; the invitation
 * email is sent after commit (its link's secret is never stored, only its hash).
 */
import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import type { Auth } from '../../core/auth/authenticate.ts';
import { forgetKey } from '../../core/auth/authenticate.ts';
import { assertOwner, outranks, type MemberRole } from '../../core/auth/scopes.ts';
import { audit } from '../../core/audit.ts';
import { clock } from '../../core/clock.ts';
import { config } from '../../core/config.ts';
import { randomHex, sha256Hex } from '../../core/crypto.ts';
import { db, inTenant, type Mode, type Tx } from '../../core/db/client.ts';
import { DomainError, errorsFor } from '../../core/errors.ts';
import { hostedLink, hostedSecretMatches, parseHostedToken } from '../../core/hosted-link.ts';
import { newId } from '../../core/ids.ts';
import { lockName } from '../../core/locks.ts';
import { emit } from '../../core/outbox.ts';
import { keysetList, listPageSize } from '../../core/pagination.ts';
import { canMove, nextState, sqlIn, statusesWhere } from '../../core/state-machine.ts';
import { sql } from '../../core/db/sql-template.ts';
import { oneOf } from '../../core/validation.ts';
import { toWire } from '../../core/wire.ts';
import type { Member } from '../../generated/prisma/client.ts';
import { insertApiKey, lockForKey } from '../api-keys/service.ts';
import { visible } from '../../core/auth/visible.ts';
import { memberFields } from './fields.ts';
import { sendInvitation } from './invitation-email.ts';
import {
  memberExpired,
  memberInvited,
  memberJoined,
  memberMachine,
  memberRemoved,
  type MemberStatus,
} from './states.ts';
import type { InviteMemberInput, ListMembersArgs, TransferOwnershipInput, UpdateMemberInput } from './schema.ts';

const err = errorsFor('member');
const BOTH = ['test', 'live'] as const;
/** spec Limits: "Workspace invitation expires after 7 days". */
export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;
/** spec: `owner` cannot be invited; it is only transferred. */
const grantableRoles = ['admin', 'member', 'read_only'] as const;
const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/;
/** The invitation link's path: `{hosted_base}/invitations/<mem_id>_<secret>` (src/core/hosted-link.ts). */
export const INVITATION_PATH = 'invitations';

export const memberSnapshot = (m: Member) => toWire(m, memberFields);

/** Team administration acts only below the caller's own role (403 insufficient_scope). */
function assertBelow(auth: Auth, role: string, what: string) {
  if (!outranks(auth, role as MemberRole))
    throw new DomainError('insufficient_scope', `Only a role above ${role} can ${what}`, { resource: 'member' });
}

function checkEmail(value: string) {
  const email = (value ?? '').trim().toLowerCase();
  if (email.length < 3 || email.length > 254 || !EMAIL.test(email))
    throw err.validation('email', 'email must be one email address');
  return email;
}

function checkRole(value: string) {
  if (value === 'owner')
    throw err.validation('role', 'owner cannot be invited or assigned; the owner transfers ownership');
  return oneOf(value ?? '', grantableRoles, 'role', 'member');
}

/** The member row under its row lock, in the workspace (another workspace's id: 404). */
async function lockMember(tx: Tx, workspaceId: string, id: string): Promise<Member> {
  const [row] = await tx.$queryRaw<Member[]>`
    SELECT * FROM members WHERE "workspaceId" = ${workspaceId} AND id = ${id} FOR UPDATE`;
  if (!row) throw err.notFound();
  return row;
}

/** The keys that act for these members: forgotten by this instance's key cache after commit. */
async function keyIdsOf(tx: Tx, workspaceId: string, memberIds: string[]) {
  const rows = await tx.apiKey.findMany({
    where: { workspaceId, memberId: { in: memberIds } },
    select: { keyId: true },
  });
  return rows.map((r) => r.keyId);
}

export async function listMembers(ctx: Context, workspaceId: string, args: ListMembersArgs) {
  const auth = authorize(ctx, 'svc:member:read');
  const status = args.status ? oneOf(args.status, memberMachine.statuses, 'status', 'member') : null;
  const filters = { status };
  return keysetList(
    { args, workspaceId: auth.workspaceId, filters, limit: listPageSize.members, column: 'createdAt' },
    (ks) =>
      inTenant(tenant(auth, BOTH), async (tx) => {
        await visible(tx, auth, workspaceId);
        return tx.member.findMany({
          // Removed members are history: listed only when asked for.
          where: { workspaceId, status: status ?? { not: memberRemoved }, ...ks.where },
          orderBy: ks.orderBy,
          take: ks.take,
        });
      }),
  );
}

/**
 * spec: invite (`admin`, `member`, `read_only`). Inviting an email with a pending or expired
 * invitation sends a fresh one (new link, new 7 days); a joined member is 409 conflict.
 */
export async function inviteMember(ctx: Context, workspaceId: string, input: InviteMemberInput) {
  const auth = authorize(ctx, 'svc:member:write');
  const email = checkEmail(input.email);
  const role = checkRole(input.role);
  assertBelow(auth, role, `invite a ${role}`);
  const secret = randomHex(20);
  const { member, workspaceName, inviterEmail } = await inTenant(tenant(auth, BOTH), async (tx) => {
    const ws = await visible(tx, auth, workspaceId);
    await assertMayMailInvitation(ws.mode, email);
    await assertInvitationQuota(tx, workspaceId);
    await lockName(tx, `member:${workspaceId}:${email}`);
    const [existing] = await tx.$queryRaw<Member[]>`
      SELECT * FROM members WHERE "workspaceId" = ${workspaceId} AND lower(email) = ${email} AND status <> ${memberRemoved}
      FOR UPDATE`;
    if (existing?.status === memberJoined) throw err.conflict(`${email} is already a member of this workspace`);
    const next = nextState(memberMachine, (existing?.status as MemberStatus) ?? null, 'invite');
    const now = clock.now();
    const invitation = {
      role,
      status: next.to,
      invitedAt: now,
      expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
      inviteTokenHash: sha256Hex(secret),
      inviteMode: auth.mode,
      invitedBy: auth.memberId,
    };
    const row = existing
      ? await tx.member.update({ where: { id: existing.id }, data: invitation })
      : await tx.member.create({ data: { id: newId('member'), workspaceId, email, createdAt: now, ...invitation } });
    for (const type of next.events)
      await emit(tx, { workspaceId, mode: auth.mode }, type, memberSnapshot(row), { requestId: ctx.requestId });
    const inviter = auth.memberId ? await tx.member.findFirst({ where: { workspaceId, id: auth.memberId } }) : null;
    return { member: row, workspaceName: ws.brandName ?? ws.name, inviterEmail: inviter?.email ?? null };
  });
  await sendInvitation({
    to: member.email,
    memberId: member.id,
    workspaceName,
    role,
    inviterEmail,
    acceptUrl: hostedLink(INVITATION_PATH, member.id, secret),
    expiresAt: member.expiresAt!,
  });
  return member;
}

/**
 * An address that has signed in before: some member row holds it with a confirmed identity (an
 * OIDC sign-in, or the emailed link opened). Cross-tenant by nature, on the system pool
 * (docs/scaling.md).
 */
async function hasSignedIn(email: string): Promise<boolean> {
  const { rows } = await db().system.query(
    `SELECT 1 FROM members WHERE lower(email) = $1 AND "identityIssuer" IS NOT NULL LIMIT 1`,
    [email],
  );
  return rows.length > 0;
}

/**
 * A workspace not activated for live mode (a free sandbox anyone can make) mails invitations only
 * to addresses that have signed in before, else 422 recipient_unverified: it must not mail
 * strangers in our name (docs/security.md, Invitation mail). Without SMTP the mail stays in the
 * development outbox and nothing leaves, as for test-mode receipts (src/modules/receipts/service.ts).
 */
async function assertMayMailInvitation(workspaceMode: string, email: string) {
  if (!config.smtpUrl || workspaceMode === 'live' || (await hasSignedIn(email))) return;
  throw new DomainError(
    'recipient_unverified',
    `A workspace not yet activated for live mode invites only addresses that have signed in before; ${email} ` +
      'has not. Activate live mode to invite a new address',
    { resource: 'member', field: 'email' },
  );
}

const DAY_MS = 24 * 3600 * 1000;
/**
 * At most `config.invitationsPerDay` invitations (new or re-sent) per workspace in 24 hours: an
 * invitation mails an address nobody verified, so a workspace must not become a mailer
 * (docs/security.md). Serialised per workspace; 429 with Retry-After until the oldest one ages out.
 */
async function assertInvitationQuota(tx: Tx, workspaceId: string) {
  await lockName(tx, `invitations:${workspaceId}`);
  const since = new Date(clock.now().getTime() - DAY_MS);
  const [{ n, oldest }] = await tx.$queryRaw<{ n: number; oldest: Date | null }[]>`
    SELECT count(*)::int AS n, min("invitedAt") AS oldest FROM members
    WHERE "workspaceId" = ${workspaceId} AND "invitedAt" > ${since}`;
  if (n < config.invitationsPerDay) return;
  const wait = Math.max(1, Math.ceil(((oldest?.getTime() ?? 0) + DAY_MS - clock.now().getTime()) / 1000));
  throw new DomainError(
    'rate_limited',
    `A workspace sends at most ${config.invitationsPerDay} invitations in 24 hours; the next one in ${wait} s`,
    { resource: 'member', headers: { 'retry-after': String(wait) } },
  );
}

/** spec: role update (`admin`, `member`, `read_only`), only below the caller's own role; the owner is 409 owner_immutable. */
export async function updateMember(ctx: Context, workspaceId: string, id: string, input: UpdateMemberInput) {
  const auth = authorize(ctx, 'svc:member:write');
  const role = checkRole(input.role);
  const out = await inTenant(tenant(auth, BOTH), async (tx) => {
    await visible(tx, auth, workspaceId);
    const m = await lockMember(tx, workspaceId, id);
    if (m.role === 'owner') throw err.of('owner_immutable', 'The owner keeps its role; transfer ownership instead');
    assertBelow(auth, m.role, `change the role of a ${m.role}`);
    assertBelow(auth, role, `make someone ${role}`);
    const status = m.status as MemberStatus;
    // An invitation's role changes too (DECISIONS §7); an expired or removed one is 409.
    const trigger = canMove(memberMachine, status, 'change_invited_role') ? 'change_invited_role' : 'change_role';
    const next = nextState(memberMachine, status, trigger);
    if (m.role === role) return { row: m, keyIds: [] };
    const row = await tx.member.update({ where: { id }, data: { role, status: next.to } });
    for (const type of next.events)
      await emit(tx, { workspaceId, mode: auth.mode }, type, memberSnapshot(row), {
        requestId: ctx.requestId,
        previousAttributes: { role: m.role },
      });
    return { row, keyIds: await keyIdsOf(tx, workspaceId, [id]) };
  });
  // The member's keys follow the new role at once here, within SVC_KEY_CACHE_MS elsewhere.
  out.keyIds.forEach(forgetKey);
  return out.row;
}

/**
 * spec: remove (204); 409 owner_immutable for the owner. The keys acting for the member are
 * revoked in the same transaction (authentication also refuses a removed member's keys), so they
 * stop at once here and within SVC_KEY_CACHE_MS on other instances and open sockets. Removing a
 * removed member answers 204 again.
 */
export async function removeMember(ctx: Context, workspaceId: string, id: string) {
  const auth = authorize(ctx, 'svc:member:write');
  const out = await inTenant(tenant(auth, BOTH), async (tx) => {
    await visible(tx, auth, workspaceId);
    const m = await lockMember(tx, workspaceId, id);
    if (m.role === 'owner') throw err.of('owner_immutable', 'The owner cannot be removed; transfer ownership first');
    if (m.status === memberRemoved) return { row: m, keyIds: [] };
    assertBelow(auth, m.role, `remove a ${m.role}`);
    const next = nextState(memberMachine, m.status as MemberStatus, 'remove');
    const now = clock.now();
    const row = await tx.member.update({
      where: { id },
      data: { status: next.to, removedAt: now, inviteTokenHash: null },
    });
    const keyIds = await keyIdsOf(tx, workspaceId, [id]);
    const live = await tx.apiKey.findMany({
      where: { workspaceId, memberId: id, revokedAt: null },
      select: { id: true },
    });
    await tx.apiKey.updateMany({ where: { workspaceId, memberId: id, revokedAt: null }, data: { revokedAt: now } });
    // spec Events: key revocation is not broadcast, it is recorded in the audit log.
    for (const k of live) await audit(tx, auth, 'api_key.revoked', k.id, ctx.requestId);
    for (const type of next.events)
      await emit(tx, { workspaceId, mode: auth.mode }, type, memberSnapshot(row), { requestId: ctx.requestId });
    return { row, keyIds };
  });
  out.keyIds.forEach(forgetKey);
  return out.row;
}

export interface OwnershipTransfer {
  workspaceId: string;
  previousOwner: Member;
  newOwner: Member;
}
export const transferSnapshot = (t: OwnershipTransfer) => ({
  workspaceId: t.workspaceId,
  previousOwner: memberSnapshot(t.previousOwner),
  newOwner: memberSnapshot(t.newOwner),
});

/**
 * spec Member roles: ownership transfer is owner only (DECISIONS §2: a key acting for the current
 * owner, else 403 owner_required). The owner becomes an admin; `workspace.ownership_transferred`
 * carries both members (data.id is the workspace).
 */
export async function transferOwnership(ctx: Context, workspaceId: string, input: TransferOwnershipInput) {
  const auth = authorize(ctx, 'svc:member:write');
  assertOwner(auth, 'transfer ownership');
  const out = await inTenant(tenant(auth, BOTH), async (tx) => {
    await visible(tx, auth, workspaceId);
    // The key's own member must be this workspace's owner (a partner's owner on behalf of a merchant is not).
    const owner = auth.memberId ? await lockMember(tx, workspaceId, auth.memberId).catch(() => null) : null;
    if (!owner || owner.role !== 'owner' || owner.status !== memberJoined)
      throw err.of('owner_required', 'Only a key acting for the workspace owner can transfer ownership');
    const target = await lockMember(tx, workspaceId, input.memberId);
    if (target.id === owner.id) throw err.conflict('This member is already the owner');
    const next = nextState(memberMachine, target.status as MemberStatus, 'transfer_ownership');
    // Demote first: one owner per workspace is a unique index.
    const previousOwner = await tx.member.update({ where: { id: owner.id }, data: { role: 'admin' } });
    const newOwner = await tx.member.update({ where: { id: target.id }, data: { role: 'owner', status: next.to } });
    const transfer = { workspaceId, previousOwner, newOwner };
    for (const type of next.events)
      await emit(tx, { workspaceId, mode: auth.mode }, type, transferSnapshot(transfer), {
        requestId: ctx.requestId,
        objectId: workspaceId,
      });
    return { transfer, keyIds: await keyIdsOf(tx, workspaceId, [owner.id, target.id]) };
  });
  out.keyIds.forEach(forgetKey);
  return out.transfer;
}

/**
 * The external identity that completes an invitation: an OIDC login's `iss` and `sub` with the
 * email the provider verified for it, or the emailed link.
 */
export interface AcceptingIdentity {
  issuer: string;
  subject: string;
  email: string;
}

/** One mailbox: compared trimmed and case-insensitively (addresses are stored lower-cased). */
export const sameEmail = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();
/** The identity of a development acceptance (the link or `svc members accept`): possession of the invited mailbox. */
export const EMAIL_LINK_ISSUER = 'svc:email-link';

export interface Acceptance {
  member: Member;
  workspace: { id: string; name: string };
  /** The member's first key (full_access, in the invitation's mode), shown once; null at the tier cap. */
  apiKey: { id: string; keyId: string; key: string; environment: Mode; role: string } | null;
}

/** The invitation a token names, or 404 (malformed, unknown, wrong secret, used, replaced) or 410 (expired). */
async function invitationOf(token: string) {
  const parsed = parseHostedToken('member', token);
  if (!parsed) throw err.notFound('invitation');
  const { rows } = await db().system.query<{
    workspaceId: string;
    status: string;
    inviteTokenHash: string | null;
    expiresAt: Date | null;
  }>(`SELECT "workspaceId", status, "inviteTokenHash", "expiresAt" FROM members WHERE id = $1`, [parsed.id]);
  const row = rows[0];
  const hash = sha256Hex(parsed.secret);
  // Only the link's holder learns that it expired; anyone else gets the 404 of an unknown link.
  if (!row?.inviteTokenHash || !hostedSecretMatches(row.inviteTokenHash, hash)) throw err.notFound('invitation');
  if (row.status === memberExpired || (row.expiresAt && row.expiresAt <= clock.now()))
    throw new DomainError('gone', 'This invitation has expired', { resource: 'member' });
  return { id: parsed.id, workspaceId: row.workspaceId, hash };
}

/** What the acceptance page shows before the click: the workspace, the email and the role. */
export async function invitationView(token: string) {
  const inv = await invitationOf(token);
  return inTenant({ workspaceId: inv.workspaceId, modes: BOTH }, async (tx) => {
    const m = await tx.member.findFirstOrThrow({ where: { workspaceId: inv.workspaceId, id: inv.id } });
    const ws = await tx.workspace.findFirstOrThrow({ where: { id: inv.workspaceId } });
    if (ws.archivedAt) throw new DomainError('gone', 'This workspace is archived', { resource: 'member' });
    return {
      workspaceId: ws.id,
      workspaceName: ws.brandName ?? ws.name,
      slug: ws.slug,
      email: m.email,
      role: m.role,
      expiresAt: m.expiresAt!,
    };
  });
}

/**
 * Acceptance: how a member joins (spec Authentication: members sign in through an external
 * identity provider; invitations are accepted that way). The dashboard's accept page calls this
 * with the signed-in identity's issuer, subject and verified email; development uses the emailed
 * link (`POST /invitations/<token>`) or `svc members accept <token>`, whose identity is the invited
 * mailbox. Only an identity whose verified email is the invited address accepts (docs/dashboard.md,
 * Accepting an invitation): a link opened by someone else joins nothing. One use: the token's hash
 * is cleared. The member gets a first full_access key in the invitation's mode (it acts for the
 * member, so the member's role bounds it), which is how a new member reaches the API.
 */
export async function acceptInvitation(token: string, identity?: AcceptingIdentity): Promise<Acceptance> {
  const inv = await invitationOf(token);
  return inTenant({ workspaceId: inv.workspaceId, modes: BOTH }, async (tx) => {
    const ws = await tx.workspace.findFirstOrThrow({ where: { id: inv.workspaceId } });
    // spec Workspace: an archived workspace is out of service until restored; its links wait (or expire).
    if (ws.archivedAt) throw new DomainError('gone', 'This workspace is archived', { resource: 'member' });
    const m = await lockMember(tx, inv.workspaceId, inv.id);
    // Re-checked under the lock: two acceptances of one link, or a re-invite in between, find it used.
    if (m.status !== memberInvited || !m.inviteTokenHash || !hostedSecretMatches(m.inviteTokenHash, inv.hash))
      throw err.notFound('invitation');
    if (m.expiresAt && m.expiresAt <= clock.now())
      throw new DomainError('gone', 'This invitation has expired', { resource: 'member' });
    if (identity && !sameEmail(identity.email, m.email))
      throw new DomainError('insufficient_scope', 'This invitation is for another email address', {
        resource: 'member',
      });
    const who = identity ?? { issuer: EMAIL_LINK_ISSUER, subject: m.email };
    const taken = await tx.member.findFirst({
      where: {
        workspaceId: inv.workspaceId,
        identityIssuer: who.issuer,
        identitySubject: who.subject,
        status: { not: memberRemoved },
      },
    });
    if (taken) throw err.conflict('This identity is already a member of the workspace');
    const next = nextState(memberMachine, memberInvited, 'accept');
    const mode = (m.inviteMode as Mode | null) ?? 'test';
    const row = await tx.member.update({
      where: { id: m.id },
      data: {
        status: next.to,
        joinedAt: clock.now(),
        expiresAt: null,
        inviteTokenHash: null,
        identityIssuer: who.issuer,
        identitySubject: who.subject,
      },
    });
    let apiKey: Acceptance['apiKey'] = null;
    if ((await lockForKey(tx, ws.id, ws.tier)).room) {
      const key = `sk_${mode}_${randomHex(24)}`;
      const k = await insertApiKey(tx, {
        workspaceId: ws.id,
        mode,
        name: `${row.email} (joined)`.slice(0, 80),
        role: 'full_access',
        scopes: [],
        secret: key,
        memberId: row.id,
      });
      apiKey = { id: k.id, keyId: k.keyId, key, environment: mode, role: k.role };
      await tx.auditLog.create({
        data: {
          id: newId('auditLog'),
          workspaceId: ws.id,
          mode,
          actorKeyId: null,
          actorMember: row.id,
          action: 'api_key.created',
          targetId: k.id,
          requestId: null,
        },
      });
    }
    for (const type of next.events)
      await emit(tx, { workspaceId: ws.id, mode }, type, memberSnapshot(row), { source: 'invitation' });
    return { member: row, workspace: { id: ws.id, name: ws.name }, apiKey };
  });
}

const expirable = sqlIn(sql`status`, statusesWhere(memberMachine, 'expire')).text;

/**
 * The expiry sweep (spec: "invitation expires after 7 days"), on the injected clock: pending
 * invitations past `expiresAt` become `expired` and their link answers 410 (no event: the spec
 * names none). Acceptance checks `expiresAt` itself, so the sweep's delay never extends a link.
 * Cross-tenant, on the system pool (docs/scaling.md, sweeps).
 */
export async function expireInvitations(at: Date = clock.now()): Promise<number> {
  const { rowCount } = await db().system.query(
    `UPDATE members SET status = $2 WHERE ${expirable} AND "expiresAt" <= $1`,
    [at, memberMachine.moves.expire.to],
  );
  return rowCount ?? 0;
}
