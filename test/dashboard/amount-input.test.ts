import { describe, expect, it } from 'vitest';
import { readAmount } from '../../src/dashboard/app/format.ts';

// The dashboard's one reading of amount inputs: a number in minor units, or what is wrong in the member's language.
describe('readAmount', () => {
  it('takes the displayed format', () => {
    expect(readAmount('25.000', 'IDR', 'en')).toEqual({ minor: 25000 });
    expect(readAmount('1,250.50', 'USD', 'id')).toEqual({ minor: 125050 });
  });

  it('says what is wrong, with an example in the displayed format, in English and Indonesian', () => {
    expect(readAmount('25,0,0', 'IDR', 'en')).toEqual({ error: 'Not an amount: type it like 25.000' });
    expect(readAmount('25,0,0', 'IDR', 'id')).toEqual({ error: 'Bukan jumlah uang: tulis seperti 25.000' });
    expect(readAmount('25,0,0', 'USD', 'en')).toEqual({
      error: 'Thousands go in groups of three digits, like 1,250.50',
    });
    expect(readAmount('1.2.3.4', 'USD', 'id')).toEqual({ error: 'Bukan jumlah uang: tulis seperti 1,250.50' });
    expect(readAmount('25,5', 'IDR', 'en')).toEqual({ error: 'IDR amounts have no decimals: type it like 25.000' });
    expect(readAmount('25,5', 'IDR', 'id')).toEqual({
      error: 'Jumlah IDR tidak memakai desimal: tulis seperti 25.000',
    });
    for (const problem of ['0', '-1', '1.234', '99999999999999999', 'x'])
      for (const lang of ['en', 'id'] as const) {
        const r = readAmount(problem, 'USD', lang);
        expect('error' in r && r.error.length > 0, `${problem} ${lang}`).toBe(true);
      }
  });
});
