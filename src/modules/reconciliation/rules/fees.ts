// The fee expectations of provider rows (docs/reconciliation.md, Fees and VAT): the fee a payment's row
// should report, the PPN on that fee, and the checks that turn a difference into a `fee_mismatch`.
import { absBig, parsePercent, percentOfAmount, toBig, type Minor, type ScaledPercent } from './rounding.ts';
import { toleranceFor, type ToleranceMap } from './tolerances.ts';

export interface FeeRule {
  adapter: string;
  /** A checkout method, or null for every method of the adapter and currency. */
  method: string | null;
  currency: string;
  /** 0-100 with at most 4 decimals (read exactly by `parsePercent`). */
  percent: string | number;
  /** Minor units >= 0. */
  fixed: number;
}

export type FeeSource = 'payment_fee' | 'fee_rule';

export interface ExpectedFee {
  amount: bigint;
  source: FeeSource;
}

/** The object a row claims, as far as its fee is concerned. */
export interface FeeSubject {
  adapter: string;
  currency: string;
  /** The object's method (a payment's checkout method), or null. */
  method: string | null;
  /** The row's signed amount: the rule's percent applies to its absolute value. */
  amount: Minor;
  /** `payment.fee` posted at capture; null or 0 when none was posted (a posting is never 0). */
  capturedFee: Minor | null;
}

/** The most specific rule: adapter + currency + the object's method, else the rule of that adapter and currency with method null. */
export function findFeeRule(rules: readonly FeeRule[], s: Omit<FeeSubject, 'amount' | 'capturedFee'>): FeeRule | null {
  const same = rules.filter((r) => r.adapter === s.adapter && r.currency === s.currency);
  return (s.method !== null && same.find((r) => r.method === s.method)) || same.find((r) => r.method === null) || null;
}

/** round_half_up(|amount| x percent / 100) + fixed. */
export function ruleFee(amount: Minor, percent: ScaledPercent | string | number, fixed: Minor): bigint {
  const p = typeof percent === 'bigint' ? percent : parsePercent(percent);
  return percentOfAmount(absBig(amount), p) + toBig(fixed);
}

/**
 * The fee a row claiming this payment should report: the fee posted at capture if any, else the most
 * specific fee rule's; null when neither exists (no fee check).
 */
export function expectedFee(rules: readonly FeeRule[], s: FeeSubject): ExpectedFee | null {
  if (s.capturedFee !== null && toBig(s.capturedFee) > 0n)
    return { amount: toBig(s.capturedFee), source: 'payment_fee' };
  const rule = findFeeRule(rules, s);
  return rule ? { amount: ruleFee(s.amount, rule.percent, rule.fixed), source: 'fee_rule' } : null;
}

export interface FeeMismatch {
  expected: bigint;
  actual: bigint;
  /** Their side minus ours: reported - expected. */
  difference: bigint;
  details: { component: 'fee' | 'fee_vat'; source: FeeSource | 'vat_rule' };
}

/** The fee check: |reported - expected| > feeTolerance[currency] is a mismatch; no expectation, no check. */
export function checkFee(
  reported: Minor,
  expected: ExpectedFee | null,
  currency: string,
  feeTolerance: ToleranceMap | null,
): FeeMismatch | null {
  if (!expected) return null;
  const actual = toBig(reported);
  const difference = actual - expected.amount;
  if (absBig(difference) <= toleranceFor(feeTolerance, currency)) return null;
  return { expected: expected.amount, actual, difference, details: { component: 'fee', source: expected.source } };
}

/** 00:00 of 2022-04-01 in Jakarta (UTC+7): PPN is 11 % from that day, 10 % before. */
export const ppn11From = new Date('2022-03-31T17:00:00.000Z');

/**
 * The PPN rate on a provider fee at `occurredAt`, in percent: 11 from 2022-04-01 (from 2025-01-01 the 12 %
 * rate applies to a base of 11/12 of the fee, which is the same 11 %), 10 before.
 */
export function ppnRate(occurredAt: Date): bigint {
  return occurredAt.getTime() >= ppn11From.getTime() ? 11n : 10n;
}

/** The PPN expected on `fee`: round_half_up(fee x rate / 100). */
export function expectedPpn(fee: Minor, occurredAt: Date): bigint {
  return percentOfAmount(fee, ppnRate(occurredAt) * 10_000n);
}

/** Providers round the tax base and the tax separately: a reported PPN within 1 rupiah passes. */
export const ppnTolerance = 1n;

export interface VatSubject {
  currency: string;
  fee: Minor;
  feeVat: Minor;
  occurredAt: Date;
}

/** The PPN check of IDR rows with fee_vat > 0; other rows are not checked. */
export function checkPpn(row: VatSubject): FeeMismatch | null {
  const actual = toBig(row.feeVat);
  if (row.currency !== 'IDR' || actual <= 0n) return null;
  const expected = expectedPpn(row.fee, row.occurredAt);
  const difference = actual - expected;
  if (absBig(difference) <= ppnTolerance) return null;
  return { expected, actual, difference, details: { component: 'fee_vat', source: 'vat_rule' } };
}

export interface RowFees extends VatSubject {
  adapter: string;
  /** The claimed object's method (not the row's): the fee rule prices what we captured. */
  method: string | null;
  amount: Minor;
}

/**
 * Both checks of a row that claims a payment, fee first: the first mismatch, or null. A row claiming a refund or
 * a payout gets the PPN check only (the caller passes `payment: false`): fee rules price captures, and
 * providers keep no fee on a refund (the sandbox reports 0), so a rule would flag every refund.
 */
export function checkRowFees(
  row: RowFees,
  o: { payment: boolean; capturedFee: Minor | null; feeRules: readonly FeeRule[]; feeTolerance: ToleranceMap | null },
): FeeMismatch | null {
  if (o.payment) {
    const expected = expectedFee(o.feeRules, { ...row, capturedFee: o.capturedFee });
    const fee = checkFee(row.fee, expected, row.currency, o.feeTolerance);
    if (fee) return fee;
  }
  return checkPpn(row);
}
