// Credit note edges (docs/architecture.md, "Edges"): each a batched read in the caller's tenant.
import { builder } from '../../graphql/builder.ts';
import { Invoice } from '../invoices/schema.ts';
import { creditNotesOfInvoice } from './loaders.ts';
import { CreditNote } from './schema.ts';

builder.objectFields(Invoice, (t) => ({
  creditNotes: t.field({
    type: [CreditNote],
    resolve: (r, _, ctx, info) => creditNotesOfInvoice(ctx, r.id, info),
  }),
}));
