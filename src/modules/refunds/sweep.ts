/**
 * The refund sweep (job `pending-sweep`): refunds left `pending` and unsubmitted by a crash or an
 * unknown outcome between phase 1 and phase 3 (service.ts createRefund).
 *
 * Rule: after a grace period longer than any provider call (SWEEP_GRACE_MS), the provider is asked
 * again with the refund's own idempotency key. The providers deduplicate on it (provider_a
 * `Idempotency-Key`, provider_b `refund_key`, provider_c `PayPal-Request-Id`), so this call is the
 * status query: it answers the refund made the first time, or makes it now if the first call never
 * arrived (the merchant asked for it and the amount has stayed reserved). A definite refusal marks
 * the refund failed (its amount is refundable again); an unknown outcome waits for the next run.
 */
import { db, inTenant, type Mode } from '../../core/db/client.ts';
import { clock } from '../../core/clock.ts';
import { Sweep } from '../../core/sweep.ts';
import { recordAnswer, submitRefund } from './submit.ts';
import { sqlIn } from '../../core/state-machine.ts';
import { sql } from '../../core/db/sql-template.ts';
import { awaitingProvider, type RefundStatus } from './states.ts';
import { refundStatus } from '../../providers/types.ts';

const awaiting = sqlIn(sql`r.status`, awaitingProvider).text;

/** Longer than a refund call can take (3 provider calls of at most 10 s each). */
export const SWEEP_GRACE_MS = 60_000;

/** One pass; returns how many refunds it settled (submitted or failed). */
export async function reconcilePendingRefunds(limit = 200): Promise<number> {
  const cutoff = new Date(clock.now().getTime() - SWEEP_GRACE_MS);
  const { rows } = await db().system.query<{ id: string; workspaceId: string; mode: Mode; accountId: string }>(
    `SELECT r.id, r."workspaceId", r.mode, w."accountId" FROM refunds r JOIN workspaces w ON w.id = r."workspaceId"
     WHERE r."submittedAt" IS NULL AND ${awaiting} AND r."createdAt" <= $1 ORDER BY r."createdAt" LIMIT $2`,
    [cutoff, limit],
  );
  // Each refund alone: one that throws is quarantined, the others settle (src/core/sweep.ts).
  const sweep = await Sweep.one('refund_pending');
  return sweep.rows(rows, async (r) => {
    const scope = { workspaceId: r.workspaceId, mode: r.mode };
    const opts = { accountId: r.accountId, source: 'sweep' };
    const found = await inTenant({ ...scope, modes: [r.mode] }, async (tx) => {
      const refund = await tx.refund.findUnique({ where: { id: r.id } });
      if (!refund || refund.submittedAt || !awaitingProvider.includes(refund.status as RefundStatus)) return null;
      const payment = await tx.payment.findUniqueOrThrow({ where: { id: refund.paymentId } });
      const adapter = await tx.adapter.findUnique({
        where: {
          workspaceId_mode_kind: { workspaceId: r.workspaceId, mode: r.mode, kind: refund.adapter ?? 'manual' },
        },
      });
      return { refund, payment, adapter };
    });
    if (!found) return 0;
    const failed = (message: string) =>
      recordAnswer(
        scope,
        found.refund,
        { status: refundStatus.failed, providerRefundId: null },
        { ...opts, failureCode: 'provider_rejected', failureMessage: message.slice(0, 500) },
      );
    const after = found.adapter
      ? await submitRefund(scope, found.refund, found.payment, found.adapter, opts, (e) => failed(e.message))
      : await failed(`The ${found.refund.adapter} adapter is no longer connected; nothing was refunded`);
    return after.submittedAt ? 1 : 0;
  });
}
