/**
 * Short-lived signed download URLs (spec Invoices: `GET /v1/invoices/:id/pdf` answers 302 to a
 * "signed short-lived (about 5 minutes)" URL): `{hosted_base}<path>?w=<workspace>&m=<mode>&e=<expiry>&s=<mac>`.
 * The MAC (HMAC-SHA-256 under a key derived from the master key, as cursors are) covers the path,
 * workspace, mode and expiry, so a URL opens one document of one tenant until it expires, and is
 * checked before anything is looked up. Expiry is read from the injected clock.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { clock } from './clock.ts';
import { config } from './config.ts';
import type { Mode } from './db/client.ts';
import { hostedBase } from './hosted.ts';

/** spec: "about 5 minutes". */
export const SIGNED_URL_TTL_SEC = 300;

let key: Buffer | undefined;
const signingKey = () => (key ??= createHmac('sha256', config.masterKey).update('svc download v1').digest());

const mac = (path: string, workspaceId: string, mode: string, expires: number) =>
  createHmac('sha256', signingKey()).update(`${path}\0${workspaceId}\0${mode}\0${expires}`).digest('base64url');

/** The absolute signed URL of `path` (which starts with `/`) for one workspace and mode. */
export function signedUrl(path: string, scope: { workspaceId: string; mode: Mode }, ttlSec = SIGNED_URL_TTL_SEC) {
  const e = Math.floor(clock.now().getTime() / 1000) + ttlSec;
  const qs = new URLSearchParams({
    w: scope.workspaceId,
    m: scope.mode,
    e: String(e),
    s: mac(path, scope.workspaceId, scope.mode, e),
  });
  return `${hostedBase()}${path}?${qs}`;
}

/** The workspace and mode a signed URL is good for, or why not: `expired` or `invalid` (both a 403). */
/** A refused signed URL's verdict, for the callers' messages. */
export const linkRefused = { expired: 'expired', invalid: 'invalid' } as const;

export function verifySignedUrl(
  path: string,
  q: (name: string) => string | undefined,
): { workspaceId: string; mode: Mode } | 'expired' | 'invalid' {
  const [w, m, e, s] = [q('w'), q('m'), q('e'), q('s')];
  if (!w || (m !== 'live' && m !== 'test') || !e || !/^\d{1,12}$/.test(e) || !s || s.length > 64) return 'invalid';
  const want = Buffer.from(mac(path, w, m, Number(e)));
  const got = Buffer.from(s);
  if (want.length !== got.length || !timingSafeEqual(want, got)) return 'invalid';
  if (Number(e) < clock.now().getTime() / 1000) return 'expired';
  return { workspaceId: w, mode: m };
}
