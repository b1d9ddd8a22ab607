import { DomainError, errorsFor } from '../../core/errors.ts';
import { isId } from '../../core/ids.ts';
import { checkCurrency, checkLength, oneOf, validateMetadata } from '../../core/validation.ts';
import { capabilities } from '../adapters/capabilities.ts';
import type { CreateCouponInput, UpdateCouponInput } from './schema.ts';

const err = errorsFor('coupon');
export const durations = ['once', 'repeating', 'forever'] as const;
/** docs/coupons.md: a repeating coupon lasts 1-36 months; at most 100 plans in appliesTo. */
export const couponLimits = { maxMonths: 36, maxPlans: 100 } as const;
/** spec Plan and price "unsupported currency": a currency no adapter can take (as plans). */
const servedCurrencies = new Set(capabilities.map((c) => c.currency));

const absent = (v: unknown) => v === undefined || v === null;

export interface CouponData {
  name: string;
  percentOffHundredths: number | null;
  amountOff: Record<string, number> | null;
  duration: (typeof durations)[number];
  durationInMonths: number | null;
  maxRedemptions: number | null;
  redeemBy: Date | null;
  appliesTo: { planIds: string[] } | null;
  metadata: Record<string, string> | null;
}

/** 0 < x <= 100 with at most two decimals, kept as hundredths (an integer). */
function percentOf(v: number): number {
  const hundredths = Math.round(v * 100);
  if (!Number.isFinite(v) || v <= 0 || v > 100 || Math.abs(hundredths - v * 100) > 1e-6)
    throw err.validation('percentOff', 'percentOff must be over 0 and at most 100, with at most 2 decimals');
  return hundredths;
}

function amountOffOf(v: unknown): Record<string, number> {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || Object.keys(v).length === 0)
    throw err.validation('amountOff', 'amountOff must be an object of currency to integer amount');
  const out: Record<string, number> = {};
  for (const [currency, amount] of Object.entries(v)) {
    const field = `amountOff.${currency}`;
    checkCurrency(currency, field, 'coupon');
    if (!servedCurrencies.has(currency))
      throw new DomainError('unsupported_currency', `${currency} is not a supported currency`, {
        field,
        resource: 'coupon',
      });
    if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0)
      throw err.validation(field, `${field} must be an integer over 0 (minor units)`);
    out[currency] = amount;
  }
  return out;
}

function intAtLeast(v: number, field: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  if (!Number.isSafeInteger(v) || v < min || v > max) throw err.validation(field, `${field} must be ${min}-${max}`);
  return v;
}

export function validateCreate(input: CreateCouponInput): CouponData {
  if (absent(input.name)) throw err.validation('name', 'name is required');
  const name = checkLength(input.name!, 'name', 1, 255, 'coupon');
  const hasPercent = !absent(input.percentOff);
  const hasAmount = !absent(input.amountOff);
  if (hasPercent === hasAmount)
    throw err.validation(hasPercent ? 'amountOff' : 'percentOff', 'exactly one of percentOff and amountOff');
  if (absent(input.duration)) throw err.validation('duration', 'duration is required');
  const duration = oneOf(input.duration!, durations, 'duration', 'coupon');
  let durationInMonths: number | null = null;
  if (duration === 'repeating') {
    if (absent(input.durationInMonths)) throw err.validation('durationInMonths', 'durationInMonths is required');
    durationInMonths = intAtLeast(input.durationInMonths!, 'durationInMonths', 1, couponLimits.maxMonths);
  } else if (!absent(input.durationInMonths))
    throw err.validation('durationInMonths', 'durationInMonths is only for duration repeating');
  let appliesTo: CouponData['appliesTo'] = null;
  if (!absent(input.appliesTo)) {
    const ids = input.appliesTo!.planIds ?? [];
    if (ids.length === 0 || ids.length > couponLimits.maxPlans)
      throw err.validation('appliesTo.planIds', `appliesTo.planIds must name 1-${couponLimits.maxPlans} plans`);
    ids.forEach((id, i) => {
      if (!isId('plan', id)) throw err.validation(`appliesTo.planIds[${i}]`, `Not a plan id: ${id}`);
    });
    appliesTo = { planIds: [...new Set(ids)] };
  }
  return {
    name,
    percentOffHundredths: hasPercent ? percentOf(input.percentOff!) : null,
    amountOff: hasAmount ? amountOffOf(input.amountOff) : null,
    duration,
    durationInMonths,
    maxRedemptions: absent(input.maxRedemptions) ? null : intAtLeast(input.maxRedemptions!, 'maxRedemptions', 1),
    redeemBy: input.redeemBy ?? null,
    appliesTo,
    metadata: absent(input.metadata) ? null : validateMetadata(input.metadata, 'metadata', 'coupon'),
  };
}

/** Only `name` and `metadata` are mutable; the input has no other field (GraphQL refuses them: 400). */
export function validateUpdate(input: UpdateCouponInput) {
  const out: { name?: string; metadata?: Record<string, string> | null } = {};
  if (input.name !== undefined) {
    if (input.name === null) throw err.validation('name', 'name cannot be null');
    out.name = checkLength(input.name, 'name', 1, 255, 'coupon');
  }
  if (input.metadata !== undefined)
    out.metadata = input.metadata === null ? null : validateMetadata(input.metadata, 'metadata', 'coupon');
  return out;
}
