import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant, tenantQuery } from '../../core/db/client.ts';
import type { ApiKey as ApiKeyRow } from '../../generated/prisma/client.ts';
import { errorsFor, DomainError } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { randomHex } from '../../core/crypto.ts';
import { seal } from '../../core/sealed.ts';
import { signingKeyOf } from '../../core/auth/signing.ts';
import { keyRoles, normalizeScope, type KeyRole, type Scope } from '../../core/auth/scopes.ts';
import { forgetKey } from '../../core/auth/authenticate.ts';
import { keysetSql, pageRequest, toConnection } from '../../core/pagination.ts';
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
  assertOwnMode(auth.mode, environment, 'mint');
  const secret = `sk_${environment}_${randomHex(24)}`;
  return inTenant(tenant(auth, BOTH), async (tx) => {
    // The workspace row lock serialises concurrent mints, so the tier cap holds.
    await tx.$queryRaw`SELECT id FROM workspaces WHERE id = ${auth.workspaceId} FOR UPDATE`;
    const active = await tx.apiKey.count({ where: { workspaceId: auth.workspaceId, revokedAt: null } });
    if (active >= capOf(auth.tier, 'maxApiKeys'))
      throw err.of(
        'tier_cap_reached',
        `This workspace's plan allows ${capOf(auth.tier, 'maxApiKeys')} active API keys`,
      );
    const id = newId('apiKey');
    const row = await tx.apiKey.create({
      data: {
        id,
        workspaceId: auth.workspaceId,
        mode: environment,
        keyId: `pk_${environment}_${randomHex(6)}`,
        name: input.name,
        role,
        scopes,
        signingKey: seal('api_keys', { id, workspaceId: auth.workspaceId }, signingKeyOf(secret)),
        memberId: auth.memberId,
        createdAt: clock.now(),
      },
    });
    await audit(tx, auth, 'api_key.created', row.id, ctx.requestId);
    return { ...row, key: secret };
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
  const page = pageRequest(args, auth.workspaceId, filters, 50);
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
    const revoked = await tx.apiKey.update({ where: { id }, data: { revokedAt: clock.now() } });
    await audit(tx, auth, 'api_key.revoked', id, ctx.requestId);
    return revoked;
  });
  forgetKey(row.keyId);
  return row;
}
