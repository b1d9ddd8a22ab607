/**
 * The payout balance (spec Payout: balance object) of one workspace, mode and currency:
 * `ledgerBalance` is what the `settlement:*` accounts hold (debits - credits: payments less fees,
 * succeeded refunds and paid payouts; docs/ledger.md), `locked` the pending and in-transit payouts,
 * `available` the difference. Read from the per-day totals, so it costs the same at any volume.
 */
import type { Tx } from '../../core/db/client.ts';
import { lockName } from '../../core/locks.ts';
import type { Balance } from './fields.ts';
import { locking } from './states.ts';
import type { RowScope } from '../../core/resource.ts';

export async function balanceOf(tx: Tx, scope: RowScope, currency: string): Promise<Balance> {
  const [row] = await tx.$queryRaw<{ ledger: bigint; locked: bigint }[]>`
    SELECT
      (SELECT coalesce(sum(debits - credits), 0)::bigint FROM ledger_daily
        WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode} AND currency = ${currency}
          AND code LIKE 'settlement:%') AS ledger,
      (SELECT coalesce(sum(amount), 0)::bigint FROM payouts
        WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode} AND currency = ${currency}
          AND status = ANY(${locking})) AS locked`;
  return { ledgerBalance: row.ledger, locked: row.locked, available: row.ledger - row.locked, currency };
}

/**
 * Serialises everything that locks or releases balance in one workspace, mode and currency
 * (payout create, the schedule). Held to commit, so two payouts never both see the same funds.
 */
export const lockBalance = (tx: Tx, scope: RowScope, currency: string) =>
  lockName(tx, `payout-balance:${scope.workspaceId}:${scope.mode}:${currency}`);
