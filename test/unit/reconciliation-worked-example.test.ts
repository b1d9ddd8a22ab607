// The worked example of docs/reconciliation.md, Worked example, through the rules: a 200,000 IDR payment and a
// 50,000 refund reported in one batch, its fees posted, then a bank credit of 142,105 inside the band.
import { describe, expect, it } from 'vitest';
import { findBatchSubset, fitsBand } from '../../src/modules/reconciliation/rules/band.ts';
import { batchTotals, type BatchRow } from '../../src/modules/reconciliation/rules/batch-totals.ts';
import { checkPpn } from '../../src/modules/reconciliation/rules/fees.ts';
import { bankMatchLegs, rowFeeLegs, type PostingLeg } from '../../src/modules/reconciliation/rules/postings.ts';
import {
  decideProviderRow,
  type LedgerObject,
  type MatchSettings,
  type ProviderRow,
} from '../../src/modules/reconciliation/rules/provider-match.ts';
import { defaultTransferFeeTolerance, toleranceFor } from '../../src/modules/reconciliation/rules/tolerances.ts';

const at = new Date('2025-06-01T03:00:00Z');
const settings: MatchSettings = {
  dateToleranceDays: 3,
  amountTolerance: null,
  feeTolerance: null,
  // 2.25 % of 200,000 is the 4,500 the provider reports.
  feeRules: [{ adapter: 'provider_a', method: null, currency: 'IDR', percent: '2.25', fixed: 0 }],
  timeZone: 'Asia/Jakarta',
};
const base = { adapter: 'provider_a', currency: 'IDR', providerReference: null, occurredAt: at, settlementId: 'S-1' };
const payRow: ProviderRow = {
  ...base,
  id: 'rrow_1',
  type: 'payment',
  amount: 200_000,
  fee: 4500,
  feeVat: 495,
  net: 195_005,
  reference: 'pay_1',
};
const refundRow: ProviderRow = {
  ...base,
  id: 'rrow_2',
  type: 'refund',
  amount: -50_000,
  fee: 0,
  feeVat: 0,
  net: -50_000,
  reference: 'rf_2',
};
const object = {
  adapter: 'provider_a',
  currency: 'IDR',
  captured: true,
  capturedAt: at,
  claimedBy: null,
  method: 'qris',
  capturedFee: null,
};
const pay1: LedgerObject = { ...object, kind: 'payment', id: 'pay_1', amount: 200_000 };
const rf2: LedgerObject = { ...object, kind: 'refund', id: 'rf_2', amount: 50_000, method: null };

/** The capture and refund postings the example starts from. */
const capture: PostingLeg[] = [
  { account: 'settlement:provider_a', debit: 200_000n, credit: 0n },
  { account: 'payments', debit: 0n, credit: 200_000n },
];
const refund: PostingLeg[] = [
  { account: 'refunds', debit: 50_000n, credit: 0n },
  { account: 'settlement:provider_a', debit: 0n, credit: 50_000n },
];
const balanceOf = (legs: PostingLeg[], account: string) =>
  legs.filter((l) => l.account === account).reduce((s, l) => s + l.debit - l.credit, 0n);

describe('worked example (IDR, provider_a)', () => {
  it('both rows claim their objects; the PPN 495 is 4,125 x 12 % = 4,500 x 11 %', () => {
    expect(decideProviderRow(payRow, { reference: [pay1] }, settings)).toEqual({
      decision: 'match',
      rule: 'reference',
      object: { type: 'payment', id: 'pay_1' },
      difference: 0n,
    });
    expect(decideProviderRow(refundRow, { reference: [rf2] }, settings)).toMatchObject({
      decision: 'match',
      difference: 0n,
    });
    expect(checkPpn(payRow)).toBeNull();
  });

  it('the batch S-1 nets 145,005 and a credit of 142,105 fits the band with a 2,900 transfer fee', () => {
    const rows: BatchRow[] = [payRow, refundRow].map((r) => ({ ...r, withholdingTax: 0, settledAt: null }));
    const t = batchTotals(rows);
    expect(t).toMatchObject({
      amount: 150_000n,
      fee: 4500n,
      feeVat: 495n,
      net: 145_005n,
      expectedBankAmount: 145_005n,
    });
    const band = toleranceFor(null, 'IDR', defaultTransferFeeTolerance);
    expect(fitsBand(t.expectedBankAmount, 142_105, band)).toBe(true);
    expect(
      findBatchSubset(
        142_105,
        [{ id: 'rbat_S1', adapter: 'provider_a', expectedBankAmount: t.expectedBankAmount }],
        band,
      ),
    ).toMatchObject({
      found: 'unique',
      batchIds: ['rbat_S1'],
    });
  });

  it('the postings leave settlement:provider_a at 0, with revenue 200,000, refunds 50,000 and fees 7,400', () => {
    const fees = rowFeeLegs('provider_a', [
      { fee: 4500, feeVat: 495, withholdingTax: 0 },
      { fee: 0, feeVat: 0, withholdingTax: 0 },
    ]);
    expect(fees).toEqual([
      { account: 'gateway:provider_a', debit: 4500n, credit: 0n },
      { account: 'tax_credit:ppn', debit: 495n, credit: 0n },
      { account: 'settlement:provider_a', debit: 0n, credit: 4995n },
    ]);
    const bank = bankMatchLegs('provider_a', 145_005n, 142_105);
    expect(bank).toEqual([
      { account: 'payout', debit: 142_105n, credit: 0n },
      { account: 'gateway:provider_a', debit: 2900n, credit: 0n },
      { account: 'settlement:provider_a', debit: 0n, credit: 145_005n },
    ]);
    const all = [...capture, ...refund, ...fees, ...bank];
    expect(balanceOf(all, 'settlement:provider_a')).toBe(0n);
    expect(-balanceOf(all, 'payments')).toBe(200_000n);
    expect(balanceOf(all, 'refunds')).toBe(50_000n);
    expect(balanceOf(all, 'gateway:provider_a')).toBe(7400n);
    expect(balanceOf(all, 'tax_credit:ppn')).toBe(495n);
    expect(balanceOf(all, 'payout')).toBe(142_105n);
  });
});
