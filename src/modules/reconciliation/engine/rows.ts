/**
 * The rows a run evaluates, import by import in creation order and by line within one (so the first claimant is
 * deterministic), in chunks of at most CHUNK_ROWS (docs/reconciliation.md, Runs): rows still `pending`, and rows
 * whose open `missing_in_ledger` a late capture may now resolve.
 */
import { sql, type Sql } from '../../../core/db/sql.ts';
import type { RowScope } from '../../../core/resource.ts';
import { rowMachine } from '../states.ts';

export const CHUNK_ROWS = 50_000;

/** A staged row as the engine reads it. */
export interface StagedRow {
  id: string;
  importId: string;
  line: number;
  source: string;
  adapter: string | null;
  transactionId: string | null;
  type: string;
  reference: string | null;
  providerReference: string | null;
  settlementId: string | null;
  description: string | null;
  occurredAt: Date | null;
  valueDate: Date | null;
  currency: string;
  amount: bigint;
  fee: bigint;
  feeVat: bigint;
  withholdingTax: bigint;
  net: bigint;
  status: string;
  batchId: string | null;
  /** The row's open exception a run may resolve (missing_in_ledger, unknown_bank_credit), else null. */
  openExceptionId: string | null;
}

/** Rows not evaluated yet, and rows whose exception a run resolves by itself. */
export const pendingStatus = rowMachine.moves.stage.to;
export const exceptionStatus = rowMachine.moves.raise.to;

/** The imports with rows to evaluate of `source` (and `adapter` when the run names one), oldest first. */
export async function importsToEvaluate(tx: Sql, scope: RowScope, source: string, adapter: string | null) {
  return tx.query<{ importId: string; adapter: string | null; rows: bigint }>(
    sql`SELECT r."importId", min(r.adapter) AS adapter, count(*) AS rows
      FROM recon_rows r JOIN recon_imports i ON i."workspaceId" = r."workspaceId" AND i.mode = r.mode
        AND i.id = r."importId"
      WHERE r."workspaceId" = ${scope.workspaceId} AND r.mode = ${scope.mode}
        AND r.status IN (${pendingStatus}, ${exceptionStatus}) AND r.source = ${source}
        AND (${adapter}::text IS NULL OR r.adapter = ${adapter})
      GROUP BY r."importId", i."createdAt" ORDER BY i."createdAt", r."importId"`,
  );
}

/**
 * The next chunk of an import's rows after `afterLine`: pending rows, and rows in exception whose open
 * exception is one of `resolvable` (the others wait for a person).
 */
export async function nextChunk(
  tx: Sql,
  scope: RowScope,
  importId: string,
  afterLine: number,
  resolvable: readonly string[],
  openStatus: string,
): Promise<{ rows: StagedRow[]; lastLine: number | null }> {
  const rows = await tx.query<StagedRow>(
    sql`SELECT r.id, r."importId", r.line, r.source, r.adapter, r."transactionId", r.type, r.reference,
        r."providerReference", r."settlementId", r.description, r."occurredAt", r."valueDate", r.currency,
        r.amount, r.fee, r."feeVat", r."withholdingTax", r.net, r.status, r."batchId", x.id AS "openExceptionId"
      FROM recon_rows r
      LEFT JOIN LATERAL (
        SELECT e.id FROM recon_exceptions e
        WHERE r.status = ${exceptionStatus} AND e."workspaceId" = r."workspaceId" AND e.mode = r.mode
          AND e.id = ANY(r."exceptionIds") AND e.status = ${openStatus} AND e.category = ANY(${resolvable}::text[])
        LIMIT 1) x ON true
      WHERE r."workspaceId" = ${scope.workspaceId} AND r.mode = ${scope.mode} AND r."importId" = ${importId}
        AND r.line > ${afterLine} AND r.status IN (${pendingStatus}, ${exceptionStatus})
      ORDER BY r.line LIMIT ${CHUNK_ROWS}`,
  );
  return {
    rows: rows.filter((r) => r.status === pendingStatus || r.openExceptionId !== null),
    lastLine: rows.length ? rows[rows.length - 1].line : null,
  };
}
