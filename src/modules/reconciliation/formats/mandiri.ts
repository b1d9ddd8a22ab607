// Mandiri Cash Management statements (docs/reconciliation.md, Native bank statements): two `Description` cells
// joined, a debit and a credit column of which exactly one is non-zero, and the account on every line.
import { BankRowKeys } from './bank-row.ts';
import { type RecordFormat, headerError } from './header.ts';
import {
  checkCellCount,
  cleanCell,
  isEmptyRecord,
  matchPositionalHeader,
  normalizeAccount,
  parseDayFirstDate,
} from './native.ts';
import type { RowInput } from './types.ts';
import { parseDecimal, rowError } from './values.ts';

const header = [
  'Account No',
  'Date',
  'Val. Date',
  'Transaction Code',
  'Description',
  'Description',
  'Reference No.',
  'Debit',
  'Credit',
] as const;

export class MandiriFormat implements RecordFormat {
  readonly skipped = 0;
  private header = false;
  private readonly keys = new BankRowKeys('Reference No.');
  private readonly account: string;

  constructor(bankAccountNumber: string) {
    this.account = normalizeAccount(bankAccountNumber);
  }

  record(cells: string[], line: number, out: RowInput[]): void {
    if (!this.header) {
      this.header = matchPositionalHeader(cells, line, header);
      return;
    }
    if (isEmptyRecord(cells)) return;
    checkCellCount(cells, header, line);
    const v = cells.map(cleanCell);
    if (normalizeAccount(v[0]) !== this.account)
      throw rowError('Account No', line, `account "${v[0]}" is not the statement's account`);
    const valueDate = parseDayFirstDate(v[2], 'Val. Date', line, true);
    const debit = this.amount(v[7], 'Debit', line);
    const credit = this.amount(v[8], 'Credit', line);
    if ((debit === 0) === (credit === 0))
      throw rowError('Debit', line, 'exactly one of Debit and Credit must be non-zero');
    out.push(
      this.keys.row(line, {
        lineId: null,
        valueDate,
        direction: credit > 0 ? 'credit' : 'debit',
        amount: credit > 0 ? credit : debit,
        currency: 'IDR',
        description: `${v[4]} ${v[5]}`.trim(),
        reference: v[6] || null,
        balanceAfter: null,
      }),
    );
  }

  end(): void {
    if (!this.header) throw headerError(header[0], `no "${header.join(',')}" header in the file`);
  }

  /** A debit or credit cell: empty or `.00` is zero. */
  private amount(text: string, field: string, line: number): number {
    if (text === '') return 0;
    const n = parseDecimal(text, 'IDR');
    if (n === null) throw rowError(field, line, `"${text}" is not a parseRupiah amount`);
    return n;
  }
}
