/**
 * What modules above payments do for a payment (src/core/reactions.ts; docs/architecture.md, Layers).
 * Registered by src/modules/<module>/reactions.ts.
 */
import { reaction } from '../../core/reactions.ts';
import type { RowScope } from '../../core/resource.ts';
import type { Payment } from '../../generated/prisma/client.ts';

/** A waiting off-session charge settled by `POST /v1/payments/:id/simulate` (test mode): its owner settles it. */
export const paymentSimulated = reaction<
  (
    t: RowScope & { accountId: string },
    paymentId: string,
    outcome: string,
    o: { source: string; requestId?: string },
  ) => Promise<Payment>
>('payment simulated', ['collection: settle waiting charge']);
