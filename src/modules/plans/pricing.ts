/**
 * The pricing engine: pure functions from a price and a quantity (or a period's usage records) to
 * invoice lines, and from lines to tax and totals. Integer minor units throughout; the one rounding
 * rule is half-up on a non-negative amount, applied once per invoice to the tax (docs/decisions.md,
 * Pricing engine). spec Plan and price "Pricing models"; docs/decisions.md for the choices.
 */

export const priceModels = ['flat', 'tiered', 'volume', 'usage'] as const;
export type PriceModel = (typeof priceModels)[number];
export const taxModes = ['inclusive', 'exclusive'] as const;
export type TaxMode = (typeof taxModes)[number];
export const usageAggregates = ['sum', 'max', 'last'] as const;
export type UsageAggregate = (typeof usageAggregates)[number];

/** spec Price `tiers[]`: `upTo` is inclusive ("up to and including"); the last one is `inf`. */
export interface Tier {
  upTo: number | 'inf';
  unitAmount: number | null;
  flatAmount: number | null;
}

export interface PriceTerms {
  model: PriceModel;
  /** Required for flat and usage; null for tiered and volume. */
  unitAmount: number | null;
  tiers: readonly Tier[] | null;
}

/**
 * One invoice line: `amount = quantity x unitAmount` always (spec Invoice line). `tier` is the
 * 0-based tier index for tiered and volume prices; `flatFee` marks a tier's flat fee (quantity 1).
 */
export interface PriceLine {
  quantity: number;
  unitAmount: number;
  amount: number;
  tier: number | null;
  flatFee: boolean;
  /** The nothing-to-bill line (quantity 1 at 0): invoice lines need a positive quantity. */
  zero: boolean;
}

export interface Priced {
  /** The price of the quantity: the sum of `lines`. */
  amount: number;
  /** The quantity priced (for usage, the period's aggregate). */
  quantity: number;
  lines: PriceLine[];
}

/** An amount that is not one (past 2^53 - 1 minor units): refused, never rounded. */
export class AmountOverflow extends RangeError {}

const safe = (n: number, what: string) => {
  if (!Number.isSafeInteger(n)) throw new AmountOverflow(`${what} exceeds 2^53 - 1 minor units`);
  return n;
};

const MAX_AMOUNT = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * `quantity x unitAmount` when it is an amount (at most 2^53 - 1 minor units), else null. In BigInt:
 * a float product past 2^53 is already rounded, so checking it afterwards could pass a wrong amount.
 */
export function productAmount(quantity: number, unitAmount: number): number | null {
  if (!Number.isSafeInteger(quantity) || !Number.isSafeInteger(unitAmount)) return null;
  const p = BigInt(quantity) * BigInt(unitAmount);
  return p > MAX_AMOUNT || p < -MAX_AMOUNT ? null : Number(p);
}

function line(quantity: number, unitAmount: number, tier: number | null, flatFee = false): PriceLine {
  const amount = productAmount(quantity, unitAmount);
  // Refused when the price, the subscription and the usage are created (plans/validate.ts,
  // subscriptions/service.ts, usage-records/service.ts);
  // a row from before that rule is quarantined by its sweep (src/core/sweep.ts).
  if (amount === null) throw new AmountOverflow('a line amount exceeds 2^53 - 1 minor units');
  return { quantity, unitAmount, amount, tier, flatFee, zero: false };
}

/** Nothing to bill still needs one line: quantity 1 at 0 (docs/decisions.md, zero-usage line). */
const zeroLine = (): PriceLine => ({ quantity: 1, unitAmount: 0, amount: 0, tier: null, flatFee: false, zero: true });

function finish(quantity: number, lines: PriceLine[]): Priced {
  const kept = lines.filter((l) => l.amount > 0 || (l.quantity > 0 && !l.flatFee));
  const out = kept.length ? kept : [zeroLine()];
  const amount = out.reduce((s, l) => s + BigInt(l.amount), 0n);
  if (amount > MAX_AMOUNT) throw new AmountOverflow('the price exceeds 2^53 - 1 minor units');
  return { amount: Number(amount), quantity, lines: out };
}

const upper = (t: Tier) => (t.upTo === 'inf' ? Number.POSITIVE_INFINITY : t.upTo);

/** Graduated: each tier prices the units that fall into it, plus its flat fee if it was touched. */
function graduated(tiers: readonly Tier[], q: number): PriceLine[] {
  const lines: PriceLine[] = [];
  let lower = 0;
  tiers.forEach((t, i) => {
    const units = Math.max(0, Math.min(q, upper(t)) - lower);
    lower = upper(t);
    if (units === 0) return;
    if (t.unitAmount !== null) lines.push(line(units, t.unitAmount, i));
    if (t.flatAmount) lines.push(line(1, t.flatAmount, i, true));
  });
  return lines;
}

/** The tier a volume quantity falls into: previous `upTo` < q <= `upTo`. */
export function tierIndexOf(tiers: readonly Tier[], q: number): number {
  const i = tiers.findIndex((t) => q <= upper(t));
  if (i < 0) throw new RangeError('quantity beyond the last tier (the last upTo must be inf)');
  return i;
}

/** Volume: the whole quantity at the single tier it falls into, plus that tier's flat fee. */
function volume(tiers: readonly Tier[], q: number): PriceLine[] {
  if (q === 0) return [];
  const i = tierIndexOf(tiers, q);
  const t = tiers[i];
  const lines: PriceLine[] = [];
  if (t.unitAmount !== null) lines.push(line(q, t.unitAmount, i));
  if (t.flatAmount) lines.push(line(1, t.flatAmount, i, true));
  return lines;
}

/**
 * The price of `quantity` units for one period. Flat and usage: `quantity x unitAmount` (for
 * usage, pass the aggregate: `priceUsage`). Quantity 0 prices to 0 in every model.
 */
export function priceQuantity(price: PriceTerms, quantity: number): Priced {
  if (!Number.isSafeInteger(quantity) || quantity < 0) throw new RangeError('quantity must be an integer >= 0');
  switch (price.model) {
    case 'flat':
    case 'usage':
      if (price.unitAmount === null) throw new RangeError(`a ${price.model} price needs unitAmount`);
      return finish(quantity, quantity > 0 ? [line(quantity, price.unitAmount, null)] : []);
    case 'tiered':
      return finish(quantity, graduated(price.tiers ?? [], quantity));
    case 'volume':
      return finish(quantity, volume(price.tiers ?? [], quantity));
  }
}

export interface UsageRecord {
  quantity: number;
  timestamp: Date;
  /** Insertion order, the tie-break of `last` (a later record with the same timestamp wins). */
  seq?: number;
}

/**
 * spec "the period's aggregate (`sum`, `max` or `last`)" over the half-open period [start, end).
 * An empty period is 0 for all three (`last` is the last record in the period, not ever).
 */
export function aggregateUsage(
  records: readonly UsageRecord[],
  aggregate: UsageAggregate,
  period: { start: Date; end: Date },
): number {
  const inside = records.filter(
    (r) => r.timestamp.getTime() >= period.start.getTime() && r.timestamp.getTime() < period.end.getTime(),
  );
  if (inside.length === 0) return 0;
  switch (aggregate) {
    case 'sum':
      return safe(
        inside.reduce((s, r) => s + r.quantity, 0),
        'the usage sum',
      );
    case 'max':
      return inside.reduce((m, r) => Math.max(m, r.quantity), 0);
    case 'last': {
      const order = (r: UsageRecord, i: number) => [r.timestamp.getTime(), r.seq ?? i] as const;
      let best = 0;
      inside.forEach((r, i) => {
        const [t, s] = order(r, i);
        const [bt, bs] = order(inside[best], best);
        if (t > bt || (t === bt && s >= bs)) best = i;
      });
      return inside[best].quantity;
    }
  }
}

/** spec "usage = metered, the period's aggregate multiplied by `unitAmount` at renewal". */
export function priceUsage(
  price: PriceTerms,
  records: readonly UsageRecord[],
  aggregate: UsageAggregate,
  period: { start: Date; end: Date },
): Priced {
  return priceQuantity(price, aggregateUsage(records, aggregate, period));
}

/** A tax rate as an exact fraction: parts per 100,000 (templates store 5 decimals, 0.11 = 11,000). */
export const RATE_SCALE = 100_000n;
export function rateParts(rate: number | string): bigint {
  const s = typeof rate === 'number' ? rate.toFixed(5) : rate;
  const m = /^(\d+)(?:\.(\d{1,5}))?$/.exec(s.trim());
  if (!m) throw new RangeError('tax rate must be a non-negative decimal with at most 5 decimals');
  return BigInt(m[1]) * RATE_SCALE + BigInt((m[2] ?? '').padEnd(5, '0'));
}

/** The one rounding rule: num / den rounded half-up, for num >= 0 and den > 0. */
export function divHalfUp(num: bigint, den: bigint): bigint {
  return (2n * num + den) / (2n * den);
}

export interface Totals {
  subtotal: number;
  discount: number;
  /** Tax added to the invoice (exclusive prices); 0 for inclusive prices. */
  tax: number;
  /** Tax already inside an inclusive total (recorded, not added); 0 for exclusive prices. */
  taxIncluded: number;
  /** spec Invoice: `max(0, subtotal - discount + tax)`. */
  total: number;
}

/**
 * Tax composition (docs/decisions.md, Tax modes): exclusive adds `round(base x rate)` with
 * base = max(0, subtotal - discount); inclusive adds nothing and records the part already inside,
 * `round(base x rate / (1 + rate))`. Rounded once per invoice, half-up.
 */
export function computeTotals(input: {
  subtotal: number;
  discount?: number;
  taxMode: TaxMode;
  rate: number | string;
}): Totals {
  const discount = input.discount ?? 0;
  for (const [k, v] of [
    ['subtotal', input.subtotal],
    ['discount', discount],
  ] as const) {
    if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`${k} must be an integer >= 0`);
  }
  const r = rateParts(input.rate);
  const base = BigInt(Math.max(0, input.subtotal - discount));
  const tax = input.taxMode === 'exclusive' ? divHalfUp(base * r, RATE_SCALE) : 0n;
  const taxIncluded = input.taxMode === 'inclusive' ? divHalfUp(base * r, RATE_SCALE + r) : 0n;
  const total = Math.max(0, input.subtotal - discount + Number(tax));
  return {
    subtotal: input.subtotal,
    discount,
    tax: safe(Number(tax), 'the tax'),
    taxIncluded: Number(taxIncluded),
    total: safe(total, 'the total'),
  };
}

/**
 * What one period of `quantity` units of `price` bills at most, in BigInt: the price (its lines and
 * their sum) plus, for an exclusive price, its tax at `rate` (no discount: one may end). Null when
 * that is not an amount (past 2^53 - 1 minor units): such a period could never be invoiced, so a
 * subscription to it is refused when it is created or changed (docs/billing.md, Plans and prices).
 */
export function periodTotal(
  price: PriceTerms & { taxMode: TaxMode },
  quantity: number,
  rate: number | string,
): number | null {
  let amount: bigint;
  try {
    amount = BigInt(priceQuantity(price, quantity).amount);
  } catch (e) {
    if (e instanceof AmountOverflow) return null;
    throw e;
  }
  const total = price.taxMode === 'exclusive' ? amount + divHalfUp(amount * rateParts(rate), RATE_SCALE) : amount;
  return total > MAX_AMOUNT ? null : Number(total);
}
