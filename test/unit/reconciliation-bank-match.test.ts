// The decision over one bank credit (src/modules/reconciliation/rules/bank-match.ts): payout reference, batch
// tokens (N:1, 1:N), the amount pass, lateness, and what matches nothing.
import { describe, expect, it } from 'vitest';
import {
  decideBankCredit,
  decideNamedBatches,
  isLate,
  lateSince,
  lineTokens,
  namesToken,
  type BankCredit,
  type BankSettings,
  type OpenBatch,
  type PayoutCandidate,
} from '../../src/modules/reconciliation/rules/bank-match.ts';
import { payoutBankFeeLegs } from '../../src/modules/reconciliation/rules/postings.ts';

const s: BankSettings = { dateToleranceDays: 3, band: 6500, timeZone: 'Asia/Jakarta' };
const credit = (o: Partial<BankCredit> = {}): BankCredit => ({
  currency: 'IDR',
  amount: 142_105,
  valueDate: '2025-06-03',
  reference: null,
  description: 'XENDIT S-1',
  ...o,
});
const batch = (id: string, settlementId: string, expected: number, o: Partial<OpenBatch> = {}): OpenBatch => ({
  id,
  adapter: 'provider_a',
  currency: 'IDR',
  settlementId,
  expectedAt: new Date('2025-06-01T10:00:00Z'),
  expectedBankAmount: expected,
  ...o,
});
const s1 = batch('rbat_1', 'S-1', 145_005);

describe('tokens', () => {
  it('names a settlement id or payout id only whole, whatever the case', () => {
    const t = lineTokens({
      reference: 'po_01jabc',
      description: 'TRSF E-BANKING CR 0306/FTSCY/WS95031 xendit s-1, S-10.',
    });
    expect(namesToken(t, 'S-1')).toBe(true);
    expect(namesToken(t, 'S-10')).toBe(true);
    expect(namesToken(t, 'S-100')).toBe(false);
    expect(namesToken(t, 'PO_01JABC')).toBe(true);
    expect(namesToken(t, 'WS95031')).toBe(false); // inside FTSCY/WS95031
    expect(namesToken(lineTokens({ reference: null, description: 'S-1X' }), 'S-1')).toBe(false);
  });
});

describe('payout reference', () => {
  const payout: PayoutCandidate = { id: 'po_7', reference: 'WD-2025-06', currency: 'IDR', amount: 1_000_000 };

  it('matches the payout a credit names by id or by its reference, the shortfall inside the band as its bank fee', () => {
    expect(decideBankCredit(credit({ amount: 997_100, description: 'po_7' }), [payout], [s1], s)).toEqual({
      decision: 'match',
      rule: 'payout_reference',
      payoutId: 'po_7',
      bankFee: 2900n,
    });
    expect(
      decideBankCredit(credit({ amount: 1_000_000, reference: 'wd-2025-06', description: '' }), [payout], [], s),
    ).toMatchObject({
      rule: 'payout_reference',
      bankFee: 0n,
    });
    expect(legs(payoutBankFeeLegs(2900))).toEqual(['D gateway:bank 2900', 'C payout 2900']);
  });

  it('outside the band is an amount_mismatch on the payout', () => {
    expect(decideBankCredit(credit({ amount: 900_000, description: 'po_7' }), [payout], [], s)).toEqual({
      decision: 'raise',
      exception: {
        category: 'amount_mismatch',
        object: { type: 'payout', ids: ['po_7'] },
        expectedAmount: 1_000_000n,
        actualAmount: 900_000n,
        difference: -100_000n,
        details: { tolerance: 6500 },
      },
    });
  });
});

describe('batch tokens', () => {
  it('a credit naming a batch inside the band matches it, the shortfall its transfer fee', () => {
    expect(decideBankCredit(credit(), [], [s1, batch('rbat_2', 'S-2', 142_105)], s)).toEqual({
      decision: 'match',
      rule: 'bank_reference',
      allocations: [{ batchId: 'rbat_1', bankAmount: 142_105n, transferFee: 2900n }],
      transferFee: 2900n,
    });
  });

  it('N:1: one credit naming several batches of one adapter pays them in allocation order', () => {
    const d = decideBankCredit(
      credit({ amount: 245_000, description: 'SETTLEMENT S-2 S-1' }),
      [],
      [s1, batch('rbat_2', 'S-2', 100_000, { expectedAt: new Date('2025-05-31T00:00:00Z') })],
      s,
    );
    expect(d).toEqual({
      decision: 'match',
      rule: 'bank_reference',
      allocations: [
        { batchId: 'rbat_2', bankAmount: 100_000n, transferFee: 0n },
        { batchId: 'rbat_1', bankAmount: 145_000n, transferFee: 5n },
      ],
      transferFee: 5n,
    });
  });

  it('1:N: the credits naming one batch are summed by the caller and checked together', () => {
    expect(decideNamedBatches(100_000 + 42_105, [s1], 6500)).toMatchObject({
      rule: 'bank_reference',
      transferFee: 2900n,
    });
    expect(decideNamedBatches(100_000, [s1], 6500)).toMatchObject({
      exception: {
        category: 'amount_mismatch',
        object: { type: 'settlement_batch', ids: ['rbat_1'] },
        difference: -45_005n,
      },
    });
  });

  it('outside the band: amount_mismatch on the batches it names; batches of two adapters match nothing', () => {
    expect(decideBankCredit(credit({ amount: 145_006 }), [], [s1], s)).toMatchObject({
      exception: { category: 'amount_mismatch', expectedAmount: 145_005n, actualAmount: 145_006n, difference: 1n },
    });
    const other = batch('rbat_9', 'S-9', 1000, { adapter: 'provider_c' });
    expect(decideBankCredit(credit({ amount: 146_005, description: 'S-1 S-9' }), [], [s1, other], s)).toMatchObject({
      exception: { category: 'unknown_bank_credit', actualAmount: 146_005n, difference: 146_005n, details: {} },
    });
  });

  it('a batch of another currency is not named by the credit', () => {
    expect(decideBankCredit(credit({ currency: 'USD' }), [], [s1], { ...s, band: 0 })).toMatchObject({
      exception: { category: 'unknown_bank_credit' },
    });
  });
});

describe('amount pass', () => {
  it('with no token, the unique set of batches in the date window whose sum fits the band', () => {
    const bs = [
      batch('rbat_1', 'A', 100_000),
      batch('rbat_2', 'B', 45_005),
      batch('rbat_3', 'C', 145_005, { expectedAt: new Date('2025-05-20T00:00:00Z') }), // outside the window
    ];
    expect(decideBankCredit(credit({ description: 'TRANSFER' }), [], bs, s)).toEqual({
      decision: 'match',
      rule: 'bank_amount',
      allocations: [
        { batchId: 'rbat_1', bankAmount: 100_000n, transferFee: 0n },
        { batchId: 'rbat_2', bankAmount: 42_105n, transferFee: 2900n },
      ],
      transferFee: 2900n,
    });
  });

  it('several fitting sets, or none: unknown_bank_credit; over 50 candidates: wait', () => {
    const twins = [batch('rbat_1', 'A', 145_005), batch('rbat_2', 'B', 145_005)];
    expect(decideBankCredit(credit({ description: '' }), [], twins, s)).toMatchObject({
      exception: { category: 'unknown_bank_credit', expectedAmount: null, actualAmount: 142_105n },
    });
    expect(decideBankCredit(credit({ description: '' }), [], [], s)).toMatchObject({
      exception: { category: 'unknown_bank_credit' },
    });
    const many = Array.from({ length: 51 }, (_, i) => batch(`rbat_${i}`, `X${i}`, 1000 + i));
    expect(decideBankCredit(credit({ description: '' }), [], many, s)).toEqual({ decision: 'wait' });
  });
});

describe('lateness', () => {
  it('a batch is late lateSettlementDays calendar days after the date of its expectedAt', () => {
    const at = new Date('2025-06-01T18:00:00Z'); // June 2 in Jakarta
    expect(isLate(at, new Date('2025-06-04T16:59:00Z'), 3, 'Asia/Jakarta')).toBe(false); // June 4 23:59
    expect(isLate(at, new Date('2025-06-04T17:00:00Z'), 3, 'Asia/Jakarta')).toBe(true); // June 5 00:00
    expect(isLate(at, at, 0, 'Asia/Jakarta')).toBe(true);
    expect(lateSince(at, 3, 'Asia/Jakarta')).toBe('2025-06-05');
    expect(lateSince(new Date('2025-12-30T00:00:00Z'), 3, 'UTC')).toBe('2026-01-02');
  });
});

function legs(ls: { account: string; debit: bigint; credit: bigint }[]) {
  return ls.map((l) => `${l.debit ? 'D' : 'C'} ${l.account} ${l.debit || l.credit}`);
}
