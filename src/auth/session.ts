/**
 * Member sessions of the dashboard (docs/dashboard.md, Sessions). The cookie holds a random token;
 * the row holds its SHA-256. A session is one more credential of the one admission pipeline
 * (src/server/admission.ts): it authenticates as an API key of its member would, a full_access
 * grant bounded by the member's role, so a `read_only` member reads and cannot act. Every request
 * it authenticates also carries the session's CSRF token (a header, or the socket's
 * connection_init), which a page of another origin cannot read.
 */
import { randomBytes } from 'node:crypto';
import type { Auth } from '../core/auth/authenticate.ts';
import type { MemberRole } from '../core/auth/scopes.ts';
import { BoundedCache } from '../core/bounded-cache.ts';
import { clock } from '../core/clock.ts';
import { config } from '../core/config.ts';
import { hmacHex, safeEqual, sha256Hex } from '../core/crypto.ts';
import { db, inTenant, type Mode } from '../core/db/client.ts';
import { DomainError } from '../core/errors.ts';
import { newId } from '../core/ids.ts';

export const SESSION_COOKIE = 'svc_session';
/** The header (and connection_init field) every session request carries: `csrfOf(token)`. */
export const CSRF_HEADER = 'x-svc-csrf';
/** The mode a dashboard request acts in (`test` unless it says `live`): the mode switch. */
export const MODE_HEADER = 'x-svc-mode';
/** A session lasts 12 hours from sign-in (docs/dashboard.md, Sessions). */
export const SESSION_TTL_MS = 12 * 3600 * 1000;

export interface SessionRow {
  id: string;
  workspaceId: string;
  memberId: string;
  expiresAt: Date;
  revokedAt: Date | null;
  memberRole: MemberRole;
  memberStatus: string;
  email: string;
  accountId: string;
  tier: string;
  workspaceMode: Mode;
  workspaceName: string;
  archivedAt: Date | null;
  issuer: string;
  subject: string;
}

const SESSION_SQL = `SELECT s.id, s."workspaceId", s."memberId", s."expiresAt", s."revokedAt", s.issuer, s.subject,
  m.role AS "memberRole", m.status AS "memberStatus", m.email, w."accountId", w.tier,
  w.mode AS "workspaceMode", coalesce(w."brandName", w.name) AS "workspaceName", w."archivedAt"
  FROM dashboard_sessions s
  JOIN members m ON m."workspaceId" = s."workspaceId" AND m.id = s."memberId"
  JOIN workspaces w ON w.id = s."workspaceId"`;

// Cached like API keys (`keyCacheMs`, 2 s): the bound on how long a removed member or a revoked
// session keeps working on another instance or an open socket.
const cache = new BoundedCache<string, { row: SessionRow | null; at: number }>(10_000);

async function load(key: string, where: string, value: string): Promise<SessionRow | null> {
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < config.keyCacheMs) return hit.row;
  const { rows } = await db().system.query<SessionRow>(`${SESSION_SQL} WHERE ${where} = $1`, [value]);
  const row = rows[0] ?? null;
  cache.set(key, { row, at: Date.now() });
  return row;
}
/** The shape every cookie token has (32 random bytes, base64url): anything else never reaches the cache or the database. */
const TOKEN = /^[\w-]{43}$/;
const byToken = async (token: string) => {
  if (!TOKEN.test(token)) return null;
  const hash = sha256Hex(token);
  return load(`t:${hash}`, 's."tokenHash"', hash);
};
const byId = (id: string) => load(`i:${id}`, 's.id', id);

/** The CSRF token of a session: derived from its cookie, so nothing more is stored. */
export const csrfOf = (token: string) => hmacHex(sha256Hex(token), 'svc dashboard csrf');

const ended = () => new DomainError('invalid_key', 'The dashboard session has ended; sign in again');

/** A live session of a joined member of a workspace in service, or the 401 of an ended one. */
function assertLive(row: SessionRow | null): SessionRow {
  if (!row || row.revokedAt || row.expiresAt <= clock.now() || row.memberStatus !== 'joined' || row.archivedAt)
    throw ended();
  return row;
}

function authOf(row: SessionRow, mode: Mode): Auth {
  // spec: live data only while the workspace is live (as for live keys: docs/decisions.md, Workspace lifecycle).
  if (mode === 'live' && row.workspaceMode !== 'live')
    throw new DomainError('live_mode_inactive', 'This workspace is not activated for live mode');
  return {
    apiKeyId: row.id,
    keyId: row.id,
    mode,
    role: 'full_access',
    scopes: [],
    memberId: row.memberId,
    memberRole: row.memberRole,
    keyWorkspaceId: row.workspaceId,
    isPlatformAdmin: false,
    workspaceId: row.workspaceId,
    accountId: row.accountId,
    tier: row.tier,
    onBehalfOf: false,
  };
}

export function cookieValue(cookieHeader: string | undefined, name: string): string | undefined {
  for (const part of (cookieHeader ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

const modeOf = (value: string | undefined): Mode => (value === 'live' ? 'live' : 'test');

/** What the session credential reads from a request (src/server/admission.ts `Presented`). */
export interface SessionRequest {
  header(name: string): string | undefined;
}

export async function authenticateSession(p: SessionRequest): Promise<Auth> {
  const token = cookieValue(p.header('cookie'), SESSION_COOKIE) ?? '';
  const csrf = p.header(CSRF_HEADER) ?? '';
  if (!token || !safeEqual(csrfOf(token), csrf))
    throw new DomainError('invalid_signature', `A dashboard request carries its session's ${CSRF_HEADER} header`);
  return authOf(assertLive(await byToken(token)), modeOf(p.header(MODE_HEADER)));
}

/** The same session looked up again (a removed member, sign-out, expiry), with the member's role as it is now. */
export async function recheckSession(auth: Auth): Promise<Auth> {
  const row = assertLive(await byId(auth.apiKeyId));
  return authOf(row, auth.mode);
}

/** The session behind a cookie (the dashboard's own routes: who am I, sign-out), or null. */
export async function sessionOf(cookieHeader: string | undefined) {
  const token = cookieValue(cookieHeader, SESSION_COOKIE);
  if (!token) return null;
  try {
    return { token, row: assertLive(await byToken(token)) };
  } catch {
    return null;
  }
}

export interface SignedIn {
  workspaceId: string;
  memberId: string;
  issuer: string;
  subject: string;
}

/** A new session for a member who just signed in: its cookie token (shown to the browser only). */
export async function createSession(s: SignedIn): Promise<{ id: string; token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const id = newId('dashboardSession');
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  await inTenant({ workspaceId: s.workspaceId, modes: ['test', 'live'] }, (tx) =>
    tx.dashboardSession.create({
      data: { ...s, id, tokenHash: sha256Hex(token), createdAt: now, expiresAt },
    }),
  );
  return { id, token, expiresAt };
}

export interface WorkspaceChoice {
  id: string;
  name: string;
  role: MemberRole;
}

/**
 * The workspaces the session's identity has joined (the switcher, docs/dashboard.md, Sign-in), oldest
 * membership first, at most 50. Cross-tenant by nature: authentication, on the system pool.
 */
export async function workspacesOf(row: Pick<SessionRow, 'issuer' | 'subject'>): Promise<WorkspaceChoice[]> {
  const { rows } = await db().system.query<WorkspaceChoice>(
    `SELECT w.id, coalesce(w."brandName", w.name) AS name, m.role FROM members m JOIN workspaces w ON w.id = m."workspaceId"
      WHERE m."identityIssuer" = $1 AND m."identitySubject" = $2 AND m.status = 'joined' AND w."archivedAt" IS NULL
      ORDER BY m."joinedAt", m.id LIMIT 50`,
    [row.issuer, row.subject],
  );
  return rows;
}

/**
 * A new session in `workspaceId` for the same identity, when it has joined that workspace (else
 * null: the caller's 404); the current session is revoked, so one browser holds one live session.
 */
export async function switchWorkspace(current: SessionRow, token: string, workspaceId: string) {
  const { rows } = await db().system.query<{ id: string }>(
    `SELECT m.id FROM members m JOIN workspaces w ON w.id = m."workspaceId"
      WHERE m."workspaceId" = $1 AND m."identityIssuer" = $2 AND m."identitySubject" = $3 AND m.status = 'joined'
        AND w."archivedAt" IS NULL`,
    [workspaceId, current.issuer, current.subject],
  );
  if (!rows[0]) return null;
  const next = await createSession({
    workspaceId,
    memberId: rows[0].id,
    issuer: current.issuer,
    subject: current.subject,
  });
  await revokeSession(current, token);
  return next;
}

/** How long an ended (expired or signed-out) session row is kept for support before the purge. */
export const ENDED_SESSION_KEEP_MS = 24 * 3600 * 1000;

/**
 * Deletes session rows ended more than a day ago (docs/dashboard.md, Sessions), `batch` rows per
 * statement so a backlog never holds one long lock: hourly by the `session-purge` job.
 */
export async function purgeEndedSessions(now = clock.now(), batch = 5000): Promise<number> {
  const cutoff = new Date(now.getTime() - ENDED_SESSION_KEEP_MS);
  let deleted = 0;
  for (;;) {
    const { rowCount } = await db().system.query(
      `DELETE FROM dashboard_sessions WHERE ("workspaceId", id) IN (
         SELECT "workspaceId", id FROM dashboard_sessions WHERE "expiresAt" < $1 OR "revokedAt" < $1 LIMIT $2)`,
      [cutoff, batch],
    );
    deleted += rowCount ?? 0;
    if ((rowCount ?? 0) < batch) return deleted;
  }
}

/** Sign-out: the row is revoked, so the cookie (and any socket it opened) stops working at once here. */
export async function revokeSession(row: Pick<SessionRow, 'workspaceId' | 'id'>, token: string) {
  await inTenant({ workspaceId: row.workspaceId, modes: ['test', 'live'] }, (tx) =>
    tx.dashboardSession.updateMany({
      where: { workspaceId: row.workspaceId, id: row.id, revokedAt: null },
      data: { revokedAt: clock.now() },
    }),
  );
  cache.delete(`t:${sha256Hex(token)}`);
  cache.delete(`i:${row.id}`);
}
