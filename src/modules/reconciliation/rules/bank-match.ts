// The decision over one bank credit (docs/reconciliation.md, Bank credits and batches): a payout it names, the
// batches whose settlement ids it names, else the unique set of batches its amount fits; else unknown.
import {
  allocateCredit,
  allocationOrder,
  findBatchSubset,
  fitsBand,
  withinCreditWindow,
  type Allocation,
} from './band.ts';
import { calendarDate, dayNumber, daysBetween } from './calendar.ts';
import { exceptionAmounts, type ExceptionAmounts } from './exceptions.ts';
import { toBig, type Minor } from './rounding.ts';

export interface BankCredit {
  currency: string;
  /** > 0. */
  amount: number;
  /** `YYYY-MM-DD`. */
  valueDate: string;
  reference: string | null;
  description: string;
}

/** One of our payouts as a lookup found it (unclaimed by another bank row, of the credit's currency). */
export interface PayoutCandidate {
  id: string;
  reference: string | null;
  currency: string;
  /** As stored (> 0). */
  amount: number;
}

/** An unmatched batch (open, or late with its late_settlement still open). */
export interface OpenBatch {
  id: string;
  adapter: string;
  currency: string;
  settlementId: string;
  expectedAt: Date;
  expectedBankAmount: Minor;
}

export interface BankSettings {
  dateToleranceDays: number;
  /** The band of the credit's currency (`toleranceFor(transferFeeTolerance, currency, defaultTransferFeeTolerance)`). */
  band: Minor;
  timeZone: string;
}

export interface BankException extends ExceptionAmounts {
  category: 'amount_mismatch' | 'unknown_bank_credit';
  /** amount_mismatch: the payout, or the batches in allocation order (the exception is opened on the last). */
  object: { type: 'payout' | 'settlement_batch'; ids: string[] } | null;
  details: Record<string, unknown>;
}

export type BankDecision =
  | { decision: 'match'; rule: 'payout_reference'; payoutId: string; bankFee: bigint }
  | { decision: 'match'; rule: 'bank_reference' | 'bank_amount'; allocations: Allocation[]; transferFee: bigint }
  | { decision: 'raise'; exception: BankException }
  /** Over 50 candidates for the amount pass: left for the next run or a person. */
  | { decision: 'wait' };

/**
 * The whole tokens of a bank line's reference and description, upper-cased: runs of letters, digits and
 * `_-./` (the characters of ids and settlement ids), so `S-1` is named by "XENDIT S-1," but not by "S-10".
 */
export function lineTokens(credit: Pick<BankCredit, 'reference' | 'description'>): Set<string> {
  const text = `${credit.reference ?? ''} ${credit.description}`.toUpperCase();
  return new Set((text.match(/[A-Z0-9_\-./]+/g) ?? []).map((t) => t.replace(/[.]+$/, '')));
}

/** Whether the line names `token` whole (case-insensitive: banks upper-case what they print). */
export const namesToken = (tokens: Set<string>, token: string) => tokens.has(token.toUpperCase());

/** The decision for one credit, passes in order: payout reference, batch tokens, amount. */
export function decideBankCredit(
  credit: BankCredit,
  payouts: readonly PayoutCandidate[],
  batches: readonly OpenBatch[],
  s: BankSettings,
): BankDecision {
  const tokens = lineTokens(credit);
  const named = payouts.filter(
    (p) =>
      p.currency === credit.currency &&
      (namesToken(tokens, p.id) || (p.reference !== null && namesToken(tokens, p.reference))),
  );
  if (named.length === 1) return decidePayout(credit, named[0], s);
  if (named.length > 1) return unknown(credit.amount); // several payouts named: a person links the right one
  const same = batches.filter((b) => b.currency === credit.currency);
  const byToken = same.filter((b) => namesToken(tokens, b.settlementId));
  if (byToken.length) return decideNamedBatches(credit.amount, byToken, s.band);
  const window = same.filter((b) =>
    withinCreditWindow(b.expectedAt, credit.valueDate, s.dateToleranceDays, s.timeZone),
  );
  const found = findBatchSubset(credit.amount, window, s.band);
  if (found.found === 'undecided') return { decision: 'wait' };
  if (found.found !== 'unique') return unknown(credit.amount);
  const chosen = window.filter((b) => found.batchIds.includes(b.id));
  return matchBatches('bank_amount', credit.amount, chosen);
}

/** A payout named by a credit: its bank fee (payout amount - credited) inside the band, else amount_mismatch. */
function decidePayout(credit: BankCredit, p: PayoutCandidate, s: BankSettings): BankDecision {
  if (fitsBand(p.amount, credit.amount, s.band))
    return {
      decision: 'match',
      rule: 'payout_reference',
      payoutId: p.id,
      bankFee: toBig(p.amount) - toBig(credit.amount),
    };
  return mismatch({ type: 'payout', ids: [p.id] }, p.amount, credit.amount, s.band);
}

/**
 * Batches a credit names (N:1 when several, all of one adapter). `credited` is the sum of every credit naming
 * the same batches (1:N: the engine sums them). Outside the band: amount_mismatch on the batches; batches of
 * several adapters are no settlement of one provider: unknown_bank_credit.
 */
export function decideNamedBatches(credited: Minor, named: readonly OpenBatch[], band: Minor): BankDecision {
  if (new Set(named.map((b) => b.adapter)).size > 1) return unknown(credited);
  const expected = named.reduce<bigint>((sum, b) => sum + toBig(b.expectedBankAmount), 0n);
  if (fitsBand(expected, credited, band)) return matchBatches('bank_reference', credited, named);
  return mismatch({ type: 'settlement_batch', ids: allocationOrder(named).map((b) => b.id) }, expected, credited, band);
}

function matchBatches(
  rule: 'bank_reference' | 'bank_amount',
  credited: Minor,
  batches: readonly OpenBatch[],
): BankDecision {
  const allocations = allocateCredit(credited, batches);
  const transferFee = allocations.reduce((sum, a) => sum + a.transferFee, 0n);
  return { decision: 'match', rule, allocations, transferFee };
}

function mismatch(object: BankException['object'], expected: Minor, actual: Minor, band: Minor): BankDecision {
  const amounts = exceptionAmounts({ category: 'amount_mismatch', expected, actual });
  return {
    decision: 'raise',
    exception: { category: 'amount_mismatch', object, ...amounts, details: { tolerance: Number(toBig(band)) } },
  };
}

/** A credit that matches nothing: the whole credit is the difference; `details` is empty. */
function unknown(credited: Minor): BankDecision {
  const amounts = exceptionAmounts({ category: 'unknown_bank_credit', credit: credited });
  return { decision: 'raise', exception: { category: 'unknown_bank_credit', object: null, ...amounts, details: {} } };
}

/**
 * Whether a batch still unmatched is late on `now`: `lateSettlementDays` calendar days (workspace zone) or more
 * after the date of its expectedAt.
 */
export function isLate(expectedAt: Date, now: Date, lateSettlementDays: number, timeZone: string): boolean {
  return daysBetween(calendarDate(expectedAt, timeZone), calendarDate(now, timeZone)) >= lateSettlementDays;
}

/** The date a batch became late (`details.lateSince`): the date of its expectedAt plus lateSettlementDays. */
export function lateSince(expectedAt: Date, lateSettlementDays: number, timeZone: string): string {
  const day = dayNumber(calendarDate(expectedAt, timeZone)) + lateSettlementDays;
  return new Date(day * 86_400_000).toISOString().slice(0, 10);
}
