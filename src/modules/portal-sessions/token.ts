/**
 * The portal URL's token (spec Portal session: `url` is `{hosted_base}/portal/<ps_id>#t=<signed_token>`):
 * `<workspaceId>.<mode>.<customerId>.<expires ms>.<mac>`, the MAC (HMAC-SHA-256 under a key derived
 * from the master key, as signed download URLs are) over the session id and those four values. It
 * is signed, not stored: the URL is shown once (no retrieve), a database reader learns no live
 * token, and the portal's calls know their tenant and expiry before anything is looked up, so a
 * forged or stale token costs no query (docs/decisions.md, Portal sessions).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { clock } from '../../core/clock.ts';
import { config } from '../../core/config.ts';
import type { Mode } from '../../core/db/client.ts';
import { errorsFor } from '../../core/errors.ts';
import { hostedBase } from '../../core/hosted.ts';
import { isId } from '../../core/ids.ts';

const err = errorsFor('portal_session');

/** What a valid token grants: one customer of one workspace and mode, until `expiresAt`. */
export interface PortalGrant {
  sessionId: string;
  workspaceId: string;
  mode: Mode;
  customerId: string;
  expiresAt: Date;
}

let key: Buffer | undefined;
const signingKey = () => (key ??= createHmac('sha256', config.masterKey).update('svc portal v1').digest());

const mac = (sessionId: string, w: string, m: string, c: string, e: string) =>
  createHmac('sha256', signingKey()).update(`${sessionId}\0${w}\0${m}\0${c}\0${e}`).digest('base64url');

/** The token of a session (a pure function of the row: replays of the create answer the same URL). */
export function portalToken(g: PortalGrant): string {
  const e = String(g.expiresAt.getTime());
  return [g.workspaceId, g.mode, g.customerId, e, mac(g.sessionId, g.workspaceId, g.mode, g.customerId, e)].join('.');
}

export const portalUrl = (g: PortalGrant) => `${hostedBase()}/portal/${g.sessionId}#t=${portalToken(g)}`;

/**
 * The grant of a token presented for session `sessionId`: 404 when it is malformed or not ours (or
 * for another session), 410 once expired (spec: "after which the URL returns 410").
 */
export function verifyPortalToken(sessionId: string, token: unknown): PortalGrant {
  if (typeof token !== 'string' || token.length > 200 || !isId('portalSession', sessionId))
    throw err.notFound('portal session');
  const parts = token.split('.');
  const [w, m, c, e, given] = parts;
  if (
    parts.length !== 5 ||
    !isId('workspace', w) ||
    (m !== 'test' && m !== 'live') ||
    !isId('customer', c) ||
    !/^\d{1,15}$/.test(e)
  )
    throw err.notFound('portal session');
  const want = Buffer.from(mac(sessionId, w, m, c, e));
  const got = Buffer.from(given);
  if (want.length !== got.length || !timingSafeEqual(want, got)) throw err.notFound('portal session');
  const expiresAt = new Date(Number(e));
  if (expiresAt.getTime() <= clock.now().getTime()) throw expired();
  return { sessionId, workspaceId: w, mode: m, customerId: c, expiresAt };
}

export const expired = () => err.of('gone', 'This portal link has expired; ask the merchant for a new one');
