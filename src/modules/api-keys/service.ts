import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant, tenantQuery, type Mode, type Tx } from '../../core/db/client.ts';
import type { ApiKey as ApiKeyRow } from '../../generated/prisma/client.ts';
import { errorsFor, DomainError } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { randomHex } from '../../core/crypto.ts';
import { seal } from '../../core/sealed.ts';
import { signingKeyOf } from '../../core/auth/signing.ts';
import {
  keyRoles,
  normalizeScope,
  outranks,
  type KeyRole,
  type MemberRole,
  type Scope,
} from '../../core/auth/scopes.ts';
import { forgetKey } from '../../core/auth/authenticate.ts';
import { keysetSql, pageRequest, toConnection, listPageSize } from '../../core/pagination.ts';
import { capOf } from '../../core/tiers.ts';
import { audit } from '../../core/audit.ts';
import { checkLength, oneOf } from '../../core/validation.ts';
import { clock } from '../../core/clock.ts';
import type { CreateApiKeyInput, ListApiKeysArgs } from './schema.ts';
import { sql } from '../../core/db/sql-template.ts';

const err = errorsFor('api_key');
const BOTH = ['test', 'live'] as const;
const COLUMNS = sql`id, "workspaceId", mode, "keyId", name, role, scopes, "signingKey", "memberId", "lastUsedAt",
  "revokedAt", "createdAt"`;

/** A caller can mint only what it could do itself: "a role cannot be widened". */
function assertNotWider(caller: { role: KeyRole; scopes: readonly Scope[] }, role: KeyRole, scopes: Scope[]) {
  if (caller.role === 'full_access') return;
  const ok = role === 'restricted' && scopes.every((s) => caller.scopes.includes(s));
  if (!ok) throw new DomainError('insufficient_scope', 'A key cannot mint a key wider than itself');
}

export async function createApiKey(ctx: Context, input: CreateApiKeyInput) {
  const auth = authorize(ctx, 'svc:api_key:write');
  checkLength(input.name ?? '', 'name', 1, 80, 'api_key');
  // A key administers its own environment only: it defaults to it, and another one is refused.
  const environment = oneOf(input.environment ?? auth.mode, ['test', 'live'] as const, 'environment', 'api_key');
  const role = oneOf(input.role ?? 'full_access', keyRoles, 'role', 'api_key');
  if (input.scopes != null && role !== 'restricted')
    throw err.validation('scopes', 'scopes are allowed only with role restricted');
  if (role === 'restricted' && !input.scopes?.length)
    throw err.validation('scopes', 'a restricted key needs at least one scope');
  const scopes = (input.scopes ?? []).map((s) => normalizeScope(s) ?? invalidScope(s));
  assertNotWider(auth, role, scopes);
  // The first live keys of an activated workspace come from a test key of its owner or an admin,
  // only while it has no active live key (docs/decisions.md, Workspace lifecycle): after that a
  // leaked test key must not mint live full_access keys. Otherwise keys mint their own mode only.
  const liveFromTest =
    auth.mode === 'test' && environment === 'live' && !auth.onBehalfOf && ['owner', 'admin'].includes(auth.memberRole!);
  if (!liveFromTest) assertOwnMode(auth.mode, environment, 'mint');
  const secret = `sk_${environment}_${randomHex(24)}`;
  return inTenant(tenant(auth, BOTH), async (tx) => {
    const ws = await lockForKey(tx, auth.workspaceId, auth.tier);
    if (liveFromTest && ws.mode !== 'live') assertOwnMode(auth.mode, environment, 'mint');
    if (
      liveFromTest &&
      (await tx.apiKey.count({ where: { workspaceId: auth.workspaceId, mode: 'live', revokedAt: null } }))
    )
      throw new DomainError(
        'insufficient_scope',
        'A test key mints live keys only while the workspace has no live key: use a live key to mint more',
      );
    if (!ws.room)
      throw err.of(
        'tier_cap_reached',
        `This workspace's plan allows ${capOf(auth.tier, 'maxApiKeys')} active API keys`,
      );
    const row = await insertApiKey(tx, {
      workspaceId: auth.workspaceId,
      mode: environment,
      name: input.name,
      role,
      scopes,
      secret,
      memberId: auth.memberId,
    });
    await audit(tx, auth, 'api_key.created', row.id, ctx.requestId);
    return { ...row, key: secret };
  });
}

/** Locks the workspace row (serialising concurrent mints, so the tier cap holds): its mode and whether one more key fits. */
export async function lockForKey(tx: Tx, workspaceId: string, tier: string) {
  const [ws] = await tx.$queryRaw<{ mode: string }[]>`SELECT mode FROM workspaces WHERE id = ${workspaceId} FOR UPDATE`;
  const active = await tx.apiKey.count({ where: { workspaceId, revokedAt: null } });
  return { mode: ws?.mode, room: active < capOf(tier, 'maxApiKeys') };
}

/** Writes a key row (the signing key sealed to it) in the caller's transaction; the secret is returned once by the caller. */
export function insertApiKey(
  tx: Tx,
  k: {
    workspaceId: string;
    mode: Mode;
    name: string;
    role: KeyRole;
    scopes: Scope[];
    secret: string;
    memberId: string | null;
  },
) {
  const id = newId('apiKey');
  return tx.apiKey.create({
    data: {
      id,
      workspaceId: k.workspaceId,
      mode: k.mode,
      keyId: `pk_${k.mode}_${randomHex(6)}`,
      name: k.name,
      role: k.role,
      scopes: k.scopes,
      signingKey: seal('api_keys', { id, workspaceId: k.workspaceId }, signingKeyOf(k.secret)),
      memberId: k.memberId,
      createdAt: clock.now(),
    },
  });
}

/** Keys act on their own mode only: a test key neither mints nor revokes live keys, nor the reverse. */
function assertOwnMode(callerMode: 'test' | 'live', keyMode: string, action: 'mint' | 'revoke') {
  if (keyMode !== callerMode)
    throw new DomainError('insufficient_scope', `A ${callerMode} key cannot ${action} ${keyMode} keys`);
}

function invalidScope(s: string): never {
  throw err.validation('scopes', `unknown scope ${s}`);
}

export async function getApiKey(ctx: Context, id: string) {
  const auth = authorize(ctx, 'svc:api_key:read');
  const row = await inTenant(tenant(auth, BOTH), (tx) =>
    tx.apiKey.findFirst({ where: { id, workspaceId: auth.workspaceId } }),
  );
  if (!row) throw err.notFound('API key');
  return row;
}

export async function listApiKeys(ctx: Context, args: ListApiKeysArgs) {
  const auth = authorize(ctx, 'svc:api_key:read');
  const environment = args.environment
    ? oneOf(args.environment, ['test', 'live'] as const, 'environment', 'api_key')
    : null;
  const filters = { environment, includeRevoked: !!args.includeRevoked };
  const page = pageRequest(args, auth.workspaceId, filters, listPageSize.apiKeys);
  // The hot read goes straight to SQL (same columns and keyset as Prisma would use).
  const inMode = environment ? sql` AND mode = ${environment}` : sql.empty;
  const live = filters.includeRevoked ? sql.empty : sql` AND "revokedAt" IS NULL`;
  const ks = keysetSql(page);
  const rows = await tenantQuery<ApiKeyRow>(
    tenant(auth, BOTH),
    sql`SELECT ${COLUMNS} FROM api_keys WHERE "workspaceId" = ${auth.workspaceId}${inMode}${live}${ks.where}${ks.tail}`,
  );
  return toConnection(rows, page, auth.workspaceId, filters, (r) => r.createdAt);
}

export async function revokeApiKey(ctx: Context, id: string) {
  const auth = authorize(ctx, 'svc:api_key:write');
  if (id === auth.apiKeyId) throw err.of('cannot_revoke_self', 'A key cannot revoke itself; sign with another key');
  const row = await inTenant(tenant(auth, BOTH), async (tx) => {
    const found = await tx.apiKey.findFirst({ where: { id, workspaceId: auth.workspaceId } });
    if (!found) throw err.notFound('API key');
    assertOwnMode(auth.mode, found.mode, 'revoke');
    if (found.revokedAt) return found;
    // Key administration follows the member's role (DECISIONS §2): another member's key only below the
    // caller's rank. A partner on behalf of its merchant acts by its agreement, not as a merchant's member.
    if (found.memberId && found.memberId !== auth.memberId && !auth.onBehalfOf) {
      const holder = await tx.member.findFirst({ where: { workspaceId: auth.workspaceId, id: found.memberId } });
      if (holder && holder.status !== 'removed' && !outranks(auth, holder.role as MemberRole))
        throw new DomainError('insufficient_scope', `Only a role above ${holder.role} can revoke this key`);
    }
    const revoked = await tx.apiKey.update({ where: { id }, data: { revokedAt: clock.now() } });
    await audit(tx, auth, 'api_key.revoked', id, ctx.requestId);
    return revoked;
  });
  forgetKey(row.keyId);
  return row;
}
