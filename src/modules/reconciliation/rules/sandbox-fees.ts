// The managed sandbox's report fees (docs/reconciliation.md, Matching rules): what its report rows say the
// provider kept, by method and currency, so a test-mode pull reconciles like a real provider's report.
import { absBig, percentOfAmount, percentScale, type Minor } from './rounding.ts';

/** Percent (ten-thousandths, as `ScaledPercent`) and fixed part of each method's fee. */
const percentFees: Record<string, { percent: bigint; fixed: (currency: string) => bigint }> = {
  // Card's fixed part is named for IDR (2000) and USD (30); other currencies take the USD figure in their minor units.
  card: { percent: 29_000n, fixed: (c) => (c === 'IDR' ? 2000n : 30n) },
  qris: { percent: 7_000n, fixed: () => 0n },
  ewallet: { percent: 15_000n, fixed: () => 0n },
  va: { percent: 0n, fixed: () => 4000n },
  retail: { percent: 0n, fixed: () => 5000n },
  provider_c: { percent: 44_000n, fixed: () => 30n },
};

export interface SandboxFees {
  fee: bigint;
  feeVat: bigint;
}

/**
 * The fee and PPN of one sandbox report row. Refunds report 0; a payment whose method has no entry (none
 * recorded) reports 0; `fee_vat` is round_half_up(fee x 11 / 100) for IDR and 0 otherwise.
 */
export function sandboxFees(row: {
  type: 'payment' | 'refund';
  method: string | null;
  currency: string;
  amount: Minor;
}) {
  const entry = row.method === null ? undefined : percentFees[row.method];
  if (row.type === 'refund' || !entry) return { fee: 0n, feeVat: 0n } satisfies SandboxFees;
  const fee = percentOfAmount(absBig(row.amount), entry.percent) + entry.fixed(row.currency);
  const feeVat = row.currency === 'IDR' ? percentOfAmount(fee, 11n * percentScale) : 0n;
  return { fee, feeVat } satisfies SandboxFees;
}
