// What the native CSV exports share (docs/reconciliation.md, Native bank statements): a header found among the
// first lines and matched loosely, day-first dates, and trailing summary lines.
import { headerError } from './header.ts';
import { isCalendarDate, rowError } from './values.ts';

/** The header of a bank export may follow this many lines of account details. */
export const maxPreambleLines = 20;

/** A native cell as read: trimmed, quotes dropped. */
export function cleanCell(cell: string | undefined): string {
  if (cell === undefined) return '';
  return cell.indexOf('"') < 0 ? cell.trim() : cell.replaceAll('"', '').trim();
}

/**
 * Finds a positional header: the first record whose first cell matches the first expected name opens it, and
 * each expected name must then match its cell (case-insensitive; trailing empty cells allowed). Returns whether
 * `cells` is the header; refuses a record that starts like the header and differs, or no header in time.
 */
export function matchPositionalHeader(cells: string[], line: number, expected: readonly string[]): boolean {
  const keys = cells.map((c) => cleanCell(c).toLowerCase());
  if (keys[0] !== expected[0].toLowerCase()) {
    if (line > maxPreambleLines) throw headerError(expected[0], `no "${expected.join(',')}" header in the first lines`);
    return false;
  }
  expected.forEach((name, k) => {
    if (keys[k] !== name.toLowerCase()) throw headerError(name || `(column ${k + 1})`, `expected column "${name}"`);
  });
  for (let k = expected.length; k < keys.length; k++)
    if (keys[k] !== '') throw headerError(cleanCell(cells[k]), `unexpected column "${cleanCell(cells[k])}"`);
  return true;
}

/** An account number as compared: letters and digits only (exports write `'123-45` or `123 45`). */
export function normalizeAccount(text: string): string {
  return text.replace(/[^0-9A-Za-z]/g, '');
}

/** A record whose cells are all empty (`,,,,` lines some exports write). */
export function isEmptyRecord(cells: string[]): boolean {
  for (const c of cells) if (cleanCell(c) !== '') return false;
  return true;
}

const summaryStarts = ['saldo awal', 'mutasi kredit', 'mutasi debet', 'saldo akhir'];

/** A KlikBCA closing summary line (`Saldo Awal`, `Mutasi Kredit`, `Mutasi Debet`, `Saldo Akhir`). */
export function isSummaryLine(cells: string[]): boolean {
  const first = cleanCell(cells[0]).toLowerCase();
  return summaryStarts.some((s) => first.startsWith(s));
}

/**
 * `DD/MM/YYYY` (or `DD/MM/YY`, years 2000-2099, when `shortYear`) as `YYYY-MM-DD`. A date without a year is
 * refused: the year cannot be known from the line.
 */
export function parseDayFirstDate(text: string, field: string, line: number, shortYear = false): string {
  const m = (shortYear ? /^([0-9]{2})\/([0-9]{2})\/([0-9]{2})$/ : /^([0-9]{2})\/([0-9]{2})\/([0-9]{4})$/).exec(text);
  if (!m) throw rowError(field, line, `"${text}" is not a ${shortYear ? 'DD/MM/YY' : 'DD/MM/YYYY'} date`);
  const y = shortYear ? 2000 + Number(m[3]) : Number(m[3]);
  if (!isCalendarDate(y, Number(m[2]), Number(m[1]))) throw rowError(field, line, `"${text}" is not a calendar day`);
  return `${String(y).padStart(4, '0')}-${m[2]}-${m[1]}`;
}

/** Checks each record's cell count against the header (extra empty cells at the end are allowed). */
export function checkCellCount(cells: string[], header: readonly string[], line: number): void {
  if (cells.length < header.length)
    throw rowError(
      header[cells.length] || header[0],
      line,
      `${cells.length} cells where the header has ${header.length}`,
    );
  for (let k = header.length; k < cells.length; k++)
    if (cleanCell(cells[k]) !== '') throw rowError(header[header.length - 1], line, 'more cells than the header has');
}
