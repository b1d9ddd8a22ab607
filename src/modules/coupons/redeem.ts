/**
 * Coupon redemption (docs/coupons.md, Redemptions): the one home of `timesRedeemed`. Every
 * application of a coupon (subscription create/PATCH, invoice create/draft PATCH) redeems it here,
 * inside the transaction that applies it.
 */
import { sql as q, sqlOf, type AnyTx } from '../../core/db/sql.ts';
import { errorsFor, type Resource } from '../../core/errors.ts';
import type { RowScope } from '../../core/resource.ts';

/** What `valid` reads of a coupon. */
export interface CouponTerms {
  archivedAt: Date | null;
  redeemBy: Date | null;
  maxRedemptions: number | null;
  timesRedeemed: number;
}

/** docs/coupons.md: not archived, before `redeemBy` (business time), under `maxRedemptions`. */
export const couponValid = (c: CouponTerms, at: Date) =>
  c.archivedAt === null &&
  (c.redeemBy === null || at.getTime() < c.redeemBy.getTime()) &&
  (c.maxRedemptions === null || c.timesRedeemed < c.maxRedemptions);

export interface RedeemedCoupon {
  id: string;
  name: string;
  percentOffHundredths: number | null;
  amountOff: Record<string, number> | null;
  duration: 'once' | 'repeating' | 'forever';
  durationInMonths: number | null;
  appliesTo: { planIds: string[] } | null;
  timesRedeemed: number;
}

/**
 * Raises `timesRedeemed` by one with one conditional UPDATE (no overshoot under concurrency: the
 * row lock of the UPDATE serialises redeemers, each re-reading the count), or throws 400 on field
 * `couponId`: unknown coupons are the caller's 404 (checked first by `findCoupon`-style reads), an
 * archived, expired or used-up coupon is not valid. `resource` spells the error for the caller's route.
 */
export async function redeemCoupon(
  tx: AnyTx,
  scope: RowScope,
  couponId: string,
  at: Date,
  resource: Resource,
): Promise<RedeemedCoupon> {
  const rows = await sqlOf(tx).query<RedeemedCoupon>(
    q`UPDATE coupons SET "timesRedeemed" = "timesRedeemed" + 1
      WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode} AND id = ${couponId}
        AND "archivedAt" IS NULL
        AND ("redeemBy" IS NULL OR "redeemBy" > ${at})
        AND ("maxRedemptions" IS NULL OR "timesRedeemed" < "maxRedemptions")
      RETURNING id, name, "percentOffHundredths", "amountOff", duration, "durationInMonths", "appliesTo",
        "timesRedeemed"`,
  );
  if (rows.length === 0) throw errorsFor(resource).validation('couponId', `Coupon ${couponId} is not valid`);
  return rows[0]!;
}
