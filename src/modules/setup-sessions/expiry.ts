import { clock } from '../../core/clock.ts';
import { db, inTenant, type Mode } from '../../core/db/client.ts';
import { sql } from '../../core/db/sql-template.ts';
import { emit } from '../../core/outbox.ts';
import { scoped } from '../../core/resource.ts';
import { canMove, nextState, sqlIn, statusesWhere } from '../../core/state-machine.ts';
import { Sweep } from '../../core/sweep.ts';
import { toWire } from '../../core/wire.ts';
import { setupSessionFields } from './fields.ts';
import { lockSetupSession, supersedeAttempts } from './service.ts';
import { setupSessionMachine as sessions, type SetupSessionStatus } from './states.ts';

const expirable = sqlIn(sql`s.status`, statusesWhere(sessions, 'expire')).text;

/**
 * The setup sessions' part of the `checkout-expiry` job (docs/guides/setup-sessions.md, Expiry): every
 * live session past `expiresAt` becomes `expired` with `svc.setup_session.expired.v1`, one transaction
 * each (the row lock and the re-check make it safe beside a completing attempt). Its live attempts are
 * superseded: a token that still becomes active is detached, never attached.
 */
export async function expireDueSetupSessions(limit = 500): Promise<number> {
  const now = clock.now();
  const { rows } = await db().system.query<{ id: string; workspaceId: string; mode: Mode; accountId: string }>(
    `SELECT s.id, s."workspaceId", s.mode, w."accountId"
     FROM setup_sessions s JOIN workspaces w ON w.id = s."workspaceId"
     WHERE ${expirable} AND s."expiresAt" <= $1 ORDER BY s."expiresAt" LIMIT $2`,
    [now, limit],
  );
  // Each session alone: one that fails is quarantined, the others expire on time (src/core/sweep.ts).
  const sweep = await Sweep.one('checkout_expiry');
  return sweep.rows(rows, (r) => {
    const scope = { workspaceId: r.workspaceId, mode: r.mode, modes: [r.mode] };
    return inTenant(scope, async (tx) => {
      const s = await lockSetupSession(tx, scope, r.id);
      if (!s || !canMove(sessions, s.status as SetupSessionStatus, 'expire') || s.expiresAt > now) return 0;
      const next = nextState(sessions, s.status as SetupSessionStatus, 'expire');
      await supersedeAttempts(tx, scope, s.id, now);
      const row = await tx.setupSession.update({
        where: { workspaceId_mode_id: { ...scoped(scope), id: s.id } },
        data: { status: next.to, expiredAt: now, updatedAt: now },
      });
      for (const type of next.events)
        await emit(tx, scope, type, toWire({ ...row, accountId: r.accountId }, setupSessionFields), {
          source: 'sweep',
        });
      return 1;
    });
  });
}
