// Refund's edges (docs/architecture.md, "Edges"): each a batched read in the caller's tenant.
import { builder } from '../../graphql/builder.ts';
import { Payment } from '../payments/schema.ts';
import { paymentById } from '../payments/loaders.ts';
import { Refund } from './schema.ts';

builder.objectFields(Refund, (t) => ({
  payment: t.field({
    type: Payment,
    nullable: true,
    resolve: (r, _, ctx, info) => paymentById(ctx, r.paymentId, info),
  }),
}));
