// Objects the report lacks and the run's ledger check (src/modules/reconciliation/rules/missing-at-provider.ts,
// ledger-check.ts).
import { describe, expect, it } from 'vitest';
import { ledgerCheck } from '../../src/modules/reconciliation/rules/ledger-check.ts';
import { missingAtProvider, type ExpectedObject } from '../../src/modules/reconciliation/rules/missing-at-provider.ts';

const scope = {
  adapter: 'provider_a',
  currencies: ['IDR'],
  periodStart: new Date('2025-06-01T00:00:00Z'),
  periodEnd: new Date('2025-06-02T00:00:00Z'),
};
const obj = (o: Partial<ExpectedObject>): ExpectedObject => ({
  kind: 'payment',
  id: 'pay_1',
  adapter: 'provider_a',
  currency: 'IDR',
  amount: 200_000,
  captured: true,
  capturedAt: new Date('2025-06-01T10:00:00Z'),
  ...o,
});

describe('missing at provider', () => {
  it("raises for captured objects of the import's adapter, currencies and period that no row names", () => {
    const objects = [
      obj({}),
      obj({ id: 'rf_2', kind: 'refund', amount: 50_000 }),
      obj({ id: 'named' }),
      obj({ id: 'uncaptured', captured: false }),
      obj({ id: 'other', adapter: 'provider_b' }),
      obj({ id: 'usd', currency: 'USD' }),
      obj({ id: 'end', capturedAt: new Date('2025-06-02T00:00:00Z') }), // the end is exclusive
      obj({ id: 'start', capturedAt: new Date('2025-06-01T00:00:00Z') }),
    ];
    expect(missingAtProvider(objects, scope, new Set(['named']))).toEqual([
      {
        category: 'missing_at_provider',
        object: { type: 'payment', id: 'pay_1' },
        expectedAmount: 200_000n,
        actualAmount: null,
        difference: -200_000n,
        details: {},
      },
      {
        category: 'missing_at_provider',
        object: { type: 'refund', id: 'rf_2' },
        expectedAmount: -50_000n,
        actualAmount: null,
        difference: 50_000n,
        details: {},
      },
      expect.objectContaining({ object: { type: 'payment', id: 'start' } }),
    ]);
  });
});

describe('ledger check', () => {
  it('is ok when every group nets to the ledger plus the unposted differences, else mismatch', () => {
    const g = { adapter: 'provider_a', currency: 'IDR', rowsNet: 145_005, ledgerNet: 145_015, unpostedDifference: -10 };
    expect(ledgerCheck([g])).toEqual({
      status: 'ok',
      groups: [
        { adapter: 'provider_a', currency: 'IDR', rowsNet: 145_005n, ledgerNet: 145_015n, unpostedDifference: -10n },
      ],
    });
    expect(ledgerCheck([g, { ...g, currency: 'USD', unpostedDifference: 0 }]).status).toBe('mismatch');
    expect(ledgerCheck([]).status).toBe('ok');
  });
});
