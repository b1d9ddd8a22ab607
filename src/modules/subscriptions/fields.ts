import type { FieldSpec } from '../../graphql/fields.ts';
import type { Subscription } from '../../generated/prisma/client.ts';
import { subscriptionMachine } from './states.ts';

/**
 * DECISIONS §3 Subscription: the REST object, the GraphQL type and the event snapshot. `anchorAt`,
 * `periodIndex` and the pending downgrade stay internal (periods.ts; docs/billing.md, Proration) but for
 * `pendingPriceId`/`pendingQuantity`, which say what the next renewal will bill.
 */
export const subscriptionFields: FieldSpec<Subscription> = {
  id: { kind: 'id' },
  customerId: { kind: 'string' },
  planId: { kind: 'string' },
  priceId: { kind: 'string' },
  status: { kind: 'string', states: subscriptionMachine },
  currency: { kind: 'string' },
  quantity: { kind: 'int' },
  paymentMethod: { kind: 'string', nullable: true },
  currentPeriodStart: { kind: 'date' },
  currentPeriodEnd: { kind: 'date' },
  trialEnd: { kind: 'date', nullable: true },
  cancelAtPeriodEnd: { kind: 'bool' },
  canceledAt: { kind: 'date', nullable: true },
  pausedAt: { kind: 'date', nullable: true },
  pendingPriceId: { kind: 'string', nullable: true },
  pendingQuantity: { kind: 'int', nullable: true },
  latestInvoiceId: { kind: 'string', nullable: true },
  // docs/usage.md, Subscriptions and metered prices: chosen at create, immutable.
  meteredPriceIds: { kind: 'strings', from: (r) => r.meteredPriceIds ?? [] },
  // docs/coupons.md, Discounts: the active discount (stored with its row), null when none.
  discount: { kind: 'json', nullable: true, graphql: 'Discount' },
  testClockId: { kind: 'string', nullable: true },
  metadata: { kind: 'metadata', nullable: true },
  createdAt: { kind: 'date' },
  updatedAt: { kind: 'date' },
};
