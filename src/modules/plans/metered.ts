/**
 * Metered prices (docs/usage.md, Metered prices): a price that bills a meter's value for a period.
 * The format rules are pure; `checkMeters` reads the meters table (plans sit below the meters module,
 * so they read its rows, never its code).
 */
import type { Auth } from '../../core/auth/authenticate.ts';
import type { Tx } from '../../core/db/client.ts';
import { errorsFor } from '../../core/errors.ts';
import { isId } from '../../core/ids.ts';
import { oneOf } from '../../core/validation.ts';
import type { PriceModel } from './pricing.ts';

const err = errorsFor('plan');

export const quantityRoundings = ['half_up', 'up', 'down'] as const;
export type QuantityRounding = (typeof quantityRoundings)[number];
const meteredModels: readonly PriceModel[] = ['usage', 'tiered', 'volume'];
const MAX_DIVIDE_BY = 1_000_000_000;

export interface MeteredTerms {
  meterId: string | null;
  divideBy: number | null;
  quantityRounding: QuantityRounding | null;
}

interface MeteredInput {
  meterId?: string | null;
  divideBy?: number | null;
  quantityRounding?: string | null;
}

const absent = (v: unknown) => v === undefined || v === null;

/** The metered fields of one price input: all null on a price without `meterId` (sent ones refused). */
export function validateMetered(input: MeteredInput, path: string, model: PriceModel): MeteredTerms {
  if (absent(input.meterId)) {
    for (const k of ['divideBy', 'quantityRounding'] as const)
      if (!absent(input[k])) throw err.validation(`${path}${k}`, `${k} is allowed only on a price with meterId`);
    return { meterId: null, divideBy: null, quantityRounding: null };
  }
  const meterId = input.meterId as unknown;
  if (typeof meterId !== 'string' || !isId('meter', meterId))
    throw err.validation(`${path}meterId`, 'meterId must be an mtr_ meter id');
  if (!meteredModels.includes(model))
    throw err.validation(`${path}meterId`, `a ${model} price cannot bill a meter (usage, tiered or volume)`);
  const divideBy = absent(input.divideBy) ? 1 : (input.divideBy as number);
  if (!Number.isInteger(divideBy) || divideBy < 1 || divideBy > MAX_DIVIDE_BY)
    throw err.validation(`${path}divideBy`, `divideBy must be an integer from 1 to ${MAX_DIVIDE_BY}`);
  const quantityRounding = absent(input.quantityRounding)
    ? 'half_up'
    : oneOf(input.quantityRounding as string, quantityRoundings, `${path}quantityRounding`, 'plan');
  return { meterId, divideBy, quantityRounding };
}

/** Every `meterId` names an active meter of the caller's workspace and mode, else 400 at its path. */
export async function checkMeters(tx: Tx, auth: Auth, prices: readonly { meterId: string | null; path: string }[]) {
  const ids = [...new Set(prices.flatMap((p) => (p.meterId ? [p.meterId] : [])))];
  if (ids.length === 0) return;
  const found = await tx.meter.findMany({
    where: { workspaceId: auth.workspaceId, mode: auth.mode, id: { in: ids }, archivedAt: null },
    select: { id: true },
  });
  const active = new Set(found.map((m) => m.id));
  const missing = prices.find((p) => p.meterId && !active.has(p.meterId));
  if (missing) throw err.validation(`${missing.path}meterId`, `No such active meter: ${missing.meterId}`);
}

/** A price billed after its period (usage records or a meter) rather than in advance. */
export const billsInArrears = (price: { model: string; meterId?: string | null }) =>
  price.model === 'usage' || !!price.meterId;

/** A price that bills a meter. */
export const isMetered = (price: { meterId?: string | null }) => !!price.meterId;

const SCALE = 10n ** 12n;

/** A canonical or accepted decimal string (settled decimals: at most 12 fractional digits) as value x 10^12. */
export function scaledDecimal(value: string): bigint {
  const m = /^(-?)(\d+)(?:\.(\d{1,12}))?$/.exec(value);
  if (!m) throw new RangeError(`not a decimal: ${value}`);
  const units = BigInt(m[2]) * SCALE + BigInt((m[3] ?? '').padEnd(12, '0'));
  return m[1] ? -units : units;
}

/**
 * Billable quantity q = max(0, round(value / divideBy)) in exact decimal arithmetic: `half_up` is
 * half away from zero, `up` and `down` away from and towards zero.
 */
export function billableQuantity(value: string, divideBy: number, rounding: QuantityRounding): number {
  const num = scaledDecimal(value);
  if (num <= 0n) return 0;
  const den = BigInt(divideBy) * SCALE;
  const whole = num / den;
  const rest = num % den;
  let q = whole;
  if (rounding === 'up' && rest > 0n) q += 1n;
  if (rounding === 'half_up' && rest * 2n >= den) q += 1n;
  if (q > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError('the billable quantity exceeds 2^53 - 1');
  return Number(q);
}
