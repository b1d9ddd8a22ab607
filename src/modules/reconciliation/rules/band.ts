// The bank side of settlements (docs/reconciliation.md, Bank credits and batches): the transfer-fee band,
// the amount pass's unique subset of batches, and how one credit is spread over the batches it pays.
import { calendarDate, daysBetween } from './calendar.ts';
import { toBig, type Minor } from './rounding.ts';

/** Band: 0 <= expected - credited <= tolerance. The shortfall is the transfer fee. */
export function fitsBand(expected: Minor, credited: Minor, tolerance: Minor): boolean {
  const shortfall = toBig(expected) - toBig(credited);
  return shortfall >= 0n && shortfall <= toBig(tolerance);
}

/**
 * Whether a batch expected at `expectedAt` may be paid by a credit of `valueDate`: its calendar date in the
 * workspace's zone lies in [valueDate - toleranceDays, valueDate] (money never arrives before it is settled).
 */
export function withinCreditWindow(expectedAt: Date, valueDate: string, toleranceDays: number, timeZone: string) {
  const early = daysBetween(calendarDate(expectedAt, timeZone), valueDate);
  return early >= 0 && early <= toleranceDays;
}

export interface BatchCandidate {
  id: string;
  adapter: string;
  expectedBankAmount: Minor;
}

/** The amount pass's bounds: a subset of at most 5 batches out of at most 50 candidates per credit. */
export const subsetLimits = { maxCandidates: 50, maxBatches: 5 } as const;

export type SubsetSearch =
  | { found: 'unique'; batchIds: string[]; steps: number }
  | { found: 'ambiguous'; subsets: [string[], string[]]; steps: number }
  | { found: 'none'; steps: number }
  /** Too many candidates: the credit waits for the next run or a person. */
  | { found: 'undecided'; steps: 0 };

/**
 * The unique set of at most 5 candidate batches of one adapter whose expected bank amounts sum into the band
 * of one credit: sum in [credited, credited + tolerance].
 *
 * Batches expecting nothing (expectedBankAmount <= 0) take no part: a credit does not pay them, and with a 0
 * every fitting set would have a twin. More than 50 candidates: `undecided`, the search is not started.
 *
 * The work is bounded: at most sum over k <= 5 of C(50, k) = 2,369,935 sets exist, and the depth-first walk
 * over the amounts in ascending order visits far fewer: a branch stops when its sum passes the band's top
 * (every later amount is larger) or when its sum plus the largest amounts it may still add stays below the
 * band's bottom; the walk ends at the second fitting set (the answer is then `ambiguous`). `steps` counts the
 * sets visited.
 */
export function findBatchSubset(
  credited: Minor,
  candidates: readonly BatchCandidate[],
  tolerance: Minor,
): SubsetSearch {
  if (candidates.length > subsetLimits.maxCandidates) return { found: 'undecided', steps: 0 };
  const lo = toBig(credited);
  const hi = lo + toBig(tolerance);
  const fits: string[][] = [];
  let steps = 0;
  const adapters = [...new Set(candidates.map((c) => c.adapter))].sort();
  for (const adapter of adapters) {
    const items = candidates
      .filter((c) => c.adapter === adapter)
      .map((c) => ({ id: c.id, amount: toBig(c.expectedBankAmount) }))
      .filter((c) => c.amount > 0n)
      .sort((a, b) => (a.amount < b.amount ? -1 : a.amount > b.amount ? 1 : a.id < b.id ? -1 : 1));
    steps += searchSorted(items, lo, hi, fits);
    if (fits.length >= 2) return { found: 'ambiguous', subsets: [fits[0], fits[1]], steps };
  }
  return fits.length === 1 ? { found: 'unique', batchIds: fits[0], steps } : { found: 'none', steps };
}

/** The walk of `findBatchSubset` over one adapter's amounts (ascending): pushes fitting sets, stops at two. */
function searchSorted(items: { id: string; amount: bigint }[], lo: bigint, hi: bigint, fits: string[][]): number {
  const n = items.length;
  // suffix[i] = sum of items[i..n-1]; the k largest from index i on are items[max(i, n - k)..].
  const suffix: bigint[] = new Array(n + 1).fill(0n);
  for (let i = n - 1; i >= 0; i--) suffix[i] = suffix[i + 1] + items[i].amount;
  const most = (from: number, k: number) => suffix[Math.max(from, n - k)];
  const chosen: number[] = [];
  let steps = 0;
  const walk = (start: number, sum: bigint): boolean => {
    const slots = subsetLimits.maxBatches - chosen.length;
    for (let i = start; i < n; i++) {
      if (sum + most(i, slots) < lo) return false; // even the largest remaining cannot reach the band
      const s = sum + items[i].amount;
      if (s > hi) return false; // ascending: every later item overshoots too
      steps++;
      chosen.push(i);
      if (s >= lo) fits.push(chosen.map((j) => items[j].id).sort());
      const done = fits.length >= 2 || (slots > 1 && walk(i + 1, s));
      chosen.pop();
      if (done) return true;
    }
    return false;
  };
  walk(0, 0n);
  return steps;
}

export interface AllocatedBatch {
  id: string;
  settlementId: string;
  expectedAt: Date;
  expectedBankAmount: Minor;
}

export interface Allocation {
  batchId: string;
  bankAmount: bigint;
  /** expectedBankAmount - bankAmount. */
  transferFee: bigint;
}

/** The order of an N:1 credit's batches: expectedAt, then settlementId. */
export function allocationOrder<T extends Pick<AllocatedBatch, 'expectedAt' | 'settlementId'>>(batches: readonly T[]) {
  return [...batches].sort(
    (a, b) =>
      a.expectedAt.getTime() - b.expectedAt.getTime() ||
      (a.settlementId < b.settlementId ? -1 : a.settlementId > b.settlementId ? 1 : 0),
  );
}

/**
 * N:1, one credit paying several batches: every batch but the last (allocationOrder) gets its expected bank
 * amount and no transfer fee; the last takes the rest of the credit and so the whole transfer fee.
 */
export function allocateCredit(credited: Minor, batches: readonly AllocatedBatch[]): Allocation[] {
  if (!batches.length) throw new RangeError('allocateCredit: no batch');
  const ordered = allocationOrder(batches);
  let rest = toBig(credited);
  return ordered.map((b, i) => {
    const expected = toBig(b.expectedBankAmount);
    const bankAmount = i === ordered.length - 1 ? rest : expected;
    rest -= bankAmount;
    return { batchId: b.id, bankAmount, transferFee: expected - bankAmount };
  });
}

/** 1:N, several credits naming one batch: its bank amount is their sum, its transfer fee what they fall short. */
export function sumCredits(expectedBankAmount: Minor, credits: readonly Minor[]): Omit<Allocation, 'batchId'> {
  const bankAmount = credits.reduce<bigint>((s, c) => s + toBig(c), 0n);
  return { bankAmount, transferFee: toBig(expectedBankAmount) - bankAmount };
}
