// SetupSession's edges (docs/architecture.md, "Edges"): batched reads in the caller's tenant.
import { builder } from '../../src/graphql/builder.ts';
import { Customer } from '../../src/modules/customers/schema.ts';
import { customerById } from '../../src/modules/customers/loaders.ts';
import { paymentMethodById } from '../../src/modules/payment-methods/loaders.ts';
import { PaymentMethod } from '../../src/modules/payment-methods/schema.ts';
import { SetupSession } from '../../src/modules/setup-sessions/schema.ts';

builder.objectFields(SetupSession, (t) => ({
  customer: t.field({
    type: Customer,
    nullable: true,
    resolve: (s, _, ctx, info) => customerById(ctx, s.customerId, info),
  }),
  paymentMethod: t.field({
    type: PaymentMethod,
    nullable: true,
    description: 'The method the session saved; null until completed.',
    resolve: (s, _, ctx, info) => (s.paymentMethodId ? paymentMethodById(ctx, s.paymentMethodId, info) : null),
  }),
}));
