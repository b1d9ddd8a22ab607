import type { Auth } from './auth/authenticate.ts';
import { assertScope, type Scope } from './auth/scopes.ts';
import { DomainError } from './errors.ts';
import type { ReplayNotes } from './idempotency.ts';
import type { Mode, TenantScope } from './db/client.ts';
import type { RateClass } from './config.ts';

/** Built once per request by the HTTP layer; the same for REST, GraphQL and subscriptions. */
export interface Context {
  requestId: string;
  auth: Auth | null;
  /** `Idempotency-Key` header; a mutation's `idempotencyKey` argument wins over it. */
  idempotencyKey?: string;
  /**
   * Set by the transports (REST route, POST/GET /graphql, the socket) once every check of theirs
   * has run: yoga's own handling executes nothing without it (src/server/graphql.ts).
   */
  admitted?: boolean;
  /**
   * Who acted, for the events' `metadata.source`: the API by default; `portal` when a customer acts in
   * the hosted portal (spec Events: the same events as the API equivalents, src/modules/portal-sessions).
   */
  source?: 'api' | 'portal';
  /**
   * More tokens of a rate class for this request's workspace, once the operation knows how many it
   * needs (usage ingestion counts events: docs/usage.md, Admission). Set by the admission pipeline.
   */
  takeTokens?: (cls: RateClass, tokens: number) => Promise<void>;
  /** Under an Idempotency-Key: the scopes authorized and the secrets returned (src/core/idempotency.ts). */
  replay?: ReplayNotes;
}

/** The caller's auth after checking the scope the operation needs. */
export function authorize(ctx: Context, scope: Scope): Auth {
  if (!ctx.auth) throw new DomainError('invalid_signature', 'This operation needs a signed request');
  assertScope(ctx.auth, scope);
  ctx.replay?.scopes.add(scope);
  return ctx.auth;
}

/** The tenant scope of the caller: its workspace, and by default only its key's mode. */
export function tenant(auth: Auth, modes: readonly Mode[] = [auth.mode]): TenantScope & { mode: Mode } {
  return { workspaceId: auth.workspaceId, modes, mode: auth.mode };
}
