// The setup session behind a hosted token (its tenant remembered), and what the page is told of it.
import { db, inTenant, type Mode } from '../../core/db/client.ts';
import { scopedRow } from '../../core/db/sql.ts';
import { BoundedCache } from '../../core/bounded-cache.ts';
import { errorsFor } from '../../core/errors.ts';
import { hostedSecretMatches, parseHostedToken } from '../../core/hosted-link.ts';
import type { RowScope } from '../../core/resource.ts';
import { canMove } from '../../core/state-machine.ts';
import type { SetupSession } from '../../generated/prisma/client.ts';
import { effectiveStatus } from './complete.ts';
import { setupSessionMachine as sessions, setupCompleted, type SetupSessionStatus } from './states.ts';

const err = errorsFor('setup_session');
export type Scope = RowScope & { modes: readonly Mode[] };

// A session's workspace, mode and secret never change: remembered for the page's next calls (only
// tokens that matched are kept, at most 10,000).
const scopes = new BoundedCache<string, { scope: Scope; secret: string }>(10_000);

/** The session id and tenant of a hosted token; 404 alike for a malformed token, an unknown session and a wrong secret. */
export async function sessionOf(token: string): Promise<{ id: string; scope: Scope }> {
  const parsed = parseHostedToken('setupSession', token);
  if (!parsed) throw err.notFound('setup session');
  const { id, secret } = parsed;
  let known = scopes.get(id);
  if (!known) {
    const { rows } = await db().system.query<{ workspaceId: string; mode: Mode; hostedSecret: string }>(
      `SELECT "workspaceId", mode, "hostedSecret" FROM setup_sessions WHERE id = $1`,
      [id],
    );
    const row = rows[0];
    if (!row || !hostedSecretMatches(row.hostedSecret, secret)) throw err.notFound('setup session');
    known = { scope: { workspaceId: row.workspaceId, mode: row.mode, modes: [row.mode] }, secret: row.hostedSecret };
    scopes.set(id, known);
  } else if (!hostedSecretMatches(known.secret, secret)) {
    throw err.notFound('setup session');
  }
  return { id, scope: known.scope };
}

/** A session that can still take an attempt. */
export function assertLive(s: SetupSession | null): SetupSession {
  if (!s) throw err.notFound('setup session');
  const status = effectiveStatus(s);
  if (!canMove(sessions, status, 'attempt')) throw err.conflict(`The setup session is ${status}`);
  return s;
}

/** `successUrl` with `?setup_session_id=`. */
export const setupSuccessRedirect = (successUrl: string, id: string) => {
  const u = new URL(successUrl);
  u.searchParams.set('setup_session_id', id);
  return u.toString();
};

/** The answer of an attempt: what the customer does next. */
export interface SetupNext {
  status: SetupSessionStatus;
  next: { kind: 'redirect'; redirectUrl: string } | { kind: 'otp' } | { kind: 'sandbox' } | null;
  redirectUrl?: string;
  lastError?: unknown;
}

export async function publicSetupStatusOf(scope: Scope, id: string): Promise<SetupNext> {
  const s = await inTenant(scope, (tx) => scopedRow<SetupSession>(tx, 'setup_sessions', scope, id));
  if (!s) throw err.notFound('setup session');
  const status = effectiveStatus(s);
  return {
    status,
    next: null,
    lastError: s.lastError,
    ...(status === setupCompleted ? { redirectUrl: setupSuccessRedirect(s.successUrl, s.id) } : {}),
  };
}
