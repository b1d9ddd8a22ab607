// The decision over one provider row (src/modules/reconciliation/rules/provider-match.ts, references.ts): the
// rule order, "a reference is a claim", the resolution conditions and the checks after resolution.
import { describe, expect, it } from 'vitest';
import {
  amountDateCandidates,
  decideProviderRow,
  lookupPlan,
  type LedgerObject,
  type MatchSettings,
  type ProviderRow,
} from '../../src/modules/reconciliation/rules/provider-match.ts';
import { claimedKind, parseReference } from '../../src/modules/reconciliation/rules/references.ts';

const settings: MatchSettings = {
  dateToleranceDays: 3,
  amountTolerance: null,
  feeTolerance: null,
  feeRules: [],
  timeZone: 'Asia/Jakarta',
};

const row = (o: Partial<ProviderRow> = {}): ProviderRow => ({
  id: 'rrow_1',
  type: 'payment',
  adapter: 'provider_a',
  currency: 'IDR',
  amount: 200_000,
  fee: 0,
  feeVat: 0,
  net: 200_000,
  reference: 'pay_1',
  providerReference: null,
  occurredAt: new Date('2025-06-01T03:00:00Z'),
  settlementId: 'S-1',
  ...o,
});

const payment = (o: Partial<LedgerObject> = {}): LedgerObject => ({
  kind: 'payment',
  id: 'pay_1',
  adapter: 'provider_a',
  currency: 'IDR',
  amount: 200_000,
  captured: true,
  capturedAt: new Date('2025-06-01T02:00:00Z'),
  claimedBy: null,
  method: 'qris',
  capturedFee: null,
  ...o,
});

describe('references', () => {
  it('names the object kind by prefix, and what it leads to', () => {
    expect(parseReference('pay_01JABC')).toEqual({ kind: 'payment', id: 'pay_01JABC', leadsTo: 'payment' });
    expect(parseReference(' cs_9 ')).toEqual({ kind: 'checkout_session', id: 'cs_9', leadsTo: 'payment' });
    expect(parseReference('inv_7')).toEqual({ kind: 'invoice', id: 'inv_7', leadsTo: 'payment' });
    expect(parseReference('rf_2')).toEqual({ kind: 'refund', id: 'rf_2', leadsTo: 'refund' });
    expect(parseReference('po_3')).toEqual({ kind: 'payout', id: 'po_3', leadsTo: 'payout' });
  });

  it('is not ours without a known prefix and an id shape', () => {
    for (const r of ['ORDER-1', 'pm_1', 'pay_', 'pay_1 extra', 'xpay_1', 'PAY_1', '', null])
      expect(parseReference(r), String(r)).toBeNull();
  });

  it('payment, refund and payout rows claim their kind; fee and adjustment rows nothing', () => {
    expect(['payment', 'refund', 'payout', 'fee', 'adjustment'].map(claimedKind)).toEqual([
      'payment',
      'refund',
      'payout',
      null,
      null,
    ]);
  });
});

describe('rule order', () => {
  it('provider reference, then reference; amount and date only for a row with neither', () => {
    expect(lookupPlan(row({ providerReference: 'x-1' }))).toEqual(['provider_reference', 'reference']);
    expect(lookupPlan(row())).toEqual(['reference']);
    expect(lookupPlan(row({ reference: null, providerReference: 'x-1' }))).toEqual(['provider_reference']);
    expect(lookupPlan(row({ reference: null }))).toEqual(['amount_date']);
    expect(lookupPlan(row({ type: 'fee' }))).toEqual([]);
    expect(lookupPlan(row({ type: 'adjustment', reference: null }))).toEqual([]);
  });

  it('the first lookup that finds the object wins', () => {
    const r = row({ providerReference: 'x-1' });
    const d = decideProviderRow(
      r,
      { provider_reference: [payment()], reference: [payment({ id: 'pay_2' })] },
      settings,
    );
    expect(d).toEqual({
      decision: 'match',
      rule: 'provider_reference',
      object: { type: 'payment', id: 'pay_1' },
      difference: 0n,
    });
    expect(decideProviderRow(r, { provider_reference: [], reference: [payment()] }, settings)).toMatchObject({
      decision: 'match',
      rule: 'reference',
    });
  });

  it('a reference is a claim: one that resolves to nothing raises unknown_reference, never an amount match', () => {
    const d = decideProviderRow(row({ reference: 'pay_404' }), { reference: [], amount_date: [payment()] }, settings);
    expect(d).toEqual({
      decision: 'raise',
      exception: {
        category: 'missing_in_ledger',
        object: null,
        expectedAmount: null,
        actualAmount: 200_000n,
        difference: 200_000n,
        details: { reason: 'unknown_reference', candidates: [] },
      },
    });
    // A reference that is not one of our ids is a claim too.
    expect(decideProviderRow(row({ reference: 'ORDER-7' }), { amount_date: [payment()] }, settings)).toMatchObject({
      exception: { category: 'missing_in_ledger', details: { reason: 'unknown_reference' } },
    });
  });

  it('amount and date: exactly one candidate matches, several are ambiguous, none is no_reference', () => {
    const r = row({ reference: null });
    expect(decideProviderRow(r, { amount_date: [payment()] }, settings)).toMatchObject({
      decision: 'match',
      rule: 'amount_date',
      object: { id: 'pay_1' },
    });
    const two = [payment(), payment({ id: 'pay_2' })];
    expect(decideProviderRow(r, { amount_date: two }, settings)).toMatchObject({
      exception: { category: 'missing_in_ledger', details: { reason: 'ambiguous', candidates: ['pay_1', 'pay_2'] } },
    });
    expect(decideProviderRow(r, { amount_date: [] }, settings)).toMatchObject({
      exception: { details: { reason: 'no_reference', candidates: [] } },
    });
  });

  it("amount and date candidates: the row's kind, adapter, currency and signed amount, captured, unclaimed, in the window", () => {
    const r = row({ reference: null });
    const ok = payment();
    const objects = [
      ok,
      payment({ id: 'k', kind: 'refund' }),
      payment({ id: 'a', adapter: 'provider_b' }),
      payment({ id: 'c', currency: 'USD' }),
      payment({ id: 'm', amount: 200_001 }),
      payment({ id: 'u', captured: false }),
      payment({ id: 'd', claimedBy: 'rrow_0' }),
      payment({ id: 'late', capturedAt: new Date('2025-06-05T03:00:00Z') }), // 4 days later
      payment({ id: 'edge', capturedAt: new Date('2025-06-04T16:59:00Z') }), // June 4 23:59 in Jakarta: 3 days
      payment({ id: 'early', capturedAt: new Date('2025-05-28T17:00:00Z') }), // May 29 00:00 in Jakarta: 3 days
      payment({ id: 'none', capturedAt: null }),
    ];
    expect(amountDateCandidates(r, 'payment', objects, settings).map((o) => o.id)).toEqual(['pay_1', 'edge', 'early']);
    const refund = { ...ok, id: 'rf_1', kind: 'refund' as const, amount: 50_000 };
    expect(amountDateCandidates({ ...r, amount: -50_000 }, 'refund', [refund], settings)).toEqual([refund]);
  });
});

describe('resolution conditions', () => {
  it('an object of another kind is wrong_kind, unless a later lookup finds the right one', () => {
    const refundRow = row({
      type: 'refund',
      amount: -50_000,
      net: -50_000,
      reference: 'pay_1',
      providerReference: 'x',
    });
    expect(
      decideProviderRow(refundRow, { provider_reference: [payment()], reference: [payment()] }, settings),
    ).toMatchObject({
      exception: { category: 'missing_in_ledger', details: { reason: 'wrong_kind' } },
    });
    const refund = payment({ kind: 'refund', id: 'rf_2', amount: 50_000 });
    expect(
      decideProviderRow(refundRow, { provider_reference: [payment()], reference: [refund] }, settings),
    ).toMatchObject({
      decision: 'match',
      rule: 'reference',
      object: { type: 'refund', id: 'rf_2' },
    });
  });

  it("another adapter's object is adapter_mismatch; one not captured is not_captured", () => {
    expect(decideProviderRow(row(), { reference: [payment({ adapter: 'provider_b' })] }, settings)).toMatchObject({
      exception: {
        category: 'missing_in_ledger',
        object: null,
        details: { reason: 'adapter_mismatch', candidates: ['pay_1'] },
      },
    });
    expect(decideProviderRow(row(), { reference: [payment({ captured: false })] }, settings)).toMatchObject({
      exception: { category: 'missing_in_ledger', details: { reason: 'not_captured', candidates: ['pay_1'] } },
    });
  });

  it("an invoice's payments: its only captured one, ambiguous when several are", () => {
    const r = row({ reference: 'inv_1' });
    const failed = payment({ id: 'pay_0', captured: false });
    expect(decideProviderRow(r, { reference: [failed, payment()] }, settings)).toMatchObject({
      decision: 'match',
      object: { id: 'pay_1' },
    });
    expect(decideProviderRow(r, { reference: [payment(), payment({ id: 'pay_2' })] }, settings)).toMatchObject({
      exception: { details: { reason: 'ambiguous', candidates: ['pay_1', 'pay_2'] } },
    });
    expect(
      decideProviderRow(r, { reference: [failed, payment({ id: 'pay_3', captured: false })] }, settings),
    ).toMatchObject({
      exception: { details: { reason: 'not_captured', candidates: ['pay_0'] } },
    });
  });
});

describe('checks after resolution, in order', () => {
  it('already claimed by an earlier row: duplicate, before any other check', () => {
    const d = decideProviderRow(row({ currency: 'USD' }), { reference: [payment({ claimedBy: 'rrow_0' })] }, settings);
    expect(d).toEqual({
      decision: 'raise',
      exception: {
        category: 'duplicate',
        object: { type: 'payment', id: 'pay_1' },
        expectedAmount: null,
        actualAmount: 200_000n,
        difference: 200_000n,
        details: { duplicateOf: 'rrow_0', reason: 'same_object' },
      },
    });
  });

  it('a restated transaction is a duplicate of the row it restates, whatever it references', () => {
    expect(decideProviderRow(row({ restatedOf: 'rrow_0', type: 'fee' }), {}, settings)).toMatchObject({
      exception: { category: 'duplicate', object: null, details: { duplicateOf: 'rrow_0', reason: 'restated' } },
    });
  });

  it('another currency: currency_mismatch with no difference (no conversion)', () => {
    const d = decideProviderRow(
      row({ currency: 'USD', amount: 1500, net: 1500 }),
      { reference: [payment()] },
      settings,
    );
    expect(d).toEqual({
      decision: 'raise',
      exception: {
        category: 'currency_mismatch',
        object: { type: 'payment', id: 'pay_1' },
        expectedAmount: 200_000n,
        actualAmount: 1500n,
        difference: null,
        details: { expectedCurrency: 'IDR', actualCurrency: 'USD' },
      },
    });
  });

  it('amounts apart by more than amountTolerance: amount_mismatch; within it, a match carrying the difference', () => {
    const r = row({ amount: 199_990, net: 199_990 });
    expect(decideProviderRow(r, { reference: [payment()] }, settings)).toEqual({
      decision: 'raise',
      exception: {
        category: 'amount_mismatch',
        object: { type: 'payment', id: 'pay_1' },
        expectedAmount: 200_000n,
        actualAmount: 199_990n,
        difference: -10n,
        details: { tolerance: 0 },
      },
    });
    const tolerant = { ...settings, amountTolerance: { IDR: 10 } };
    expect(decideProviderRow(r, { reference: [payment()] }, tolerant)).toEqual({
      decision: 'match',
      rule: 'reference',
      object: { type: 'payment', id: 'pay_1' },
      difference: -10n,
    });
  });

  it("a refund's amount is compared signed: the row's -50,000 is the refund's 50,000", () => {
    const r = row({ type: 'refund', amount: -50_000, net: -50_000, reference: 'rf_2' });
    const refund = payment({ kind: 'refund', id: 'rf_2', amount: 50_000 });
    expect(decideProviderRow(r, { reference: [refund] }, settings)).toMatchObject({
      decision: 'match',
      difference: 0n,
    });
    expect(decideProviderRow({ ...r, amount: 50_000 }, { reference: [refund] }, settings)).toMatchObject({
      exception: { category: 'amount_mismatch', expectedAmount: -50_000n, actualAmount: 50_000n, difference: 100_000n },
    });
  });

  it("the fee against the payment's captured fee or its rule, then the PPN: fee_mismatch", () => {
    const s = {
      ...settings,
      feeRules: [{ adapter: 'provider_a', method: 'qris', currency: 'IDR', percent: '0.7', fixed: 0 }],
    };
    const r = row({ fee: 1400, feeVat: 154, net: 198_446 });
    expect(decideProviderRow(r, { reference: [payment()] }, s)).toMatchObject({ decision: 'match' });
    expect(decideProviderRow({ ...r, fee: 1500 }, { reference: [payment()] }, s)).toEqual({
      decision: 'raise',
      exception: {
        category: 'fee_mismatch',
        object: { type: 'payment', id: 'pay_1' },
        expectedAmount: 1400n,
        actualAmount: 1500n,
        difference: 100n,
        details: { component: 'fee', source: 'fee_rule' },
      },
    });
    expect(decideProviderRow(r, { reference: [payment({ capturedFee: 1300 })] }, s)).toMatchObject({
      exception: { details: { component: 'fee', source: 'payment_fee' }, difference: 100n },
    });
    expect(decideProviderRow({ ...r, feeVat: 160 }, { reference: [payment()] }, s)).toMatchObject({
      exception: {
        category: 'fee_mismatch',
        expectedAmount: 154n,
        details: { component: 'fee_vat', source: 'vat_rule' },
      },
    });
    // A rule for another method of the adapter does not apply, so no fee check.
    expect(
      decideProviderRow({ ...r, fee: 9999, feeVat: 1100 }, { reference: [payment({ method: 'card' })] }, s),
    ).toMatchObject({
      decision: 'match',
    });
  });
});

describe('rows that claim no object', () => {
  it('fee rows are standalone fees, matched to nothing', () => {
    expect(
      decideProviderRow(row({ type: 'fee', amount: 0, fee: 5000, net: -5000, reference: null }), {}, settings),
    ).toEqual({
      decision: 'match',
      rule: 'standalone_fee',
      object: null,
      difference: 0n,
    });
  });

  it('adjustment rows need a person: missing_in_ledger, reason adjustment', () => {
    expect(decideProviderRow(row({ type: 'adjustment', amount: -700, net: -700 }), {}, settings)).toMatchObject({
      exception: { category: 'missing_in_ledger', difference: -700n, details: { reason: 'adjustment' } },
    });
  });

  it('payout rows: a payout by reference, else the batch transfer, else missing_in_ledger', () => {
    const r = row({ type: 'payout', amount: -145_005, net: -145_005, reference: 'po_1' });
    const payout = payment({ kind: 'payout', id: 'po_1', amount: 145_005 });
    expect(decideProviderRow(r, { reference: [payout] }, settings)).toMatchObject({
      decision: 'match',
      rule: 'reference',
      object: { type: 'payout', id: 'po_1' },
    });
    expect(decideProviderRow({ ...r, reference: 'WD-77' }, { reference: [] }, settings)).toEqual({
      decision: 'match',
      rule: 'batch_transfer',
      object: null,
      difference: 0n,
    });
    expect(decideProviderRow({ ...r, reference: null }, { amount_date: [] }, settings)).toMatchObject({
      rule: 'batch_transfer',
    });
    expect(decideProviderRow({ ...r, settlementId: null }, { reference: [] }, settings)).toMatchObject({
      exception: { category: 'missing_in_ledger', details: { reason: 'unknown_reference' } },
    });
  });
});
