// Customer's edges (docs/architecture.md, "Edges"): connections with the REST lists' filters, batched per level.
import { builder } from '../../src/graphql/builder.ts';
import { CheckoutSession, listArgs as sessionListArgs } from '../../src/modules/checkout-sessions/schema.ts';
import { sessionsOfCustomer } from '../../src/modules/checkout-sessions/loaders.ts';
import { Payment, listArgs as paymentListArgs } from '../../src/modules/payments/schema.ts';
import { paymentsOfCustomer } from '../../src/modules/payments/loaders.ts';
import { ReceiptSummary, listArgs as receiptListArgs } from '../../src/modules/receipts/schema.ts';
import { receiptsOfCustomer } from '../../src/modules/receipts/loaders.ts';
import { Customer } from '../../src/modules/customers/schema.ts';

// The customer is the parent: its id is not an argument (nor the mode: an edge stays in the caller's).
const { customerId: _p, ...paymentArgs } = paymentListArgs;
const { customerId: _s, mode: _m, ...sessionArgs } = sessionListArgs;
const { customerId: _r, ...receiptArgs } = receiptListArgs;

builder.objectFields(Customer, (t) => ({
  payments: t.connection({
    type: Payment,
    args: paymentArgs,
    extensions: paymentsOfCustomer.extensions,
    resolve: (c, args, ctx, info) => paymentsOfCustomer(ctx, c.id, args, info),
  }),
  checkoutSessions: t.connection({
    type: CheckoutSession,
    args: sessionArgs,
    extensions: sessionsOfCustomer.extensions,
    resolve: (c, args, ctx, info) => sessionsOfCustomer(ctx, c.id, args, info),
  }),
  receipts: t.connection({
    type: ReceiptSummary,
    args: receiptArgs,
    extensions: receiptsOfCustomer.extensions,
    resolve: (c, args, ctx, info) => receiptsOfCustomer(ctx, c.id, args, info),
  }),
}));
