import { defineList, eq, oneOfValues } from '../../core/list-spec.ts';
import { listPageSize } from '../../core/pagination.ts';
import type { ListEntriesArgs } from './schema.ts';

export const sourceTypes = ['checkout_session', 'invoice', 'refund', 'payout', 'adjustment', 'dispute'] as const;

/** GET /v1/ledger/entries and GraphQL `ledgerEntries`: exact filters, keyset on (postedAt, id). */
export const entryList = defineList<ListEntriesArgs, 'postedAt'>({
  resource: 'ledger',
  position: 'postedAt',
  limit: listPageSize.ledgerEntries,
  filters: { txId: eq(), code: eq(), sourceType: oneOfValues(sourceTypes), sourceId: eq() },
});
