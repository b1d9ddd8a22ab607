/**
 * Members sign in to the dashboard with OpenID Connect, authorization code with PKCE (spec
 * Workspace and member: members sign in through an external identity provider; invitations are
 * accepted that way). `openid-client` is the relying party; the provider is `config.oidc` (in
 * development and tests, src/auth/dev-idp.ts). docs/dashboard.md, Sign-in, says who becomes which
 * member. Routes: login, callback, session (who am I, the CSRF token), logout.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as oidc from 'openid-client';
import { clock } from '../core/clock.ts';
import { config } from '../core/config.ts';
import { decrypt, encrypt, safeEqual } from '../core/crypto.ts';
import { db } from '../core/db/client.ts';
import { isDomainError } from '../core/errors.ts';
import { enforceRate, type RateLimiter } from '../core/rate-limit.ts';
import { clientBucket, replyError } from './edge-route.ts';
import { parseJsonBody, rawBody } from './edge.ts';
import { logger } from '../core/logger.ts';
import { DASHBOARD_PATH } from '../dashboard/serve.ts';
import { acceptInvitation, EMAIL_LINK_ISSUER } from '../modules/members/service.ts';
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
} from '../auth/session.ts';

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
const sealState = (s: LoginState) =>
  Buffer.from(encrypt(Buffer.from(JSON.stringify(s)), LOGIN_AAD)).toString('base64url');
function openState(value: string | undefined): LoginState | null {
  if (!value) return null;
  try {
    const s = JSON.parse(decrypt(Buffer.from(value, 'base64url'), LOGIN_AAD).toString('utf8')) as LoginState;
    return Date.now() - s.at < LOGIN_TTL_MS ? s : null;
  } catch {
    return null;
  }
}

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
async function memberFor(issuer: string, subject: string, email: string | null) {
  const pool = db().system;
  const known = await pool.query<{ id: string; workspaceId: string }>(
    `SELECT id, "workspaceId" FROM members WHERE "identityIssuer" = $1 AND "identitySubject" = $2 AND status = 'joined'
     ORDER BY "joinedAt", id LIMIT 1`,
    [issuer, subject],
  );
  if (known.rows[0]) return known.rows[0];
  if (!email) return null;
  const linked = await pool.query<{ id: string; workspaceId: string }>(
    `UPDATE members SET "identityIssuer" = $1, "identitySubject" = $2
     WHERE id = (SELECT id FROM members WHERE lower(email) = lower($3) AND status = 'joined'
       AND ("identityIssuer" IS NULL OR "identityIssuer" = $4) ORDER BY "joinedAt", id LIMIT 1 FOR UPDATE)
     RETURNING id, "workspaceId"`,
    [issuer, subject, email, EMAIL_LINK_ISSUER],
  );
  return linked.rows[0] ?? null;
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
  // Starts a sign-in (and, with ?invitation=<token>, an acceptance): the PKCE verifier, state and
  // nonce wait in a sealed cookie for the callback.
  app.get(`${AUTH_PATH}/login`, limited, async (req, reply) => {
    if (!config.oidc.issuer)
      return page(reply, 503, 'Sign-in is not configured', 'Set SVC_OIDC_ISSUER (see docs/dashboard.md).');
    const invitation = (req.query as { invitation?: unknown }).invitation;
    const state: LoginState = {
      verifier: oidc.randomPKCECodeVerifier(),
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      invitation: typeof invitation === 'string' && invitation.length < 200 ? invitation : null,
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
      .header('set-cookie', cookie(req, LOGIN_COOKIE, sealState(state), LOGIN_TTL_MS, AUTH_PATH))
      .header('location', url.href)
      .send();
  });

  app.get(`${AUTH_PATH}/callback`, limited, async (req, reply) => {
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
    const email = claims.email_verified === true && typeof claims.email === 'string' ? claims.email : null;
    let member: { id: string; workspaceId: string } | null;
    try {
      if (state.invitation) {
        const accepted = await acceptInvitation(state.invitation, identity);
        member = { id: accepted.member.id, workspaceId: accepted.workspace.id };
      } else member = await memberFor(identity.issuer, identity.subject, email);
    } catch (e) {
      if (!isDomainError(e)) throw e;
      return page(reply, e.status ?? 400, 'The invitation cannot be accepted', e.message);
    }
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
  });

  // Who is signed in, and the CSRF token the dashboard sends with every request (same origin only: no CORS).
  app.get(`${AUTH_PATH}/session`, limited, async (req, reply) => {
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
  });

  // The workspace switcher: a session in another workspace this identity has joined, with the CSRF
  // header as every session request; the current session is revoked. Not a member there: 404.
  app.post(`${AUTH_PATH}/switch`, limited, async (req, reply) => {
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
  });

  // Sign-out revokes the row (the cookie and any socket it opened stop working) and clears the cookie.
  app.post(`${AUTH_PATH}/logout`, limited, async (req, reply) => {
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
  });
}
