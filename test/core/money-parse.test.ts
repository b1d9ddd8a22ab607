import { describe, expect, it } from 'vitest';
import { formatAmount, formatMoney, parseAmount } from '../../src/core/money.ts';

// parseAmount is the reverse of the display formatter: what the dashboard shows can be typed back.
const samples = [1, 7, 999, 1000, 25000, 100000, 1_250_050, 123_456_789, Number.MAX_SAFE_INTEGER];

describe('parseAmount', () => {
  it.each(['IDR', 'USD'])('round-trips every amount %s shows, with and without the symbol', (currency) => {
    for (const minor of samples) {
      expect(parseAmount(formatMoney(minor, currency), currency)).toEqual({ ok: true, minor });
      expect(parseAmount(formatAmount(minor, currency), currency)).toEqual({ ok: true, minor });
    }
  });

  it('reads IDR with dot thousands and no decimals, USD with comma thousands and cents', () => {
    expect(formatAmount(25000, 'IDR')).toBe('25.000');
    expect(parseAmount('25.000', 'IDR')).toEqual({ ok: true, minor: 25000 });
    expect(parseAmount('25000', 'IDR')).toEqual({ ok: true, minor: 25000 });
    expect(parseAmount(' Rp 1.250.000 ', 'IDR')).toEqual({ ok: true, minor: 1_250_000 });
    expect(formatAmount(125050, 'USD')).toBe('1,250.50');
    expect(parseAmount('1,250.50', 'USD')).toEqual({ ok: true, minor: 125050 });
    expect(parseAmount('25.00', 'USD')).toEqual({ ok: true, minor: 2500 });
    expect(parseAmount('25.5', 'USD')).toEqual({ ok: true, minor: 2550 });
    expect(parseAmount('$25', 'USD')).toEqual({ ok: true, minor: 2500 });
  });

  it('refuses garbage with the reason, never a guess', () => {
    const cases: [string, string, string][] = [
      ['25,0,0', 'USD', 'grouping'],
      ['25,0,0', 'IDR', 'format'],
      ['1.2.3.4', 'USD', 'format'],
      ['1.2.3.4', 'IDR', 'grouping'],
      ['1,250.505', 'USD', 'decimals'],
      ['25,50', 'IDR', 'no_decimals'],
      ['1.250,50', 'USD', 'format'],
      ['abc', 'IDR', 'format'],
      ['12a', 'USD', 'format'],
      ['', 'IDR', 'empty'],
      ['Rp', 'IDR', 'empty'],
      ['0', 'IDR', 'not_positive'],
      ['0.00', 'USD', 'not_positive'],
      ['-5', 'USD', 'not_positive'],
      ['90071992547409920', 'IDR', 'too_large'],
    ];
    for (const [text, currency, problem] of cases)
      expect([text, currency, parseAmount(text, currency)]).toEqual([text, currency, { ok: false, problem }]);
  });
});
