// The last step of every provider format: the stored description is cut to 500 characters, the content hash
// reads the full one (docs/reconciliation.md, Content hash).
import { providerContentHash } from './hash.ts';
import type { ProviderRowInput } from './types.ts';
import { truncateChars } from './values.ts';

export const maxDescription = 500;

export type ProviderFields = Omit<ProviderRowInput, 'line' | 'contentHash'>;

/** The staged row of `f` (whose `description` is the full text) found on `line`; built field by field (hot path). */
export function providerRow(line: number, f: ProviderFields): ProviderRowInput {
  return {
    line,
    transactionId: f.transactionId,
    type: f.type,
    reference: f.reference,
    providerReference: f.providerReference,
    occurredAt: f.occurredAt,
    currency: f.currency,
    amount: f.amount,
    fee: f.fee,
    feeVat: f.feeVat,
    withholdingTax: f.withholdingTax,
    net: f.net,
    settlementId: f.settlementId,
    settledAt: f.settledAt,
    method: f.method,
    description: f.description === null ? null : truncateChars(f.description, maxDescription),
    balanceAfter: f.balanceAfter,
    contentHash: providerContentHash(f, f.description),
  };
}
