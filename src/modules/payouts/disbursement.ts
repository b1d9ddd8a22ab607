/**
 * The `provider_a_disbursement` rail: a pending payout is handed to provider_a's disbursement API
 * (pending -> in_transit, `payout.initiated`, `reference` = the disbursement id) and settled from
 * the provider's status (COMPLETED -> paid, FAILED -> failed) by the `payout-rail` job.
 *
 * Claim, pay, settle: the payout is first claimed (`claimedAt`, under its row lock,
 * committed), so a concurrent cancel is refused from then on; only then is the provider called,
 * outside any transaction; the answer is settled in its own transaction. The payout id is the
 * provider's idempotency key, so a retry of a claimed payout (lost answer, crash) never sends the
 * money twice. A claimed payout stays claimed until the rail settles it or an admin marks it.
 */
import { db, inTenant, type Mode } from '../../core/db/client.ts';
import { clock } from '../../core/clock.ts';
import { Sweep } from '../../core/sweep.ts';
import { logger } from '../../core/logger.ts';
import { isProviderError } from '../../providers/index.ts';
import type { ProviderA } from '../../providers/provider_a.ts';
import { providerFor } from '../adapters/providers.ts';
import { adapterDisabled } from '../adapters/states.ts';
import { movePayout } from './service.ts';
import { canMove, outcomeTrigger, sqlIn, statusesWhere } from '../../core/state-machine.ts';
import { sql } from '../../core/db/sql-template.ts';
import { payoutMachine, type PayoutStatus } from './states.ts';

// The rail's payouts: pending ones to (re)send, in-transit ones to ask about.
const onTheRail = sqlIn(sql`status`, statusesWhere(payoutMachine, 'claim', 'mark_paid')).text;
import type { Payout } from '../../generated/prisma/client.ts';
import type { RowScope } from '../../core/resource.ts';
import { disbursementStatus } from '../../providers/provider_a.ts';

type Scope = RowScope;

async function railFor(scope: Scope): Promise<ProviderA | null> {
  const key = { workspaceId: scope.workspaceId, mode: scope.mode, kind: 'provider_a' };
  const row = await inTenant({ ...scope, modes: [scope.mode] }, (tx) =>
    tx.adapter.findUnique({ where: { workspaceId_mode_kind: key } }),
  );
  return row && row.status !== adapterDisabled ? (providerFor(row) as ProviderA) : null;
}

/** Claims a pending payout for the rail, committed; null when it is no longer pending (cancelled, failed, sent). */
async function claim(scope: Scope, id: string): Promise<Payout | null> {
  const now = clock.now();
  const [row] = await inTenant(
    { ...scope, modes: [scope.mode] },
    (tx) =>
      tx.$queryRaw<Payout[]>`UPDATE payouts SET "claimedAt" = coalesce("claimedAt", ${now}), "updatedAt" = ${now}
      WHERE id = ${id} AND "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
        AND status = ANY(${statusesWhere(payoutMachine, 'claim')}) RETURNING *`,
  );
  return row ?? null;
}

/**
 * Hands a pending payout to the rail. A failed call leaves it pending and claimed: the job retries it with the same
 * key.
 */
export async function disburse(tenant: Scope, pending: Payout, requestId?: string): Promise<Payout> {
  const scope = { workspaceId: tenant.workspaceId, mode: tenant.mode };
  const rail = await railFor(scope);
  if (!rail) return pending;
  const payout = await claim(scope, pending.id);
  if (!payout)
    return (
      (await inTenant({ ...scope, modes: [scope.mode] }, (tx) =>
        tx.payout.findUnique({ where: { id: pending.id } }),
      )) ?? pending
    );
  try {
    const d = await rail.disburse({
      reference: payout.id,
      amount: Number(payout.amount),
      bankCode: payout.bankCode ?? '',
      accountHolder: payout.bankAccountHolder,
      accountNumber: payout.bankAccountNumber,
      description: payout.note,
      idempotencyKey: payout.id,
    });
    return await inTenant({ ...scope, modes: [scope.mode] }, (tx) =>
      movePayout(tx, scope, payout.id, outcomeTrigger(payoutMachine, 'disburse', 'accepted'), {
        reference: d.id,
        requestId,
        source: 'provider_a_disbursement',
      }),
    );
  } catch (e) {
    if (!isProviderError(e)) throw e;
    if (e.reason === 'rejected') {
      // The provider answered and refused this transfer (4xx): nothing was sent, so the funds may be released.
      return inTenant({ ...scope, modes: [scope.mode] }, (tx) =>
        movePayout(tx, scope, payout.id, outcomeTrigger(payoutMachine, 'disburse', 'rejected'), {
          failureReason: e.providerCode ?? 'disbursement_rejected',
          requestId,
          source: 'provider_a_disbursement',
        }),
      );
    }
    logger.warn(
      { payout: payout.id, reason: e.message },
      'disbursement outcome unknown; the payout stays pending and claimed, re-sent with the same key',
    );
    return payout;
  }
}

/**
 * One pass of the `payout-rail` job: pending rail payouts are (re)sent, in-transit ones are asked
 * for their outcome. Returns how many payouts moved.
 */
export async function syncDisbursements(): Promise<number> {
  const { rows } = await db().system.query<Payout & { workspaceId: string; mode: Mode }>(
    `SELECT * FROM payouts WHERE method = 'provider_a_disbursement' AND ${onTheRail} ORDER BY "createdAt" LIMIT 500`,
  );
  // Each payout alone: one that throws (not a rail's "unavailable") is quarantined (src/core/sweep.ts).
  const sweep = await Sweep.one('disbursement');
  return sweep.rows(rows, async (p) => {
    const scope = { workspaceId: p.workspaceId, mode: p.mode };
    if (canMove(payoutMachine, p.status as PayoutStatus, 'claim'))
      return canMove(payoutMachine, (await disburse(scope, p)).status as PayoutStatus, 'claim') ? 0 : 1;
    const rail = await railFor(scope);
    if (!rail || !p.reference) return 0;
    try {
      const d = await rail.fetchDisbursement(p.reference);
      if (d.status === disbursementStatus.pending) return 0;
      await inTenant({ ...scope, modes: [scope.mode] }, (tx) =>
        movePayout(tx, scope, p.id, outcomeTrigger(payoutMachine, 'disbursement_status', d.status), {
          failureReason: d.failureCode ?? 'disbursement_failed',
          source: 'provider_a_disbursement',
        }),
      );
      return 1;
    } catch (e) {
      if (!isProviderError(e)) throw e;
      logger.warn({ payout: p.id, reason: e.message }, 'disbursement status unavailable; retried next run');
      return 0;
    }
  });
}
