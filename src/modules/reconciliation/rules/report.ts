// The reconciliation report's arithmetic (docs/reconciliation.md, Reports): nearest-rank percentiles, the ages
// of open exceptions, and settlement lag in calendar days of the workspace's zone.
import { calendarDate, daysBetween } from './calendar.ts';

/**
 * The nearest-rank percentile p (0 < p <= 100) of `values`: the value of rank ceil(p/100 x N) in ascending
 * order; null for no values. Always one of the values, never an interpolation.
 */
export function nearestRank(values: readonly number[], p: number): number | null {
  if (!(p > 0 && p <= 100)) throw new RangeError('percentile must be in (0, 100]');
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  // p x N is an exact integer for a whole p, and its division by 100 is exact whenever the quotient is whole.
  const rank = Math.max(1, Math.ceil((p * sorted.length) / 100));
  return sorted[Math.min(rank, sorted.length) - 1];
}

export const ageBuckets = ['0-1d', '2-7d', '8-30d', '31d+'] as const;
export type AgeBucket = (typeof ageBuckets)[number];

/** Whole days (24 h periods) from `openedAt` to `now`; a clock behind openedAt counts as 0. */
export function ageDays(openedAt: Date, now: Date): number {
  return Math.max(0, Math.floor((now.getTime() - openedAt.getTime()) / 86_400_000));
}

export function ageBucket(openedAt: Date, now: Date): AgeBucket {
  const days = ageDays(openedAt, now);
  return days <= 1 ? '0-1d' : days <= 7 ? '2-7d' : days <= 30 ? '8-30d' : '31d+';
}

/** The report's `byAge`: every bucket, in order, with its count (0 included). */
export function countByAge(openedAts: readonly Date[], now: Date): { bucket: AgeBucket; count: number }[] {
  const counts = new Map<AgeBucket, number>(ageBuckets.map((b) => [b, 0]));
  for (const at of openedAts) {
    const b = ageBucket(at, now);
    counts.set(b, (counts.get(b) ?? 0) + 1);
  }
  return ageBuckets.map((bucket) => ({ bucket, count: counts.get(bucket) ?? 0 }));
}

/**
 * A matched batch's settlement lag: whole calendar days from the date (in `timeZone`) of the earliest
 * occurred_at of its payment rows to the bank credit's value date (`YYYY-MM-DD`, already a calendar date).
 */
export function settlementLagDays(earliestPaymentAt: Date, valueDate: string, timeZone: string): number {
  return daysBetween(calendarDate(earliestPaymentAt, timeZone), valueDate);
}

export interface LagStats {
  batches: number;
  p50Days: number | null;
  p95Days: number | null;
  maxDays: number | null;
}

/** One `settlementLag` entry's figures from its batches' lags. */
export function lagStats(lags: readonly number[]): LagStats {
  return {
    batches: lags.length,
    p50Days: nearestRank(lags, 50),
    p95Days: nearestRank(lags, 95),
    maxDays: nearestRank(lags, 100),
  };
}
