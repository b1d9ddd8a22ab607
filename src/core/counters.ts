import { sql, sqlOf, type AnyTx, type Fragment } from './db/sql.ts';
import type { RowScope } from './resource.ts';

/**
 * The next value of a per-workspace, per-mode counter, bumped in the caller's transaction. The
 * upsert holds the counter row's lock until commit, so concurrent issuers queue behind it and a
 * rolled-back transaction gives its number back: the sequence has no gaps.
 */
export async function nextCounter(tx: AnyTx, scope: RowScope, name: string): Promise<number> {
  const rows = await sqlOf(tx).query<{ value: bigint }>(nextCounterSql(scope.workspaceId, scope.mode, name));
  return Number(rows[0].value);
}

/**
 * The counter bump as SQL, for callers that fold it into a larger statement; `after`: a relation
 * to select from, so the row lock is taken once it is read. `n` > 1 bumps by `n` at once (a batch
 * numbers all its documents under one row lock): the caller owns values `value - n + 1 .. value`,
 * gapless like single bumps.
 */
export const nextCounterSql = (workspaceId: string, mode: string, name: string, after?: string, n = 1): Fragment => sql`
  INSERT INTO counters ("workspaceId", mode, name, value) ${
    after
      ? sql`SELECT ${workspaceId}, ${mode}, ${name}, ${n}::bigint FROM ${sql.id(after)}`
      : sql`VALUES (${workspaceId}, ${mode}, ${name}, ${n}::bigint)`
  }
  ON CONFLICT ("workspaceId", mode, name) DO UPDATE SET value = counters.value + EXCLUDED.value
  RETURNING value`;

/** The counter bumped by `n` at once (a renewal batch numbers all its invoices under one row lock). */
export const bumpCounterSql = (workspaceId: string, mode: string, name: string, n: number): Fragment =>
  nextCounterSql(workspaceId, mode, name, undefined, n);

const yearMonth = (d: Date) => `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;

/** spec Receipts: `SVC-RCPT-YYYY-MM-NNNN`, UTC year and month of issue, never reset monthly. */
export const receiptPrefix = (issuedAt: Date) => `SVC-RCPT-${yearMonth(issuedAt)}-`;
export const receiptNumber = (issuedAt: Date, sequence: number) =>
  `${receiptPrefix(issuedAt)}${String(sequence).padStart(4, '0')}`;

/** spec Invoice: `SVC-YYYY-MM-NNNN`, monotonic per workspace. */
export const invoicePrefix = (issuedAt: Date) => `SVC-${yearMonth(issuedAt)}-`;
export const invoiceNumber = (issuedAt: Date, sequence: number) =>
  `${invoicePrefix(issuedAt)}${String(sequence).padStart(4, '0')}`;

/** docs/credit-notes.md, Numbering: `SVC-CN-YYYY-MM-NNNN`, UTC month of issue (business time), never reset. */
export const creditNotePrefix = (issuedAt: Date) => `SVC-CN-${yearMonth(issuedAt)}-`;
export const creditNoteNumber = (issuedAt: Date, sequence: number) =>
  `${creditNotePrefix(issuedAt)}${String(sequence).padStart(4, '0')}`;

/** `prefix || value` padded to four digits like the functions above (never truncated), in SQL. */
export const numberSql = (prefix: string, value: Fragment) =>
  sql`${prefix}::text || lpad(${value}::text, greatest(4, length(${value}::text)), '0')`;

/** Counter names, so receipts and invoices never share a sequence by accident. */
export const counterNames = { receipt: 'receipt', invoice: 'invoice', creditNote: 'credit_note' } as const;
