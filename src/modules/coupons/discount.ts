/**
 * Discount maths (docs/coupons.md, Computation): pure, integer, property-tested. The base is the
 * sum of the eligible lines floored at 0; a percent takes `round(base x percentOff / 100)` half-up
 * (percentOff kept as hundredths), an amount `min(amountOff[currency], base)`. A discount is never
 * above its base and never negative.
 */
import { divHalfUp } from '../plans/pricing.ts';
import { addMonths } from '../../core/periods.ts';

export interface DiscountTerms {
  percentOffHundredths: number | null;
  amountOff: Record<string, number> | null;
}

export interface DurationTerms {
  duration: 'once' | 'repeating' | 'forever';
  durationInMonths: number | null;
}

/** A coupon in a currency it has no `amountOff` for cannot discount that invoice (400 on `couponId`). */
export const coversCurrency = (t: DiscountTerms, currency: string) =>
  t.percentOffHundredths !== null || (t.amountOff !== null && Number.isSafeInteger(t.amountOff[currency]));

/** The lines a coupon discounts: all, or those whose price belongs to `appliesTo.planIds`; floored at 0. */
export function eligibleBase(
  lines: readonly { amount: number; planId: string | null }[],
  appliesTo: { planIds: readonly string[] } | null,
): number {
  const plans = appliesTo ? new Set(appliesTo.planIds) : null;
  const sum = lines.reduce(
    (s, l) => (plans === null || (l.planId !== null && plans.has(l.planId)) ? s + l.amount : s),
    0,
  );
  return Math.max(0, sum);
}

/** The discount of `base` (an integer >= 0) in `currency`; throws when the coupon does not cover it. */
export function discountAmount(t: DiscountTerms, base: number, currency: string): number {
  if (!Number.isSafeInteger(base) || base < 0) throw new RangeError('base must be an integer >= 0');
  if (!coversCurrency(t, currency)) throw new RangeError(`the coupon has no amount in ${currency}`);
  if (t.percentOffHundredths !== null) return Number(divHalfUp(BigInt(base) * BigInt(t.percentOffHundredths), 10_000n));
  return Math.min(t.amountOff![currency]!, base);
}

/**
 * A discount's `end` from its `start` (the application time, business time): `repeating` ends N
 * calendar months later (month-end clamp of docs/billing.md); `once` ends when its first invoice
 * is finalized and `forever` never, so both are null here.
 */
export const discountEnd = (t: DurationTerms, start: Date): Date | null =>
  t.duration === 'repeating' ? addMonths(start, t.durationInMonths!) : null;

/** Whether a discount applies to an invoice finalized at `at`: within `[start, end)` when it has an end. */
export const discountAppliesAt = (d: { start: Date; end: Date | null }, at: Date) =>
  at.getTime() >= d.start.getTime() && (d.end === null || at.getTime() < d.end.getTime());
