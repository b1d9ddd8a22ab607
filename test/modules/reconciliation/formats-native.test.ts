// The native formats: provider_a's balance history fold, KlikBCA Bisnis and Individu, Mandiri MCM and MT940.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type {
  BankRowInput,
  FileParserOptions,
  ProviderRowInput,
} from '../../../src/modules/reconciliation/formats/types.ts';
import { bytes, expectRefused, parse, parseSplit } from './format-helpers.ts';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const bankOf = (format: FileParserOptions['format'], bankAccountNumber = '1234567890'): FileParserOptions => ({
  source: 'bank_statement',
  format,
  timezone: 'UTC',
  bankAccountNumber,
});

const xenditHeader =
  'Product ID,Transaction ID,Transaction Type,Line Type,Payment Channel,Reference,Currency,Amount,Balance,Debit or Credit,Created Date ISO,Business ID';
const xendit = [
  xenditHeader,
  'qr_1,txn_a,PAYMENT,TRANSACTION,QRIS,pay_1,IDR,200000,200000,CREDIT,2026-03-01T10:00:00.000Z,b',
  'qr_1,txn_a,PAYMENT,FEE,QRIS,pay_1,IDR,4500,195500,DEBIT,2026-03-01T10:00:00.000Z,b',
  'qr_1,txn_a,PAYMENT,VAT,QRIS,pay_1,IDR,495,195005,DEBIT,2026-03-01T10:00:00.000Z,b',
  'rf_x,txn_b,REFUND,TRANSACTION,QRIS,rf_2,IDR,50000.00,145005,DEBIT,2026-03-02T10:00:00.000Z,b',
  'fe_1,txn_c,OTHER,FEE,,,IDR,1000,144005,DEBIT,2026-03-03T10:00:00.000Z,b',
  'fe_1,txn_c,OTHER,FEE_REVERSAL,,,IDR,400,144405,CREDIT,2026-03-03T10:00:00.000Z,b',
].join('\n');
const providerA: FileParserOptions = { source: 'provider_report', format: 'provider_a', timezone: 'Asia/Jakarta' };

describe('provider_a balance history', () => {
  it('folds the adjacent lines of one transaction into one row, with the last balance', () => {
    const rows = parse(providerA, `${xendit}\n`).rows as ProviderRowInput[];
    expect(
      rows.map((r) => [r.line, r.transactionId, r.type, r.amount, r.fee, r.feeVat, r.net, r.balanceAfter]),
    ).toEqual([
      [2, 'txn_a', 'payment', 200000, 4500, 495, 195005, 195005],
      [5, 'txn_b', 'refund', -50000, 0, 0, -50000, 145005],
      [6, 'txn_c', 'fee', 0, 600, 0, -600, 144405],
    ]);
    expect(rows[0]).toMatchObject({
      reference: 'pay_1',
      providerReference: 'qr_1',
      occurredAt: new Date('2026-03-01T10:00:00.000Z'),
      settlementId: null,
      contentHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('gives the same rows at every split', () => {
    const data = bytes(`${xendit}\n`);
    const whole = parse(providerA, data).rows;
    for (let at = 0; at <= data.length; at++) expect(parseSplit(providerA, data, at).rows).toEqual(whole);
  });

  it('refuses a missing column, an unknown line type, decimals IDR lacks, and a transaction split apart', () => {
    expectRefused(providerA, 'Product ID,Transaction ID\n', 'invalid_header', 'Transaction Type');
    expectRefused(providerA, `${xenditHeader},amount\n`, 'invalid_header', 'Amount');
    const line = (s: string) => `${xenditHeader}\n${s}\n`;
    expectRefused(
      providerA,
      line('p,t,PAYMENT,BONUS,Q,r,IDR,1,1,CREDIT,2026-03-01T10:00:00Z,b'),
      'invalid_row',
      'Line Type',
      2,
    );
    expectRefused(
      providerA,
      line('p,t,PAYMENT,TRANSACTION,Q,r,IDR,1.50,1,CREDIT,2026-03-01T10:00:00Z,b'),
      'invalid_row',
      'Amount',
      2,
    );
    expectRefused(
      providerA,
      line('p,t,PAYMENT,TRANSACTION,Q,r,IDR,1,1,CREDIT,yesterday,b'),
      'invalid_row',
      'Created Date ISO',
      2,
    );
    expectRefused(
      providerA,
      line(
        'p,t,PAYMENT,TRANSACTION,Q,r,IDR,1,1,CREDIT,2026-03-01T10:00:00Z,b\np,u,PAYMENT,TRANSACTION,Q,r,IDR,1,1,CREDIT,2026-03-01T10:00:00Z,b\np,t,PAYMENT,FEE,Q,r,IDR,1,1,DEBIT,2026-03-01T10:00:00Z,b',
      ),
      'invalid_row',
      'Transaction ID',
      4,
    );
    expectRefused(
      providerA,
      line('p,t,PAYMENT,TRANSACTION,Q,r,IDR,1,1,DEBIT,2026-03-01T10:00:00Z,b'),
      'invalid_row',
      'Amount',
      2,
    );
  });
});

const bisnis = [
  'Informasi Rekening - Mutasi Rekening',
  'No. rekening : 1234567890',
  'Periode : 01/01/2026 - 31/01/2026',
  '',
  ' "Tanggal Transaksi" , KETERANGAN,Cabang,Jumlah,',
  '02/01/2026,TRSF E-BANKING CR XENDIT S-1,0000,"142,105.00 CR"',
  'PEND,TRSF PENDING,0000,"10,000.00 CR"',
  '03/01/2026,BIAYA ADM,0000,"6,500.00 DB"',
  '03/01/2026,BIAYA ADM,0000,"6,500.00 DB"',
  'Saldo Awal,:,"1,000,000.00"',
  'Mutasi Kredit,:,"142,105.00",1',
  'Mutasi Debet,:,"13,000.00",2',
  'Saldo Akhir,:,"1,129,105.00"',
].join('\r\n');

describe('bca (KlikBCA Bisnis)', () => {
  const bca = bankOf('bca');
  it('finds the header after the account lines, skips PEND lines, ignores the summary', () => {
    const { rows, skipped } = parse(bca, bisnis);
    expect(skipped).toBe(1);
    const bankRows = rows as BankRowInput[];
    expect(bankRows.map((r) => [r.line, r.valueDate, r.direction, r.amount, r.description])).toEqual([
      [6, '2026-01-02', 'credit', 142105, 'TRSF E-BANKING CR XENDIT S-1'],
      [8, '2026-01-03', 'debit', 6500, 'BIAYA ADM'],
      [9, '2026-01-03', 'debit', 6500, 'BIAYA ADM'],
    ]);
    const key = `h:2026-01-03:debit:6500:IDR:${sha('BIAYA ADM\u0000')}`;
    expect(bankRows.slice(1).map((r) => r.rowKey)).toEqual([`${key}:1`, `${key}:2`]);
  });

  it('gives the same rows and skipped count at every split', () => {
    const data = bytes(bisnis);
    const whole = parse(bca, data);
    expect(whole.rows).toHaveLength(3);
    for (let at = 0; at <= data.length; at++) expect(parseSplit(bca, data, at)).toEqual(whole);
  });

  it('refuses cents, a date without a year, a missing mark, a line after the summary, a late or other header', () => {
    const withLine = (s: string) => `Tanggal Transaksi,Keterangan,Cabang,Jumlah\n${s}\n`;
    expectRefused(bca, withLine('02/01/2026,x,0,"1,000.50 CR"'), 'invalid_row', 'Jumlah', 2);
    expectRefused(bca, withLine('02/01,x,0,"1,000.00 CR"'), 'invalid_row', 'Tanggal Transaksi', 2);
    expectRefused(bca, withLine('02/01/2026,x,0,"1,000.00"'), 'invalid_row', 'Jumlah', 2);
    expectRefused(bca, withLine('Saldo Awal,:,1\n02/01/2026,x,0,1.00 CR'), 'invalid_row', 'Tanggal Transaksi', 3);
    expectRefused(
      bca,
      `${'x\n'.repeat(21)}Tanggal Transaksi,Keterangan,Cabang,Jumlah\n`,
      'invalid_header',
      'Tanggal Transaksi',
    );
    expectRefused(bca, 'Tanggal Transaksi,Keterangan,Jumlah\n', 'invalid_header', 'Cabang');
    expect(
      parse(bca, `${'x\n'.repeat(20)}Tanggal Transaksi,Keterangan,Cabang,Jumlah\n02/01/2026,x,0,1.00 CR\n`).rows,
    ).toHaveLength(1);
  });
});

describe('bca_personal (KlikBCA Individu)', () => {
  const personal = bankOf('bca_personal');
  it('drops the leading quote mark of the date, reads the fifth column and the balance', () => {
    const file = `Date,Description,Branch,Amount,,Balance\n'02/01/2026,TRSF XENDIT S-1,'0000,"142,105.00",CR,"1,142,105.00"\nPEND,x,'0000,1.00,CR,\n`;
    const { rows, skipped } = parse(personal, file);
    expect(skipped).toBe(1);
    expect(rows).toEqual([
      expect.objectContaining({
        line: 2,
        valueDate: '2026-01-02',
        direction: 'credit',
        amount: 142105,
        balanceAfter: 1142105,
      }),
    ]);
  });

  it('refuses a date without a year and a bad mark', () => {
    const head = 'Date,Description,Branch,Amount,,Balance\n';
    expectRefused(personal, `${head}'02/01,x,'0000,1.00,CR,\n`, 'invalid_row', 'Date', 2);
    expectRefused(personal, `${head}'02/01/2026,x,'0000,1.00,XX,\n`, 'invalid_row', 'Amount', 2);
  });
});

const mandiriHeader = 'Account No,Date,Val. Date,Transaction Code,Description,Description,Reference No.,Debit,Credit';

describe('mandiri (MCM)', () => {
  const mandiri = bankOf('mandiri');
  it('joins the descriptions, reads the non-zero side, checks the account', () => {
    const file = `${mandiriHeader}\n'1234567890,02/01/2026,03/01/26,1234,TRANSFER XENDIT,S-1,REF1,.00,"142,105.00"\n1234567890,03/01/2026,03/01/26,5678,BIAYA ADM,,,"6,500.00",0.00\n`;
    const rows = parse(mandiri, file).rows as BankRowInput[];
    expect(rows.map((r) => [r.valueDate, r.direction, r.amount, r.description, r.reference])).toEqual([
      ['2026-01-03', 'credit', 142105, 'TRANSFER XENDIT S-1', 'REF1'],
      ['2026-01-03', 'debit', 6500, 'BIAYA ADM', null],
    ]);
  });

  it('refuses another account, both sides set or none, and a bad value date', () => {
    const line = (s: string) => `${mandiriHeader}\n${s}\n`;
    expectRefused(mandiri, line('999,02/01/2026,02/01/26,1,a,b,,.00,1.00'), 'invalid_row', 'Account No', 2);
    expectRefused(mandiri, line('1234567890,02/01/2026,02/01/26,1,a,b,,1.00,1.00'), 'invalid_row', 'Debit', 2);
    expectRefused(mandiri, line('1234567890,02/01/2026,02/01/26,1,a,b,,.00,.00'), 'invalid_row', 'Debit', 2);
    expectRefused(mandiri, line('1234567890,02/01/2026,2026-01-02,1,a,b,,.00,1.00'), 'invalid_row', 'Val. Date', 2);
    expectRefused(mandiri, line('1234567890,02/01/2026,02/01/26,1,a,b,,.00,1.5'), 'invalid_row', 'Credit', 2);
    expectRefused(mandiri, 'Account No,Date,Val. Date\n', 'invalid_header', 'Transaction Code');
  });
});

const mt940 = [
  '{1:F01BANKIDJAXXX0000000000}{2:I940BANKIDJAXXXXN}{4:',
  ':20:STMT1',
  ':25:BMRIIDJA/123-456-7890',
  ':28C:1/1',
  ':60F:C260101IDR1000000,00',
  ':61:2601020102C142105,00NTRFS-1//B0001',
  ':86:TRSF XENDIT SETTLEMENT',
  ' S-1',
  ':61:260103D6500,NMSCNONREF',
  ':86:BIAYA ADM',
  ':61:260103RD100,NTRFNONREF',
  ':62F:C260103IDR1135705,00',
  '-}',
].join('\r\n');

describe('mt940', () => {
  const opts = bankOf('mt940');
  it('reads the statement lines with their :86: text, references and marks', () => {
    const rows = parse(opts, mt940).rows as BankRowInput[];
    expect(rows).toEqual([
      {
        line: 6,
        lineId: 'B0001',
        valueDate: '2026-01-02',
        direction: 'credit',
        amount: 142105,
        currency: 'IDR',
        description: 'TRSF XENDIT SETTLEMENT S-1',
        reference: 'S-1',
        balanceAfter: null,
        rowKey: 'id:B0001',
      },
      expect.objectContaining({ line: 9, lineId: null, direction: 'debit', amount: 6500, description: 'BIAYA ADM' }),
      expect.objectContaining({ line: 11, direction: 'credit', amount: 100, description: '', reference: null }),
    ]);
    expect(rows[1].rowKey).toBe(`h:2026-01-03:debit:6500:IDR:${sha('BIAYA ADM\u0000')}:1`);
  });

  it('gives the same rows at every split', () => {
    const data = bytes(mt940);
    const whole = parse(opts, data).rows;
    for (let at = 0; at <= data.length; at++) expect(parseSplit(opts, data, at).rows).toEqual(whole);
  });

  it('refuses a closing balance that is not opening plus the lines, after reading every line', () => {
    const wrong = mt940.replace(':62F:C260103IDR1135705,00', ':62F:C260103IDR1135706,00');
    expectRefused(opts, wrong, 'invalid_file', ':62F:', 12);
    const wrongThenBadRow = `${wrong}\r\n:20:S2\r\n:25:1234567890\r\n:60F:C260103IDR0,\r\n:61:260104C1,5NTRFX\r\n:62F:C260104IDR1,\r\n`;
    expectRefused(opts, wrongThenBadRow, 'invalid_row', ':61:', 17);
    expectRefused(opts, mt940.replace(':62F:C260103IDR1135705,00\r\n', ''), 'invalid_file', ':62F:');
  });

  it('refuses another account, a missing :25:, a missing opening balance, decimals IDR lacks', () => {
    expectRefused(bankOf('mt940', '999'), mt940, 'invalid_file', ':25:', 3);
    expectRefused(opts, mt940.replace(':25:BMRIIDJA/123-456-7890\r\n', ''), 'invalid_file', ':25:', 4);
    expectRefused(opts, mt940.replace(':60F:C260101IDR1000000,00\r\n', ''), 'invalid_file', ':60F:', 5);
    expectRefused(opts, mt940.replace('C142105,00NTRF', 'C142105,50NTRF'), 'invalid_row', ':61:', 6);
    expectRefused(opts, mt940.replace('260103D6500,', '260199D6500,'), 'invalid_row', ':61:', 9);
  });

  it('reads several statements, each checked, and keeps statement-level :86: text off the lines', () => {
    const two = `${mt940}\r\n:20:STMT2\r\n:25:1234567890\r\n:60F:C260103IDR1135705,00\r\n:61:260104C5,NTRFNONREF//B0002\r\n:86:SECOND\r\n:62F:C260104IDR1135710,00\r\n:86:STATEMENT INFO\r\n`;
    const rows = parse(opts, two).rows as BankRowInput[];
    expect(rows.map((r) => [r.line, r.lineId, r.amount, r.description])).toEqual([
      [6, 'B0001', 142105, 'TRSF XENDIT SETTLEMENT S-1'],
      [9, null, 6500, 'BIAYA ADM'],
      [11, null, 100, ''],
      [17, 'B0002', 5, 'SECOND'],
    ]);
    expectRefused(opts, two.replace('1135710,00', '1135711,00'), 'invalid_file', ':62F:', 19);
    expectRefused(opts, two.replace(':25:1234567890', ':25:X/1234567899'), 'invalid_file', ':25:', 15);
  });

  it('accepts zero decimals past the exponent and a USD statement in cents', () => {
    const usd = ':20:S\n:25:1234567890\n:60F:D260101USD10,5\n:61:260102C1,250NTRFX\n:62F:D260102USD9,25\n';
    expect(parse(opts, usd).rows).toEqual([expect.objectContaining({ amount: 125, currency: 'USD' })]);
  });
});
