// Payment methods' edges (docs/architecture.md, "Edges"): batched reads in the caller's tenant.
import { builder } from '../../src/graphql/builder.ts';
import { Customer } from '../../src/modules/customers/schema.ts';
import { customerById } from '../../src/modules/customers/loaders.ts';
import { Payment } from '../../src/modules/payments/schema.ts';
import { Subscription } from '../../src/modules/subscriptions/schema.ts';
import { listArgs, PaymentMethod } from '../../src/modules/payment-methods/schema.ts';
import { paymentMethodById, paymentMethodsOfCustomer } from '../../src/modules/payment-methods/loaders.ts';

const { customerId: _c, ...customerMethodArgs } = listArgs;
/** A subscription's `paymentMethod` string names a saved method when it is a `pm_` id (not a fixed test token). */
const savedId = (value: string | null) => (value?.startsWith('pm_') && !value.startsWith('pm_test_') ? value : null);

builder.objectFields(PaymentMethod, (t) => ({
  customer: t.field({
    type: Customer,
    nullable: true,
    resolve: (m, _, ctx, info) => customerById(ctx, m.customerId, info),
  }),
}));

builder.objectFields(Customer, (t) => ({
  paymentMethods: t.connection({
    type: PaymentMethod,
    args: customerMethodArgs,
    extensions: paymentMethodsOfCustomer.extensions,
    resolve: (c, args, ctx, info) => paymentMethodsOfCustomer(ctx, c.id, args, info),
  }),
  defaultPaymentMethod: t.field({
    type: PaymentMethod,
    nullable: true,
    resolve: (c, _, ctx, info) =>
      c.defaultPaymentMethodId ? paymentMethodById(ctx, c.defaultPaymentMethodId, info) : null,
  }),
}));

builder.objectFields(Subscription, (t) => ({
  savedPaymentMethod: t.field({
    type: PaymentMethod,
    nullable: true,
    description: 'The saved method paymentMethod names; null for the fixed test tokens and when null.',
    resolve: (s, _, ctx, info) => {
      const id = savedId(s.paymentMethod);
      return id ? paymentMethodById(ctx, id, info) : null;
    },
  }),
}));

builder.objectFields(Payment, (t) => ({
  paymentMethod: t.field({
    type: PaymentMethod,
    nullable: true,
    description:
      'The saved method an off-session charge used, or the one a checkout payment saved; null for the fixed test tokens and one-off payments.',
    resolve: (p, _, ctx, info) => {
      const id = savedId(p.paymentMethodId);
      return id ? paymentMethodById(ctx, id, info) : null;
    },
  }),
}));
