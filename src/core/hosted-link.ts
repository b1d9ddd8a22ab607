/**
 * Public pages whose URL is the capability (checkout `/c/<token>` and the invoice page `/i/<token>`;
 * the portal's token is signed instead: src/modules/portal-sessions/token.ts): the token is the
 * resource id, `_`, and a per-resource secret stored on the row (160 bits, 40 hex), minted by
 * PostgreSQL as the column's default so that it never travels in SQL text (hot-path statements
 * inline their literals). Ids are sortable and appear in API responses, events and redirects, so
 * they are not secrets; only the secret opens the page. A token that is malformed, names no row, or
 * carries the wrong secret is answered the same way (the caller's 404), and the secret is compared
 * in constant time. See docs/decisions.md (Hosted pages).
 */
import { timingSafeEqual } from 'node:crypto';
import { sha256 } from './crypto.ts';
import { isId, type IdKind } from './ids.ts';
import { hostedBase } from './hosted.ts';

const SECRET = /^[0-9a-f]{40}$/;

/** The public URL of a hosted page: `{hosted_base}/<path>/<id>_<secret>`. */
export const hostedLink = (path: string, id: string, secret: string) => `${hostedBase()}/${path}/${id}_${secret}`;

/** The id and secret of a token, or null when its shape is wrong (checked before any cache or query). */
export function parseHostedToken(kind: IdKind, token: unknown): { id: string; secret: string } | null {
  if (typeof token !== 'string' || token.length > 100) return null;
  const cut = token.lastIndexOf('_');
  const id = token.slice(0, cut);
  const secret = token.slice(cut + 1);
  return cut > 0 && isId(kind, id) && SECRET.test(secret) ? { id, secret } : null;
}

/** Constant time whatever the lengths: both sides are hashed to 32 bytes first. */
export const hostedSecretMatches = (stored: string, given: string) => timingSafeEqual(sha256(stored), sha256(given));
