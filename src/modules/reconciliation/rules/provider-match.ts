// The decision over one provider row (docs/reconciliation.md, Matching rules): given the objects each lookup
// found, which object the row claims and with which rule, or which exception it raises. Pure: the engine runs
// the lookups `lookupPlan` names and passes what they found.
import type { ProviderRowType } from '../formats/types.ts';
import { calendarDate, daysBetween } from './calendar.ts';
import type { ExceptionCategory, MatchRule, MissingReason, ObjectKind } from './categories.ts';
import { exceptionAmounts, type ExceptionAmounts } from './exceptions.ts';
import { checkRowFees, type FeeRule } from './fees.ts';
import { claimedKind } from './references.ts';
import { absBig, toBig } from './rounding.ts';
import { toleranceFor, type ToleranceMap } from './tolerances.ts';

export interface ProviderRow {
  id: string;
  type: ProviderRowType;
  /** The import's adapter. */
  adapter: string;
  currency: string;
  /** Signed, as the report gives it. */
  amount: number;
  fee: number;
  feeVat: number;
  net: number;
  reference: string | null;
  providerReference: string | null;
  occurredAt: Date;
  settlementId: string | null;
  /** An earlier row with this row's transaction_id and other content: this one restates it. */
  restatedOf?: string | null;
}

/** A payment, refund or payout as a lookup found it. */
export interface LedgerObject {
  kind: ObjectKind;
  id: string;
  adapter: string;
  currency: string;
  /** As stored (> 0); signed by kind: payments +, refunds and payouts -. */
  amount: number;
  /** Captured per its machine (payment succeeded or (partially) refunded, refund succeeded, payout in transit or paid). */
  captured: boolean;
  capturedAt: Date | null;
  /** The earlier row of the same kind that already claims it, or null. */
  claimedBy: string | null;
  /** A payment's checkout method. */
  method: string | null;
  /** `payment.fee` posted at capture, or null. */
  capturedFee: number | null;
}

export interface MatchSettings {
  dateToleranceDays: number;
  amountTolerance: ToleranceMap | null;
  feeTolerance: ToleranceMap | null;
  feeRules: readonly FeeRule[];
  /** The workspace's IANA zone: the amount+date window is in its calendar days. */
  timeZone: string;
}

export type LookupRule = 'provider_reference' | 'reference' | 'amount_date';
/**
 * What each lookup found. `reference`: the objects `parseReference` names (an invoice: its payments; a session:
 * its payment), and for a payout row also the payout whose own `reference` equals the row's.
 */
export type Lookups = Partial<Record<LookupRule, readonly LedgerObject[]>>;

export interface ObjectRef {
  type: ObjectKind;
  id: string;
}

export interface ExceptionDraft extends ExceptionAmounts {
  category: ExceptionCategory;
  object: ObjectRef | null;
  details: Record<string, unknown>;
}

export type ProviderDecision =
  /** `difference` (row amount - object signed amount, within amountTolerance) goes to `write_off:tolerance`. */
  | { decision: 'match'; rule: MatchRule; object: ObjectRef | null; difference: bigint }
  | { decision: 'raise'; exception: ExceptionDraft };

/**
 * The lookups to run for a row, in order: by provider reference, then by reference, each when the row has
 * one; amount+date only for a row with neither (a reference is a claim: one that resolves to nothing is
 * never replaced by an amount). Fee and adjustment rows look nothing up.
 */
export function lookupPlan(row: Pick<ProviderRow, 'type' | 'reference' | 'providerReference'>): LookupRule[] {
  if (!claimedKind(row.type)) return [];
  const plan: LookupRule[] = [];
  if (row.providerReference) plan.push('provider_reference');
  if (row.reference) plan.push('reference');
  return plan.length ? plan : ['amount_date'];
}

/** An object's amount as the provider's balance sees it. */
export const signedAmount = (o: Pick<LedgerObject, 'kind' | 'amount'>) => (o.kind === 'payment' ? o.amount : -o.amount);

type Resolved = { rule: LookupRule; object: LedgerObject } | { reason: MissingReason; candidates: string[] };

/** The decision for one row (docs/reconciliation.md, Matching rules, the order of the checks). */
export function decideProviderRow(row: ProviderRow, found: Lookups, s: MatchSettings): ProviderDecision {
  if (row.restatedOf) return raise(row, 'duplicate', null, { duplicateOf: row.restatedOf, reason: 'restated' });
  if (row.type === 'fee') return { decision: 'match', rule: 'standalone_fee', object: null, difference: 0n };
  const kind = claimedKind(row.type);
  if (!kind) return missing(row, 'adjustment', []);
  const hit = resolve(row, kind, found, s);
  if ('object' in hit) return checkClaim(row, hit.rule, hit.object, s);
  // A payout row no payout explains is its batch's transfer record (its fees are posted, its amount is not).
  if (kind === 'payout' && row.settlementId)
    return { decision: 'match', rule: 'batch_transfer', object: null, difference: 0n };
  return missing(row, hit.reason, hit.candidates);
}

/**
 * The object a row claims: the first lookup that finds an object of the row's kind wins (objects of another
 * kind fall through, reported `wrong_kind` when nothing later hits). Several of the row's kind (an invoice's
 * payments): the one captured through the row's adapter, `ambiguous` when several are.
 */
function resolve(row: ProviderRow, kind: ObjectKind, found: Lookups, s: MatchSettings): Resolved {
  let reason: MissingReason = 'unknown_reference';
  for (const rule of lookupPlan(row)) {
    if (rule === 'amount_date') {
      const c = amountDateCandidates(row, kind, found.amount_date ?? [], s);
      if (c.length === 1) return { rule, object: c[0] };
      return { reason: c.length ? 'ambiguous' : 'no_reference', candidates: c.map((o) => o.id) };
    }
    const objects = found[rule] ?? [];
    const own = objects.filter((o) => o.kind === kind);
    if (!own.length) {
      if (objects.length) reason = 'wrong_kind';
      continue;
    }
    if (own.length === 1) return { rule, object: own[0] };
    const usable = own.filter((o) => o.captured && o.adapter === row.adapter);
    if (usable.length === 1) return { rule, object: usable[0] };
    if (usable.length > 1) return { reason: 'ambiguous', candidates: usable.map((o) => o.id) };
    return { rule, object: own[0] }; // none can be claimed: the checks say why
  }
  return { reason, candidates: [] };
}

/**
 * The amount+date rule's candidates among `objects`: unclaimed, captured objects of the row's kind, adapter,
 * currency and signed amount, captured within dateToleranceDays calendar days (workspace zone) of occurred_at.
 */
export function amountDateCandidates(
  row: Pick<ProviderRow, 'adapter' | 'currency' | 'amount' | 'occurredAt'>,
  kind: ObjectKind,
  objects: readonly LedgerObject[],
  s: Pick<MatchSettings, 'dateToleranceDays' | 'timeZone'>,
): LedgerObject[] {
  const day = calendarDate(row.occurredAt, s.timeZone);
  return objects.filter(
    (o) =>
      o.kind === kind &&
      o.adapter === row.adapter &&
      o.currency === row.currency &&
      signedAmount(o) === row.amount &&
      o.captured &&
      o.claimedBy === null &&
      o.capturedAt !== null &&
      Math.abs(daysBetween(day, calendarDate(o.capturedAt, s.timeZone))) <= s.dateToleranceDays,
  );
}

/** The checks of a resolved object, in order: adapter, captured, duplicate, currency, amount, fees. */
function checkClaim(row: ProviderRow, rule: LookupRule, o: LedgerObject, s: MatchSettings): ProviderDecision {
  if (o.adapter !== row.adapter) return missing(row, 'adapter_mismatch', [o.id]);
  if (!o.captured) return missing(row, 'not_captured', [o.id]);
  const ref: ObjectRef = { type: o.kind, id: o.id };
  if (o.claimedBy) return raise(row, 'duplicate', ref, { duplicateOf: o.claimedBy, reason: 'same_object' });
  const expected = signedAmount(o);
  if (o.currency !== row.currency)
    return raise(
      row,
      'currency_mismatch',
      ref,
      { expectedCurrency: o.currency, actualCurrency: row.currency },
      expected,
    );
  const difference = toBig(row.amount) - toBig(expected);
  const tolerance = toleranceFor(s.amountTolerance, row.currency);
  if (absBig(difference) > tolerance)
    return raise(row, 'amount_mismatch', ref, { tolerance: Number(tolerance) }, expected);
  const fee = checkRowFees(
    { ...row, method: o.method },
    { payment: o.kind === 'payment', capturedFee: o.capturedFee, feeRules: s.feeRules, feeTolerance: s.feeTolerance },
  );
  if (fee)
    return {
      decision: 'raise',
      exception: {
        category: 'fee_mismatch',
        object: ref,
        ...exceptionAmounts({ category: 'fee_mismatch', expected: fee.expected, actual: fee.actual }),
        details: fee.details,
      },
    };
  return { decision: 'match', rule, object: ref, difference };
}

function missing(row: ProviderRow, reason: MissingReason, candidates: string[]): ProviderDecision {
  return raise(row, 'missing_in_ledger', null, { reason, candidates });
}

/** An exception of the row; `expected` (the object's signed amount) for the categories that compare amounts. */
function raise(
  row: ProviderRow,
  category: 'missing_in_ledger' | 'duplicate' | 'currency_mismatch' | 'amount_mismatch',
  object: ObjectRef | null,
  details: Record<string, unknown>,
  expected = 0,
): ProviderDecision {
  const amounts =
    category === 'missing_in_ledger' || category === 'duplicate'
      ? exceptionAmounts({ category, rowAmount: row.amount, rowNet: row.net })
      : exceptionAmounts({ category, expected, actual: row.amount });
  return { decision: 'raise', exception: { category, object, ...amounts, details } };
}
