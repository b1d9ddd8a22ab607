import { emit } from '../../core/outbox.ts';
import { scoped } from '../../core/resource.ts';
import { canMove, nextState } from '../../core/state-machine.ts';
import { expireDue } from '../../core/expiry-sweep.ts';
import { toWire } from '../../core/wire.ts';
import { setupSessionFields } from './fields.ts';
import { lockSetupSession, supersedeAttempts } from './service.ts';
import { setupSessionMachine as sessions, type SetupSessionStatus } from './states.ts';

/**
 * The setup sessions' part of the `checkout-expiry` job (docs/guides/setup-sessions.md, Expiry): every
 * live session past `expiresAt` becomes `expired` with `svc.setup_session.expired.v1`, one transaction
 * each (src/core/expiry-sweep.ts; the row lock and the re-check make it safe beside a completing
 * attempt). Its live attempts are superseded: a token that still becomes active is detached, never attached.
 */
export function expireDueSetupSessions(limit = 500): Promise<number> {
  return expireDue(
    { table: 'setup_sessions', machine: sessions, sweep: 'checkout_expiry', limit },
    async (tx, scope, r, now) => {
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
    },
  );
}
