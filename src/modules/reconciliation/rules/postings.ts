// The ledger legs of reconciliation (docs/reconciliation.md, Postings): row fees, bank matches and write-offs,
// each a balanced set of legs the engine posts under its txId.
import type { LedgerLeg } from '../../../core/ledger.ts';
import { gatewayAccount, settlementAccount, type ExceptionCategory } from './categories.ts';
import { absBig, toBig, type Minor } from './rounding.ts';

/** One account's side of a posting: exactly one of debit and credit is positive. */
export interface PostingLeg {
  account: string;
  debit: bigint;
  credit: bigint;
}

const debit = (account: string, amount: bigint): PostingLeg => ({ account, debit: amount, credit: 0n });
const credit = (account: string, amount: bigint): PostingLeg => ({ account, debit: 0n, credit: amount });

/** Legs of 0 dropped (a posting leg is never 0); throws unless debits equal credits. */
export function balanced(legs: readonly PostingLeg[]): PostingLeg[] {
  const kept = legs.filter((l) => l.debit !== 0n || l.credit !== 0n);
  let net = 0n;
  for (const l of kept) {
    if (l.debit < 0n || l.credit < 0n || (l.debit > 0n && l.credit > 0n))
      throw new RangeError(`leg of ${l.account} must be one positive side`);
    net += l.debit - l.credit;
  }
  if (net !== 0n) throw new RangeError(`legs do not balance (debits - credits = ${net})`);
  return kept;
}

/** The legs as src/core/ledger.ts posts them. */
export function toLedgerLegs(legs: readonly PostingLeg[]): LedgerLeg[] {
  return balanced(legs).map((l) =>
    l.debit > 0n
      ? { code: l.account, direction: 'debit', amount: l.debit }
      : { code: l.account, direction: 'credit', amount: l.credit },
  );
}

export interface FeeParts {
  fee: Minor;
  feeVat: Minor;
  withholdingTax: Minor;
}

/**
 * One run's fee posting of a batch's (or an adapter and currency's) rows: D `gateway:<adapter>` sum fee,
 * D `tax_credit:ppn` sum fee_vat, D `tax_credit:pph` sum withholding / C `settlement:<adapter>` their sum.
 * The caller passes what is still to post (a fee already posted at capture left out); nothing -> [].
 */
export function rowFeeLegs(adapter: string, rows: readonly FeeParts[]): PostingLeg[] {
  let fee = 0n;
  let vat = 0n;
  let pph = 0n;
  for (const r of rows) {
    fee += toBig(r.fee);
    vat += toBig(r.feeVat);
    pph += toBig(r.withholdingTax);
  }
  return balanced([
    debit(gatewayAccount(adapter), fee),
    debit('tax_credit:ppn', vat),
    debit('tax_credit:pph', pph),
    credit(settlementAccount(adapter), fee + vat + pph),
  ]);
}

/**
 * A bank match: D `payout` the credited amount, D `gateway:<adapter>` the transfer fee (expected - credited)
 * / C `settlement:<adapter>` the sum expected. A credit above what was expected is outside the band: refused.
 */
export function bankMatchLegs(adapter: string, expected: Minor, credited: Minor): PostingLeg[] {
  const fee = toBig(expected) - toBig(credited);
  if (fee < 0n) throw new RangeError('a bank match credits at most what was expected');
  return balanced([
    debit('payout', toBig(credited)),
    debit(gatewayAccount(adapter), fee),
    credit(settlementAccount(adapter), toBig(expected)),
  ]);
}

export interface WriteOffInput {
  category: ExceptionCategory;
  /** The exception's difference: their side minus ours. */
  difference: Minor;
  /** Checked by `isWriteOffAccount` first. */
  account: string;
  adapter: string;
  /** fee_mismatch: which component the difference is of. */
  component?: 'fee' | 'fee_vat';
  /** amount_mismatch of a batch: what was expected and what its credits brought (difference = credited - expected). */
  batch?: { expected: Minor; credited: Minor };
}

/**
 * The legs of a write-off of difference d against `account` (docs/reconciliation.md, Exceptions). Our
 * `settlement:<adapter>` is moved by d to what the provider says it holds: d > 0 D settlement / C account,
 * d < 0 D account / C settlement, for missing_in_ledger, duplicate and an object's amount_mismatch, and
 * likewise for missing_at_provider and late_settlement (d = -expected: a missing payment or batch is D
 * account / C settlement, a missing refund the reverse). A fee_mismatch reclassifies the fee posted as
 * reported: d > 0 D account / C `gateway:<adapter>` (`tax_credit:ppn` for fee_vat), d < 0 the reverse. A
 * batch's amount_mismatch books its transfer with |d| on the account instead of a transfer fee. d = 0 -> [].
 * currency_mismatch and unknown_bank_credit are never written off (throws).
 */
export function writeOffLegs(w: WriteOffInput): PostingLeg[] {
  const d = toBig(w.difference);
  const size = absBig(d);
  const settlement = settlementAccount(w.adapter);
  switch (w.category) {
    case 'currency_mismatch':
    case 'unknown_bank_credit':
      throw new RangeError(`${w.category} is never written off`);
    case 'fee_mismatch': {
      const expense = w.component === 'fee_vat' ? 'tax_credit:ppn' : gatewayAccount(w.adapter);
      return balanced(
        d > 0n ? [debit(w.account, size), credit(expense, size)] : [debit(expense, size), credit(w.account, size)],
      );
    }
    case 'amount_mismatch':
      if (w.batch) return batchWriteOffLegs(w.adapter, w.account, w.batch, d);
  }
  return balanced(
    d > 0n ? [debit(settlement, size), credit(w.account, size)] : [debit(w.account, size), credit(settlement, size)],
  );
}

/** A batch matched outside its band: D payout credited, the difference on the account / C settlement expected. */
function batchWriteOffLegs(adapter: string, account: string, b: { expected: Minor; credited: Minor }, d: bigint) {
  const expected = toBig(b.expected);
  const credited = toBig(b.credited);
  if (credited - expected !== d) throw new RangeError('a batch difference is credited - expected');
  return balanced([
    debit('payout', credited),
    d < 0n ? debit(account, -d) : credit(account, d),
    credit(settlementAccount(adapter), expected),
  ]);
}

/** A payout's bank fee (its credit fell short inside the band): D `gateway:bank` / C `payout`. */
export function payoutBankFeeLegs(fee: Minor): PostingLeg[] {
  const f = toBig(fee);
  if (f < 0n) throw new RangeError('a bank fee is never negative');
  return balanced([debit('gateway:bank', f), credit('payout', f)]);
}
