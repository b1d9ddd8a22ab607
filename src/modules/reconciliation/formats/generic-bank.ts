// The generic bank statement (docs/reconciliation.md, Generic bank statement): one CSV row per statement line,
// amounts positive with a direction.
import { BankRowKeys } from './bank-row.ts';
import { orderCells, requireCells } from './cells.ts';
import { fileError } from './lines.ts';
import { type RecordFormat, indexColumns } from './header.ts';
import type { RowInput } from './types.ts';
import { countChars, isKnownCurrency, parseIsoDate, parseMinor, rowError } from './values.ts';

export const genericBankColumns = [
  'line_id',
  'value_date',
  'direction',
  'amount',
  'currency',
  'description',
  'reference',
  'balance_after',
] as const;
const required = ['value_date', 'direction', 'amount', 'currency', 'description'];
/** `description` is a required column whose cell may be empty. */
const nonEmpty = Uint8Array.from(genericBankColumns, (c) => (required.includes(c) && c !== 'description' ? 1 : 0));
const C = Object.fromEntries(genericBankColumns.map((c, k) => [c, k])) as Record<
  (typeof genericBankColumns)[number],
  number
>;

export class GenericBankFormat implements RecordFormat {
  readonly skipped = 0;
  private header: string[] | null = null;
  private indexes: Int32Array = new Int32Array(0);
  private readonly values: string[] = genericBankColumns.map(() => '');
  private readonly keys = new BankRowKeys('line_id');

  record(cells: string[], line: number, out: RowInput[]): void {
    if (this.header === null) {
      this.indexes = indexColumns(cells, genericBankColumns, required);
      this.header = cells;
      return;
    }
    out.push(this.row(orderCells(cells, this.indexes, this.header, line, this.values), line));
  }

  end(): void {
    if (this.header === null) throw fileError('the file has no header row');
  }

  private row(v: string[], line: number) {
    requireCells(v, genericBankColumns, nonEmpty, line);
    const lineId = v[C.line_id] || null;
    if (lineId !== null && lineId.length > 100 && countChars(lineId) > 100)
      throw rowError('line_id', line, 'line_id is longer than 100 characters');
    if (parseIsoDate(v[C.value_date]) === null)
      throw rowError('value_date', line, `value_date "${v[C.value_date]}" is not a YYYY-MM-DD date`);
    const direction = v[C.direction];
    if (direction !== 'credit' && direction !== 'debit')
      throw rowError('direction', line, `direction "${direction}" is neither credit nor debit`);
    const amount = parseMinor(v[C.amount]);
    if (amount === null || amount <= 0)
      throw rowError('amount', line, `amount "${v[C.amount]}" is not a positive integer of minor units`);
    const currency = v[C.currency];
    if (!isKnownCurrency(currency)) throw rowError('currency', line, `unknown currency "${currency}"`);
    let balanceAfter: number | null = null;
    if (v[C.balance_after] !== '') {
      balanceAfter = parseMinor(v[C.balance_after]);
      if (balanceAfter === null)
        throw rowError('balance_after', line, `balance_after "${v[C.balance_after]}" is not an integer of minor units`);
    }
    return this.keys.row(line, {
      lineId,
      valueDate: v[C.value_date],
      direction,
      amount,
      currency,
      description: v[C.description],
      reference: v[C.reference] || null,
      balanceAfter,
    });
  }
}
