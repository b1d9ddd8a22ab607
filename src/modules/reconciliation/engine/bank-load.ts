/**
 * What the bank phase reads (docs/reconciliation.md, Runs): the bank rows to decide, the unmatched batches (open,
 * or late with their late_settlement still open) and the payouts the credits may name, unclaimed by a bank row.
 */
import { sql, type Sql } from '../../../core/db/sql.ts';
import { payoutMachine } from '../../payouts/states.ts';
import type { OpenBatch, PayoutCandidate } from '../rules/bank-match.ts';
import { lineTokens } from '../rules/bank-match.ts';
import { batchMachine, reconExceptionMachine } from '../states.ts';
import type { RunContext } from './context.ts';
import { exceptionStatus, pendingStatus, type StagedRow } from './rows.ts';

export const BANK_SOURCE = 'bank_statement';
export const LATE = 'late_settlement';
export const UNKNOWN_CREDIT = 'unknown_bank_credit';
const openException = reconExceptionMachine.moves.open.to;

export type UnmatchedBatch = OpenBatch & { status: string; lateExceptionId: string | null };

/** Pending bank rows and credits whose open unknown_bank_credit a batch or payout may now explain. */
export async function bankRows(tx: Sql, c: RunContext): Promise<StagedRow[]> {
  return tx.query<StagedRow>(
    sql`SELECT r.id, r."importId", r.line, r.source, r.adapter, r."transactionId", r.type, r.reference,
        r."providerReference", r."settlementId", r.description, r."occurredAt", r."valueDate", r.currency, r.amount,
        r.fee, r."feeVat", r."withholdingTax", r.net, r.status, r."batchId", x.id AS "openExceptionId"
      FROM recon_rows r
      LEFT JOIN LATERAL (
        SELECT e.id FROM recon_exceptions e WHERE e."workspaceId" = r."workspaceId" AND e.mode = r.mode
          AND e.id = ANY(r."exceptionIds") AND e.status = ${openException} AND e.category = ${UNKNOWN_CREDIT}
        LIMIT 1) x ON true
      WHERE r."workspaceId" = ${c.scope.workspaceId} AND r.mode = ${c.scope.mode} AND r.source = ${BANK_SOURCE}
        AND (r.status = ${pendingStatus} OR (r.status = ${exceptionStatus} AND x.id IS NOT NULL))
      ORDER BY r."createdAt", r."importId", r.line`,
  );
}

export async function unmatchedBatches(tx: Sql, c: RunContext): Promise<UnmatchedBatch[]> {
  const rows = await tx.query<{
    id: string;
    adapter: string;
    currency: string;
    settlementId: string;
    expectedAt: Date;
    expected: bigint;
    status: string;
    lateExceptionId: string | null;
  }>(
    sql`SELECT b.id, b.adapter, b.currency, b."settlementId", b."expectedAt", b.net - b."payoutFees" AS expected,
        b.status, l.id AS "lateExceptionId"
      FROM recon_batches b
      LEFT JOIN recon_exceptions l ON l."workspaceId" = b."workspaceId" AND l.mode = b.mode AND l."objectId" = b.id
        AND l.category = ${LATE} AND l.status = ${openException}
      WHERE b."workspaceId" = ${c.scope.workspaceId} AND b.mode = ${c.scope.mode} AND b."expectedAt" IS NOT NULL
        AND (b.status = ${batchMachine.moves.open.to} OR (b.status = ${batchMachine.moves.raise.to} AND l.id IS NOT NULL))
      ORDER BY b."expectedAt", b."settlementId"`,
  );
  return rows.map((b) => ({ ...b, expectedBankAmount: b.expected }));
}

/** Payouts a credit names by id or reference, handed over or paid, and not yet claimed by a bank row. */
export async function namedPayouts(tx: Sql, c: RunContext, credits: StagedRow[]): Promise<PayoutCandidate[]> {
  const tokens = [
    ...new Set(credits.flatMap((r) => [...lineTokens({ reference: r.reference, description: r.description ?? '' })])),
  ];
  if (!tokens.length) return [];
  const rows = await tx.query<{ id: string; reference: string | null; currency: string; amount: bigint }>(
    sql`SELECT o.id, o.reference, o.currency, o.amount FROM payouts o
      WHERE o."workspaceId" = ${c.scope.workspaceId} AND o.mode = ${c.scope.mode}
        AND (upper(o.id) = ANY(${tokens}::text[]) OR upper(o.reference) = ANY(${tokens}::text[]))
        AND o.status = ANY(${[payoutMachine.moves.initiate.to, payoutMachine.moves.mark_paid.to]}::text[])
        AND NOT EXISTS (SELECT 1 FROM recon_rows r WHERE r."workspaceId" = o."workspaceId" AND r.mode = o.mode
          AND r."objectType" = ${'payout'} AND r."objectId" = o.id AND r.type = ${'credit'}
          AND r."objectType" <> ${'settlement_batch'})`,
  );
  return rows.map((p) => ({ ...p, amount: Number(p.amount) }));
}
