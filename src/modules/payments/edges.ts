// Payment's edges (docs/architecture.md, "Edges"): each a batched read in the caller's tenant.
import { builder } from '../../graphql/builder.ts';
import { CheckoutSession } from '../checkout-sessions/schema.ts';
import { sessionById } from '../checkout-sessions/loaders.ts';
import { Customer } from '../customers/schema.ts';
import { customerById } from '../customers/loaders.ts';
import { LedgerEntry } from '../ledger/schema.ts';
import { entriesOfInvoice, entriesOfSession } from '../ledger/loaders.ts';
import { Receipt } from '../receipts/schema.ts';
import { receiptOfInvoice, receiptOfSession } from '../receipts/loaders.ts';
import { Refund, listArgs as refundListArgs } from '../refunds/schema.ts';
import { refundsOfPayment } from '../refunds/loaders.ts';
import { Payment } from './schema.ts';

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
