// Payment's edges (docs/architecture.md, "Edges"): each a batched read in the caller's tenant.
import { builder } from '../../graphql/builder.ts';
import { CheckoutSession } from '../checkout-sessions/schema.ts';
import { sessionById } from '../checkout-sessions/loaders.ts';
import { Customer } from '../customers/schema.ts';
import { customerById } from '../customers/loaders.ts';
import { LedgerEntry } from '../ledger/schema.ts';
import { entriesOfSession } from '../ledger/loaders.ts';
import { Receipt } from '../receipts/schema.ts';
import { receiptOfSession } from '../receipts/loaders.ts';
import { Refund, listArgs as refundListArgs } from '../refunds/schema.ts';
import { refundsOfPayment } from '../refunds/loaders.ts';
import { Payment } from './schema.ts';

const { chargeId: _payment, ...refundArgs } = refundListArgs;

builder.objectFields(Payment, (t) => ({
  customer: t.field({ type: Customer, nullable: true, resolve: (p, _, ctx) => customerById(ctx, p.customerId) }),
  checkoutSession: t.field({
    type: CheckoutSession,
    nullable: true,
    resolve: (p, _, ctx) => sessionById(ctx, p.checkoutSessionId),
  }),
  refunds: t.connection({ type: Refund, args: refundArgs, resolve: (p, args, ctx) => refundsOfPayment(ctx, p.id, args) }),
  receipt: t.field({ type: Receipt, nullable: true, resolve: (p, _, ctx) => receiptOfSession(ctx, p.checkoutSessionId) }),
  ledgerEntries: t.field({
    type: [LedgerEntry],
    description: 'The entries its capture posted, oldest first.',
    resolve: (p, _, ctx) => entriesOfSession(ctx, p.checkoutSessionId),
  }),
}));
