/**
 * Periods from the anchor (src/core/periods.ts) are pure: properties over generated
 * anchors and cadences, the month-end examples (Jan 31 -> Feb 28 -> Mar 31) and proration.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { addMonths, periodIndexAt, periodOf, periodStartAt, prorate, type Cadence } from '../../../src/core/periods.ts';

const RUNS = { numRuns: 1000 };
const anchor = fc.date({
  min: new Date('2000-01-01T00:00:00Z'),
  max: new Date('2090-01-01T00:00:00Z'),
  noInvalidDate: true,
});
const cadence: fc.Arbitrary<Cadence> = fc.record({
  interval: fc.constantFrom('day', 'week', 'month', 'year'),
  intervalCount: fc.integer({ min: 1, max: 12 }),
});
const k = fc.integer({ min: -50, max: 200 });
const iso = (s: string) => new Date(s);

describe('month-end anchors', () => {
  it('Jan 31 bills Feb 28, Mar 31, Apr 30 (computed from the anchor, no drift)', () => {
    const a = iso('2026-01-31T10:00:00.000Z');
    const c: Cadence = { interval: 'month', intervalCount: 1 };
    const starts = [0, 1, 2, 3, 4].map((i) => periodStartAt(a, c, i).toISOString());
    expect(starts).toEqual([
      '2026-01-31T10:00:00.000Z',
      '2026-02-28T10:00:00.000Z',
      '2026-03-31T10:00:00.000Z',
      '2026-04-30T10:00:00.000Z',
      '2026-05-31T10:00:00.000Z',
    ]);
  });
  it('leap years: Jan 31 2028 -> Feb 29; Feb 29 yearly -> Feb 28 then Feb 29 again', () => {
    expect(addMonths(iso('2028-01-31T00:00:00Z'), 1).toISOString()).toBe('2028-02-29T00:00:00.000Z');
    const y: Cadence = { interval: 'year', intervalCount: 1 };
    const a = iso('2028-02-29T12:30:00Z');
    expect(periodStartAt(a, y, 1).toISOString()).toBe('2029-02-28T12:30:00.000Z');
    expect(periodStartAt(a, y, 4).toISOString()).toBe('2032-02-29T12:30:00.000Z');
  });
  it('quarterly from Nov 30 and weekly/daily steps', () => {
    const q: Cadence = { interval: 'month', intervalCount: 3 };
    expect(periodOf(iso('2026-11-30T00:00:00Z'), q, 0).end.toISOString()).toBe('2027-02-28T00:00:00.000Z');
    expect(periodOf(iso('2026-11-30T00:00:00Z'), q, 1).end.toISOString()).toBe('2027-05-30T00:00:00.000Z');
    const w: Cadence = { interval: 'week', intervalCount: 2 };
    expect(periodStartAt(iso('2026-03-01T00:00:00Z'), w, 1).toISOString()).toBe('2026-03-15T00:00:00.000Z');
  });
});

describe('properties', () => {
  it('periods tile time: period k ends where k+1 starts, and every period is non-empty', () => {
    fc.assert(
      fc.property(anchor, cadence, k, (a, c, i) => {
        const p = periodOf(a, c, i);
        expect(p.end.getTime()).toBeGreaterThan(p.start.getTime());
        expect(periodOf(a, c, i + 1).start.getTime()).toBe(p.end.getTime());
      }),
      RUNS,
    );
  });
  it('period 0 starts at the anchor; the day of month is min(anchor day, month length)', () => {
    fc.assert(
      fc.property(anchor, fc.integer({ min: 0, max: 240 }), (a, n) => {
        expect(periodStartAt(a, { interval: 'month', intervalCount: 1 }, 0).getTime()).toBe(a.getTime());
        const d = addMonths(a, n);
        const len = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
        expect(d.getUTCDate()).toBe(Math.min(a.getUTCDate(), len));
        expect(d.getUTCHours() * 3600 + d.getUTCMinutes() * 60 + d.getUTCSeconds()).toBe(
          a.getUTCHours() * 3600 + a.getUTCMinutes() * 60 + a.getUTCSeconds(),
        );
        expect((d.getUTCFullYear() - a.getUTCFullYear()) * 12 + d.getUTCMonth() - a.getUTCMonth()).toBe(n);
      }),
      RUNS,
    );
  });
  it('periodIndexAt finds the period holding any instant', () => {
    fc.assert(
      fc.property(anchor, cadence, k, fc.double({ min: 0, max: 1, noNaN: true }), (a, c, i, f) => {
        const p = periodOf(a, c, i);
        const at = new Date(p.start.getTime() + Math.floor(f * (p.end.getTime() - p.start.getTime() - 1)));
        expect(periodIndexAt(a, c, at)).toBe(i);
        expect(periodIndexAt(a, c, p.start)).toBe(i);
      }),
      RUNS,
    );
  });
  it('proration is monotone, bounded by the amount, and exact at the ends', () => {
    fc.assert(
      fc.property(
        anchor,
        cadence,
        fc.integer({ min: 0, max: 1_000_000_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (a, c, amount, f, g) => {
          const p = periodOf(a, c, 0);
          const len = p.end.getTime() - p.start.getTime();
          const [x, y] = [f, g].sort((u, v) => u - v);
          const early = prorate(amount, p, new Date(p.start.getTime() + Math.floor(x * len)));
          const late = prorate(amount, p, new Date(p.start.getTime() + Math.floor(y * len)));
          expect(early).toBeGreaterThanOrEqual(late);
          expect(early).toBeLessThanOrEqual(amount);
          expect(late).toBeGreaterThanOrEqual(0);
          expect(prorate(amount, p, p.start)).toBe(amount);
          expect(prorate(amount, p, p.end)).toBe(0);
        },
      ),
      RUNS,
    );
  });
  it('proration example: half of a 30-day period of 100,000 is 50,000', () => {
    const p = { start: iso('2026-04-01T00:00:00Z'), end: iso('2026-05-01T00:00:00Z') };
    expect(prorate(100_000, p, iso('2026-04-16T00:00:00Z'))).toBe(50_000);
    expect(prorate(100_001, p, iso('2026-04-16T00:00:00Z'))).toBe(50_001); // 50,000.5 rounds half-up
  });
});
