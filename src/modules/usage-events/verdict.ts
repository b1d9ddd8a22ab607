/**
 * The checks after dedupe, in memory (docs/guides/usage-events.md, Answers): customer, timestamp
 * window on the customer's clock, a meter for the eventName, each matched meter's value. The period
 * check needs billing and is a seam here (`checkPeriodsOpen`).
 */
import type { MeterMatch } from '../meters/cache.ts';
import type { CheckedEvent } from './parse.ts';

const DAY_MS = 86_400_000;
export const windowMs = { before: 35 * DAY_MS, after: 5 * 60_000 } as const;
const numericAggregations = new Set(['sum', 'min', 'max', 'average', 'latest', 'time_weighted_sum']);
const decimalString = /^-?\d{1,15}(\.\d{1,12})?$/;

/** A resolved customer: its id, externalId and the time of its test clock (null: real time). */
export interface CustomerRef {
  id: string;
  externalId: string | null;
  clockMs: number | null;
}

export type Verdict =
  | { ok: true; customerId: string; timestampMs: number; meterIds: string[] }
  | { ok: false; code: string; field: string; message: string };

/** A numeric property: a JSON number within 15 significant digits and 12 decimals, or a decimal string. */
export function isDecimal(v: unknown): boolean {
  if (typeof v === 'string') return decimalString.test(v);
  if (typeof v !== 'number' || !Number.isFinite(v) || Math.abs(v) >= 1e15) return false;
  const [mantissa, exp = '0'] = v.toExponential().split('e');
  const digits = mantissa.replace('-', '').replace('.', '').replace(/0+$/, '');
  const decimals = Math.max(0, digits.length - 1 - Number(exp));
  return digits.length <= 15 && decimals <= 12;
}

/** The string form of a property for filters and groups: strings as is, booleans, canonical decimals. */
export function stringForm(v: string | number | boolean): string {
  if (typeof v !== 'number') return String(v);
  if (Object.is(v, -0) || v === 0) return '0';
  const s = Number.isInteger(v) ? v.toFixed(0) : v.toFixed(12).replace(/0+$/, '').replace(/\.$/, '');
  return s === '-0' ? '0' : s;
}

function matches(m: MeterMatch, props: CheckedEvent['properties']): boolean {
  for (const [k, allowed] of Object.entries(m.filters)) {
    const v = props[k];
    if (v === undefined || !allowed.includes(stringForm(v))) return false;
  }
  return true;
}

const refuse = (code: string, field: string, message: string): Verdict => ({ ok: false, code, field, message });

/** Checks (3)-(6) of one event whose id is claimed. */
export function judge(
  e: CheckedEvent,
  customer: CustomerRef | undefined,
  meters: Map<string, MeterMatch[]>,
  receivedMs: number,
): Verdict {
  if (!customer) {
    const field = e.customerId !== null ? 'customerId' : 'externalCustomerId';
    const what =
      e.customerId !== null ? `no customer ${e.customerId}` : `no customer has externalId "${e.externalCustomerId}"`;
    return refuse('customer_not_found', field, what);
  }
  const now = customer.clockMs ?? receivedMs;
  const at = e.timestampMs ?? now;
  if (at < now - windowMs.before || at > now + windowMs.after)
    return refuse(
      'timestamp_out_of_window',
      'timestamp',
      'timestamp must lie between now - 35 days and now + 5 minutes',
    );
  const candidates = meters.get(e.eventName);
  if (!candidates?.length)
    return refuse('unknown_event_name', 'eventName', `no active meter has eventName ${e.eventName}`);
  const meterIds: string[] = [];
  for (const m of candidates) {
    if (!matches(m, e.properties)) continue;
    if (m.valueProperty !== null) {
      const v = e.properties[m.valueProperty];
      const fine = numericAggregations.has(m.aggregation) ? isDecimal(v) : v !== undefined;
      if (!fine)
        return refuse(
          'validation_error',
          `properties.${m.valueProperty}`,
          `meter ${m.id} (${m.aggregation}) needs ${numericAggregations.has(m.aggregation) ? 'a numeric' : 'a'} ${m.valueProperty}`,
        );
    }
    meterIds.push(m.id);
  }
  return { ok: true, customerId: customer.id, timestampMs: at, meterIds };
}

/**
 * Check (7), `period_closed`: an event in a period whose invoice is past draft, of a subscription
 * that bills a meter it matched. Needs the billing periods (docs/usage.md, Not built yet): until
 * then every period is open and this returns no refusal.
 */
export function checkPeriodsOpen(_accepted: readonly { index: number; customerId: string }[]): Map<number, Verdict> {
  return new Map();
}
