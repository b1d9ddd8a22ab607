/**
 * What a subscription's next period bills: its pending change (a downgrade waiting for the renewal)
 * or else its current price and quantity, with the plan of that price. The one place this is
 * decided, for the renewals (a batch), resume after the paid period and whoever comes next: the
 * renewal writes all three ids and names from here, so a pending change moves `planId` with the price.
 */
import { scopedRows, type AnyTx } from '../../core/db/sql.ts';
import type { RowScope } from '../../core/resource.ts';
import type { Plan, Price, Subscription } from '../../generated/prisma/client.ts';

export interface NextPeriod {
  priceId: string;
  planId: string;
  planName: string;
  quantity: number;
  price: Price;
  plan: Plan;
}

type Billed = Pick<Subscription, 'id' | 'priceId' | 'pendingPriceId' | 'quantity' | 'pendingQuantity'>;

/** The price id the next period bills (no database read). */
export const nextPriceId = (s: Billed) => s.pendingPriceId ?? s.priceId;

/**
 * The next period of each subscription, by subscription id, in two statements whatever the batch
 * size; a subscription whose price or plan is not in the scope is left out.
 */
export async function nextPeriods(
  tx: AnyTx,
  scope: RowScope,
  subs: readonly Billed[],
): Promise<Map<string, NextPeriod>> {
  const prices = new Map((await scopedRows<Price>(tx, 'prices', scope, subs.map(nextPriceId))).map((p) => [p.id, p]));
  const plans = new Map(
    (
      await scopedRows<Plan>(
        tx,
        'plans',
        scope,
        [...prices.values()].map((p) => p.planId),
      )
    ).map((p) => [p.id, p]),
  );
  const out = new Map<string, NextPeriod>();
  for (const s of subs) {
    const price = prices.get(nextPriceId(s));
    const plan = price && plans.get(price.planId);
    if (!price || !plan) continue;
    out.set(s.id, {
      priceId: price.id,
      planId: plan.id,
      planName: plan.name,
      quantity: s.pendingQuantity ?? s.quantity,
      price,
      plan,
    });
  }
  return out;
}

/** `nextPeriods` of one subscription, or null. */
export async function nextPeriod(tx: AnyTx, scope: RowScope, sub: Billed): Promise<NextPeriod | null> {
  return (await nextPeriods(tx, scope, [sub])).get(sub.id) ?? null;
}
