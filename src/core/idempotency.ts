import { randomUUID } from 'node:crypto';
import { GraphQLError } from 'graphql';
import { tenantQuery, type Mode } from './db/client.ts';
import { sql } from './db/sql-template.ts';
import { seal, unseal } from './sealed.ts';
import { isSealed } from './crypto.ts';
import { DomainError, isDomainError, type Resource } from './errors.ts';
import { config } from './config.ts';
import { clock } from './clock.ts';
import { allows, type Grant, type Scope } from './auth/scopes.ts';
import { isDatabaseUnavailable } from './db/unavailable.ts';

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** A failure the client may retry with the same key (inside a 200 GraphQL response, say): never stored. */
  retryable?: boolean;
  /** A failure after which what the run committed is unknown (isInDoubt): the claim is kept, not released. */
  inDoubt?: boolean;
}

/**
 * What a request learns while it runs that its stored response must carry: the scopes it was
 * authorized for (re-checked before any replay) and the secrets it returned (never stored).
 * Filled through the request's Context (`authorize()` and secret fields, src/graphql/fields.ts).
 */
export interface ReplayNotes {
  scopes: Set<Scope>;
  secrets: Set<string>;
  /**
   * The logical request, the same when a claim is taken over after its lease: an operation that
   * creates money movements records it (unique) so a re-run finds the row instead of repeating.
   */
  operationId?: string;
}
export const replayNotes = (): ReplayNotes => ({ scopes: new Set(), secrets: new Set() });

/** The caller an idempotency record is bound to. */
export interface Caller extends Grant {
  workspaceId: string;
  mode: Mode;
  apiKeyId: string;
}

const keyShape = /^[\x21-\x7e]{1,255}$/;

/**
 * spec Numbers: a key is claimed before the operation runs (a concurrent request with the same
 * key gets 409), and the first response is replayed for 24 hours, to the API key that claimed it
 * only (another key of the workspace gets 409 idempotency_conflict) and only while that key's
 * current grant still allows every scope the first run was authorized for. Secrets in the
 * response are stored as null: the replay is the same object without them. A claim is a lease
 * (`leaseSec`): after it, the same request may take the key over (a crash after the operation
 * committed would otherwise hold the key for 24 hours). Retryable outcomes (5xx, rate limits,
 * provider errors, also inside a 200 GraphQL response) release the key instead of being stored,
 * except an outcome in doubt (the database went away mid-run, maybe with a COMMIT whose answer was
 * lost): that claim stays until its lease ends, so the retry gets 409 `idempotency_in_flight` and
 * then takes the claim over with the same `operationId`, finding what the first run committed
 * (src/core/operations.ts) instead of acting twice.
 */
export async function withIdempotency(
  caller: Caller,
  key: string,
  fingerprint: string,
  resource: Resource,
  notes: ReplayNotes,
  run: () => Promise<StoredResponse>,
): Promise<StoredResponse & { replayed: boolean }> {
  if (!keyShape.test(key))
    throw new DomainError('validation_error', 'Idempotency-Key must be 1-255 visible ASCII characters', {
      field: 'Idempotency-Key',
      resource,
    });
  const tenant = { workspaceId: caller.workspaceId, modes: [caller.mode] };
  const now = clock.now();
  const expires = new Date(now.getTime() + config.idempotencyTtlHours * 3600_000);
  const lease = new Date(now.getTime() + config.idempotencyLeaseSec * 1000);
  const claimId = randomUUID();
  // A takeover (same request, lease over) keeps the key's expiry and operation; an expired key starts afresh.
  const claimed = await tenantQuery<{ operationId: string }>(
    tenant,
    sql`INSERT INTO idempotency_keys
       ("workspaceId", mode, key, fingerprint, state, "expiresAt", "apiKeyId", "claimId", "leaseUntil", "operationId")
     VALUES (${caller.workspaceId}, ${caller.mode}, ${key}, ${fingerprint}, 'in_flight', ${expires},
       ${caller.apiKeyId}, ${claimId}, ${lease}, ${claimId})
     ON CONFLICT ("workspaceId", mode, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, state = 'in_flight',
       "statusCode" = NULL, headers = NULL, body = NULL, scopes = NULL,
       "apiKeyId" = EXCLUDED."apiKeyId", "claimId" = EXCLUDED."claimId", "leaseUntil" = EXCLUDED."leaseUntil",
       "expiresAt" = CASE WHEN idempotency_keys."expiresAt" < ${now} THEN EXCLUDED."expiresAt"
         ELSE idempotency_keys."expiresAt" END,
       "createdAt" = CASE WHEN idempotency_keys."expiresAt" < ${now} THEN now() ELSE idempotency_keys."createdAt" END,
       "operationId" = CASE WHEN idempotency_keys."expiresAt" < ${now} OR idempotency_keys."operationId" IS NULL
         THEN EXCLUDED."operationId" ELSE idempotency_keys."operationId" END
       WHERE idempotency_keys."expiresAt" < ${now}
          OR (idempotency_keys.state = 'in_flight' AND idempotency_keys."leaseUntil" < ${now}
              AND idempotency_keys.fingerprint = EXCLUDED.fingerprint
              AND idempotency_keys."apiKeyId" = EXCLUDED."apiKeyId")
     RETURNING "operationId"`,
  );
  if (!claimed.length) return replay(tenant, caller, key, fingerprint, resource);
  notes.operationId = claimed[0].operationId;
  const where = sql`"workspaceId" = ${caller.workspaceId} AND mode = ${caller.mode} AND key = ${key}
    AND "claimId" = ${claimId}`;
  const release = () => tenantQuery(tenant, sql`DELETE FROM idempotency_keys WHERE ${where}`).catch(() => {});
  let response: StoredResponse;
  try {
    response = await run();
  } catch (e) {
    if (!isInDoubt(e)) await release();
    throw e;
  }
  if (response.inDoubt) {
    // Kept in flight until its lease ends (see above).
  } else if (response.status >= 500 || response.retryable) await release();
  else {
    await tenantQuery(
      tenant,
      sql`UPDATE idempotency_keys SET state = 'done', "statusCode" = ${response.status},
        headers = ${JSON.stringify(response.headers)},
        body = ${sealBody(caller, key, withoutSecrets(response.body, notes.secrets))}, scopes = ${[...notes.scopes]}
        WHERE ${where}`,
    );
  }
  const { retryable: _, inDoubt: __, ...out } = response;
  return { ...out, replayed: false };
}

const bodyRow = (caller: Caller, key: string) => ({ workspaceId: caller.workspaceId, mode: caller.mode, key });
const sealBody = (caller: Caller, key: string, body: Buffer) =>
  Buffer.from(seal('idempotency_keys', bodyRow(caller, key), body));
// A response stored before bodies were sealed (JSON, never starting with the magic) replays as stored.
const unsealBody = (caller: Caller, key: string, body: Buffer) =>
  isSealed(body) ? unseal('idempotency_keys', bodyRow(caller, key), body) : body;

/**
 * The body with every secret it returned (a JSON string) replaced by null. Secrets are random, so the match is exact.
 */
function withoutSecrets(body: Buffer, secrets: Set<string>): Buffer {
  if (!secrets.size) return body;
  let text = body.toString('utf8');
  for (const s of secrets) text = text.split(JSON.stringify(s)).join('null');
  return Buffer.from(text);
}

async function replay(
  tenant: { workspaceId: string; modes: Mode[] },
  caller: Caller,
  key: string,
  fingerprint: string,
  resource: Resource,
) {
  const [row] = await tenantQuery<{
    fingerprint: string;
    state: string;
    statusCode: number;
    headers: Record<string, string>;
    body: Buffer;
    apiKeyId: string | null;
    scopes: Scope[] | null;
  }>(
    tenant,
    sql`SELECT fingerprint, state, "statusCode", headers, body, "apiKeyId", scopes FROM idempotency_keys
      WHERE "workspaceId" = ${caller.workspaceId} AND mode = ${caller.mode} AND key = ${key}`,
  );
  if (!row)
    throw new DomainError('idempotency_in_flight', 'A request with this Idempotency-Key is in flight', { resource });
  if (row.apiKeyId !== caller.apiKeyId)
    throw new DomainError('idempotency_conflict', 'This Idempotency-Key was used by another API key of the workspace', {
      resource,
    });
  if (row.fingerprint !== fingerprint)
    throw new DomainError('idempotency_conflict', 'This Idempotency-Key was used with a different request', {
      resource,
    });
  if (row.state !== 'done')
    throw new DomainError('idempotency_in_flight', 'A request with this Idempotency-Key is still in flight', {
      resource,
    });
  // The key's member may have been demoted since: what the first run needed must still be allowed.
  const lacking = (row.scopes ?? []).find((s) => !allows(caller, s));
  if (lacking) throw new DomainError('insufficient_scope', `This key lacks the ${lacking} scope`);
  return { status: row.statusCode, headers: row.headers, body: unsealBody(caller, key, row.body), replayed: true };
}

/**
 * Whether a failure leaves the run's outcome unknown: the database went away while it ran (a lost
 * connection, a failover), so a transaction may have committed without the run hearing it.
 */
export function isInDoubt(e: unknown): boolean {
  const inner = e instanceof GraphQLError ? (e.originalError ?? e) : e;
  return isDatabaseUnavailable(inner) || (isDomainError(inner) && inner.canonical === 'service_unavailable');
}

/**
 * Whether an error is worth retrying with the same key, so must not be stored: server errors,
 * provider errors and rate limits. Client errors (validation, not found, conflicts, GraphQL
 * variable coercion) are final and stored.
 */
export function isRetryable(e: unknown): boolean {
  const domain = isDomainError(e)
    ? e
    : e instanceof GraphQLError && isDomainError(e.originalError)
      ? e.originalError
      : null;
  if (domain) return domain.status >= 500 || domain.canonical === 'rate_limited';
  // Masked internal errors carry internal_error; any other GraphQL error is the client's.
  if (e instanceof GraphQLError) return e.extensions?.code === 'internal_error';
  return true;
}
