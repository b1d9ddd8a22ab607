import type { FieldSpec } from '../../graphql/fields.ts';
import type { Plan, Price } from '../../generated/prisma/client.ts';
import { toWire } from '../../core/wire.ts';

/** A plan row as services return it: with its workspace's `acc_` id (spec `accountId`, `arn`) and prices. */
export type PlanRow = Plan & { accountId: string; prices: Price[] };

/** spec Plan (without `prices`, the edge to Price): the REST object, the GraphQL type and the event snapshot. */
export const planFields: FieldSpec<Plan> = {
  id: { kind: 'id' },
  // spec Shared conventions: plans use `/` before the id.
  arn: { kind: 'string', from: (r) => `arn:svc:${(r as PlanRow).accountId}:plan/${r.id}` },
  accountId: { kind: 'string', from: (r) => (r as PlanRow).accountId },
  name: { kind: 'string' },
  description: { kind: 'string', nullable: true },
  interval: { kind: 'string' },
  intervalCount: { kind: 'int' },
  trialDays: { kind: 'int' },
  usageAggregate: { kind: 'string', nullable: true },
  meteredUnit: { kind: 'string', nullable: true },
  portalFeatures: { kind: 'json' },
  dunningPolicyId: { kind: 'string', nullable: true },
  active: { kind: 'bool' },
  archivedAt: { kind: 'date', nullable: true },
  metadata: { kind: 'metadata', nullable: true },
  createdAt: { kind: 'date' },
  updatedAt: { kind: 'date' },
};

/** spec Price. */
export const priceFields: FieldSpec<Price> = {
  id: { kind: 'id' },
  planId: { kind: 'string' },
  currency: { kind: 'string' },
  model: { kind: 'string' },
  unitAmount: { kind: 'money', nullable: true },
  tiers: { kind: 'json', nullable: true },
  taxMode: { kind: 'string' },
  active: { kind: 'bool' },
  // docs/usage.md, Metered prices: null on a price without a meter.
  meterId: { kind: 'string', nullable: true },
  divideBy: { kind: 'int', nullable: true },
  quantityRounding: { kind: 'string', nullable: true },
  createdAt: { kind: 'date' },
};

/** The event's `data.object`: the plan as REST shows it, prices included. */
export const planSnapshot = (p: PlanRow) => ({
  ...toWire(p, planFields),
  prices: p.prices.map((x) => toWire(x, priceFields)),
});
