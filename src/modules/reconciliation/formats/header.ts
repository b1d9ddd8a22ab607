// Header rows of the generic formats (docs/reconciliation.md, Dialect): names exact, order free, checked as a
// duplicated column, then an unknown one, then the first missing required column in the canonical order.
import { ReconFileError, type RowInput } from './types.ts';

/** What a format does with the records after the reader: header first, rows after, whole-file checks last. */
export interface RecordFormat {
  record(cells: string[], line: number, out: RowInput[]): void;
  /** Whole-file checks of the format (a header was seen, MT940 balances); rows still held are pushed. */
  end(out: RowInput[]): void;
  readonly skipped: number;
}

export function headerError(column: string, message: string): ReconFileError {
  return new ReconFileError('invalid_header', column, message);
}

/** Each canonical column's cell index in the header (-1 when absent). */
export function indexColumns(cells: string[], canonical: readonly string[], required: readonly string[]): Int32Array {
  const seen = new Set<string>();
  for (const name of cells) {
    if (seen.has(name)) throw headerError(name, `column "${name}" appears twice in the header`);
    seen.add(name);
  }
  for (const name of cells)
    if (!canonical.includes(name)) throw headerError(name, `unknown column "${name}" in the header`);
  for (const name of required) if (!seen.has(name)) throw headerError(name, `required column "${name}" is missing`);
  return Int32Array.from(canonical, (name) => cells.indexOf(name));
}
