import { expireDue } from '../../core/expiry-sweep.ts';
import { emit } from '../../core/outbox.ts';
import { toWire } from '../../core/wire.ts';
import { checkoutSessionFields } from './fields.ts';
import { lockSession } from './service.ts';
import { nextState } from '../../core/state-machine.ts';
import { checkoutSessionMachine as sessions, isTerminal, type SessionStatus } from './states.ts';

/**
 * The expiry sweep: every live session past `expiresAt` becomes `expired` with its event, one
 * transaction each (src/core/expiry-sweep.ts). The row lock and the re-check make it safe beside a
 * completing callback or a second worker. Returns how many it expired.
 */
export function expireDueSessions(limit = 500): Promise<number> {
  return expireDue(
    { table: 'checkout_sessions', machine: sessions, sweep: 'checkout_expiry', limit },
    async (tx, scope, r, now) => {
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
    },
  );
}
