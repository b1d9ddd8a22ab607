// Payment's edges (docs/architecture.md, "Edges"): each a batched read in the caller's tenant.
import { builder } from '../../src/graphql/builder.ts';
import { CheckoutSession } from '../../src/modules/checkout-sessions/schema.ts';
import { sessionById } from '../../src/modules/checkout-sessions/loaders.ts';
import { Customer } from '../../src/modules/customers/schema.ts';
import { customerById } from '../../src/modules/customers/loaders.ts';
import { LedgerEntry } from '../../src/modules/ledger/schema.ts';
import { entriesOfInvoice, entriesOfSession } from '../../src/modules/ledger/loaders.ts';
import { Receipt } from '../../src/modules/receipts/schema.ts';
import { receiptOfInvoice, receiptOfSession } from '../../src/modules/receipts/loaders.ts';
import { Refund, listArgs as refundListArgs } from '../../src/modules/refunds/schema.ts';
import { refundsOfPayment } from '../../src/modules/refunds/loaders.ts';
import { Payment } from '../../src/modules/payments/schema.ts';

const { chargeId: _payment, ...refundArgs } = refundListArgs;

builder.objectFields(Payment, (t) => ({
  customer: t.field({
    type: Customer,
    nullable: true,
    resolve: (p, _, ctx, info) => customerById(ctx, p.customerId, info),
  }),
  checkoutSession: t.field({
    type: CheckoutSession,
    nullable: true,
    resolve: (p, _, ctx, info) => sessionById(ctx, p.checkoutSessionId, info),
  }),
  refunds: t.connection({
    type: Refund,
    args: refundArgs,
    extensions: refundsOfPayment.extensions,
    resolve: (p, args, ctx, info) => refundsOfPayment(ctx, p.id, args, info),
  }),
  receipt: t.field({
    type: Receipt,
    nullable: true,
    // A paid invoice's payment has the invoice's receipt, even when a checkout session carried it.
    resolve: (p, _, ctx, info) =>
      p.invoiceId ? receiptOfInvoice(ctx, p.invoiceId, info) : receiptOfSession(ctx, p.checkoutSessionId, info),
  }),
  ledgerEntries: t.field({
    type: [LedgerEntry],
    description: 'The entries its capture posted (under its invoice when it paid one), oldest first.',
    resolve: (p, _, ctx, info) =>
      p.invoiceId ? entriesOfInvoice(ctx, p.invoiceId, info) : entriesOfSession(ctx, p.checkoutSessionId, info),
  }),
}));
