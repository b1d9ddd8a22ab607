// The cells of one data record against its header: a record with fewer or more cells than the header is refused
// before any value is read (docs/reconciliation.md, Dialect).
import { rowError } from './values.ts';

/**
 * Puts the record's cells in canonical order into `into` ('' for an absent column), reused from row to row (no
 * allocation per row); refuses a short or long record.
 */
export function orderCells(
  cells: string[],
  indexes: Int32Array,
  headerNames: readonly string[],
  line: number,
  into: string[],
): string[] {
  if (cells.length !== headerNames.length) {
    const field = headerNames[Math.min(cells.length, headerNames.length - 1)];
    throw rowError(field, line, `${cells.length} cells where the header has ${headerNames.length}`);
  }
  for (let k = 0; k < indexes.length; k++) into[k] = indexes[k] < 0 ? '' : cells[indexes[k]];
  return into;
}

/** Refuses the first empty required cell, in canonical order. */
export function requireCells(values: string[], canonical: readonly string[], required: Uint8Array, line: number) {
  for (let k = 0; k < values.length; k++)
    if (required[k] === 1 && values[k] === '') throw rowError(canonical[k], line, `${canonical[k]} is empty`);
}
