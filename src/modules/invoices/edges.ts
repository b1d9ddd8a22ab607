// Invoice's edges (docs/architecture.md, "Edges"): each a batched read in the caller's tenant.
import { builder } from '../../graphql/builder.ts';
import { Customer } from '../customers/schema.ts';
import { customerById } from '../customers/loaders.ts';
import { Payment } from '../payments/schema.ts';
import { paymentsOfInvoice } from '../payments/loaders.ts';
import { Receipt } from '../receipts/schema.ts';
import { receiptOfInvoice } from '../receipts/loaders.ts';
import { Invoice } from './schema.ts';

builder.objectFields(Invoice, (t) => ({
  customer: t.field({
    type: Customer,
    nullable: true,
    resolve: (r, _, ctx, info) => customerById(ctx, r.customerId, info),
  }),
  payments: t.field({ type: [Payment], resolve: (r, _, ctx, info) => paymentsOfInvoice(ctx, r.id, info) }),
  receipt: t.field({ type: Receipt, nullable: true, resolve: (r, _, ctx, info) => receiptOfInvoice(ctx, r.id, info) }),
}));
