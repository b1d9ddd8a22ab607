// The bank side of settlements (src/modules/reconciliation/rules/band.ts, batch-totals.ts): the transfer-fee
// band, the unique subset of batches one credit pays, how a credit is spread, and a batch's totals.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  allocateCredit,
  findBatchSubset,
  fitsBand,
  subsetLimits,
  sumCredits,
  withinCreditWindow,
  type BatchCandidate,
} from '../../src/modules/reconciliation/rules/band.ts';
import { batchTotals, type BatchRow } from '../../src/modules/reconciliation/rules/batch-totals.ts';
import { defaultTransferFeeTolerance, toleranceFor } from '../../src/modules/reconciliation/rules/tolerances.ts';

const RUNS = { numRuns: 1000 };

describe('transfer-fee band', () => {
  it('fits when 0 <= expected - credited <= tolerance', () => {
    expect(fitsBand(145_005, 142_105, 6500)).toBe(true);
    expect(fitsBand(145_005, 145_005, 0)).toBe(true);
    expect(fitsBand(145_005, 138_505, 6500)).toBe(true); // exactly 6,500 short
    expect(fitsBand(145_005, 138_504, 6500)).toBe(false);
    expect(fitsBand(145_005, 145_006, 6500)).toBe(false); // more than expected is never a fee
    expect(fitsBand(10_000, 9_999, 0)).toBe(false);
  });

  it('defaults to 6,500 for IDR and 0 elsewhere; a map given replaces the default whole', () => {
    expect(toleranceFor(null, 'IDR', defaultTransferFeeTolerance)).toBe(6500n);
    expect(toleranceFor(null, 'USD', defaultTransferFeeTolerance)).toBe(0n);
    expect(toleranceFor({ USD: 100 }, 'IDR', defaultTransferFeeTolerance)).toBe(0n);
    expect(toleranceFor({ USD: 100 }, 'USD', defaultTransferFeeTolerance)).toBe(100n);
    expect(toleranceFor(null, 'IDR')).toBe(0n);
    expect(() => toleranceFor({ IDR: -1 }, 'IDR')).toThrow(RangeError);
  });

  it('takes batches expected within [value date - dateToleranceDays, value date] in the workspace zone', () => {
    const zone = 'Asia/Jakarta';
    // 2025-06-02 20:00 UTC is June 3 in Jakarta.
    expect(withinCreditWindow(new Date('2025-06-02T20:00:00Z'), '2025-06-03', 0, zone)).toBe(true);
    expect(withinCreditWindow(new Date('2025-06-02T20:00:00Z'), '2025-06-03', 0, 'UTC')).toBe(false);
    expect(withinCreditWindow(new Date('2025-05-31T10:00:00Z'), '2025-06-03', 3, zone)).toBe(true);
    expect(withinCreditWindow(new Date('2025-05-30T10:00:00Z'), '2025-06-03', 3, zone)).toBe(false);
    expect(withinCreditWindow(new Date('2025-06-04T01:00:00Z'), '2025-06-03', 3, zone)).toBe(false); // after the credit
  });
});

/** Every set of at most 5 candidates of one adapter with a positive amount whose sum fits, as sorted id lists. */
function bruteForce(credited: number, candidates: BatchCandidate[], tolerance: number): string[][] {
  const out: string[][] = [];
  const n = candidates.length;
  for (let mask = 1; mask < 1 << n; mask++) {
    const picked = candidates.filter((_, i) => mask & (1 << i));
    if (picked.length > 5 || new Set(picked.map((c) => c.adapter)).size > 1) continue;
    if (picked.some((c) => Number(c.expectedBankAmount) <= 0)) continue;
    const sum = picked.reduce((s, c) => s + Number(c.expectedBankAmount), 0);
    if (sum >= credited && sum - credited <= tolerance) out.push(picked.map((c) => c.id).sort());
  }
  return out;
}

const batch = (id: string, amount: number, adapter = 'provider_a'): BatchCandidate => ({
  id,
  adapter,
  expectedBankAmount: amount,
});

describe('unique subset of batches for one credit', () => {
  it('finds the one set that fits, refuses several, and says when none does', () => {
    const cands = [batch('b1', 100_000), batch('b2', 250_000), batch('b3', 40_000), batch('b4', 71_000)];
    expect(findBatchSubset(350_000, cands, 0)).toMatchObject({ found: 'unique', batchIds: ['b1', 'b2'] });
    expect(findBatchSubset(345_000, cands, 6500)).toMatchObject({ found: 'unique', batchIds: ['b1', 'b2'] });
    // 100,000 + 40,000 + 71,000 = 211,000 is 1,000 above the credit: inside the band, and no other set is.
    expect(findBatchSubset(210_000, cands, 6500)).toMatchObject({ found: 'unique', batchIds: ['b1', 'b3', 'b4'] });
    expect(findBatchSubset(1, cands, 0)).toMatchObject({ found: 'none' });
    const twins = [batch('b1', 50_000), batch('b2', 50_000)];
    expect(findBatchSubset(50_000, twins, 0)).toMatchObject({ found: 'ambiguous', subsets: [['b1'], ['b2']] });
  });

  it('never mixes adapters, and a fit under two adapters is ambiguous', () => {
    const cands = [batch('a1', 60_000), batch('c1', 40_000, 'provider_c')];
    expect(findBatchSubset(100_000, cands, 0)).toMatchObject({ found: 'none' });
    const both = [batch('a1', 100_000), batch('c1', 100_000, 'provider_c')];
    expect(findBatchSubset(100_000, both, 0)).toMatchObject({ found: 'ambiguous' });
  });

  it('leaves out batches that expect nothing, and sets of more than 5', () => {
    expect(findBatchSubset(100, [batch('b1', 100), batch('z', 0), batch('n', -5)], 0)).toMatchObject({
      found: 'unique',
      batchIds: ['b1'],
    });
    const six = ['1', '2', '3', '4', '5', '6'].map((id) => batch(id, 10));
    expect(findBatchSubset(60, six, 0)).toMatchObject({ found: 'none' });
    expect(findBatchSubset(50, six, 0)).toMatchObject({ found: 'ambiguous' });
  });

  it('is undecided over more than 50 candidates, without searching', () => {
    const many = Array.from({ length: subsetLimits.maxCandidates + 1 }, (_, i) => batch(`b${i}`, 1000 + i));
    expect(findBatchSubset(1000, many, 0)).toEqual({ found: 'undecided', steps: 0 });
    expect(findBatchSubset(1000, many.slice(0, 50), 0)).toMatchObject({ found: 'unique', batchIds: ['b0'] });
  });

  it('equals the brute force over small inputs', () => {
    const cand = fc.record({
      amount: fc.integer({ min: -2, max: 40 }),
      adapter: fc.constantFrom('provider_a', 'provider_b'),
    });
    fc.assert(
      fc.property(
        fc.array(cand, { maxLength: 11 }),
        fc.integer({ min: 1, max: 120 }),
        fc.integer({ min: 0, max: 6 }),
        (cs, credit, tol) => {
          const candidates = cs.map((c, i) => batch(`b${String(i).padStart(2, '0')}`, c.amount, c.adapter));
          const expected = bruteForce(credit, candidates, tol);
          const got = findBatchSubset(credit, candidates, tol);
          if (expected.length === 0) return got.found === 'none';
          if (expected.length === 1) return got.found === 'unique' && got.batchIds.join() === expected[0].join();
          const keys = new Set(expected.map((s) => s.join()));
          return (
            got.found === 'ambiguous' &&
            got.subsets.every((s) => keys.has(s.join())) &&
            got.subsets[0].join() !== got.subsets[1].join()
          );
        },
      ),
      RUNS,
    );
  });

  it('stays bounded on 50 candidates where no set fits: pruned far below the 2,369,935 sets', () => {
    // 50 amounts just below a tenth of the credit: every 5-set falls short, so the walk prunes at the bottom.
    const short = Array.from({ length: 50 }, (_, i) => batch(`s${i}`, 19_000 + i));
    const r1 = findBatchSubset(1_000_000, short, 6500);
    expect(r1).toMatchObject({ found: 'none', steps: 0 });
    // Odd amounts and an even target with no band: nothing fits, and the overshoot prune ends each branch.
    const odd = Array.from({ length: 50 }, (_, i) => batch(`o${i}`, 2 * i + 1_000_001));
    const started = performance.now();
    const r2 = findBatchSubset(5_000_000 + 2 * 50, odd, 0);
    expect(r2.found).toBe('none');
    expect(r2.steps).toBeLessThan(300_000); // 242,819: the 4-sets and their 5th-item overshoots
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe('spreading credits over batches', () => {
  const b = (id: string, settlementId: string, at: string, expected: number) => ({
    id,
    settlementId,
    expectedAt: new Date(at),
    expectedBankAmount: expected,
  });

  it('N:1: every batch but the last (expectedAt, then settlementId) is paid in full, the last takes the rest', () => {
    const batches = [
      b('rbat_3', 'S-3', '2025-06-02T00:00:00Z', 30_000),
      b('rbat_2', 'S-2', '2025-06-01T00:00:00Z', 20_000),
      b('rbat_1', 'S-1', '2025-06-01T00:00:00Z', 10_000),
    ];
    expect(allocateCredit(57_100, batches)).toEqual([
      { batchId: 'rbat_1', bankAmount: 10_000n, transferFee: 0n },
      { batchId: 'rbat_2', bankAmount: 20_000n, transferFee: 0n },
      { batchId: 'rbat_3', bankAmount: 27_100n, transferFee: 2_900n },
    ]);
    expect(() => allocateCredit(1, [])).toThrow(RangeError);
  });

  it('N:1 conserves the credit and the fee: bank amounts sum to the credit, fees to expected - credited', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 10 ** 12 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 0, max: 6500 }),
        (amounts, fee) => {
          const batches = amounts.map((a, i) => b(`rbat_${i}`, `S-${i}`, '2025-06-01T00:00:00Z', a));
          const total = amounts.reduce((s, a) => s + BigInt(a), 0n);
          const out = allocateCredit(total - BigInt(fee), batches);
          return (
            out.reduce((s, x) => s + x.bankAmount, 0n) === total - BigInt(fee) &&
            out.reduce((s, x) => s + x.transferFee, 0n) === BigInt(fee)
          );
        },
      ),
      RUNS,
    );
  });

  it('1:N: the batch is paid the sum of its credits', () => {
    expect(sumCredits(145_005, [100_000, 42_105])).toEqual({ bankAmount: 142_105n, transferFee: 2_900n });
    expect(sumCredits(2n ** 53n, [Number.MAX_SAFE_INTEGER, 1])).toEqual({ bankAmount: 2n ** 53n, transferFee: 0n });
  });
});

describe('batch totals', () => {
  const row = (o: Partial<BatchRow>): BatchRow => ({
    type: 'payment',
    amount: 0,
    fee: 0,
    feeVat: 0,
    withholdingTax: 0,
    net: 0,
    occurredAt: new Date('2025-06-01T00:00:00Z'),
    settledAt: null,
    ...o,
  });

  it('sums amount and net of non-payout rows, fees of all, and the payout rows apart', () => {
    const t = batchTotals([
      row({ amount: 200_000, fee: 4500, feeVat: 495, withholdingTax: 100, net: 194_905 }),
      row({ type: 'refund', amount: -50_000, net: -50_000, occurredAt: new Date('2025-06-02T00:00:00Z') }),
      row({ type: 'fee', fee: 1000, net: -1000 }),
      row({ type: 'payout', amount: -143_905, fee: 2500, feeVat: 275, net: -146_680 }),
    ]);
    expect(t).toEqual({
      rowCount: 4,
      amount: 150_000n,
      fee: 8000n,
      feeVat: 770n,
      withholdingTax: 100n,
      net: 143_905n,
      payoutFees: 2775n,
      expectedBankAmount: 141_130n,
      expectedAt: new Date('2025-06-02T00:00:00Z'),
    });
  });

  it('is expected at the latest settled_at, else the latest occurred_at', () => {
    const settled = batchTotals([
      row({ occurredAt: new Date('2025-06-05T00:00:00Z'), settledAt: new Date('2025-06-03T00:00:00Z') }),
      row({ occurredAt: new Date('2025-06-01T00:00:00Z'), settledAt: new Date('2025-06-04T00:00:00Z') }),
      row({ occurredAt: new Date('2025-06-09T00:00:00Z') }),
    ]);
    expect(settled.expectedAt).toEqual(new Date('2025-06-04T00:00:00Z'));
    expect(batchTotals([]).expectedAt).toBeNull();
  });

  it('sums past 2^53 exactly', () => {
    const t = batchTotals([
      row({ amount: Number.MAX_SAFE_INTEGER, net: Number.MAX_SAFE_INTEGER }),
      row({ amount: 2, net: 2 }),
    ]);
    expect(t.net).toBe(2n ** 53n + 1n);
    expect(t.expectedBankAmount).toBe(2n ** 53n + 1n);
  });
});
