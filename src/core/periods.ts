/**
 * Billing periods, pure (docs/billing.md, Periods and anchors): period k = [anchor + k x step, anchor + (k+1) x step),
 * always computed from the stored anchor, never from the previous period's end, so month ends do not drift
 * (Stripe: an anchor of Jan 31 bills Feb 28, then Mar 31, Apr 30). UTC calendar arithmetic on the
 * anchor instant; day and week steps are exact (UTC has no DST). Every function takes its time explicitly.
 */

export const intervals = ['day', 'week', 'month', 'year'] as const;
export type Interval = (typeof intervals)[number];

export interface Cadence {
  interval: Interval;
  /** >= 1. */
  intervalCount: number;
}

export interface Period {
  start: Date;
  end: Date;
}

const DAY = 86_400_000;

const daysInMonth = (year: number, month: number) => new Date(Date.UTC(year, month + 1, 0)).getUTCDate();

/** `anchor` plus `months` calendar months, the day clamped to the target month's last day. */
export function addMonths(anchor: Date, months: number): Date {
  const y = anchor.getUTCFullYear();
  const m = anchor.getUTCMonth() + months;
  const year = y + Math.floor(m / 12);
  const month = ((m % 12) + 12) % 12;
  const day = Math.min(anchor.getUTCDate(), daysInMonth(year, month));
  const time = anchor.getTime() - Date.UTC(y, anchor.getUTCMonth(), anchor.getUTCDate());
  return new Date(Date.UTC(year, month, day) + time);
}

/** The start of period `k` (k may be negative: the period before the anchor). */
export function periodStartAt(anchor: Date, c: Cadence, k: number): Date {
  const n = k * c.intervalCount;
  switch (c.interval) {
    case 'day':
      return new Date(anchor.getTime() + n * DAY);
    case 'week':
      return new Date(anchor.getTime() + n * 7 * DAY);
    case 'month':
      return addMonths(anchor, n);
    case 'year':
      return addMonths(anchor, 12 * n);
  }
}

/** Period `k` from the anchor, half-open. */
export function periodOf(anchor: Date, c: Cadence, k: number): Period {
  return { start: periodStartAt(anchor, c, k), end: periodStartAt(anchor, c, k + 1) };
}

/** The index k of the period holding `at` (start_k <= at < end_k); negative before the anchor. */
export function periodIndexAt(anchor: Date, c: Cadence, at: Date): number {
  const t = at.getTime();
  // An estimate from the average step, then corrected: periods are 28-31 (x count) days long.
  const avg = { day: DAY, week: 7 * DAY, month: 30.436875 * DAY, year: 365.2425 * DAY }[c.interval] * c.intervalCount;
  let k = Math.floor((t - anchor.getTime()) / avg);
  while (periodStartAt(anchor, c, k).getTime() > t) k--;
  while (periodStartAt(anchor, c, k + 1).getTime() <= t) k++;
  return k;
}

/**
 * The part of `amount` for what is left of `period` at `at`, rounded half-up to whole minor units,
 * to the second (docs/billing.md, Proration): 0 at or after the end, `amount` at or before the start.
 */
export function prorate(amount: number, period: Period, at: Date): number {
  const total = Math.floor((period.end.getTime() - period.start.getTime()) / 1000);
  const left = Math.floor((period.end.getTime() - Math.max(at.getTime(), period.start.getTime())) / 1000);
  if (left <= 0 || total <= 0) return 0;
  if (left >= total) return amount;
  const num = BigInt(amount) * BigInt(left);
  const den = BigInt(total);
  return Number((2n * num + den) / (2n * den));
}
