import { tenantQuery, type Mode } from './db/client.ts';
import { DomainError, type Resource } from './errors.ts';
import { config } from './config.ts';
import { clock } from './clock.ts';

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

const keyShape = /^[\x21-\x7e]{1,255}$/;

/**
 * DECISIONS §6: a key is claimed before the operation runs (a concurrent request with the same
 * key gets 409), and the first response is replayed byte for byte for 24 hours. 5xx responses
 * release the key so the client can retry.
 */
export async function withIdempotency(
  scope: { workspaceId: string; mode: Mode },
  key: string,
  fingerprint: string,
  resource: Resource,
  run: () => Promise<StoredResponse>,
): Promise<StoredResponse & { replayed: boolean }> {
  if (!keyShape.test(key)) throw new DomainError('validation_error', 'Idempotency-Key must be 1-255 visible ASCII characters', { field: 'Idempotency-Key', resource });
  const tenant = { workspaceId: scope.workspaceId, modes: [scope.mode] };
  const expires = new Date(clock.now().getTime() + config.idempotencyTtlHours * 3600_000);
  const claimed = await tenantQuery(
    tenant,
    `INSERT INTO idempotency_keys ("workspaceId", mode, key, fingerprint, state, "expiresAt") VALUES ($1, $2, $3, $4, 'in_flight', $5)
     ON CONFLICT ("workspaceId", mode, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, state = 'in_flight', "expiresAt" = EXCLUDED."expiresAt",
       "createdAt" = now(), "statusCode" = NULL, headers = NULL, body = NULL
       WHERE idempotency_keys."expiresAt" < $6
     RETURNING key`,
    [scope.workspaceId, scope.mode, key, fingerprint, expires, clock.now()],
  );
  if (!claimed.length) return replay(tenant, scope, key, fingerprint, resource);
  let response: StoredResponse;
  try {
    response = await run();
  } catch (e) {
    await release(tenant, scope, key);
    throw e;
  }
  if (response.status >= 500) await release(tenant, scope, key);
  else {
    await tenantQuery(
      tenant,
      `UPDATE idempotency_keys SET state = 'done', "statusCode" = $4, headers = $5, body = $6 WHERE "workspaceId" = $1 AND mode = $2 AND key = $3`,
      [scope.workspaceId, scope.mode, key, response.status, JSON.stringify(response.headers), response.body],
    );
  }
  return { ...response, replayed: false };
}

async function replay(tenant: { workspaceId: string; modes: Mode[] }, scope: { workspaceId: string; mode: Mode }, key: string, fingerprint: string, resource: Resource) {
  const [row] = await tenantQuery<{ fingerprint: string; state: string; statusCode: number; headers: Record<string, string>; body: Buffer }>(
    tenant,
    `SELECT fingerprint, state, "statusCode", headers, body FROM idempotency_keys WHERE "workspaceId" = $1 AND mode = $2 AND key = $3`,
    [scope.workspaceId, scope.mode, key],
  );
  if (!row) throw new DomainError('idempotency_in_flight', 'A request with this Idempotency-Key is in flight', { resource });
  if (row.fingerprint !== fingerprint) throw new DomainError('idempotency_conflict', 'This Idempotency-Key was used with a different request', { resource });
  if (row.state !== 'done') throw new DomainError('idempotency_in_flight', 'A request with this Idempotency-Key is still in flight', { resource });
  return { status: row.statusCode, headers: row.headers, body: row.body, replayed: true };
}

async function release(tenant: { workspaceId: string; modes: Mode[] }, scope: { workspaceId: string; mode: Mode }, key: string) {
  await tenantQuery(tenant, `DELETE FROM idempotency_keys WHERE "workspaceId" = $1 AND mode = $2 AND key = $3`, [scope.workspaceId, scope.mode, key]).catch(() => {});
}

/**
 * spec Conventions: endpoints that require an `Idempotency-Key` answer 400 without one. Checked
 * in the service, so `/graphql` (header or `idempotencyKey` argument) follows the same rule as REST.
 */
export function requireIdempotencyKey(ctx: { idempotencyKey?: string }, resource: Resource) {
  if (!ctx.idempotencyKey) throw new DomainError('idempotency_required', 'This operation requires an Idempotency-Key', { field: 'Idempotency-Key', resource });
}
