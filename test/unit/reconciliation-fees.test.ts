// Fee expectations of provider rows (src/modules/reconciliation/rules/fees.ts, sandbox-fees.ts): the fee at
// capture or the most specific rule, the PPN on the fee, and the managed sandbox's fee table.
import { describe, expect, it } from 'vitest';
import {
  checkFee,
  checkPpn,
  checkRowFees,
  expectedFee,
  expectedPpn,
  findFeeRule,
  ppnRate,
  ruleFee,
  type FeeRule,
} from '../../src/modules/reconciliation/rules/fees.ts';
import { sandboxFees } from '../../src/modules/reconciliation/rules/sandbox-fees.ts';

const rules: FeeRule[] = [
  { adapter: 'provider_a', method: null, currency: 'IDR', percent: '2.9', fixed: 2000 },
  { adapter: 'provider_a', method: 'qris', currency: 'IDR', percent: 0.7, fixed: 0 },
  { adapter: 'provider_a', method: 'va', currency: 'USD', percent: '1', fixed: 30 },
  { adapter: 'provider_b', method: 'qris', currency: 'IDR', percent: '0.75', fixed: 0 },
];
const subject = {
  adapter: 'provider_a',
  currency: 'IDR',
  method: 'qris' as string | null,
  amount: 100_000,
  capturedFee: null,
};

describe('expected fee', () => {
  it('takes the rule of the adapter, currency and method, then the rule with method null', () => {
    expect(findFeeRule(rules, subject)).toBe(rules[1]);
    expect(findFeeRule(rules, { ...subject, method: 'card' })).toBe(rules[0]);
    expect(findFeeRule(rules, { ...subject, method: null })).toBe(rules[0]);
    expect(findFeeRule(rules, { ...subject, currency: 'USD', method: 'qris' })).toBeNull();
    expect(findFeeRule(rules, { ...subject, adapter: 'provider_b', method: 'card' })).toBeNull();
  });

  it('is round_half_up(|amount| x percent / 100) + fixed', () => {
    expect(ruleFee(150_000, '2.9', 2000)).toBe(4350n + 2000n);
    expect(ruleFee(-150_000, '2.9', 2000)).toBe(6350n);
    expect(ruleFee(150, '2.9', 0)).toBe(4n); // 4.35
    expect(ruleFee(50, '0.7', 0)).toBe(0n); // 0.35
    expect(ruleFee(500, '0.7', 0)).toBe(4n); // 3.5 rounds up
    expect(expectedFee(rules, subject)).toEqual({ amount: 700n, source: 'fee_rule' });
  });

  it('is the fee posted at capture when there is one, whatever the rules say', () => {
    expect(expectedFee(rules, { ...subject, capturedFee: 1234 })).toEqual({ amount: 1234n, source: 'payment_fee' });
    // A capture that posted no fee (0 or null) leaves the rule.
    expect(expectedFee(rules, { ...subject, capturedFee: 0 })).toEqual({ amount: 700n, source: 'fee_rule' });
  });

  it('is nothing without a captured fee or a rule: no check', () => {
    expect(expectedFee([], subject)).toBeNull();
    expect(checkFee(99_999, null, 'IDR', null)).toBeNull();
  });
});

describe('fee check', () => {
  const expected = { amount: 700n, source: 'fee_rule' as const };

  it('passes within feeTolerance[currency] (default 0) and reports the difference beyond it', () => {
    expect(checkFee(700, expected, 'IDR', null)).toBeNull();
    expect(checkFee(701, expected, 'IDR', null)).toEqual({
      expected: 700n,
      actual: 701n,
      difference: 1n,
      details: { component: 'fee', source: 'fee_rule' },
    });
    expect(checkFee(750, expected, 'IDR', { IDR: 50 })).toBeNull();
    expect(checkFee(650, expected, 'IDR', { IDR: 50 })).toBeNull();
    expect(checkFee(649, expected, 'IDR', { IDR: 50 })?.difference).toBe(-51n);
    expect(checkFee(750, expected, 'IDR', { USD: 500 })?.difference).toBe(50n);
  });

  it('names the captured fee as the source when it was the expectation', () => {
    expect(checkFee(10, { amount: 5n, source: 'payment_fee' }, 'USD', {})?.details).toEqual({
      component: 'fee',
      source: 'payment_fee',
    });
  });
});

describe('PPN on provider fees', () => {
  it('is 11 % from 2022-04-01 (Jakarta), 10 % before', () => {
    expect(ppnRate(new Date('2022-03-31T16:59:59.999Z'))).toBe(10n);
    expect(ppnRate(new Date('2022-03-31T17:00:00.000Z'))).toBe(11n); // 00:00 WIB on April 1
    expect(ppnRate(new Date('2025-06-01T00:00:00.000Z'))).toBe(11n); // 12 % x 11/12
    expect(expectedPpn(4500, new Date('2025-06-01T00:00:00Z'))).toBe(495n);
    expect(expectedPpn(4500, new Date('2021-06-01T00:00:00Z'))).toBe(450n);
    expect(expectedPpn(4350, new Date('2025-06-01T00:00:00Z'))).toBe(479n); // 478.5 rounds up
  });

  it('passes within 1 rupiah, and only IDR rows with fee_vat > 0 are checked', () => {
    const at = new Date('2025-06-01T00:00:00Z');
    expect(checkPpn({ currency: 'IDR', fee: 4500, feeVat: 495, occurredAt: at })).toBeNull();
    expect(checkPpn({ currency: 'IDR', fee: 4500, feeVat: 496, occurredAt: at })).toBeNull();
    expect(checkPpn({ currency: 'IDR', fee: 4500, feeVat: 494, occurredAt: at })).toBeNull();
    expect(checkPpn({ currency: 'IDR', fee: 4500, feeVat: 497, occurredAt: at })).toEqual({
      expected: 495n,
      actual: 497n,
      difference: 2n,
      details: { component: 'fee_vat', source: 'vat_rule' },
    });
    expect(checkPpn({ currency: 'IDR', fee: 4500, feeVat: 0, occurredAt: at })).toBeNull();
    expect(checkPpn({ currency: 'USD', fee: 4500, feeVat: 999, occurredAt: at })).toBeNull();
    // Before April 2022 the 10 % rate: 495 on a 4,500 fee is 45 too much.
    expect(
      checkPpn({ currency: 'IDR', fee: 4500, feeVat: 495, occurredAt: new Date('2022-01-10T00:00:00Z') })?.difference,
    ).toBe(45n);
  });

  it('a payment row is checked fee first, then PPN; a refund row only for PPN', () => {
    const row = {
      adapter: 'provider_a',
      method: 'qris',
      currency: 'IDR',
      amount: 100_000,
      fee: 800,
      feeVat: 200,
      occurredAt: new Date('2025-06-01T00:00:00Z'),
    };
    const o = { payment: true, capturedFee: null, feeRules: rules, feeTolerance: null };
    expect(checkRowFees(row, o)?.details.component).toBe('fee');
    expect(checkRowFees({ ...row, fee: 700 }, o)?.details).toEqual({ component: 'fee_vat', source: 'vat_rule' });
    expect(checkRowFees({ ...row, fee: 700, feeVat: 77 }, o)).toBeNull();
    expect(checkRowFees({ ...row, amount: -100_000, fee: 0, feeVat: 0 }, { ...o, payment: false })).toBeNull();
    expect(checkRowFees({ ...row, fee: 0, feeVat: 5 }, { ...o, payment: false })?.details.component).toBe('fee_vat');
  });
});

describe('managed sandbox fees', () => {
  const fees = (method: string | null, currency: string, amount: number, type: 'payment' | 'refund' = 'payment') =>
    sandboxFees({ type, method, currency, amount });

  it('prices each method as its table says, with PPN at 11 % for IDR only', () => {
    expect(fees('card', 'IDR', 100_000)).toEqual({ fee: 4900n, feeVat: 539n }); // 2,900 + 2,000
    expect(fees('card', 'USD', 10_000)).toEqual({ fee: 320n, feeVat: 0n }); // 290 + 30
    expect(fees('qris', 'IDR', 150_000)).toEqual({ fee: 1050n, feeVat: 116n }); // 115.5 rounds up
    expect(fees('ewallet', 'IDR', 100_001)).toEqual({ fee: 1500n, feeVat: 165n }); // 1,500.015
    expect(fees('va', 'IDR', 7)).toEqual({ fee: 4000n, feeVat: 440n });
    expect(fees('retail', 'IDR', 7)).toEqual({ fee: 5000n, feeVat: 550n });
    expect(fees('provider_c', 'USD', 10_000)).toEqual({ fee: 470n, feeVat: 0n }); // 440 + 30
    expect(fees('qris', 'IDR', 50)).toEqual({ fee: 0n, feeVat: 0n }); // 0.35
  });

  it('charges nothing on refunds, nor on a payment without a priced method', () => {
    expect(fees('card', 'IDR', -100_000, 'refund')).toEqual({ fee: 0n, feeVat: 0n });
    expect(fees(null, 'IDR', 100_000)).toEqual({ fee: 0n, feeVat: 0n });
  });
});
