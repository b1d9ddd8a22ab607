// The last step of every provider format: the stored description is cut to 500 characters, the content hash
// reads the full one (docs/reconciliation.md, Content hash).
import { hashProviderRow } from './hash.ts';
import type { ProviderRowInput } from './types.ts';
import { truncateChars } from './values.ts';

export const maxDescription = 500;

/**
 * Completes a row built with its full description and an empty `contentHash`: hashes it, then cuts the stored
 * description (the row is changed in place: one object per row on the hot path).
 */
export function finishProviderRow(row: ProviderRowInput): ProviderRowInput {
  row.contentHash = hashProviderRow(row, row.description);
  if (row.description !== null) row.description = truncateChars(row.description, maxDescription);
  return row;
}
