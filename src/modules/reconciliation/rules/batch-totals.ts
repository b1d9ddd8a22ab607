// A settlement batch's totals (docs/reconciliation.md, Bank credits and batches): the rows sharing a provider
// settlement id, summed as bigints (a batch's sums may pass 2^53).
import type { ProviderRowType } from '../formats/types.ts';
import { toBig, type Minor } from './rounding.ts';

export interface BatchRow {
  type: ProviderRowType;
  amount: Minor;
  fee: Minor;
  feeVat: Minor;
  withholdingTax: Minor;
  net: Minor;
  occurredAt: Date;
  settledAt: Date | null;
}

export interface BatchTotals {
  rowCount: number;
  /** Sum of amount over the non-payout rows. */
  amount: bigint;
  /** Sums over every row. */
  fee: bigint;
  feeVat: bigint;
  withholdingTax: bigint;
  /** Sum of net over the non-payout rows. */
  net: bigint;
  /** Sum of fee + fee_vat + withholding of the payout rows: what the transfer itself cost. */
  payoutFees: bigint;
  /** net - payoutFees: what the bank should receive. */
  expectedBankAmount: bigint;
  /** The latest settled_at of the rows, else (no row has one) the latest occurred_at; null for no rows. */
  expectedAt: Date | null;
}

/** The totals of a batch's rows; a batch of a later import is the totals of all its rows again (sums commute). */
export function batchTotals(rows: readonly BatchRow[]): BatchTotals {
  const t = { amount: 0n, fee: 0n, feeVat: 0n, withholdingTax: 0n, net: 0n, payoutFees: 0n };
  let settled: number | null = null;
  let occurred: number | null = null;
  for (const r of rows) {
    const fees = [toBig(r.fee), toBig(r.feeVat), toBig(r.withholdingTax)];
    t.fee += fees[0];
    t.feeVat += fees[1];
    t.withholdingTax += fees[2];
    if (r.type === 'payout') t.payoutFees += fees[0] + fees[1] + fees[2];
    else {
      t.amount += toBig(r.amount);
      t.net += toBig(r.net);
    }
    if (r.settledAt) settled = Math.max(settled ?? r.settledAt.getTime(), r.settledAt.getTime());
    occurred = Math.max(occurred ?? r.occurredAt.getTime(), r.occurredAt.getTime());
  }
  const at = settled ?? occurred;
  return {
    rowCount: rows.length,
    ...t,
    expectedBankAmount: t.net - t.payoutFees,
    expectedAt: at === null ? null : new Date(at),
  };
}
