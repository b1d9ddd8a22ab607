// The generic provider report and the generic bank statement: header rules, each row rule with its field and
// line, the content hash and the bank row keys.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { paymentMethods } from '../../../src/modules/adapters/capabilities.ts';
import { rowMethods } from '../../../src/modules/reconciliation/formats/generic.ts';
import type { BankRowInput, ProviderRowInput } from '../../../src/modules/reconciliation/formats/types.ts';
import { bank, expectRefused, parse, parseSplit, provider } from './format-helpers.ts';

const all =
  'transaction_id,type,reference,provider_reference,occurred_at,currency,amount,fee,fee_vat,withholding_tax,net,settlement_id,settled_at,method,description';
const min = 'transaction_id,type,occurred_at,currency,amount';
const providerRows = (file: string) => parse(provider, file).rows as ProviderRowInput[];

describe('generic provider report', () => {
  it('maps every column, computes net, reads dates in the workspace zone and as instants', () => {
    const file = `${all}\ntx1,payment,pay_1,xnd_1,2026-03-01,IDR,200000,4500,495,10,,S-1,2026-03-03T10:00:00+07:00,qris,Kopi\n`;
    const [row] = providerRows(file);
    expect(row).toEqual({
      line: 2,
      transactionId: 'tx1',
      type: 'payment',
      reference: 'pay_1',
      providerReference: 'xnd_1',
      occurredAt: new Date('2026-02-28T17:00:00.000Z'),
      currency: 'IDR',
      amount: 200000,
      fee: 4500,
      feeVat: 495,
      withholdingTax: 10,
      net: 195_005 - 10,
      settlementId: 'S-1',
      settledAt: new Date('2026-03-03T03:00:00.000Z'),
      method: 'qris',
      description: 'Kopi',
      balanceAfter: null,
      contentHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const utc = parse({ ...provider, timezone: 'UTC' }, file).rows[0] as ProviderRowInput;
    expect(utc.occurredAt.toISOString()).toBe('2026-03-01T00:00:00.000Z');
    const ny = parse({ ...provider, timezone: 'America/New_York' }, `${min}\ntx,payment,2026-07-01,USD,5\n`).rows[0];
    expect((ny as ProviderRowInput).occurredAt.toISOString()).toBe('2026-07-01T04:00:00.000Z');
  });

  it('takes columns in any order, empty optional cells as null, and a stated net that agrees', () => {
    const [row] = providerRows(
      'amount,net,currency,occurred_at,type,transaction_id,reference\n-500,-500,USD,2026-01-01T00:00:00Z,refund,t,\n',
    );
    expect(row).toMatchObject({ amount: -500, net: -500, currency: 'USD', type: 'refund', reference: null, fee: 0 });
  });

  it('hashes the serialisation the docs state, with the full description, and keeps 500 characters', () => {
    const long = `${'é'.repeat(499)}😀tail`;
    const [row] = providerRows(`${min},description\ntx1,payment,2026-01-01T00:00:00Z,IDR,7,${long}\n`);
    expect(row.description).toBe(`${'é'.repeat(499)}😀`);
    const serial = JSON.stringify([
      'tx1',
      'payment',
      null,
      null,
      Date.UTC(2026, 0, 1),
      'IDR',
      7,
      0,
      0,
      0,
      7,
      null,
      null,
      null,
      long,
      null,
    ]);
    expect(row.contentHash).toBe(createHash('sha256').update(serial).digest('hex'));
    const [short] = providerRows(`${min},description\ntx1,payment,2026-01-01T00:00:00Z,IDR,7,${long}x\n`);
    expect(short.description).toBe(row.description);
    expect(short.contentHash).not.toBe(row.contentHash);
  });

  it('checks the header: a duplicated column, then an unknown one, then the first missing required one', () => {
    expectRefused(provider, `${min},bogus,amount\n`, 'invalid_header', 'amount');
    expectRefused(provider, `${min},bogus,Amount\n`, 'invalid_header', 'bogus');
    expectRefused(provider, 'currency,type\n', 'invalid_header', 'transaction_id');
    expectRefused(provider, 'transaction_id,type,currency\n', 'invalid_header', 'occurred_at');
    expectRefused(provider, 'transaction_id,type,occurred_at,currency,amount,\n', 'invalid_header', '');
  });

  const bad: [string, string, string][] = [
    ['a record with fewer cells', 'tx,payment,2026-01-01,IDR', 'amount'],
    ['a record with more cells', 'tx,payment,2026-01-01,IDR,5,6', 'amount'],
    ['an empty transaction_id', ',payment,2026-01-01,IDR,5', 'transaction_id'],
    ['an empty required cell after a bad one', 'tx,bogus,,IDR,5', 'occurred_at'],
    ['a transaction_id over 100 characters', `${'t'.repeat(101)},payment,2026-01-01,IDR,5`, 'transaction_id'],
    ['an unknown type', 'tx,Payment,2026-01-01,IDR,5', 'type'],
    ['an unparsable date', 'tx,payment,2026-02-30,IDR,5', 'occurred_at'],
    ['an instant without a zone', 'tx,payment,2026-01-01T10:00:00,IDR,5', 'occurred_at'],
    ['an unknown currency', 'tx,payment,2026-01-01,XYZ,5', 'currency'],
    ['a lower-case currency', 'tx,payment,2026-01-01,idr,5', 'currency'],
    ['a decimal amount', 'tx,payment,2026-01-01,USD,5.00', 'amount'],
    ['an amount past 2^53 - 1', 'tx,payment,2026-01-01,IDR,9007199254740992', 'amount'],
    ['a payment that is not positive', 'tx,payment,2026-01-01,IDR,-5', 'amount'],
    ['a refund that is positive', 'tx,refund,2026-01-01,IDR,5', 'amount'],
    ['a payout that is positive', 'tx,payout,2026-01-01,IDR,5', 'amount'],
    ['a zero adjustment', 'tx,adjustment,2026-01-01,IDR,0', 'amount'],
    ['a fee row with an amount', 'tx,fee,2026-01-01,IDR,-5', 'amount'],
  ];
  for (const [what, line, field] of bad)
    it(`refuses ${what} (invalid_row, ${field}, line 3)`, () => {
      expectRefused(provider, `${min}\nok,payment,2026-01-01,IDR,1\n${line}\n`, 'invalid_row', field, 3);
    });

  const badOptional: [string, string, string][] = [
    ['a negative fee', 'fee=-1', 'fee'],
    ['a decimal fee_vat', 'fee_vat=1.5', 'fee_vat'],
    ['a negative withholding_tax', 'withholding_tax=-2', 'withholding_tax'],
    ['a net that is not the formula', 'net=99', 'net'],
    ['a bad settled_at', 'settled_at=tomorrow', 'settled_at'],
    ['an unknown method', 'method=cash', 'method'],
    ['a fee row with no fee', 'type=fee|amount=0', 'fee'],
  ];
  for (const [what, cells, field] of badOptional)
    it(`refuses ${what} (invalid_row, ${field})`, () => {
      const values: Record<string, string> = {
        transaction_id: 'tx',
        type: 'payment',
        occurred_at: '2026-01-01',
        currency: 'IDR',
        amount: '100',
      };
      for (const kv of cells.split('|')) values[kv.split('=')[0]] = kv.split('=')[1];
      const names = Object.keys(values);
      expectRefused(
        provider,
        `${names.join(',')}\n${names.map((n) => values[n]).join(',')}\n`,
        'invalid_row',
        field,
        2,
      );
    });

  it('accepts a fee row with fee_vat only, and a negative adjustment', () => {
    const rows = providerRows(
      'transaction_id,type,occurred_at,currency,amount,fee_vat\nf,fee,2026-01-01,IDR,0,11\na,adjustment,2026-01-01,IDR,-3,\n',
    );
    expect(rows.map((r) => [r.type, r.net])).toEqual([
      ['fee', -11],
      ['adjustment', -3],
    ]);
  });

  it('refuses a transaction_id repeated inside one file, on the second line holding it', () => {
    expectRefused(
      provider,
      `${min}\na,payment,2026-01-01,IDR,1\nb,payment,2026-01-01,IDR,1\na,payment,2026-01-01,IDR,1\n`,
      'invalid_row',
      'transaction_id',
      4,
    );
  });

  it('reports the first bad line, and a cell rule before a type rule before a cross-field rule', () => {
    expectRefused(
      provider,
      `${min}\na,payment,2026-01-01,IDR,-1\nb,bogus,2026-01-01,IDR,1\n`,
      'invalid_row',
      'amount',
      2,
    );
    expectRefused(
      provider,
      'transaction_id,type,occurred_at,currency,amount,net\na,refund,bad,IDR,1,7\n',
      'invalid_row',
      'occurred_at',
      2,
    );
  });

  it('names the methods the adapters know', () => {
    expect([...rowMethods].sort()).toEqual([...paymentMethods].sort());
  });
});

const bankHeader = 'line_id,value_date,direction,amount,currency,description,reference,balance_after';
const bankRows = (file: string) => parse(bank, file).rows as BankRowInput[];
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

describe('generic bank statement', () => {
  it('maps a line with a line id to an id key, and one without to the value key with its occurrence', () => {
    const rows = bankRows(
      `${bankHeader}\nL1,2026-01-05,credit,142105,IDR,XENDIT S-1,S-1,5000\n,2026-01-05,debit,6500,IDR,FEE,,\n,2026-01-05,debit,6500,IDR,FEE,,\n,2026-01-05,debit,6500,IDR,FEE,X,\n`,
    );
    expect(rows[0]).toEqual({
      line: 2,
      lineId: 'L1',
      valueDate: '2026-01-05',
      direction: 'credit',
      amount: 142105,
      currency: 'IDR',
      description: 'XENDIT S-1',
      reference: 'S-1',
      balanceAfter: 5000,
      rowKey: 'id:L1',
    });
    const base = `h:2026-01-05:debit:6500:IDR:${sha('FEE\u0000')}`;
    expect(rows.slice(1).map((r) => r.rowKey)).toEqual([
      `${base}:1`,
      `${base}:2`,
      `h:2026-01-05:debit:6500:IDR:${sha('FEE\u0000X')}:1`,
    ]);
  });

  it('gives the same rows and keys at every split', () => {
    const file = Buffer.from(
      `\ufeff${bankHeader}\r\nL1,2026-01-05,credit,1,IDR,"a,\r\nb",,\r\n,2026-01-05,debit,2,IDR,é,,\r\n,2026-01-05,debit,2,IDR,é,,\r\n`,
    );
    const whole = parse(bank, file).rows;
    expect(whole).toHaveLength(3);
    for (let at = 0; at <= file.length; at++) expect(parseSplit(bank, file, at).rows).toEqual(whole);
  });

  it('takes an empty description, and the minimal columns in any order', () => {
    const [row] = bankRows('currency,amount,direction,value_date,description\nUSD,1,debit,2026-02-28,\n');
    expect(row).toMatchObject({ description: '', lineId: null, reference: null, balanceAfter: null, amount: 1 });
  });

  it('checks the header in order', () => {
    expectRefused(bank, 'value_date,value_date\n', 'invalid_header', 'value_date');
    expectRefused(bank, 'value_date,memo\n', 'invalid_header', 'memo');
    expectRefused(bank, 'currency,amount,direction,value_date\n', 'invalid_header', 'description');
  });

  const bad: [string, string, string][] = [
    ['a bad date', '2026-13-01,credit,5,IDR,x', 'value_date'],
    ['an instant as value date', '2026-01-01T00:00:00Z,credit,5,IDR,x', 'value_date'],
    ['an unknown direction', '2026-01-01,CR,5,IDR,x', 'direction'],
    ['a zero amount', '2026-01-01,credit,0,IDR,x', 'amount'],
    ['a negative amount', '2026-01-01,credit,-5,IDR,x', 'amount'],
    ['an unknown currency', '2026-01-01,credit,5,RP,x', 'currency'],
    ['an empty direction', '2026-01-01,,5,IDR,x', 'direction'],
  ];
  for (const [what, line, field] of bad)
    it(`refuses ${what} (invalid_row, ${field})`, () => {
      expectRefused(bank, `value_date,direction,amount,currency,description\n${line}\n`, 'invalid_row', field, 2);
    });

  it('refuses a bad balance_after and a line id repeated in the file', () => {
    expectRefused(bank, `${bankHeader}\n,2026-01-01,credit,5,IDR,x,,1.5\n`, 'invalid_row', 'balance_after', 2);
    expectRefused(
      bank,
      `${bankHeader}\nA,2026-01-01,credit,5,IDR,x,,\nA,2026-01-02,credit,6,IDR,y,,\n`,
      'invalid_row',
      'line_id',
      3,
    );
  });
});
