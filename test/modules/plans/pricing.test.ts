/**
 * The pricing engine (src/modules/plans/pricing.ts) is pure: properties over generated prices and
 * quantities (>= 1,000 runs per model), examples for each model, usage aggregation and tax.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  aggregateUsage,
  computeTotals,
  priceQuantity,
  priceUsage,
  tierIndexOf,
  type PriceTerms,
  type Tier,
  type UsageRecord,
} from '../../../src/modules/plans/pricing.ts';

const RUNS = { numRuns: 1000 };
const amount = fc.integer({ min: 0, max: 10_000_000 });
const quantity = fc.integer({ min: 0, max: 100_000 });

/** 1-6 tiers, bounds strictly increasing, the last `inf`; each tier has a unit or a flat amount. */
const tiers: fc.Arbitrary<Tier[]> = fc
  .uniqueArray(fc.integer({ min: 1, max: 50_000 }), { minLength: 0, maxLength: 5 })
  .chain((bounds) => {
    const ups: (number | 'inf')[] = [...bounds.sort((a, b) => a - b), 'inf'];
    return fc.tuple(
      ...ups.map((upTo) =>
        fc
          .record({ unitAmount: fc.option(amount, { nil: null }), flatAmount: fc.option(amount, { nil: null }) })
          .filter((t) => t.unitAmount !== null || t.flatAmount !== null)
          .map((t) => ({ upTo, ...t })),
      ),
    );
  });

const priceOf = (model: PriceTerms['model']): fc.Arbitrary<PriceTerms> =>
  model === 'flat' || model === 'usage'
    ? amount.map((unitAmount) => ({ model, unitAmount, tiers: null }))
    : tiers.map((t) => ({ model, unitAmount: null, tiers: t }));

/** The invariants every priced quantity keeps. */
function checkLines(p: ReturnType<typeof priceQuantity>) {
  expect(p.lines.length).toBeGreaterThanOrEqual(1);
  for (const l of p.lines) {
    expect(l.amount).toBe(l.quantity * l.unitAmount);
    expect(l.quantity).toBeGreaterThanOrEqual(1);
    expect(Number.isSafeInteger(l.amount) && l.amount >= 0).toBe(true);
  }
  expect(p.lines.reduce((s, l) => s + l.amount, 0)).toBe(p.amount);
}

/** Graduated pricing unit by unit: the oracle the engine must match. */
function graduatedOracle(t: readonly Tier[], q: number): number {
  let total = 0;
  const touched = new Set<number>();
  for (let u = 1; u <= q; u++) {
    const i = t.findIndex((x) => x.upTo === 'inf' || u <= x.upTo);
    total += t[i].unitAmount ?? 0;
    touched.add(i);
  }
  for (const i of touched) total += t[i].flatAmount ?? 0;
  return total;
}

describe('properties (>= 1,000 runs per model)', () => {
  for (const model of ['flat', 'tiered', 'volume', 'usage'] as const) {
    it(`${model}: lines sum to the price, amount = quantity x unitAmount, quantity 0 prices to 0`, () => {
      fc.assert(
        fc.property(priceOf(model), quantity, (price, q) => {
          const p = priceQuantity(price, q);
          checkLines(p);
          expect(p.quantity).toBe(q);
          if (q === 0) expect(p.amount).toBe(0);
          if (model === 'flat' || model === 'usage') expect(p.amount).toBe(q * price.unitAmount!);
        }),
        RUNS,
      );
    });
  }

  it('tiered (graduated) is monotone in quantity and equals the unit-by-unit oracle', () => {
    fc.assert(
      fc.property(tiers, fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: 3000 }), (t, a, b) => {
        const price: PriceTerms = { model: 'tiered', unitAmount: null, tiers: t };
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(priceQuantity(price, lo).amount).toBeLessThanOrEqual(priceQuantity(price, hi).amount);
        expect(priceQuantity(price, a).amount).toBe(graduatedOracle(t, a));
      }),
      RUNS,
    );
  });

  it('tiered: one line per tier touched (its units) plus one line per flat fee of a touched tier', () => {
    fc.assert(
      fc.property(tiers, quantity, (t, q) => {
        const p = priceQuantity({ model: 'tiered', unitAmount: null, tiers: t }, q);
        let lower = 0;
        t.forEach((x, i) => {
          const upper = x.upTo === 'inf' ? q : Math.min(q, x.upTo);
          const units = Math.max(0, upper - lower);
          lower = x.upTo === 'inf' ? lower : x.upTo;
          const unitLines = p.lines.filter((l) => l.tier === i && !l.flatFee);
          const feeLines = p.lines.filter((l) => l.tier === i && l.flatFee);
          expect(unitLines.map((l) => l.quantity)).toEqual(units > 0 && x.unitAmount !== null ? [units] : []);
          expect(feeLines.map((l) => l.amount)).toEqual(units > 0 && x.flatAmount ? [x.flatAmount] : []);
        });
      }),
      RUNS,
    );
  });

  it('volume = q x unit(q) + flat(q) for q >= 1, from the single tier q falls into', () => {
    fc.assert(
      fc.property(tiers, fc.integer({ min: 1, max: 100_000 }), (t, q) => {
        const i = tierIndexOf(t, q);
        const lower = i === 0 ? 0 : (t[i - 1].upTo as number);
        expect(q > lower && (t[i].upTo === 'inf' || q <= t[i].upTo)).toBe(true);
        const p = priceQuantity({ model: 'volume', unitAmount: null, tiers: t }, q);
        expect(p.amount).toBe(q * (t[i].unitAmount ?? 0) + (t[i].flatAmount ?? 0));
        expect(p.lines.every((l) => l.zero || l.tier === i)).toBe(true);
      }),
      RUNS,
    );
  });

  it('usage: the aggregate over [start, end) equals a direct computation; empty periods are 0', () => {
    const start = new Date('2026-01-01T00:00:00.000Z');
    const end = new Date('2026-02-01T00:00:00.000Z');
    const record = fc.record({
      quantity: fc.integer({ min: 0, max: 1_000_000 }),
      timestamp: fc
        .integer({ min: start.getTime() - 86_400_000, max: end.getTime() + 86_400_000 })
        .map((t) => new Date(t)),
    });
    fc.assert(
      fc.property(fc.array(record, { maxLength: 30 }), amount, (records, unitAmount) => {
        const inside = records
          .map((r, seq) => ({ ...r, seq }))
          .filter((r) => r.timestamp >= start && r.timestamp < end);
        const last = [...inside].sort((x, y) => x.timestamp.getTime() - y.timestamp.getTime() || x.seq - y.seq).pop();
        const expected = {
          sum: inside.reduce((s, r) => s + r.quantity, 0),
          max: inside.reduce((m, r) => Math.max(m, r.quantity), 0),
          last: last?.quantity ?? 0,
        };
        for (const agg of ['sum', 'max', 'last'] as const) {
          expect(aggregateUsage(records, agg, { start, end })).toBe(expected[agg]);
          const p = priceUsage({ model: 'usage', unitAmount, tiers: null }, records, agg, { start, end });
          checkLines(p);
          expect(p.amount).toBe(expected[agg] * unitAmount);
        }
      }),
      RUNS,
    );
  });

  it('exclusive tax is round-half-up(base x rate), inclusive splits the gross exactly; total = max(0, subtotal - discount + tax)', () => {
    fc.assert(
      fc.property(amount, amount, fc.integer({ min: 0, max: 100_000 }), (subtotal, discount, parts) => {
        const rate = (parts / 100_000).toFixed(5);
        const base = Math.max(0, subtotal - discount);
        const ex = computeTotals({ subtotal, discount, taxMode: 'exclusive', rate });
        // Half-up: the exact rational base x parts / 100000, compared in integers.
        const twice = 2n * BigInt(base) * BigInt(parts);
        expect(BigInt(ex.tax) * 200_000n <= twice + 100_000n).toBe(true);
        expect(twice + 100_000n < (BigInt(ex.tax) + 1n) * 200_000n).toBe(true);
        expect(ex.total).toBe(Math.max(0, subtotal - discount + ex.tax));
        expect(ex.taxIncluded).toBe(0);
        const inc = computeTotals({ subtotal, discount, taxMode: 'inclusive', rate });
        expect(inc.tax).toBe(0);
        expect(inc.total).toBe(base);
        expect(inc.taxIncluded).toBeLessThanOrEqual(base);
        expect(inc.taxIncluded).toBeGreaterThanOrEqual(0);
      }),
      RUNS,
    );
  });
});

describe('examples', () => {
  const t: Tier[] = [
    { upTo: 10, unitAmount: 1000, flatAmount: null },
    { upTo: 100, unitAmount: 800, flatAmount: 5000 },
    { upTo: 'inf', unitAmount: 500, flatAmount: null },
  ];
  const strip = (p: ReturnType<typeof priceQuantity>) => p.lines.map((l) => [l.quantity, l.unitAmount, l.amount]);

  it('flat: quantity x unitAmount; quantity 0 is one zero line', () => {
    expect(strip(priceQuantity({ model: 'flat', unitAmount: 150000, tiers: null }, 3))).toEqual([[3, 150000, 450000]]);
    const zero = priceQuantity({ model: 'flat', unitAmount: 150000, tiers: null }, 0);
    expect(zero.amount).toBe(0);
    expect(zero.lines).toEqual([{ quantity: 1, unitAmount: 0, amount: 0, tier: null, flatFee: false, zero: true }]);
  });

  it('tiered (graduated): one line per tier touched, the flat fee as its own line; upTo is inclusive', () => {
    const g = (q: number) => priceQuantity({ model: 'tiered', unitAmount: null, tiers: t }, q);
    expect(strip(g(150))).toEqual([
      [10, 1000, 10000],
      [90, 800, 72000],
      [1, 5000, 5000],
      [50, 500, 25000],
    ]);
    expect(g(150).amount).toBe(112000);
    expect(strip(g(10))).toEqual([[10, 1000, 10000]]);
    expect(strip(g(11))).toEqual([
      [10, 1000, 10000],
      [1, 800, 800],
      [1, 5000, 5000],
    ]);
    expect(g(0).amount).toBe(0);
  });

  it('volume: the whole quantity at the tier it falls into, plus that tier flat fee', () => {
    const v = (q: number) => priceQuantity({ model: 'volume', unitAmount: null, tiers: t }, q);
    expect(v(10).amount).toBe(10000);
    expect(strip(v(50))).toEqual([
      [50, 800, 40000],
      [1, 5000, 5000],
    ]);
    expect(v(100).amount).toBe(85000);
    expect(v(101).amount).toBe(50500);
    expect(v(0).amount).toBe(0);
  });

  it('usage: sum, max and last over [start, end); a record at end belongs to the next period', () => {
    const start = new Date('2026-03-01T00:00:00.000Z');
    const end = new Date('2026-04-01T00:00:00.000Z');
    const at = (iso: string, quantity: number): UsageRecord => ({ quantity, timestamp: new Date(iso) });
    const records = [
      at('2026-02-28T23:59:59.999Z', 1000),
      at('2026-03-01T00:00:00.000Z', 5),
      at('2026-03-10T00:00:00.000Z', 20),
      at('2026-03-20T00:00:00.000Z', 7),
      at('2026-03-20T00:00:00.000Z', 3),
      at('2026-04-01T00:00:00.000Z', 999),
    ];
    expect(aggregateUsage(records, 'sum', { start, end })).toBe(35);
    expect(aggregateUsage(records, 'max', { start, end })).toBe(20);
    expect(aggregateUsage(records, 'last', { start, end })).toBe(3);
    for (const agg of ['sum', 'max', 'last'] as const) {
      const empty = priceUsage({ model: 'usage', unitAmount: 250, tiers: null }, [], agg, { start, end });
      expect(empty.amount).toBe(0);
      expect(empty.lines).toEqual([{ quantity: 1, unitAmount: 0, amount: 0, tier: null, flatFee: false, zero: true }]);
    }
    expect(priceUsage({ model: 'usage', unitAmount: 250, tiers: null }, records, 'sum', { start, end }).amount).toBe(
      8750,
    );
  });

  it('refuses what it cannot price exactly', () => {
    expect(() => priceQuantity({ model: 'flat', unitAmount: 1, tiers: null }, -1)).toThrow(RangeError);
    expect(() => priceQuantity({ model: 'flat', unitAmount: 1, tiers: null }, 1.5)).toThrow(RangeError);
    expect(() => priceQuantity({ model: 'flat', unitAmount: 2 ** 52, tiers: null }, 4)).toThrow(RangeError);
    const bounded: Tier[] = [{ upTo: 10, unitAmount: 1, flatAmount: null }];
    expect(() => priceQuantity({ model: 'volume', unitAmount: null, tiers: bounded }, 11)).toThrow(RangeError);
  });
});

describe('tax (docs/decisions.md, Tax modes; docs/billing.md, Tax)', () => {
  it('exclusive at the default 0.11: 100,000 adds 11,000 of tax; the discount comes off before the tax', () => {
    expect(computeTotals({ subtotal: 100000, taxMode: 'exclusive', rate: 0.11 })).toEqual({
      subtotal: 100000,
      discount: 0,
      tax: 11000,
      taxIncluded: 0,
      total: 111000,
    });
    expect(computeTotals({ subtotal: 100000, discount: 10000, taxMode: 'exclusive', rate: '0.11' })).toMatchObject({
      tax: 9900,
      total: 99900,
    });
  });

  it('inclusive at 0.11: 111,000 includes 11,000 (recorded), adds nothing; total stays the gross', () => {
    expect(computeTotals({ subtotal: 111000, taxMode: 'inclusive', rate: 0.11 })).toEqual({
      subtotal: 111000,
      discount: 0,
      tax: 0,
      taxIncluded: 11000,
      total: 111000,
    });
    // round(150000 x 0.11 / 1.11) = round(14864.86...) = 14865
    expect(computeTotals({ subtotal: 150000, taxMode: 'inclusive', rate: 0.11 }).taxIncluded).toBe(14865);
  });

  it('one rounding rule, half-up on the invoice total (not per line); a discount above the subtotal clamps to 0', () => {
    expect(computeTotals({ subtotal: 5, taxMode: 'exclusive', rate: 0.1 }).tax).toBe(1); // 0.5 -> 1
    expect(computeTotals({ subtotal: 4, taxMode: 'exclusive', rate: 0.11 }).tax).toBe(0); // 0.44 -> 0
    expect(computeTotals({ subtotal: 50, taxMode: 'exclusive', rate: 0.11 }).tax).toBe(6); // 5.5 -> 6
    expect(computeTotals({ subtotal: 1000, discount: 5000, taxMode: 'exclusive', rate: 0.11 })).toMatchObject({
      tax: 0,
      total: 0,
    });
    expect(computeTotals({ subtotal: 100000, taxMode: 'exclusive', rate: 0 }).tax).toBe(0);
    expect(() => computeTotals({ subtotal: 1, taxMode: 'exclusive', rate: '-0.1' })).toThrow(RangeError);
  });
});
