import { clock } from '../../core/clock.ts';
import { db, inTenant, type Mode } from '../../core/db/client.ts';
import { scopedRow } from '../../core/db/sql.ts';
import { Sweep } from '../../core/sweep.ts';
import type { PaymentMethod } from '../../generated/prisma/client.ts';
import { moveMethod } from './service.ts';
import { chargeable } from './states.ts';

/**
 * The card-expiry sweep (docs/guides/payment-methods.md, Expiry): every active method on the real
 * clock past `expiresAt` becomes `expired` (`payment_method.expired`, cleared as default and from
 * subscriptions), one transaction each, re-checked under the row lock. The claim reads the partial
 * index `payment_methods_expiry_idx`. Returns how many it expired.
 */
export async function expireDueMethods(limit = 500): Promise<number> {
  const now = clock.now();
  const { rows } = await db().system.query<{ id: string; workspaceId: string; mode: Mode; accountId: string }>(
    `SELECT p.id, p."workspaceId", p.mode, w."accountId"
     FROM payment_methods p JOIN workspaces w ON w.id = p."workspaceId"
     WHERE p.status = 'active' AND p."expiresAt" IS NOT NULL AND p."expiresAt" <= $1 AND p."testClockId" IS NULL
     ORDER BY p."expiresAt" LIMIT $2`,
    [now, limit],
  );
  // Each method alone: one that fails is quarantined, the others expire on time (src/core/sweep.ts).
  const sweep = await Sweep.one('payment_method_expiry');
  return sweep.rows(rows, (r) => {
    const scope = { workspaceId: r.workspaceId, mode: r.mode, modes: [r.mode] };
    return inTenant(scope, async (tx) => {
      const pm = await scopedRow<PaymentMethod>(tx, 'payment_methods', scope, r.id, { lock: true });
      if (!pm || pm.status !== chargeable || !pm.expiresAt || pm.expiresAt > now) return 0;
      await moveMethod(tx, scope, pm.id, 'expire', { accountId: r.accountId, source: 'sweep', at: now });
      return 1;
    });
  });
}
