import type { Mode, Tx } from './db/client.ts';

/**
 * The next value of a per-workspace, per-mode counter, bumped in the caller's transaction. The
 * upsert holds the counter row's lock until commit, so concurrent issuers queue behind it and a
 * rolled-back transaction gives its number back: the sequence has no gaps.
 */
export async function nextCounter(tx: Tx, scope: { workspaceId: string; mode: Mode }, name: string): Promise<number> {
  const rows = await tx.$queryRaw<{ value: bigint }[]>`
    INSERT INTO counters ("workspaceId", mode, name, value) VALUES (${scope.workspaceId}, ${scope.mode}, ${name}, 1)
    ON CONFLICT ("workspaceId", mode, name) DO UPDATE SET value = counters.value + 1
    RETURNING value`;
  return Number(rows[0].value);
}

/** spec Receipts: `SVC-RCPT-YYYY-MM-NNNN`, UTC year and month of issue, never reset monthly. */
export function receiptNumber(issuedAt: Date, sequence: number): string {
  const month = String(issuedAt.getUTCMonth() + 1).padStart(2, '0');
  return `SVC-RCPT-${issuedAt.getUTCFullYear()}-${month}-${String(sequence).padStart(4, '0')}`;
}

/** spec Invoice: `SVC-YYYY-MM-NNNN`, monotonic per workspace. */
export function invoiceNumber(issuedAt: Date, sequence: number): string {
  const month = String(issuedAt.getUTCMonth() + 1).padStart(2, '0');
  return `SVC-${issuedAt.getUTCFullYear()}-${month}-${String(sequence).padStart(4, '0')}`;
}

/** Counter names, so receipts and invoices never share a sequence by accident. */
export const counterNames = { receipt: 'receipt', invoice: 'invoice' } as const;
