import { lexicographicSortSchema } from 'graphql';
import { builder } from './builder.ts';
import './scalars.ts';
import '../modules/api-keys/schema.ts';
import '../modules/workspaces/schema.ts';
import '../modules/events/schema.ts';
import '../modules/customers/schema.ts';
import '../modules/templates/schema.ts';
import '../modules/adapters/schema.ts';
import '../modules/checkout-sessions/schema.ts';
import '../modules/payments/schema.ts';
import '../modules/receipts/schema.ts';
import '../modules/refunds/schema.ts';
import '../modules/payouts/schema.ts';
import '../modules/invoices/schema.ts';
import '../modules/invoices/documents-schema.ts';
import '../modules/ledger/schema.ts';
import '../modules/webhooks/schema.ts';
import '../modules/dunning-policies/schema.ts';
import '../modules/plans/schema.ts';
import '../modules/test-clocks/schema.ts';
import '../modules/subscriptions/schema.ts';
import '../modules/usage-records/schema.ts';
// Edges between the types, after every type exists (docs/architecture.md, "Edges").
import '../modules/payments/edges.ts';
import '../modules/checkout-sessions/edges.ts';
import '../modules/refunds/edges.ts';
import '../modules/receipts/edges.ts';
import '../modules/customers/edges.ts';
import '../modules/payouts/edges.ts';
import '../modules/webhooks/edges.ts';
import '../modules/events/edges.ts';
import '../modules/workspaces/edges.ts';
import '../modules/invoices/edges.ts';
import '../modules/subscriptions/edges.ts';
import '../modules/test-clocks/edges.ts';

/** The whole schema, assembled from every module's schema.ts. */
export const schema = lexicographicSortSchema(builder.toSchema());
