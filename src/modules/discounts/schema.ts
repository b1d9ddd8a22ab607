// docs/coupons.md, Discounts: the GraphQL types a discount shows as. `BillingSubscription.discount` and
// `Invoice.discounts` are fields of their resources' field lists (`graphql` names these types), so
// GraphQL, REST and events share one shape.
import { builder } from '../../graphql/builder.ts';
import { exposeFields } from '../../graphql/fields.ts';
import {
  discountCouponFields,
  discountFields,
  invoiceDiscountFields,
  type DiscountCoupon,
  type DiscountRow,
  type InvoiceDiscount,
} from './fields.ts';

builder.objectRef<DiscountCoupon>('DiscountCoupon').implement({
  description: 'What a discount shows of its coupon: name, percentOff or amountOff, duration.',
  fields: (t) => exposeFields(t, discountCouponFields),
});

builder.objectRef<DiscountRow>('Discount').implement({
  description: 'A coupon applied to a subscription (or to one invoice): active, ended or removed.',
  fields: (t) => exposeFields(t, discountFields),
});

builder.objectRef<InvoiceDiscount>('InvoiceDiscount').implement({
  description: "One discount of an invoice, frozen with it: the coupon's name and the amount taken off before tax.",
  fields: (t) => exposeFields(t, invoiceDiscountFields),
});
