/**
 * The run's ledger check (docs/reconciliation.md, Runs; the rule is `ledgerCheck`): over the provider rows this
 * run claimed (its provider matches but batch transfers, and the rows of its amount and fee mismatches, open or
 * accepted), per adapter and currency: their net against the settlement legs of their objects' own transactions
 * (a payment's session or its own id, a refund's, a payout's) plus their fee postings and write-offs, with the
 * unposted differences of their amount mismatches. A mismatch logs at error level.
 */
import { sql } from '../../../core/db/sql.ts';
import { logger } from '../../../core/logger.ts';
import { ledgerCheck, type LedgerCheck } from '../rules/ledger-check.ts';
import { resolution, settlementAccount } from '../rules/categories.ts';
import { reconExceptionMachine } from '../states.ts';
import { inRunTx, type RunContext } from './context.ts';
import { recordProgress } from './progress.ts';

/** Resolutions that leave an amount mismatch unposted. */
const unposted = [resolution.accepted];

export async function runLedgerPhase(c: RunContext): Promise<LedgerCheck> {
  return inRunTx(c, async (tx) => {
    await recordProgress(tx, c, 'ledger', 0);
    const open = reconExceptionMachine.moves.open.to;
    const mismatch = ['amount_mismatch', 'fee_mismatch'];
    const ws = (t: string) =>
      sql`${sql.id(t)}."workspaceId" = ${c.scope.workspaceId} AND ${sql.id(t)}.mode = ${c.scope.mode}`;
    const groups = await tx.query<{
      adapter: string;
      currency: string;
      rowsNet: bigint;
      ledgerNet: bigint;
      unpostedDifference: bigint;
    }>(
      sql`WITH claimed AS (
          SELECT r.id, r.adapter, r.currency, r.net, r.fee, r."feeVat", r."withholdingTax", r."objectType",
            r."objectId", r."ledgerTxId", NULL::bigint AS difference
          FROM recon_matches m JOIN recon_rows r ON r."workspaceId" = m."workspaceId" AND r.mode = m.mode
            AND r.id = m."rowIds"[1]
          WHERE ${ws('m')} AND m."runId" = ${c.run.id} AND m.kind = ${'provider'} AND m.rule <> ${'batch_transfer'}
          UNION ALL
          SELECT r.id, r.adapter, r.currency, r.net, r.fee, r."feeVat", r."withholdingTax", r."objectType",
            r."objectId", r."ledgerTxId", CASE WHEN e.category = ${'amount_mismatch'} THEN e.difference END
          FROM recon_exceptions e JOIN recon_rows r ON r."workspaceId" = e."workspaceId" AND r.mode = e.mode
            AND r.id = e."rowIds"[1]
          WHERE ${ws('e')} AND e."runId" = ${c.run.id} AND e.category = ANY(${mismatch}::text[])
            AND (e.status = ${open} OR e.resolution = ANY(${unposted as unknown as string[]}::text[]))),
        objects AS (
          SELECT DISTINCT k.adapter, k."objectType", k."objectId", p."checkoutSessionId"
          FROM claimed k LEFT JOIN payments p ON p."workspaceId" = ${c.scope.workspaceId} AND p.mode = ${c.scope.mode}
            AND p.id = k."objectId" AND k."objectType" = ${'payment'}
          WHERE k."objectId" IS NOT NULL),
        object_legs AS (
          SELECT o.adapter, l.currency,
            sum(CASE l.direction WHEN ${'debit'} THEN l.amount ELSE -l.amount END) AS net
          FROM objects o JOIN ledger_entries l ON l."workspaceId" = ${c.scope.workspaceId} AND l.mode = ${c.scope.mode}
            AND l."txId" IN (o."objectId", o."checkoutSessionId")
            AND l.code = ${settlementAccount('')} || o.adapter
          GROUP BY 1, 2),
        fee_legs AS (
          SELECT k.adapter, k.currency,
            -sum(CASE WHEN p.fee > 0 THEN 0 ELSE k.fee END + k."feeVat" + k."withholdingTax") AS net
          FROM claimed k LEFT JOIN payments p ON p."workspaceId" = ${c.scope.workspaceId} AND p.mode = ${c.scope.mode}
            AND p.id = k."objectId" AND k."objectType" = ${'payment'}
          WHERE k."ledgerTxId" IS NOT NULL GROUP BY 1, 2),
        row_sums AS (
          SELECT adapter, currency, sum(net) AS net, coalesce(sum(difference), 0) AS unposted
          FROM claimed GROUP BY 1, 2)
        SELECT s.adapter, s.currency, s.net::bigint AS "rowsNet",
          (coalesce(o.net, 0) + coalesce(f.net, 0))::bigint AS "ledgerNet", s.unposted::bigint AS "unpostedDifference"
        FROM row_sums s LEFT JOIN object_legs o USING (adapter, currency) LEFT JOIN fee_legs f USING (adapter, currency)
        ORDER BY 1, 2`,
    );
    const check = ledgerCheck(groups);
    if (check.status !== 'ok')
      logger.error({ run: c.run.id, groups: check.groups }, 'reconciliation ledger check: mismatch');
    return check;
  });
}
