// Content hashes of staged rows (docs/reconciliation.md, Content hash): part of the row key, so one serialisation,
// written down, and the full description rather than the stored 500 characters.
import { hash } from 'node:crypto';
import type { ProviderRowInput } from './types.ts';

/** One-shot `crypto.hash` (Node >= 20.12): a third of createHash's cost per row, which a Hash object dominated. */
export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}

/**
 * SHA-256 of the JSON array of the normalized row's fields in the generic column order, instants as epoch
 * milliseconds, absent values as null, then `balanceAfter`; `line` is left out so the same row hashes alike
 * wherever it sits in a file.
 */
export function hashProviderRow(row: Omit<ProviderRowInput, 'contentHash' | 'line'>, description: string | null) {
  return sha256Hex(
    JSON.stringify([
      row.transactionId,
      row.type,
      row.reference,
      row.providerReference,
      row.occurredAt.getTime(),
      row.currency,
      row.amount,
      row.fee,
      row.feeVat,
      row.withholdingTax,
      row.net,
      row.settlementId,
      row.settledAt === null ? null : row.settledAt.getTime(),
      row.method,
      description,
      row.balanceAfter,
    ]),
  );
}
