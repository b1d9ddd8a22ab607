// Invoice's edges (docs/architecture.md, "Edges"): each a batched read in the caller's tenant.
import { builder } from '../../src/graphql/builder.ts';
import { Customer } from '../../src/modules/customers/schema.ts';
import { customerById } from '../../src/modules/customers/loaders.ts';
import { Payment } from '../../src/modules/payments/schema.ts';
import { paymentsOfInvoice } from '../../src/modules/payments/loaders.ts';
import { Receipt } from '../../src/modules/receipts/schema.ts';
import { receiptOfInvoice } from '../../src/modules/receipts/loaders.ts';
import { Invoice } from '../../src/modules/invoices/schema.ts';

builder.objectFields(Invoice, (t) => ({
  customer: t.field({
    type: Customer,
    nullable: true,
    resolve: (r, _, ctx, info) => customerById(ctx, r.customerId, info),
  }),
  payments: t.field({ type: [Payment], resolve: (r, _, ctx, info) => paymentsOfInvoice(ctx, r.id, info) }),
  receipt: t.field({ type: Receipt, nullable: true, resolve: (r, _, ctx, info) => receiptOfInvoice(ctx, r.id, info) }),
}));
