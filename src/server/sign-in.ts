/**
 * Members sign in to the dashboard with OpenID Connect, authorization code with PKCE (spec
 * Workspace and member: members sign in through an external identity provider; invitations are
 * accepted that way). `openid-client` is the relying party; the provider is `config.oidc` (in
 * development and tests, src/auth/dev-idp.ts). docs/dashboard.md, Sign-in, says who becomes which
 * member. Routes: login, callback, session (who am I, the CSRF token), switch, logout, and accept
 * (an invitation, only by an explicit POST: docs/dashboard.md, Accepting an invitation).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as oidc from 'openid-client';
import { clock } from '../core/clock.ts';
import { config } from '../core/config.ts';
import { decrypt, encrypt, hmacHex, safeEqual, sha256Hex } from '../core/crypto.ts';
import { db } from '../core/db/client.ts';
import { isDomainError } from '../core/errors.ts';
import { enforceRate, type RateLimiter } from '../core/rate-limit.ts';
import { clientBucket, replyError } from './edge-route.ts';
import { parseJsonBody, rawBody } from './edge.ts';
import { logger } from '../core/logger.ts';
import { type Language, messages } from '../core/i18n/index.ts';
import { pageLanguage } from '../hosted/language.ts';
import { DASHBOARD_PATH } from '../dashboard/serve.ts';
import {
  acceptInvitation,
  type AcceptingIdentity,
  EMAIL_LINK_ISSUER,
  invitationView,
  sameEmail,
} from '../modules/members/service.ts';
import { ACCEPT_PATH, confirmPage, noticePage } from './invitation-page.ts';
import {
  cookieValue,
  createSession,
  CSRF_HEADER,
  csrfOf,
  revokeSession,
  SESSION_COOKIE,
  SESSION_TTL_MS,
  sessionOf,
  switchWorkspace,
  workspacesOf,
  type SessionRow,
} from '../auth/session.ts';
import { sqlStatus } from '../core/state-machine.ts';
import { memberJoined } from '../modules/members/states.ts';

const LOGIN_COOKIE = 'svc_oidc';
const LOGIN_TTL_MS = 10 * 60 * 1000;
const LOGIN_AAD = 'svc dashboard login';
const AUTH_PATH = `${DASHBOARD_PATH}/auth`;

/** Pages and JSON of sign-in: never framed, never cached. */
export const authHeaders = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

let discovered: { issuer: string; at: number; config: Promise<oidc.Configuration> } | undefined;
/** The provider's configuration, discovered once per issuer (an hour at most, or after a failure). */
function provider(): Promise<oidc.Configuration> {
  const { issuer, clientId, clientSecret } = config.oidc;
  if (!issuer) throw new Error('SVC_OIDC_ISSUER is not set: the dashboard has no identity provider');
  if (discovered?.issuer === issuer && Date.now() - discovered.at < 3600_000) return discovered.config;
  const url = new URL(issuer);
  const found = oidc.discovery(
    url,
    clientId,
    clientSecret,
    undefined,
    // Plain http only for a provider on this machine (the development one).
    isLoopback(url) ? { execute: [oidc.allowInsecureRequests] } : undefined,
  );
  discovered = { issuer, at: Date.now(), config: found };
  found.catch(() => {
    if (discovered?.config === found) discovered = undefined;
  });
  return found;
}
const acceptUrl = (token: string) => `${ACCEPT_PATH}?invitation=${encodeURIComponent(token)}`;
const isLoopback = (u: URL) => ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);

/** This service's origin as the browser sees it. */
const originOf = (req: FastifyRequest) => config.publicUrl?.replace(/\/$/, '') ?? `${req.protocol}://${req.host}`;
const secure = (req: FastifyRequest) => originOf(req).startsWith('https:');

function cookie(req: FastifyRequest, name: string, value: string, maxAgeMs: number, path: string) {
  const attrs = [`${name}=${encodeURIComponent(value)}`, `Path=${path}`, 'HttpOnly', 'SameSite=Lax'];
  attrs.push(`Max-Age=${Math.max(0, Math.floor(maxAgeMs / 1000))}`);
  if (secure(req)) attrs.push('Secure');
  return attrs.join('; ');
}

interface LoginState {
  verifier: string;
  state: string;
  nonce: string;
  invitation: string | null;
  at: number;
}
/** A cookie's value sealed with the master key for one purpose (`aad`): the browser can neither read nor forge it. */
const seal = (value: { at: number }, aad: string) =>
  Buffer.from(encrypt(Buffer.from(JSON.stringify(value)), aad)).toString('base64url');
function unseal<T extends { at: number }>(value: string | undefined, aad: string, ttlMs: number): T | null {
  if (!value) return null;
  try {
    const s = JSON.parse(decrypt(Buffer.from(value, 'base64url'), aad).toString('utf8')) as T;
    return Date.now() - s.at < ttlMs ? s : null;
  } catch {
    return null;
  }
}
const openState = (value: string | undefined) => unseal<LoginState>(value, LOGIN_AAD, LOGIN_TTL_MS);

/**
 * An identity the provider confirmed for an invitation, waiting for the accept page's POST
 * (docs/dashboard.md, Accepting an invitation): sealed like the login state, 10 minutes.
 */
const PENDING_COOKIE = 'svc_invite';
const PENDING_AAD = 'svc dashboard invitation';
interface PendingAcceptance {
  invitation: string;
  issuer: string;
  subject: string;
  email: string;
  at: number;
}
const invitationParam = (query: unknown) => {
  const v = (query as { invitation?: unknown }).invitation;
  return typeof v === 'string' && v.length > 0 && v.length < 200 ? v : null;
};
/** The email the provider says it verified (`email_verified: true`), else null. */
const verifiedEmail = (claims: oidc.IDToken) =>
  claims.email_verified === true && typeof claims.email === 'string' && claims.email.trim()
    ? claims.email.trim()
    : null;

/**
 * Who would accept an invitation in this browser: its live dashboard session (the membership goes
 * to that identity, and the session stays as it is), else an identity the provider confirmed for
 * this invitation. Each comes with the CSRF token its form must carry.
 */
interface Acceptor {
  identity: AcceptingIdentity;
  csrf: string;
  session: { token: string; row: SessionRow } | null;
  invitation: string | null;
}
async function acceptorOf(cookies: string | undefined): Promise<Acceptor | null> {
  const s = await sessionOf(cookies);
  if (s) {
    // The member's email: the address its identity was verified with when it joined or first signed in.
    const identity = { issuer: s.row.issuer, subject: s.row.subject, email: s.row.email };
    return { identity, csrf: csrfOf(s.token), session: s, invitation: null };
  }
  const raw = cookieValue(cookies, PENDING_COOKIE);
  const p = unseal<PendingAcceptance>(raw, PENDING_AAD, LOGIN_TTL_MS);
  if (!p || !raw) return null;
  return {
    identity: { issuer: p.issuer, subject: p.subject, email: p.email },
    csrf: hmacHex(sha256Hex(raw), 'svc dashboard invitation csrf'),
    session: null,
    invitation: p.invitation,
  };
}

/** The accept page's language: as the dashboard's, Indonesian for an Indonesian browser, else English. */
const languageOf = (req: FastifyRequest): Language =>
  pageLanguage({ query: (n) => (req.query as Record<string, string | undefined>)[n], headers: req.headers }, 'en').lang;

/** The accept page's answers: the sign-in headers, and its one form posts to this origin only. */
function acceptReply(reply: FastifyReply, status: number, lang: Language, html: string) {
  return reply
    .status(status)
    .headers(authHeaders)
    .header('content-security-policy', `${authHeaders['content-security-policy']}; form-action 'self'`)
    .header('content-language', lang)
    .type('text/html; charset=utf-8')
    .send(html);
}

/**
 * The invitation this acceptor may accept, or the refusal page: a used, unknown or expired link, or
 * an identity whose verified email is not the invited address (nothing changes then).
 */
async function judge(a: Acceptor, token: string, lang: Language) {
  const L = messages(lang).memberInvitation;
  try {
    const v = await invitationView(token);
    if (sameEmail(a.identity.email, v.email)) return { ok: true as const, view: v };
    const text = a.session ? L.otherSession(v.email, a.identity.email) : L.otherIdentity(v.email, a.identity.email);
    return { ok: false as const, status: 403, html: noticePage(lang, L.notAccepted, text) };
  } catch (e) {
    if (!isDomainError(e)) throw e;
    return { ok: false as const, status: e.status, html: refusalOf(e, lang) };
  }
}
/** A refused acceptance in the page's language: a used or unknown link (404), an expired one (410), else why. */
const refusalOf = (e: { status: number; message: string }, lang: Language) => {
  const L = messages(lang).memberInvitation;
  return noticePage(lang, L.notAccepted, e.status === 410 ? L.gone : e.status === 404 ? L.invalid : e.message);
};

const htmlEscape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
function page(reply: FastifyReply, status: number, title: string, text: string) {
  return reply
    .status(status)
    .headers(authHeaders)
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
        `<title>${htmlEscape(title)}</title></head><body style="font-family:sans-serif;max-width:32rem;margin:3rem auto">` +
        `<h1>${htmlEscape(title)}</h1><p>${htmlEscape(text)}</p><p><a href="${AUTH_PATH}/login">Sign in again</a></p></body></html>`,
    );
}

/**
 * The member an identity signs in as (docs/dashboard.md, Sign-in): the joined member with this
 * `iss`/`sub`; else, once, the joined member with the provider's verified email whose identity is
 * not yet an OIDC one (a workspace's first owner, a member who joined by the emailed link), which
 * then keeps this identity. Cross-tenant by nature: authentication, on the system pool (docs/scaling.md).
 */
const joined = sqlStatus(memberJoined).text;

async function memberFor(issuer: string, subject: string, email: string | null) {
  const pool = db().system;
  const known = await pool.query<{ id: string; workspaceId: string }>(
    `SELECT id, "workspaceId" FROM members WHERE "identityIssuer" = $1 AND "identitySubject" = $2 AND status = ${joined}
     ORDER BY "joinedAt", id LIMIT 1`,
    [issuer, subject],
  );
  if (known.rows[0]) return known.rows[0];
  if (!email) return null;
  const linked = await pool.query<{ id: string; workspaceId: string }>(
    `UPDATE members SET "identityIssuer" = $1, "identitySubject" = $2
     WHERE id = (SELECT id FROM members WHERE lower(email) = lower($3) AND status = ${joined}
       AND ("identityIssuer" IS NULL OR "identityIssuer" = $4) ORDER BY "joinedAt", id LIMIT 1 FOR UPDATE)
     RETURNING id, "workspaceId"`,
    [issuer, subject, email, EMAIL_LINK_ISSUER],
  );
  return linked.rows[0] ?? null;
}

// Starts a sign-in: the PKCE verifier, state and nonce wait in a sealed cookie for the callback.
// With ?invitation=<token> it leads to the accept page: at once when a session is signed in (never
// replaced), else after the provider confirmed who this is.
async function login(req: FastifyRequest, reply: FastifyReply) {
  if (!config.oidc.issuer)
    return page(reply, 503, 'Sign-in is not configured', 'Set SVC_OIDC_ISSUER (see docs/dashboard.md).');
  const invitation = invitationParam(req.query);
  if (invitation && (await sessionOf(req.headers.cookie)))
    return reply.status(302).headers(authHeaders).header('location', acceptUrl(invitation)).send();
  const state: LoginState = {
    verifier: oidc.randomPKCECodeVerifier(),
    state: oidc.randomState(),
    nonce: oidc.randomNonce(),
    invitation,
    at: Date.now(),
  };
  let cfg: oidc.Configuration;
  try {
    cfg = await provider();
  } catch (e) {
    logger.warn({ err: e }, 'identity provider discovery failed');
    return page(reply, 503, 'The identity provider does not answer', 'Try again in a moment.');
  }
  const url = oidc.buildAuthorizationUrl(cfg, {
    redirect_uri: `${originOf(req)}${AUTH_PATH}/callback`,
    scope: 'openid email profile',
    code_challenge: await oidc.calculatePKCECodeChallenge(state.verifier),
    code_challenge_method: 'S256',
    state: state.state,
    nonce: state.nonce,
  });
  return reply
    .status(302)
    .headers(authHeaders)
    .header('set-cookie', cookie(req, LOGIN_COOKIE, seal(state, LOGIN_AAD), LOGIN_TTL_MS, AUTH_PATH))
    .header('location', url.href)
    .send();
}

// The provider's answer: the code exchanged (PKCE, state, nonce checked); an invitation's identity waits sealed
// for the accept page, else the member it is signs in.
async function callback(req: FastifyRequest, reply: FastifyReply) {
  const state = openState(cookieValue(req.headers.cookie, LOGIN_COOKIE));
  if (!state) return page(reply, 400, 'Sign-in expired', 'The sign-in took too long or started elsewhere.');
  let claims: oidc.IDToken;
  try {
    const cfg = await provider();
    const current = new URL(`${originOf(req)}${req.url}`);
    const tokens = await oidc.authorizationCodeGrant(cfg, current, {
      pkceCodeVerifier: state.verifier,
      expectedState: state.state,
      expectedNonce: state.nonce,
      idTokenExpected: true,
    });
    claims = tokens.claims()!;
    // Providers that keep scope claims out of the ID token give them at the UserInfo endpoint.
    if (claims.email === undefined && tokens.access_token)
      claims = { ...(await oidc.fetchUserInfo(cfg, tokens.access_token, claims.sub)), ...claims };
  } catch (e) {
    logger.warn({ err: e }, 'dashboard sign-in refused');
    return page(reply, 400, 'Sign-in failed', 'The identity provider did not confirm the sign-in.');
  }
  const identity = { issuer: claims.iss, subject: claims.sub };
  const email = verifiedEmail(claims);
  if (state.invitation) {
    // Nothing is accepted on a GET, and no session is made or replaced here: the identity waits
    // (sealed) for the accept page's POST, which checks its email against the invited one.
    const lang = languageOf(req);
    const L = messages(lang).memberInvitation;
    const clear = cookie(req, LOGIN_COOKIE, '', 0, AUTH_PATH);
    if (!email)
      return acceptReply(
        reply.header('set-cookie', clear),
        403,
        lang,
        noticePage(lang, L.notAccepted, L.noVerifiedEmail),
      );
    const pending: PendingAcceptance = { invitation: state.invitation, ...identity, email, at: Date.now() };
    return reply
      .status(303)
      .headers(authHeaders)
      .header('set-cookie', [cookie(req, PENDING_COOKIE, seal(pending, PENDING_AAD), LOGIN_TTL_MS, AUTH_PATH), clear])
      .header('location', acceptUrl(state.invitation))
      .send();
  }
  const member = await memberFor(identity.issuer, identity.subject, email);
  if (!member) return page(reply, 403, 'Not a member', 'This identity is not a member of any workspace.');
  const session = await createSession({ workspaceId: member.workspaceId, memberId: member.id, ...identity });
  return reply
    .status(302)
    .headers(authHeaders)
    .header('set-cookie', [
      cookie(req, SESSION_COOKIE, session.token, SESSION_TTL_MS, '/'),
      cookie(req, LOGIN_COOKIE, '', 0, AUTH_PATH),
    ])
    .header('location', `${DASHBOARD_PATH}/`)
    .send();
}

// The accept page (docs/dashboard.md, Accepting an invitation): GET asks "Join <workspace> (<slug>) as
// <role>?" of the identity whose verified email is the invited one, and never accepts.
async function acceptPage(req: FastifyRequest, reply: FastifyReply) {
  const lang = languageOf(req);
  const L = messages(lang).memberInvitation;
  const token = invitationParam(req.query);
  if (!token) return acceptReply(reply, 404, lang, noticePage(lang, L.notAccepted, L.invalid));
  const a = await acceptorOf(req.headers.cookie);
  // Nobody known yet (or confirmed for another invitation): the provider says who this is first.
  if (!a || (!a.session && a.invitation !== token))
    return reply
      .status(302)
      .headers(authHeaders)
      .header('location', `${AUTH_PATH}/login?invitation=${encodeURIComponent(token)}`)
      .send();
  const judged = await judge(a, token, lang);
  if (!judged.ok) return acceptReply(reply, judged.status, lang, judged.html);
  const signedInAs = a.session ? a.identity.email : null;
  return acceptReply(reply, 200, lang, confirmPage(lang, judged.view, { invitation: token, csrf: a.csrf, signedInAs }));
}

// The page's form: the CSRF token of the session or of the confirmed identity, else 403 and nothing
// changes. A signed-in session gains the membership and stays as it is; a confirmed identity without
// one gets its first session, in the workspace it joined.
async function accept(req: FastifyRequest, reply: FastifyReply) {
  const lang = languageOf(req);
  const L = messages(lang).memberInvitation;
  const form = new URLSearchParams(rawBody(req).toString('utf8'));
  const token = form.get('invitation') ?? '';
  const csrf = form.get('csrf') ?? '';
  const a = await acceptorOf(req.headers.cookie);
  if (!a) return acceptReply(reply, 401, lang, noticePage(lang, L.notAccepted, L.expired));
  if (!csrf || !safeEqual(a.csrf, csrf) || !token || (!a.session && a.invitation !== token))
    return acceptReply(reply, 403, lang, noticePage(lang, L.notAccepted, L.staleForm));
  const judged = await judge(a, token, lang);
  if (!judged.ok) return acceptReply(reply, judged.status, lang, judged.html);
  let accepted: Awaited<ReturnType<typeof acceptInvitation>>;
  try {
    accepted = await acceptInvitation(token, a.identity);
  } catch (e) {
    if (!isDomainError(e)) throw e;
    return acceptReply(reply, e.status, lang, refusalOf(e, lang));
  }
  if (a.session)
    return acceptReply(reply, 200, lang, noticePage(lang, L.joinedTitle, L.joined(accepted.workspace.name)));
  const session = await createSession({
    workspaceId: accepted.workspace.id,
    memberId: accepted.member.id,
    issuer: a.identity.issuer,
    subject: a.identity.subject,
  });
  return reply
    .status(303)
    .headers(authHeaders)
    .header('set-cookie', [
      cookie(req, SESSION_COOKIE, session.token, SESSION_TTL_MS, '/'),
      cookie(req, PENDING_COOKIE, '', 0, AUTH_PATH),
    ])
    .header('location', `${DASHBOARD_PATH}/`)
    .send();
}

// Who is signed in, and the CSRF token the dashboard sends with every request (same origin only: no CORS).
async function currentSession(req: FastifyRequest, reply: FastifyReply) {
  const s = await sessionOf(req.headers.cookie);
  reply.headers(authHeaders).type('application/json; charset=utf-8');
  if (!s) return reply.status(401).send(JSON.stringify({ signedIn: false }));
  return reply.send(
    JSON.stringify({
      signedIn: true,
      csrf: csrfOf(s.token),
      member: { id: s.row.memberId, email: s.row.email, role: s.row.memberRole },
      workspace: { id: s.row.workspaceId, name: s.row.workspaceName, liveEnabled: s.row.workspaceMode === 'live' },
      workspaces: await workspacesOf(s.row),
      expiresAt: s.row.expiresAt.toISOString(),
      now: clock.now().toISOString(),
    }),
  );
}

// The workspace switcher: a session in another workspace this identity has joined, with the CSRF
// header as every session request; the current session is revoked. Not a member there: 404.
async function switchTo(req: FastifyRequest, reply: FastifyReply) {
  const s = await sessionOf(req.headers.cookie);
  const csrf = req.headers[CSRF_HEADER];
  reply.headers(authHeaders).type('application/json; charset=utf-8');
  if (!s) return reply.status(401).send(JSON.stringify({ signedIn: false }));
  if (typeof csrf !== 'string' || !safeEqual(csrfOf(s.token), csrf)) return reply.status(403).send('{}');
  let workspaceId: unknown;
  try {
    workspaceId = parseJsonBody(rawBody(req), { allowEmpty: true }).workspaceId;
  } catch (e) {
    return replyError(reply, e, req.requestId, 'generic');
  }
  const next =
    typeof workspaceId === 'string' && workspaceId.length <= 64
      ? await switchWorkspace(s.row, s.token, workspaceId)
      : null;
  if (!next) return reply.status(404).send(JSON.stringify({ error: 'not_a_member' }));
  return reply
    .header('set-cookie', cookie(req, SESSION_COOKIE, next.token, SESSION_TTL_MS, '/'))
    .send(JSON.stringify({ workspaceId }));
}

// Sign-out revokes the row (the cookie and any socket it opened stop working) and clears the cookie.
async function logout(req: FastifyRequest, reply: FastifyReply) {
  const s = await sessionOf(req.headers.cookie);
  const csrf = req.headers[CSRF_HEADER];
  if (s && (typeof csrf !== 'string' || !safeEqual(csrfOf(s.token), csrf)))
    return reply.status(403).headers(authHeaders).send();
  if (s) await revokeSession(s.row, s.token);
  return reply
    .status(204)
    .headers(authHeaders)
    .header('set-cookie', cookie(req, SESSION_COOKIE, '', 0, '/'))
    .send();
}

export function mountSignIn(app: FastifyInstance, limiter: RateLimiter) {
  // Public before any sign-in: rate-limited per client address like the hosted pages.
  const limited = {
    onRequest: async (req: FastifyRequest, reply: FastifyReply) => {
      try {
        await enforceRate(limiter, clientBucket(req.ip), 'hosted');
      } catch (e) {
        return replyError(reply, e, req.requestId, 'generic');
      }
    },
  };
  app.get(`${AUTH_PATH}/login`, limited, login);
  app.get(`${AUTH_PATH}/callback`, limited, callback);
  app.get(ACCEPT_PATH, limited, acceptPage);
  app.post(ACCEPT_PATH, limited, accept);
  app.get(`${AUTH_PATH}/session`, limited, currentSession);
  app.post(`${AUTH_PATH}/switch`, limited, switchTo);
  app.post(`${AUTH_PATH}/logout`, limited, logout);
}
