import { createSecretKey, type KeyObject } from 'node:crypto';
import { config } from '../config.ts';
import { safeEqual } from '../crypto.ts';
import { unseal } from '../sealed.ts';
import { logger } from '../logger.ts';
import { db, type Mode } from '../db/client.ts';
import { DomainError } from '../errors.ts';
import { clock } from '../clock.ts';
import { BoundedCache } from '../bounded-cache.ts';
import { isId } from '../ids.ts';
import { canonicalOfHash, canonicalString, parseAuthorization, signature } from './signing.ts';
import type { KeyRole, MemberRole, Scope } from './scopes.ts';

/** Who is calling, and on which workspace and mode it acts. */
export interface Auth {
  apiKeyId: string;
  keyId: string;
  mode: Mode;
  role: KeyRole;
  scopes: Scope[];
  memberId: string | null;
  memberRole: MemberRole | null;
  /** The workspace the key belongs to. */
  keyWorkspaceId: string;
  isPlatformAdmin: boolean;
  /** The workspace the request acts on: the key's own, or a merchant's via X-Svc-On-Behalf-Of. */
  workspaceId: string;
  accountId: string;
  tier: string;
  onBehalfOf: boolean;
}

interface KeyRow {
  id: string;
  keyId: string;
  workspaceId: string;
  mode: Mode;
  role: KeyRole;
  scopes: Scope[];
  signingKey: KeyObject;
  /** The stored (sealed) signing key the KeyObject was decrypted from. */
  sealed: Buffer;
  revokedAt: Date | null;
  memberId: string | null;
  memberRole: MemberRole | null;
  accountId: string;
  isPlatformAdmin: boolean;
  tier: string;
  /** The key's workspace's `mode`: live keys work only while it is `live`. */
  workspaceMode: Mode;
}

// Bounded: unknown key ids are remembered too (a flood of them would otherwise reach the database
// each time), so an attacker's stream of distinct ids must not grow the heap.
const cache = new BoundedCache<string, { row: KeyRow | null; at: number }>(10_000);
/** The shape every key id has (`pk_<env>_` + 12 hex); anything else is refused before the cache or the database. */
const KEY_ID = /^pk_(?:live|test)_[0-9a-f]{12}$/;
export const keyCacheSize = () => cache.size;
const KEY_SQL = `SELECT k.id, k."keyId", k."workspaceId", k.mode, k.role, k.scopes, k."signingKey", k."revokedAt",
  k."memberId",
  CASE WHEN m."removedAt" IS NULL THEN m.role END AS "memberRole", w."accountId", w."isPlatformAdmin", w.tier,
  w.mode AS "workspaceMode"
  FROM api_keys k JOIN workspaces w ON w.id = k."workspaceId" LEFT JOIN members m ON m.id = k."memberId"
  WHERE k."keyId" = $1`;

/** Lookups on their way: requests that miss the cache together wait for one read. */
const loading = new Map<string, Promise<KeyRow | null>>();

/**
 * Cached for `keyCacheMs`: the bound on how long a revoked key keeps working on another instance.
 * A request after that waits for the row read again (never the expired entry); the requests that
 * miss together share one read.
 */
async function loadKey(keyId: string): Promise<KeyRow | null> {
  const hit = cache.get(keyId);
  if (hit && Date.now() - hit.at < config.keyCacheMs) return hit.row;
  let pending = loading.get(keyId);
  if (!pending) {
    const read = readKey(keyId, hit?.row ?? null).then((row) => {
      // A forgetKey during the read (a revocation here) wins: that read is neither cached nor shared further.
      if (loading.get(keyId) === read) {
        loading.delete(keyId);
        cache.set(keyId, { row, at: Date.now() });
      }
      return row;
    });
    read.catch(() => loading.get(keyId) === read && loading.delete(keyId));
    loading.set(keyId, (pending = read));
  }
  return pending;
}

async function readKey(keyId: string, before: KeyRow | null): Promise<KeyRow | null> {
  const { rows } = await db().system.query(KEY_SQL, [keyId]);
  return rows[0] ? withSigningKey(rows[0], before) : null;
}

/**
 * The stored signing key, decrypted; a value that does not decrypt for this row (copied from another) makes the key
 * unusable. The same stored bytes for the same row decrypt to the same key: the one already held is kept.
 */
function withSigningKey(
  row: Omit<KeyRow, 'signingKey' | 'sealed'> & { signingKey: Buffer },
  before: KeyRow | null,
): KeyRow | null {
  if (before && before.id === row.id && before.workspaceId === row.workspaceId && before.sealed.equals(row.signingKey))
    return { ...row, signingKey: before.signingKey, sealed: before.sealed };
  try {
    return {
      ...row,
      signingKey: createSecretKey(unseal('api_keys', row, row.signingKey)),
      sealed: Buffer.from(row.signingKey),
    };
  } catch {
    logger.warn({ keyId: row.keyId }, 'API key signing key does not decrypt for its row');
    return null;
  }
}

export function forgetKey(keyId: string) {
  cache.delete(keyId);
  loading.delete(keyId);
}

// lastUsedAt is written in batches, once a second at most per instance (spec: "within seconds").
const used = new Map<string, Date>();
let flushing: NodeJS.Timeout | undefined;
function touch(apiKeyId: string) {
  used.set(apiKeyId, clock.now());
  flushing ??= setTimeout(flushUsage, 1000).unref();
}
export async function flushUsage() {
  flushing = undefined;
  if (!used.size) return;
  const ids = [...used.keys()];
  const ats = ids.map((id) => used.get(id)!.toISOString());
  used.clear();
  await db()
    .system.query(
      `UPDATE api_keys k SET "lastUsedAt" = u.at FROM unnest($1::text[], $2::timestamptz[]) AS u(id, at)
       WHERE k.id = u.id AND (k."lastUsedAt" IS NULL OR k."lastUsedAt" < u.at)`,
      [ids, ats],
    )
    .catch(() => {});
}

export interface SignedRequest {
  method: string;
  target: string;
  body: Buffer;
  /** A streamed body's declared SHA-256 (lower-case hex): signed in place of the body's own hash. */
  bodySha256?: string;
  authorization?: string;
  timestamp?: string;
  onBehalfOf?: string;
}

const invalidSignature = (why: string) => new DomainError('invalid_signature', why);

export async function authenticate(req: SignedRequest): Promise<Auth> {
  const parsed = parseAuthorization(req.authorization);
  if (!parsed) throw invalidSignature('Missing or malformed Authorization header');
  const ts = req.timestamp ?? '';
  if (!/^\d{1,12}$/.test(ts)) throw invalidSignature('Missing or malformed X-Svc-Timestamp header');
  if (Math.abs(Math.floor(clock.now().getTime() / 1000) - Number(ts)) > config.signatureToleranceSec) {
    throw invalidSignature('X-Svc-Timestamp is outside the 300 second tolerance');
  }
  const key = KEY_ID.test(parsed.keyId) ? await loadKey(parsed.keyId) : null;
  // A key acts for a member: once that member is removed, the key stops working.
  if (!key || key.revokedAt || (key.memberId && !key.memberRole))
    throw new DomainError('invalid_key', 'Unknown or revoked API key');
  const canonical =
    req.bodySha256 === undefined
      ? canonicalString(ts, req.method, req.target, req.body)
      : canonicalOfHash(ts, req.method, req.target, req.bodySha256);
  const expected = signature(key.signingKey, canonical);
  if (!safeEqual(expected, parsed.signature)) throw invalidSignature('Signature does not match the request');
  touch(key.id);
  const auth: Auth = {
    apiKeyId: key.id,
    keyId: key.keyId,
    mode: key.mode,
    role: key.role,
    scopes: key.scopes,
    memberId: key.memberId,
    memberRole: key.memberRole,
    keyWorkspaceId: key.workspaceId,
    isPlatformAdmin: key.isPlatformAdmin,
    workspaceId: key.workspaceId,
    accountId: key.accountId,
    tier: key.tier,
    onBehalfOf: false,
  };
  // Merchant keys ignore the header silently (spec Authentication).
  if (req.onBehalfOf && key.isPlatformAdmin) {
    const { workspaceMode, ...merchant } = await merchantOf(key.workspaceId, req.onBehalfOf);
    assertLiveActive(key.mode, workspaceMode);
    return { ...auth, ...merchant, onBehalfOf: true };
  }
  assertLiveActive(key.mode, key.workspaceMode);
  return auth;
}

/**
 * A live key acts only on a workspace whose `mode` is `live` (activated, not archived): the
 * workspace's mode switches its live data on and off at once (docs/decisions.md, Workspace lifecycle).
 */
function assertLiveActive(keyMode: Mode, workspaceMode: Mode) {
  if (keyMode === 'live' && workspaceMode !== 'live')
    throw new DomainError('live_mode_inactive', 'This workspace is not activated for live mode');
}

/**
 * The key behind an authenticated connection, looked up again (through the same 2 s cache): a
 * long-lived socket is re-checked per operation and on a timer, so revocation, a removed member or
 * an archived merchant ends it within seconds. Returns the grant as it is now.
 */
export async function recheck(auth: Auth): Promise<Auth> {
  const key = await loadKey(auth.keyId);
  if (!key || key.revokedAt || (key.memberId && !key.memberRole) || key.id !== auth.apiKeyId)
    throw new DomainError('invalid_key', 'Unknown or revoked API key');
  assertLiveActive(
    key.mode,
    auth.onBehalfOf ? (await merchantOf(key.workspaceId, auth.accountId)).workspaceMode : key.workspaceMode,
  );
  return { ...auth, role: key.role, scopes: key.scopes, memberRole: key.memberRole };
}

const merchants = new BoundedCache<
  string,
  { value: { workspaceId: string; accountId: string; tier: string; workspaceMode: Mode } | null; at: number }
>(10_000);
/** After a merchant's activation, archive or restore: this instance sees it at once (others within `keyCacheMs`). */
export function forgetMerchant(partnerId: string, accountId: string) {
  merchants.delete(`${partnerId}/${accountId}`);
}
async function merchantOf(partnerId: string, accountId: string) {
  if (!isId('account', accountId)) throw new DomainError('not_found', 'No such account under this partner');
  const k = `${partnerId}/${accountId}`;
  let hit = merchants.get(k);
  if (!hit || Date.now() - hit.at > config.keyCacheMs) {
    const { rows } = await db().system.query(
      `SELECT id AS "workspaceId", "accountId", tier, mode AS "workspaceMode" FROM workspaces
       WHERE "accountId" = $1 AND "partnerId" = $2 AND "archivedAt" IS NULL`,
      [accountId, partnerId],
    );
    hit = { value: rows[0] ?? null, at: Date.now() };
    merchants.set(k, hit);
  }
  if (!hit.value) throw new DomainError('not_found', 'No such account under this partner');
  return hit.value;
}
