// KlikBCA statements (docs/reconciliation.md, Native bank statements): `bca` (Bisnis) carries the direction in
// its amount cell (`1,234.00 CR`), `bca_personal` (Individu) in an unnamed fifth column; `PEND` lines are counted,
// not booked.
import { BankRowKeys } from './bank-row.ts';
import { type RecordFormat, headerError } from './header.ts';
import {
  checkCellCount,
  parseDayFirstDate,
  isEmptyRecord,
  isSummaryLine,
  matchPositionalHeader,
  cleanCell,
} from './native.ts';
import type { BankRowInput, RowInput } from './types.ts';
import { parseDecimal, rowError } from './values.ts';

const bisnisHeader = ['Tanggal Transaksi', 'Keterangan', 'Cabang', 'Jumlah'] as const;
const personalHeader = ['Date', 'Description', 'Branch', 'Amount', '', 'Balance'] as const;

/** `1,234,567.00` in parseRupiah (`.00` only), else null; `signed` allows a leading minus (balances). */
function parseRupiah(text: string, signed = false): number | null {
  const negative = signed && text.startsWith('-');
  const n = parseDecimal(negative ? text.slice(1) : text, 'IDR');
  return n === null ? null : negative ? -n : n;
}

function parseMark(mark: string): 'credit' | 'debit' | null {
  const m = mark.toUpperCase();
  return m === 'CR' ? 'credit' : m === 'DB' ? 'debit' : null;
}

export class BcaFormat implements RecordFormat {
  skipped = 0;
  private header = false;
  private summary = false;
  private readonly keys = new BankRowKeys('Tanggal Transaksi');
  private readonly names: readonly string[];

  constructor(private readonly personal: boolean) {
    this.names = personal ? personalHeader : bisnisHeader;
  }

  record(cells: string[], line: number, out: RowInput[]): void {
    if (!this.header) {
      this.header = matchPositionalHeader(cells, line, this.names);
      return;
    }
    if (isEmptyRecord(cells)) return;
    if (this.summary || isSummaryLine(cells)) {
      this.summary = true;
      if (!isSummaryLine(cells)) throw rowError(this.names[0], line, 'a statement line after the closing summary');
      return;
    }
    const row = this.personal ? this.personalRow(cells, line) : this.bisnisRow(cells, line);
    if (row) out.push(row);
  }

  end(): void {
    if (!this.header) throw headerError(this.names[0], `no "${this.names.join(',')}" header in the file`);
  }

  /** The date cell, or null for a `PEND` line (counted as skipped). */
  private date(cell: string, field: string, line: number): string | null {
    const text = cleanCell(cell).replace(/^'/, '');
    if (text.toUpperCase() === 'PEND') {
      this.skipped++;
      return null;
    }
    return parseDayFirstDate(text, field, line);
  }

  private bisnisRow(cells: string[], line: number): BankRowInput | null {
    checkCellCount(cells, bisnisHeader, line);
    const valueDate = this.date(cells[0], 'Tanggal Transaksi', line);
    if (valueDate === null) return null;
    const m = /^(.*?)\s*(CR|DB)$/i.exec(cleanCell(cells[3]));
    const amount = m ? parseRupiah(m[1]) : null;
    if (!m || amount === null || amount <= 0)
      throw rowError('Jumlah', line, `"${cleanCell(cells[3])}" is not a parseRupiah amount with CR or DB`);
    return this.keys.row(line, {
      lineId: null,
      valueDate,
      direction: parseMark(m[2])!,
      amount,
      currency: 'IDR',
      description: cleanCell(cells[1]),
      reference: null,
      balanceAfter: null,
    });
  }

  private personalRow(cells: string[], line: number): BankRowInput | null {
    checkCellCount(cells, personalHeader, line);
    const valueDate = this.date(cells[0], 'Date', line);
    if (valueDate === null) return null;
    const amount = parseRupiah(cleanCell(cells[3]));
    if (amount === null || amount <= 0)
      throw rowError('Amount', line, `"${cleanCell(cells[3])}" is not a positive parseRupiah amount`);
    const dir = parseMark(cleanCell(cells[4]));
    if (dir === null) throw rowError('Amount', line, `"${cleanCell(cells[4])}" is neither CR nor DB`);
    const balanceText = cleanCell(cells[5]);
    const balanceAfter = balanceText === '' ? null : parseRupiah(balanceText, true);
    if (balanceText !== '' && balanceAfter === null)
      throw rowError('Balance', line, `"${balanceText}" is not a parseRupiah amount`);
    return this.keys.row(line, {
      lineId: null,
      valueDate,
      direction: dir,
      amount,
      currency: 'IDR',
      description: cleanCell(cells[1]),
      reference: null,
      balanceAfter,
    });
  }
}
