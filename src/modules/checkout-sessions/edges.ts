// CheckoutSession's edges (docs/architecture.md, "Edges"): each a batched read in the caller's tenant.
import { builder } from '../../graphql/builder.ts';
import { Customer } from '../customers/schema.ts';
import { customerById } from '../customers/loaders.ts';
import { PaymentMethod } from '../payment-methods/schema.ts';
import { paymentMethodById } from '../payment-methods/loaders.ts';
import { Payment } from '../payments/schema.ts';
import { paymentById } from '../payments/loaders.ts';
import { Receipt } from '../receipts/schema.ts';
import { receiptOfSession } from '../receipts/loaders.ts';
import { CheckoutSession } from './schema.ts';

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
