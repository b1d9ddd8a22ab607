import { DomainError, errorsFor } from '../../core/errors.ts';
import { isId } from '../../core/ids.ts';
import { checkCurrency, checkLength, oneOf, validateMetadata } from '../../core/validation.ts';
import { capabilities } from '../adapters/capabilities.ts';
import {
  priceModels,
  priceQuantity,
  taxModes,
  tierIndexOf,
  usageAggregates,
  type PriceModel,
  type Tier,
} from './pricing.ts';
import type { CreatePlanInput, PriceInput, UpdatePlanInput } from './schema.ts';
import { validateMetered, type MeteredTerms } from './metered.ts';

const err = errorsFor('plan');

/** Bounds the spec leaves open (docs/decisions.md, Plans): Stripe's caps. */
export const limits = { maxPrices: 50, maxTiers: 20, maxTrialDays: 730 } as const;
const intervals = ['day', 'week', 'month', 'year'] as const;
/** A billing period is at most three years. */
const maxIntervalCount = { day: 1095, week: 156, month: 36, year: 3 } as const;
export const portalFeatureNames = [
  'selfServeCancel',
  'selfServePause',
  'selfServeUpgrade',
  'selfServeDowngrade',
  'updatePaymentMethod',
] as const;
export type PortalFeatures = Record<(typeof portalFeatureNames)[number], boolean>;

/** spec Plan and price: "400 `UNSUPPORTED_CURRENCY` (unknown or not enabled)": a currency no adapter can take. */
const servedCurrencies = new Set(capabilities.map((c) => c.currency));

export interface PriceData extends MeteredTerms {
  currency: string;
  model: PriceModel;
  unitAmount: number | null;
  tiers: Tier[] | null;
  taxMode: 'inclusive' | 'exclusive';
  active: boolean;
}

const absent = (v: unknown) => v === undefined || v === null;
const isAmount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

function required<T>(value: T | null | undefined, field: string): T {
  if (absent(value)) throw err.validation(field, `${field} is required`);
  return value as T;
}

/**
 * spec Price tiers (docs/decisions.md, Tier rules): 1-20 tiers; every `upTo` a positive integer,
 * strictly increasing, but the last, which must be `inf`; amounts integers >= 0, at least one given.
 */
function validateTiers(tiers: PriceInput['tiers'], path: string): Tier[] {
  const list = required(tiers, `${path}tiers`);
  if (list.length === 0 || list.length > limits.maxTiers)
    throw err.validation(`${path}tiers`, `${path}tiers must have 1-${limits.maxTiers} tiers`);
  let previous = 0;
  return list.map((t, i) => {
    const at = `${path}tiers[${i}]`;
    const last = i === list.length - 1;
    const upTo = t.upTo as unknown;
    if (last) {
      if (upTo !== 'inf') throw err.validation(`${at}.upTo`, `the last tier's upTo must be "inf"`);
    } else {
      if (upTo === 'inf') throw err.validation(`${at}.upTo`, `only the last tier's upTo may be "inf"`);
      if (typeof upTo !== 'number' || !Number.isSafeInteger(upTo) || upTo < 1)
        throw err.validation(`${at}.upTo`, `${at}.upTo must be a positive integer or "inf"`);
      if (upTo <= previous) throw err.validation(`${at}.upTo`, 'tiers must be strictly increasing in upTo');
      previous = upTo;
    }
    for (const k of ['unitAmount', 'flatAmount'] as const) {
      if (!absent(t[k]) && !isAmount(t[k])) throw err.validation(`${at}.${k}`, `${at}.${k} must be an integer >= 0`);
    }
    if (absent(t.unitAmount) && absent(t.flatAmount))
      throw err.validation(`${at}.unitAmount`, `${at} needs unitAmount or flatAmount`);
    return { upTo: upTo as Tier['upTo'], unitAmount: t.unitAmount ?? null, flatAmount: t.flatAmount ?? null };
  });
}

/**
 * Every quantity up to the last finite `upTo`, and the first unit of the `inf` tier, prices to an
 * amount (at most 2^53 - 1 minor units): otherwise a renewal could never bill it. The price grows
 * with the quantity within a tier, so the tier boundaries are the quantities to check.
 */
function checkTierAmounts(model: PriceModel, tiers: Tier[], path: string) {
  const bounds = tiers.filter((t) => t.upTo !== 'inf').map((t) => t.upTo as number);
  for (const q of [...bounds, (bounds.at(-1) ?? 0) + 1]) {
    try {
      priceQuantity({ model, unitAmount: null, tiers }, q);
    } catch (e) {
      if (!(e instanceof RangeError)) throw e;
      const i = tierIndexOf(tiers, q);
      throw err.validation(
        `${path}tiers[${i}].unitAmount`,
        `${path}tiers[${i}]: the price of ${q} units exceeds 2^53 - 1 minor units`,
      );
    }
  }
}

/** One price input (create's `prices[i]` with path `prices[i].`, add price with no path). */
export function validatePrice(input: PriceInput, path: string, usageAggregate: string | null): PriceData {
  const currency = checkCurrency(required(input.currency, `${path}currency`), `${path}currency`, 'plan');
  if (!servedCurrencies.has(currency))
    throw new DomainError('unsupported_currency', `${currency} is not a supported currency`, {
      field: `${path}currency`,
      resource: 'plan',
    });
  const model = oneOf(required(input.model, `${path}model`), priceModels, `${path}model`, 'plan');
  const taxMode = absent(input.taxMode) ? 'exclusive' : oneOf(input.taxMode!, taxModes, `${path}taxMode`, 'plan');
  const metered = validateMetered(input, path, model);
  let unitAmount: number | null = null;
  let tiers: Tier[] | null = null;
  if (model === 'flat' || model === 'usage') {
    unitAmount = required(input.unitAmount, `${path}unitAmount`);
    if (!isAmount(unitAmount)) throw err.validation(`${path}unitAmount`, 'unitAmount must be an integer >= 0');
    if (!absent(input.tiers)) throw err.validation(`${path}tiers`, `tiers are not allowed on a ${model} price`);
    // A metered usage price takes its aggregation from the meter (docs/usage.md, Metered prices).
    if (model === 'usage' && !usageAggregate && !metered.meterId)
      throw err.validation('usageAggregate', 'usageAggregate is required when a price has model usage');
  } else {
    if (!absent(input.unitAmount))
      throw err.validation(`${path}unitAmount`, `unitAmount is not allowed on a ${model} price: use tiers`);
    tiers = validateTiers(input.tiers, path);
    checkTierAmounts(model, tiers, path);
  }
  return { currency, model, unitAmount, tiers, taxMode, active: input.active ?? true, ...metered };
}

/** spec: at most one active price per currency, model and meter (a partial unique index too). */
export function checkOneActive(prices: readonly PriceData[], path = 'prices') {
  const seen = new Set<string>();
  prices.forEach((p, i) => {
    const k = `${p.currency}/${p.model}/${p.meterId ?? ''}`;
    if (!p.active) return;
    if (seen.has(k)) {
      const meter = p.meterId ? ` and meter (${p.meterId})` : '';
      throw err.validation(`${path}[${i}]`, `only one active ${p.model} price per currency (${p.currency})${meter}`);
    }
    seen.add(k);
  });
}

function portalFeatures(value: unknown): PortalFeatures {
  const v = required(value as Record<string, unknown> | null, 'portalFeatures');
  const out = {} as PortalFeatures;
  for (const name of portalFeatureNames) {
    if (typeof v[name] !== 'boolean')
      throw err.validation(`portalFeatures.${name}`, `portalFeatures.${name} is required (true or false)`);
    out[name] = v[name] as boolean;
  }
  return out;
}

function intOf(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw err.validation(field, `${field} must be an integer from ${min} to ${max}`);
  return value;
}

const dunningId = (v: string | null | undefined) => {
  if (v === null || v === undefined) return v;
  if (!isId('dunningPolicy', v)) throw err.validation('dunningPolicyId', 'dunningPolicyId must be a dp_ id or null');
  return v;
};

export function validateCreate(input: CreatePlanInput) {
  const name = checkLength(required(input.name, 'name'), 'name', 1, 255, 'plan');
  const description = absent(input.description)
    ? null
    : checkLength(input.description!, 'description', 0, 1024, 'plan');
  const interval = oneOf(required(input.interval, 'interval'), intervals, 'interval', 'plan');
  const intervalCount = absent(input.intervalCount)
    ? 1
    : intOf(input.intervalCount, 'intervalCount', 1, maxIntervalCount[interval]);
  const trialDays = absent(input.trialDays) ? 0 : intOf(input.trialDays, 'trialDays', 0, limits.maxTrialDays);
  const features = portalFeatures(input.portalFeatures);
  const usageAggregate = absent(input.usageAggregate)
    ? null
    : oneOf(input.usageAggregate!, usageAggregates, 'usageAggregate', 'plan');
  const meteredUnit = absent(input.meteredUnit) ? null : checkLength(input.meteredUnit!, 'meteredUnit', 0, 64, 'plan');
  const prices = required(input.prices, 'prices');
  if (prices.length === 0 || prices.length > limits.maxPrices)
    throw err.validation('prices', `prices must have 1-${limits.maxPrices} prices`);
  const priced = prices.map((p, i) => validatePrice(p, `prices[${i}].`, usageAggregate));
  checkOneActive(priced);
  return {
    name,
    description,
    interval,
    intervalCount,
    trialDays,
    portalFeatures: features,
    usageAggregate,
    meteredUnit,
    dunningPolicyId: dunningId(input.dunningPolicyId) ?? null,
    active: input.active ?? true,
    metadata: absent(input.metadata) ? null : validateMetadata(input.metadata, 'metadata', 'plan'),
    prices: priced,
  };
}

/** spec Plans update: only the mutable fields exist on the input; `undefined` is "not sent", null clears. */
export function validateUpdate(input: UpdatePlanInput) {
  const out: {
    name?: string;
    description?: string | null;
    trialDays?: number;
    portalFeatures?: PortalFeatures;
    dunningPolicyId?: string | null;
    active?: boolean;
    metadata?: Record<string, string> | null;
  } = {};
  if (input.name !== undefined) out.name = checkLength(required(input.name, 'name'), 'name', 1, 255, 'plan');
  if (input.description !== undefined)
    out.description =
      input.description === null ? null : checkLength(input.description, 'description', 0, 1024, 'plan');
  if (input.trialDays !== undefined) out.trialDays = intOf(input.trialDays, 'trialDays', 0, limits.maxTrialDays);
  if (input.portalFeatures !== undefined) out.portalFeatures = portalFeatures(input.portalFeatures);
  if (input.dunningPolicyId !== undefined) out.dunningPolicyId = dunningId(input.dunningPolicyId);
  if (input.active !== undefined) out.active = required(input.active, 'active');
  if (input.metadata !== undefined)
    out.metadata = input.metadata === null ? null : validateMetadata(input.metadata, 'metadata', 'plan');
  return out;
}
