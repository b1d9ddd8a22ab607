// The exception table (docs/reconciliation.md, Exceptions) as data: each category's amounts, which actions it
// allows, what a link may name, and which accounts a write-off may post to.
import type { ExceptionCategory } from './categories.ts';
import { toBig, type Minor } from './rounding.ts';

export interface ExceptionAmounts {
  expectedAmount: bigint | null;
  actualAmount: bigint | null;
  /** Signed, their side minus ours. */
  difference: bigint | null;
}

/** What each category's amounts are computed from (the row's, the object's or the batch's figures). */
export type AmountsInput =
  | { category: 'missing_in_ledger' | 'duplicate'; rowAmount: Minor; rowNet: Minor }
  | { category: 'missing_at_provider' | 'late_settlement'; expected: Minor }
  | { category: 'amount_mismatch' | 'fee_mismatch' | 'currency_mismatch'; expected: Minor; actual: Minor }
  | { category: 'unknown_bank_credit'; credit: Minor };

/**
 * expected / actual / difference of each category: a row without an object is all theirs (difference = its
 * net); an object or batch nobody reported is all ours (difference = -expected); a mismatch is actual -
 * expected, except across currencies, where no difference exists (no conversion, ever).
 */
export function exceptionAmounts(x: AmountsInput): ExceptionAmounts {
  switch (x.category) {
    case 'missing_in_ledger':
    case 'duplicate':
      return { expectedAmount: null, actualAmount: toBig(x.rowAmount), difference: toBig(x.rowNet) };
    case 'missing_at_provider':
    case 'late_settlement':
      return { expectedAmount: toBig(x.expected), actualAmount: null, difference: -toBig(x.expected) };
    case 'amount_mismatch':
    case 'fee_mismatch':
      return {
        expectedAmount: toBig(x.expected),
        actualAmount: toBig(x.actual),
        difference: toBig(x.actual) - toBig(x.expected),
      };
    case 'currency_mismatch':
      return { expectedAmount: toBig(x.expected), actualAmount: toBig(x.actual), difference: null };
    case 'unknown_bank_credit':
      return { expectedAmount: null, actualAmount: toBig(x.credit), difference: toBig(x.credit) };
  }
}

export type ExceptionAction = 'accept' | 'write_off' | 'link';

/** A link's targets: ids with one of `prefixes`, between `min` and `max` of them. */
export interface LinkTargets {
  prefixes: readonly string[];
  min: number;
  max: number;
}

/** Per category: whether a write-off may post it, and the target sets a link may name (none: no link). */
export const exceptionActions: Record<ExceptionCategory, { writeOff: boolean; link: readonly LinkTargets[] }> = {
  missing_in_ledger: { writeOff: true, link: [{ prefixes: ['pay', 'rf', 'po'], min: 1, max: 1 }] },
  // The row must be in an open missing_in_ledger: a state the caller checks.
  missing_at_provider: { writeOff: true, link: [{ prefixes: ['rrow'], min: 1, max: 1 }] },
  amount_mismatch: { writeOff: true, link: [] },
  fee_mismatch: { writeOff: true, link: [] },
  currency_mismatch: { writeOff: false, link: [] },
  duplicate: { writeOff: true, link: [] },
  // Bank credit rows.
  late_settlement: { writeOff: true, link: [{ prefixes: ['rrow'], min: 1, max: 20 }] },
  unknown_bank_credit: {
    writeOff: false,
    link: [
      { prefixes: ['rbat'], min: 1, max: 20 },
      { prefixes: ['po'], min: 1, max: 1 },
    ],
  },
};

/** The actions a category allows: accept always; write-off and link per the table (else 409 `conflict`). */
export function allowedActions(category: ExceptionCategory): ExceptionAction[] {
  const a = exceptionActions[category];
  return ['accept', ...(a.writeOff ? (['write_off'] as const) : []), ...(a.link.length ? (['link'] as const) : [])];
}

export const canTake = (category: ExceptionCategory, action: ExceptionAction) =>
  allowedActions(category).includes(action);

/** A link request's limits whatever the category: 1-20 ids. */
export const linkIdsLimit = { min: 1, max: 20 } as const;

/**
 * Why a link's `targetIds` cannot be taken, before any is looked up: `count` (not 1-20 ids: 400), `category`
 * (the category has no link: 409), `kind` (an id of a kind, or a number of ids, the category's targets do not
 * allow: 422; several kinds at once included), or null. Whether each target exists and fits is the caller's.
 */
export function checkLinkTargetIds(category: ExceptionCategory, targetIds: readonly string[]) {
  if (targetIds.length < linkIdsLimit.min || targetIds.length > linkIdsLimit.max) return 'count' as const;
  const sets = exceptionActions[category].link;
  if (!sets.length) return 'category' as const;
  const prefixOf = (id: string) => /^([a-z]+)_[0-9A-Za-z]+$/.exec(id)?.[1];
  const fits = sets.some(
    (s) =>
      targetIds.length >= s.min &&
      targetIds.length <= s.max &&
      targetIds.every((id) => s.prefixes.includes(prefixOf(id) ?? '')) &&
      new Set(targetIds).size === targetIds.length,
  );
  return fits ? null : ('kind' as const);
}

const writeOffName = /^write_off:[a-z0-9_]{1,32}$/;

/**
 * Whether `account` may take a write-off of an exception of `adapter`: `write_off:<name>` (name
 * `[a-z0-9_]{1,32}`), `revenue:adjustments`, `refunds`, or `gateway:<the exception's adapter>` (none without
 * an adapter). Anything else is 400 `validation_error`, field `account`.
 */
export function isWriteOffAccount(account: string, adapter: string | null): boolean {
  if (writeOffName.test(account) || account === 'revenue:adjustments' || account === 'refunds') return true;
  return adapter !== null && account === `gateway:${adapter}`;
}
