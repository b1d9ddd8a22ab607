// Payout's edges (docs/architecture.md, "Edges"): each a batched read in the caller's tenant.
import { builder } from '../../src/graphql/builder.ts';
import { LedgerEntry } from '../../src/modules/ledger/schema.ts';
import { entriesOfPayout } from '../../src/modules/ledger/loaders.ts';
import { Payout } from '../../src/modules/payouts/schema.ts';

builder.objectFields(Payout, (t) => ({
  ledgerEntries: t.field({
    type: [LedgerEntry],
    description: 'Its claim, and its settlement or reversal, oldest first.',
    resolve: (p, _, ctx, info) => entriesOfPayout(ctx, p.id, info),
  }),
}));
