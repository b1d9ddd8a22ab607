// The report's arithmetic (src/modules/reconciliation/rules/report.ts, calendar.ts): nearest-rank percentiles,
// the age buckets of open exceptions, settlement lag in calendar days of the workspace's zone.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calendarDate, dayNumber, daysBetween } from '../../src/modules/reconciliation/rules/calendar.ts';
import {
  ageBucket,
  ageDays,
  countByAge,
  lagStats,
  nearestRank,
  settlementLagDays,
} from '../../src/modules/reconciliation/rules/report.ts';

const RUNS = { numRuns: 1000 };

describe('nearest-rank percentiles', () => {
  it('takes the value of rank ceil(p/100 x N), never an interpolation', () => {
    const ten = [10, 1, 9, 2, 8, 3, 7, 4, 6, 5];
    expect(nearestRank(ten, 50)).toBe(5);
    expect(nearestRank(ten, 95)).toBe(10);
    expect(nearestRank(ten, 100)).toBe(10);
    expect(nearestRank(ten, 10)).toBe(1);
    expect(
      nearestRank(
        Array.from({ length: 20 }, (_, i) => i + 1),
        95,
      ),
    ).toBe(19);
    expect(nearestRank([7], 50)).toBe(7);
    expect(nearestRank([3, 1], 50)).toBe(1);
    expect(nearestRank([], 50)).toBeNull();
    expect(() => nearestRank([1], 0)).toThrow(RangeError);
    expect(() => nearestRank([1], 101)).toThrow(RangeError);
  });

  it('is the smallest value with at least p % of the values at or below it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 60 }), { minLength: 1, maxLength: 200 }),
        fc.integer({ min: 1, max: 100 }),
        (xs, p) => {
          const v = nearestRank(xs, p)!;
          const atOrBelow = xs.filter((x) => x <= v).length;
          const below = xs.filter((x) => x < v).length;
          return xs.includes(v) && atOrBelow * 100 >= p * xs.length && below * 100 < p * xs.length;
        },
      ),
      RUNS,
    );
  });

  it('lag figures per adapter and currency', () => {
    expect(lagStats([2, 1, 3, 2, 9])).toEqual({ batches: 5, p50Days: 2, p95Days: 9, maxDays: 9 });
    expect(lagStats([])).toEqual({ batches: 0, p50Days: null, p95Days: null, maxDays: null });
  });
});

describe('ages of open exceptions', () => {
  const now = new Date('2025-06-30T12:00:00Z');
  const ago = (ms: number) => new Date(now.getTime() - ms);
  const day = 86_400_000;

  it('counts whole days since openedAt into 0-1d, 2-7d, 8-30d, 31d+', () => {
    expect(ageDays(ago(2 * day - 1), now)).toBe(1);
    expect(ageBucket(ago(0), now)).toBe('0-1d');
    expect(ageBucket(ago(2 * day - 1), now)).toBe('0-1d');
    expect(ageBucket(ago(2 * day), now)).toBe('2-7d');
    expect(ageBucket(ago(8 * day - 1), now)).toBe('2-7d');
    expect(ageBucket(ago(8 * day), now)).toBe('8-30d');
    expect(ageBucket(ago(31 * day - 1), now)).toBe('8-30d');
    expect(ageBucket(ago(31 * day), now)).toBe('31d+');
    expect(ageBucket(new Date(now.getTime() + day), now)).toBe('0-1d'); // opened "after" now: a skewed clock
  });

  it('lists every bucket, in order, zeros included', () => {
    expect(countByAge([ago(0), ago(3 * day), ago(40 * day), ago(400 * day)], now)).toEqual([
      { bucket: '0-1d', count: 1 },
      { bucket: '2-7d', count: 1 },
      { bucket: '8-30d', count: 0 },
      { bucket: '31d+', count: 2 },
    ]);
    expect(countByAge([], now).map((b) => b.count)).toEqual([0, 0, 0, 0]);
  });
});

describe('settlement lag in calendar days', () => {
  it("counts from the payment's date in the workspace zone to the value date", () => {
    // 2025-06-01 18:00 UTC is June 2 in Jakarta, still June 1 in New York.
    const at = new Date('2025-06-01T18:00:00Z');
    expect(settlementLagDays(at, '2025-06-03', 'Asia/Jakarta')).toBe(1);
    expect(settlementLagDays(at, '2025-06-03', 'America/New_York')).toBe(2);
    expect(settlementLagDays(at, '2025-06-02', 'Asia/Jakarta')).toBe(0);
    // Across a daylight-saving change and a year end the lag stays in whole calendar days.
    expect(settlementLagDays(new Date('2025-03-08T12:00:00Z'), '2025-03-10', 'America/New_York')).toBe(2);
    expect(settlementLagDays(new Date('2024-12-31T12:00:00Z'), '2025-01-02', 'UTC')).toBe(2);
    expect(settlementLagDays(new Date('2024-02-28T12:00:00Z'), '2024-03-01', 'UTC')).toBe(2); // leap day
  });

  it('reads calendar dates strictly, and refuses an unknown zone', () => {
    expect(calendarDate(new Date('2025-06-01T17:00:00Z'), 'Asia/Jakarta')).toBe('2025-06-02');
    expect(daysBetween('2025-06-03', '2025-06-01')).toBe(-2);
    expect(dayNumber('1970-01-02')).toBe(1);
    expect(() => dayNumber('2025-02-30')).toThrow(RangeError);
    expect(() => dayNumber('2025-6-1')).toThrow(RangeError);
    expect(() => calendarDate(new Date(), 'Mars/Olympus')).toThrow(RangeError);
  });
});
