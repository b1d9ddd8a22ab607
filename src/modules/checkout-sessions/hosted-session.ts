// The session behind a hosted token (its tenant remembered), and the status the customer sees.
import { db, type Mode } from '../../core/db/client.ts';
import { errorsFor } from '../../core/errors.ts';
import { clock } from '../../core/clock.ts';
import { BoundedCache } from '../../core/bounded-cache.ts';
import { hostedSecretMatches, parseHostedToken } from '../../core/hosted-link.ts';
import { nextState } from '../../core/state-machine.ts';
import { checkoutSessionMachine as sessions, isTerminal, type SessionStatus } from './states.ts';
import type { CheckoutSession } from '../../generated/prisma/client.ts';
import type { RowScope } from '../../core/resource.ts';

const err = errorsFor('checkout_session');
export type Scope = RowScope & { modes: readonly Mode[] };

// A session's workspace, mode, secret and save choice never change: remembered for the page's next
// calls. Only tokens that matched are kept, so the cache holds real sessions, at most 10,000 of them.
const scopes = new BoundedCache<string, { scope: Scope; secret: string; savePaymentMethod: string }>(10_000);

/**
 * The session id and tenant of a hosted token (`<cs_id>_<secret>`, src/core/hosted-link.ts); 404
 * alike for a malformed token, an unknown session and a wrong secret.
 */
export async function sessionOf(token: string): Promise<{ id: string; scope: Scope; savePaymentMethod: string }> {
  const parsed = parseHostedToken('checkoutSession', token);
  if (!parsed) throw err.notFound('checkout session');
  const { id, secret } = parsed;
  let known = scopes.get(id);
  if (!known) {
    const { rows } = await db().system.query<{
      workspaceId: string;
      mode: Mode;
      hostedSecret: string;
      savePaymentMethod: string;
    }>(`SELECT "workspaceId", mode, "hostedSecret", "savePaymentMethod" FROM checkout_sessions WHERE id = $1`, [id]);
    const row = rows[0];
    if (!row || !hostedSecretMatches(row.hostedSecret, secret)) throw err.notFound('checkout session');
    known = {
      scope: { workspaceId: row.workspaceId, mode: row.mode, modes: [row.mode] },
      secret: row.hostedSecret,
      savePaymentMethod: row.savePaymentMethod,
    };
    scopes.set(id, known);
  } else if (!hostedSecretMatches(known.secret, secret)) {
    throw err.notFound('checkout session');
  }
  return { id, scope: known.scope, savePaymentMethod: known.savePaymentMethod };
}

/** A session past its expiry is expired to the customer even before the sweep records it. */
export const effectiveStatus = (s: CheckoutSession): SessionStatus =>
  !isTerminal(s.status) && s.expiresAt <= clock.now()
    ? nextState(sessions, s.status as SessionStatus, 'expire').to
    : (s.status as SessionStatus);

/** A session that can still be paid, locked. */
export function assertLive(s: CheckoutSession | null | undefined): CheckoutSession {
  if (!s) throw err.notFound('checkout session');
  const status = effectiveStatus(s);
  if (status !== s.status) throw err.conflict(`The checkout session is ${status}`);
  return s;
}
