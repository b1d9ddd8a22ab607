// Refund's edges (docs/architecture.md, "Edges"): each a batched read in the caller's tenant.
import { builder } from '../../src/graphql/builder.ts';
import { Payment } from '../../src/modules/payments/schema.ts';
import { paymentById } from '../../src/modules/payments/loaders.ts';
import { Refund } from '../../src/modules/refunds/schema.ts';

builder.objectFields(Refund, (t) => ({
  payment: t.field({
    type: Payment,
    nullable: true,
    resolve: (r, _, ctx, info) => paymentById(ctx, r.paymentId, info),
  }),
}));
