import { oneBy, type Source } from '../../core/loaders.ts';
import type { Payout } from '../../generated/prisma/client.ts';

/** Batched reads of payouts for the graph's edges (src/core/loaders.ts). */
const payouts: Source<Payout> = { table: 'payouts', scope: 'svc:payout:read' };

export const payoutById = oneBy(payouts);
