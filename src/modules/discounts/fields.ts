import type { FieldSpec } from '../../graphql/fields.ts';
import type { Discount } from '../../generated/prisma/client.ts';
import { toWire } from '../../core/wire.ts';
import { discountMachine } from './states.ts';

/** What a discount shows of its coupon (docs/coupons.md, Discounts). */
export interface DiscountCoupon {
  name: string;
  percentOff: number | null;
  amountOff: Record<string, number> | null;
  duration: string;
  durationInMonths: number | null;
}

/** A discount row with its coupon's terms, as services return it. */
export type DiscountRow = Discount & { coupon: DiscountCoupon };

/**
 * docs/coupons.md, Discounts: the REST object (`subscription.discount`), the GraphQL type `Discount`
 * and what `subscription.updated` carries (`previousAttributes.discount`).
 */
export const discountFields: FieldSpec<DiscountRow> = {
  id: { kind: 'id' },
  couponId: { kind: 'string' },
  coupon: { kind: 'json', graphql: 'DiscountCoupon' },
  customerId: { kind: 'string' },
  subscriptionId: { kind: 'string', nullable: true },
  invoiceId: { kind: 'string', nullable: true },
  start: { kind: 'date' },
  end: { kind: 'date', nullable: true },
  status: { kind: 'string', states: discountMachine },
};

/** The wire object, as `subscriptions.discount` stores it while the discount is active. */
export const discountSnapshot = (d: DiscountRow) => toWire(d, discountFields);

/**
 * docs/coupons.md, Invoice discounts: one entry of `invoice.discounts[]`, frozen with the invoice; a
 * caller's flat `discount` on a manual invoice is an entry without a coupon named "Diskon / Discount".
 */
export interface InvoiceDiscount {
  couponId: string | null;
  discountId: string | null;
  name: string;
  amount: number;
}

export const FLAT_DISCOUNT_NAME = 'Diskon / Discount';

/** `invoice.discounts[]` fields (GraphQL type `InvoiceDiscount`). */
export const invoiceDiscountFields: FieldSpec<InvoiceDiscount> = {
  couponId: { kind: 'string', nullable: true },
  discountId: { kind: 'string', nullable: true },
  name: { kind: 'string' },
  amount: { kind: 'money' },
};

/** `{name, percentOff, amountOff, duration, durationInMonths}` fields (GraphQL type `DiscountCoupon`). */
export const discountCouponFields: FieldSpec<DiscountCoupon> = {
  name: { kind: 'string' },
  percentOff: { kind: 'float', nullable: true },
  amountOff: { kind: 'json', nullable: true },
  duration: { kind: 'string' },
  durationInMonths: { kind: 'int', nullable: true },
};
