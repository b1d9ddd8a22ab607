/**
 * The API's payout creation: the payout row in its transaction (service.ts), then, for the
 * `provider_a_disbursement` rail, the hand-over to the provider outside it (disbursement.ts).
 * Its own file so that the service and the rail do not import each other.
 */
import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant } from '../../core/db/client.ts';
import { newId } from '../../core/ids.ts';
import { earlierRow } from '../../core/operations.ts';
import type { Payout } from '../../generated/prisma/client.ts';
import { disburse } from './disbursement.ts';
import { createPayoutIn } from './service.ts';
import type { CreatePayoutInput } from './schema.ts';

/** spec POST /v1/payouts (201). No event: `pending` is an internal queue state. */
export async function createPayout(ctx: Context, input: CreatePayoutInput): Promise<Payout> {
  const auth = authorize(ctx, 'svc:payout:write');
  const id = newId('payout');
  const { payout, existing } = await inTenant(tenant(auth), async (tx) => {
    // The same idempotent request run again (its claim taken over after a crash) finds its payout.
    const earlier = await earlierRow<Payout>(tx, auth, ctx.replay, 'payout.create', 'payouts', id);
    return earlier
      ? { payout: earlier, existing: true }
      : { payout: await createPayoutIn(tx, tenant(auth), input, 'api', id), existing: false };
  });
  if (existing) return payout;
  if (payout.method === 'provider_a_disbursement') return disburse(tenant(auth), payout, ctx.requestId);
  return payout;
}
