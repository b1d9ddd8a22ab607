import { oneBy, type Source } from '../../core/loaders.ts';
import type { Plan, Price } from '../../generated/prisma/client.ts';

/** Batched reads of a subscription's plan and price for the graph's edges (src/core/loaders.ts). */
const plans: Source<Plan> = { table: 'plans', scope: 'svc:plan:read' };
const prices: Source<Price> = { table: 'prices', scope: 'svc:plan:read' };

export const planById = oneBy(plans);
export const priceById = oneBy(prices);
