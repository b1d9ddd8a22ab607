import { sql } from '../../core/db/sql-template.ts';
import { manyBy, type Source } from '../../core/loaders.ts';
import type { LedgerEntry } from '../../generated/prisma/client.ts';
import type { EntryRow } from './fields.ts';

/** Batched reads of ledger entries for the graph's edges (src/core/loaders.ts). */
const entries: Source<EntryRow> = {
  table: 'ledger_entries',
  scope: 'svc:ledger:read',
  shape: (row, auth) => ({ ...(row as unknown as LedgerEntry), accountId: auth.accountId }),
};

const sourceIs = {
  checkout_session: sql` AND t."sourceType" = 'checkout_session'`,
  invoice: sql` AND t."sourceType" = 'invoice'`,
  payout: sql` AND t."sourceType" = 'payout'`,
};
const ofSource = (sourceType: keyof typeof sourceIs) =>
  manyBy(entries, { column: 'sourceId', where: sourceIs[sourceType], orderBy: sql`t."postedAt", t.id` });

/** The entries a payment's capture posted (source: its checkout session), oldest first. */
export const entriesOfSession = ofSource('checkout_session');
/** The entries an invoice's payment posted (a paid invoice is the source: docs/billing.md, Ledger), oldest first. */
export const entriesOfInvoice = ofSource('invoice');
/** The entries of a payout (claim, and settlement or reversal), oldest first. */
export const entriesOfPayout = ofSource('payout');
