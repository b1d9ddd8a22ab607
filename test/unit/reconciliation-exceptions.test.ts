// The exception table and the postings (src/modules/reconciliation/rules/exceptions.ts, postings.ts): amounts
// per category, the actions each allows, write-off accounts, and legs that always balance.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exceptionCategories, type ExceptionCategory } from '../../src/modules/reconciliation/rules/categories.ts';
import {
  allowedActions,
  canTake,
  checkLinkTargetIds,
  exceptionAmounts,
  isWriteOffAccount,
} from '../../src/modules/reconciliation/rules/exceptions.ts';
import {
  balanced,
  bankMatchLegs,
  rowFeeLegs,
  toLedgerLegs,
  writeOffLegs,
  type PostingLeg,
} from '../../src/modules/reconciliation/rules/postings.ts';

const RUNS = { numRuns: 1000 };
const sums = (legs: PostingLeg[]) => legs.reduce((s, l) => [s[0] + l.debit, s[1] + l.credit], [0n, 0n]);
/** Debits minus credits of one account over the legs. */
const net = (legs: PostingLeg[], account: string) =>
  legs.filter((l) => l.account === account).reduce((s, l) => s + l.debit - l.credit, 0n);
const legsOf = (legs: PostingLeg[]) => legs.map((l) => `${l.debit ? 'D' : 'C'} ${l.account} ${l.debit || l.credit}`);

describe('amounts per category', () => {
  it('a row without an object is all theirs; an object nobody reported is all ours; a mismatch is actual - expected', () => {
    expect(exceptionAmounts({ category: 'missing_in_ledger', rowAmount: 200_000, rowNet: 195_005 })).toEqual({
      expectedAmount: null,
      actualAmount: 200_000n,
      difference: 195_005n,
    });
    expect(exceptionAmounts({ category: 'duplicate', rowAmount: -50_000, rowNet: -50_000 }).difference).toBe(-50_000n);
    expect(exceptionAmounts({ category: 'missing_at_provider', expected: 200_000 })).toEqual({
      expectedAmount: 200_000n,
      actualAmount: null,
      difference: -200_000n,
    });
    expect(exceptionAmounts({ category: 'late_settlement', expected: 145_005n }).difference).toBe(-145_005n);
    expect(exceptionAmounts({ category: 'amount_mismatch', expected: 145_005n, actual: 130_000 })).toEqual({
      expectedAmount: 145_005n,
      actualAmount: 130_000n,
      difference: -15_005n,
    });
    expect(exceptionAmounts({ category: 'fee_mismatch', expected: 4500, actual: 4600 }).difference).toBe(100n);
    expect(exceptionAmounts({ category: 'currency_mismatch', expected: 200_000, actual: 1500 })).toEqual({
      expectedAmount: 200_000n,
      actualAmount: 1500n,
      difference: null,
    });
    expect(exceptionAmounts({ category: 'unknown_bank_credit', credit: 99_000 })).toEqual({
      expectedAmount: null,
      actualAmount: 99_000n,
      difference: 99_000n,
    });
  });
});

describe('actions per category', () => {
  it('accept always; write-off but for currency_mismatch and unknown_bank_credit; link for four categories', () => {
    const table = Object.fromEntries(exceptionCategories.map((c) => [c, allowedActions(c)]));
    expect(table).toEqual({
      missing_in_ledger: ['accept', 'write_off', 'link'],
      missing_at_provider: ['accept', 'write_off', 'link'],
      amount_mismatch: ['accept', 'write_off'],
      fee_mismatch: ['accept', 'write_off'],
      currency_mismatch: ['accept'],
      duplicate: ['accept', 'write_off'],
      late_settlement: ['accept', 'write_off', 'link'],
      unknown_bank_credit: ['accept', 'link'],
    });
    expect(canTake('currency_mismatch', 'write_off')).toBe(false);
    expect(canTake('unknown_bank_credit', 'link')).toBe(true);
  });

  it('link targets: 1-20 ids, of the kinds and number the category takes', () => {
    expect(checkLinkTargetIds('missing_in_ledger', [])).toBe('count');
    expect(
      checkLinkTargetIds(
        'late_settlement',
        Array.from({ length: 21 }, (_, i) => `rrow_${i}`),
      ),
    ).toBe('count');
    expect(checkLinkTargetIds('duplicate', ['pay_1'])).toBe('category');
    for (const id of ['pay_1', 'rf_1', 'po_1']) expect(checkLinkTargetIds('missing_in_ledger', [id])).toBeNull();
    expect(checkLinkTargetIds('missing_in_ledger', ['pay_1', 'pay_2'])).toBe('kind');
    expect(checkLinkTargetIds('missing_in_ledger', ['cs_1'])).toBe('kind');
    expect(checkLinkTargetIds('missing_at_provider', ['rrow_1'])).toBeNull();
    expect(checkLinkTargetIds('missing_at_provider', ['pay_1'])).toBe('kind');
    expect(
      checkLinkTargetIds(
        'late_settlement',
        Array.from({ length: 20 }, (_, i) => `rrow_${i}`),
      ),
    ).toBeNull();
    expect(checkLinkTargetIds('unknown_bank_credit', ['rbat_1', 'rbat_2'])).toBeNull();
    expect(checkLinkTargetIds('unknown_bank_credit', ['po_1'])).toBeNull();
    expect(checkLinkTargetIds('unknown_bank_credit', ['po_1', 'po_2'])).toBe('kind');
    expect(checkLinkTargetIds('unknown_bank_credit', ['rbat_1', 'po_1'])).toBe('kind');
    expect(checkLinkTargetIds('unknown_bank_credit', ['rbat_1', 'rbat_1'])).toBe('kind');
  });

  it("write-off accounts: write_off:<name>, revenue:adjustments, refunds, or the exception adapter's gateway", () => {
    for (const ok of [
      'write_off:tolerance',
      'write_off:fx',
      'write_off:a',
      `write_off:${'x'.repeat(32)}`,
      'revenue:adjustments',
      'refunds',
      'gateway:provider_a',
    ])
      expect(isWriteOffAccount(ok, 'provider_a'), ok).toBe(true);
    for (const bad of [
      'write_off:',
      `write_off:${'x'.repeat(33)}`,
      'write_off:FX',
      'write_off:f-x',
      'gateway:provider_b',
      'settlement:provider_a',
      'payments',
      'refunds ',
      'revenue:other',
      'tax_credit:ppn',
    ])
      expect(isWriteOffAccount(bad, 'provider_a'), bad).toBe(false);
    expect(isWriteOffAccount('gateway:provider_a', null)).toBe(false);
  });
});

describe('write-off legs', () => {
  const w = (category: ExceptionCategory, difference: bigint, extra = {}) =>
    legsOf(writeOffLegs({ category, difference, account: 'write_off:x', adapter: 'provider_a', ...extra }));

  it('moves settlement:<adapter> by the difference: d > 0 D settlement / C account, d < 0 the reverse', () => {
    expect(w('missing_in_ledger', 700n)).toEqual(['D settlement:provider_a 700', 'C write_off:x 700']);
    expect(w('missing_in_ledger', -700n)).toEqual(['D write_off:x 700', 'C settlement:provider_a 700']);
    expect(w('duplicate', 195_005n)).toEqual(['D settlement:provider_a 195005', 'C write_off:x 195005']);
    expect(w('amount_mismatch', -10n)).toEqual(['D write_off:x 10', 'C settlement:provider_a 10']);
    // A missing payment or a late batch (d = -expected) is D account / C settlement; a missing refund the reverse.
    expect(w('missing_at_provider', -200_000n)).toEqual(['D write_off:x 200000', 'C settlement:provider_a 200000']);
    expect(w('missing_at_provider', 50_000n)).toEqual(['D settlement:provider_a 50000', 'C write_off:x 50000']);
    expect(w('late_settlement', -145_005n)).toEqual(['D write_off:x 145005', 'C settlement:provider_a 145005']);
    expect(w('missing_in_ledger', 0n)).toEqual([]);
  });

  it('reclassifies a fee: d > 0 D account / C gateway:<adapter> (tax_credit:ppn for fee_vat)', () => {
    expect(w('fee_mismatch', 100n, { component: 'fee' })).toEqual(['D write_off:x 100', 'C gateway:provider_a 100']);
    expect(w('fee_mismatch', -100n, { component: 'fee' })).toEqual(['D gateway:provider_a 100', 'C write_off:x 100']);
    expect(w('fee_mismatch', 2n, { component: 'fee_vat' })).toEqual(['D write_off:x 2', 'C tax_credit:ppn 2']);
  });

  it("books a batch's transfer with the difference on the account instead of a transfer fee", () => {
    const batch = { expected: 145_005n, credited: 130_000n };
    expect(w('amount_mismatch', -15_005n, { batch })).toEqual([
      'D payout 130000',
      'D write_off:x 15005',
      'C settlement:provider_a 145005',
    ]);
    expect(w('amount_mismatch', 995n, { batch: { expected: 145_005n, credited: 146_000n } })).toEqual([
      'D payout 146000',
      'C write_off:x 995',
      'C settlement:provider_a 145005',
    ]);
    expect(() => w('amount_mismatch', 1n, { batch })).toThrow(RangeError);
  });

  it('refuses currency_mismatch and unknown_bank_credit', () => {
    expect(() => w('currency_mismatch', 1n)).toThrow(RangeError);
    expect(() => w('unknown_bank_credit', 1n)).toThrow(RangeError);
  });

  it('always balance, and always move settlement:<adapter> toward what the provider holds', () => {
    const writable = exceptionCategories.filter((c) => c !== 'currency_mismatch' && c !== 'unknown_bank_credit');
    fc.assert(
      fc.property(
        fc.constantFrom(...writable),
        fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
        fc.constantFrom('fee' as const, 'fee_vat' as const),
        fc.boolean(),
        (category, d, component, onBatch) => {
          const batch =
            category === 'amount_mismatch' && onBatch ? { expected: 2n ** 71n, credited: 2n ** 71n + d } : undefined;
          const legs = writeOffLegs({
            category,
            difference: d,
            account: 'write_off:x',
            adapter: 'provider_a',
            component,
            batch,
          });
          const [debits, credits] = sums(legs);
          if (debits !== credits || legs.some((l) => l.debit > 0n === l.credit > 0n)) return false;
          if (d !== 0n && legs.length < 2) return false;
          if (category === 'fee_mismatch') return net(legs, 'write_off:x') === d;
          if (batch) return net(legs, 'settlement:provider_a') === -batch.expected && net(legs, 'write_off:x') === -d;
          return net(legs, 'settlement:provider_a') === d && net(legs, 'write_off:x') === -d;
        },
      ),
      RUNS,
    );
  });
});

describe('row fees and bank matches', () => {
  it('row fees: D gateway sum fee, D tax_credit:ppn sum VAT, D tax_credit:pph sum withholding / C settlement their sum', () => {
    const legs = rowFeeLegs('provider_b', [
      { fee: 4500, feeVat: 495, withholdingTax: 90 },
      { fee: 1000, feeVat: 110, withholdingTax: 0 },
    ]);
    expect(legsOf(legs)).toEqual([
      'D gateway:provider_b 5500',
      'D tax_credit:ppn 605',
      'D tax_credit:pph 90',
      'C settlement:provider_b 6195',
    ]);
    expect(rowFeeLegs('provider_b', [{ fee: 0, feeVat: 0, withholdingTax: 0 }])).toEqual([]);
    expect(legsOf(rowFeeLegs('provider_b', [{ fee: 10, feeVat: 0, withholdingTax: 0 }]))).toEqual([
      'D gateway:provider_b 10',
      'C settlement:provider_b 10',
    ]);
  });

  it('row fees balance over any rows, sums past 2^53 included', () => {
    const part = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });
    fc.assert(
      fc.property(fc.array(fc.record({ fee: part, feeVat: part, withholdingTax: part }), { maxLength: 8 }), (rows) => {
        const [d, c] = sums(rowFeeLegs('provider_a', rows));
        const total = rows.reduce((s, r) => s + BigInt(r.fee) + BigInt(r.feeVat) + BigInt(r.withholdingTax), 0n);
        return d === c && c === total;
      }),
      RUNS,
    );
  });

  it('a bank match: D payout credited, D gateway transfer fee / C settlement expected; never above expected', () => {
    expect(legsOf(bankMatchLegs('provider_a', 145_005, 142_105))).toEqual([
      'D payout 142105',
      'D gateway:provider_a 2900',
      'C settlement:provider_a 145005',
    ]);
    expect(legsOf(bankMatchLegs('provider_a', 100, 100))).toEqual(['D payout 100', 'C settlement:provider_a 100']);
    expect(() => bankMatchLegs('provider_a', 100, 101)).toThrow(RangeError);
  });

  it('legs convert to the ledger’s and unbalanced or two-sided legs are refused', () => {
    expect(toLedgerLegs(bankMatchLegs('provider_a', 100, 90))).toEqual([
      { code: 'payout', direction: 'debit', amount: 90n },
      { code: 'gateway:provider_a', direction: 'debit', amount: 10n },
      { code: 'settlement:provider_a', direction: 'credit', amount: 100n },
    ]);
    expect(() => balanced([{ account: 'a', debit: 1n, credit: 0n }])).toThrow(RangeError);
    expect(() => balanced([{ account: 'a', debit: 1n, credit: 1n }])).toThrow(RangeError);
    expect(() =>
      balanced([
        { account: 'a', debit: -1n, credit: 0n },
        { account: 'b', debit: 0n, credit: -1n },
      ]),
    ).toThrow(RangeError);
  });
});
