// Credit note edges (docs/architecture.md, "Edges"): each a batched read in the caller's tenant.
import { builder } from '../../src/graphql/builder.ts';
import { Invoice } from '../../src/modules/invoices/schema.ts';
import { creditNotesOfInvoice } from '../../src/modules/credit-notes/loaders.ts';
import { CreditNote } from '../../src/modules/credit-notes/schema.ts';

builder.objectFields(Invoice, (t) => ({
  creditNotes: t.field({
    type: [CreditNote],
    resolve: (r, _, ctx, info) => creditNotesOfInvoice(ctx, r.id, info),
  }),
}));
