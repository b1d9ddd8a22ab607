import type { FieldSpec } from '../../graphql/fields.ts';
import type { Coupon } from '../../generated/prisma/client.ts';
import { toWire } from '../../core/wire.ts';
import { clock } from '../../core/clock.ts';
import { couponValid } from './redeem.ts';

/** A coupon row as services return it: with its workspace's `acc_` id (`arn`). */
export type CouponRow = Coupon & { accountId: string };

/** docs/coupons.md: the REST object, the GraphQL type and the event snapshot. */
export const couponFields: FieldSpec<Coupon> = {
  id: { kind: 'id' },
  // Plan style: `/` before the id.
  arn: { kind: 'string', from: (r) => `arn:svc:${(r as CouponRow).accountId}:coupon/${r.id}` },
  name: { kind: 'string' },
  percentOff: {
    kind: 'float',
    nullable: true,
    from: (r) => (r.percentOffHundredths === null ? null : r.percentOffHundredths / 100),
  },
  amountOff: { kind: 'json', nullable: true },
  duration: { kind: 'string' },
  durationInMonths: { kind: 'int', nullable: true },
  maxRedemptions: { kind: 'int', nullable: true },
  timesRedeemed: { kind: 'int' },
  redeemBy: { kind: 'date', nullable: true },
  appliesTo: { kind: 'json', nullable: true },
  // Computed at read time on the real clock (a test clock's business time decides at redemption).
  valid: { kind: 'bool', from: (r) => couponValid(r, clock.now()) },
  archivedAt: { kind: 'date', nullable: true },
  metadata: { kind: 'metadata', nullable: true },
  createdAt: { kind: 'date' },
  updatedAt: { kind: 'date' },
};

export const couponSnapshot = (c: CouponRow) => toWire(c, couponFields);
