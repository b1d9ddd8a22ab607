// CheckoutSession's edges (docs/architecture.md, "Edges"): each a batched read in the caller's tenant.
import { builder } from '../../src/graphql/builder.ts';
import { Customer } from '../../src/modules/customers/schema.ts';
import { customerById } from '../../src/modules/customers/loaders.ts';
import { PaymentMethod } from '../../src/modules/payment-methods/schema.ts';
import { paymentMethodById } from '../../src/modules/payment-methods/loaders.ts';
import { Payment } from '../../src/modules/payments/schema.ts';
import { paymentById } from '../../src/modules/payments/loaders.ts';
import { Receipt } from '../../src/modules/receipts/schema.ts';
import { receiptOfSession } from '../../src/modules/receipts/loaders.ts';
import { CheckoutSession } from '../../src/modules/checkout-sessions/schema.ts';

builder.objectFields(CheckoutSession, (t) => ({
  payment: t.field({
    type: Payment,
    nullable: true,
    resolve: (s, _, ctx, info) => paymentById(ctx, s.paymentId, info),
  }),
  customer: t.field({
    type: Customer,
    nullable: true,
    resolve: (s, _, ctx, info) => customerById(ctx, s.customerId, info),
  }),
  receipt: t.field({ type: Receipt, nullable: true, resolve: (s, _, ctx, info) => receiptOfSession(ctx, s.id, info) }),
  savedPaymentMethod: t.field({
    type: PaymentMethod,
    nullable: true,
    description: "The method this session saved with the customer's consent (savedPaymentMethodId); null until then.",
    resolve: (s, _, ctx, info) =>
      s.savedPaymentMethodId ? paymentMethodById(ctx, s.savedPaymentMethodId, info) : null,
  }),
}));
