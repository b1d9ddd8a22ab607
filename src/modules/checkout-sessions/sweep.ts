/**
 * The attempt sweep (job `pending-sweep`): attempts a crash left between the phases of a
 * provider call, after a grace period longer than any call (SWEEP_GRACE_MS).
 *
 * - `creating` (the process died while the provider created the charge, or before recording it):
 *   the charge, if the provider made one, was never shown to the customer, so nothing can be paid
 *   on it; it lapses at the provider with the session's expiry. The attempt is `failed` and the
 *   session, if still pending on it, open again so the customer can pick a method.
 * - `capturing` (provider_c: died between the capture claim and its outcome): the provider's
 *   status API decides. COMPLETED completes the session (or is recorded unapplied); still APPROVED
 *   is captured again with the same `PayPal-Request-Id`, so never twice; anything else fails it.
 */
import { db, inTenant, type Mode } from '../../core/db/client.ts';
import { clock } from '../../core/clock.ts';
import { Sweep } from '../../core/sweep.ts';
import { logger } from '../../core/logger.ts';
import { isProviderError, type ChargeEvent } from '../../providers/index.ts';
import { providerFor } from '../adapters/providers.ts';
import { SWEEP_GRACE_MS } from '../refunds/sweep.ts';
import { failAttempt } from './attempts.ts';
import { canMove, sqlIn, statusesWhere } from '../../core/state-machine.ts';
import { sql } from '../../core/db/sql-template.ts';
import { checkoutAttemptMachine as attempts, type AttemptStatus } from './states.ts';

// A crash leaves an attempt `creating` (to fail) or claimed for capture (its outcome to fetch).
const stale = sqlIn(sql`status`, statusesWhere(attempts, 'fail', 'provider_pending')).text;
import { applyCharge } from './callbacks.ts';

/** One pass; returns how many attempts it settled. */
export async function reconcileStaleAttempts(limit = 200): Promise<number> {
  const cutoff = new Date(clock.now().getTime() - SWEEP_GRACE_MS);
  const { rows } = await db().system.query<{ id: string; workspaceId: string; mode: Mode; status: string }>(
    `SELECT id, "workspaceId", mode, status FROM checkout_attempts
     WHERE ${stale} AND "updatedAt" <= $1 ORDER BY "updatedAt" LIMIT $2`,
    [cutoff, limit],
  );
  // Each attempt alone: one that throws (not a provider's "unavailable") is quarantined (src/core/sweep.ts).
  const sweep = await Sweep.one('checkout_attempt');
  return sweep.rows(rows, async (r) => {
    const scope = { workspaceId: r.workspaceId, mode: r.mode };
    const a = await inTenant({ ...scope, modes: [r.mode] }, (tx) =>
      tx.checkoutAttempt.findUnique({ where: { id: r.id } }),
    );
    if (!a) return 0;
    if (canMove(attempts, a.status as AttemptStatus, 'fail'))
      return (await failAttempt(scope, a, 'provider_no_answer')) ? 1 : 0;
    if (!canMove(attempts, a.status as AttemptStatus, 'provider_pending') || !a.providerReference) return 0;
    const adapter = await inTenant({ ...scope, modes: [r.mode] }, (tx) =>
      tx.adapter.findUnique({ where: { workspaceId_mode_kind: { ...scope, kind: a.adapter } } }),
    );
    if (!adapter) return 0;
    const provider = providerFor(adapter);
    try {
      const ref = { providerRef: a.providerReference };
      let state = await provider.fetchStatus(ref);
      if (state.status === 'approved' && provider.capture)
        state = await provider.capture(ref, { idempotencyKey: `${a.id}:capture` });
      const event: ChargeEvent = {
        type: 'charge',
        providerEventId: `sweep:${a.id}`,
        providerRef: a.providerReference,
        status: state.status,
        amount: state.amount,
        currency: state.currency,
        raw: state.raw,
      };
      await applyCharge(scope, a.adapter, event, a, state);
      return 1;
    } catch (e) {
      if (!isProviderError(e)) throw e;
      logger.warn({ attempt: a.id, reason: e.message }, 'capture outcome unavailable; retried next run');
      return 0;
    }
  });
}
