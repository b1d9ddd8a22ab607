import { db, inTenant, type Mode } from '../../core/db/client.ts';
import { clock } from '../../core/clock.ts';
import { Sweep } from '../../core/sweep.ts';
import { emit } from '../../core/outbox.ts';
import { toWire } from '../../core/wire.ts';
import { checkoutSessionFields } from './fields.ts';
import { lockSession } from './service.ts';
import { nextState, sqlIn, statusesWhere } from '../../core/state-machine.ts';
import { sql } from '../../core/db/sql-template.ts';
import { checkoutSessionMachine as sessions, isTerminal, type SessionStatus } from './states.ts';

const expirable = sqlIn(sql`s.status`, statusesWhere(sessions, 'expire')).text;

/**
 * The expiry sweep: every live session past `expiresAt` becomes `expired` with its event, one
 * transaction each. The row lock and the re-check make it safe beside a completing callback or a
 * second worker. Returns how many it expired.
 */
export async function expireDueSessions(limit = 500): Promise<number> {
  const now = clock.now();
  const { rows } = await db().system.query<{ id: string; workspaceId: string; mode: Mode; accountId: string }>(
    `SELECT s.id, s."workspaceId", s.mode, w."accountId"
     FROM checkout_sessions s JOIN workspaces w ON w.id = s."workspaceId"
     WHERE ${expirable} AND s."expiresAt" <= $1 ORDER BY s."expiresAt" LIMIT $2`,
    [now, limit],
  );
  // Each session alone: one that fails is quarantined, the others expire on time (src/core/sweep.ts).
  const sweep = await Sweep.one('checkout_expiry');
  return sweep.rows(rows, (r) => {
    const scope = { workspaceId: r.workspaceId, mode: r.mode, modes: [r.mode] };
    return inTenant(scope, async (tx) => {
      const s = await lockSession(tx, scope, r.id);
      if (!s || isTerminal(s.status as SessionStatus) || s.expiresAt > now) return 0;
      const next = nextState(sessions, s.status as SessionStatus, 'expire');
      const row = await tx.checkoutSession.update({
        where: { id: s.id },
        data: { status: next.to, expiredAt: now, updatedAt: now },
      });
      await emit(tx, scope, next.events[0], toWire({ ...row, accountId: r.accountId }, checkoutSessionFields), {
        source: 'sweep',
      });
      return 1;
    });
  });
}
