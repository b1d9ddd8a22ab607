// The last step of every provider format: the stored description is cut to 500 characters, the content hash
// reads the full one (docs/reconciliation.md, Content hash).
import { providerContentHash } from './hash.ts';
import type { ProviderRowInput } from './types.ts';
import { truncateChars } from './values.ts';

export const maxDescription = 500;

export type ProviderFields = Omit<ProviderRowInput, 'line' | 'contentHash'>;

/** The staged row of `fields` (whose `description` is the full text) found on `line`. */
export function providerRow(line: number, fields: ProviderFields): ProviderRowInput {
  const full = fields.description;
  const contentHash = providerContentHash(fields, full);
  const description = full === null ? null : truncateChars(full, maxDescription);
  return { line, ...fields, description, contentHash };
}
