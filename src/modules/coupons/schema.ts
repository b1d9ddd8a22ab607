import { builder } from '../../graphql/builder.ts';
import { exposeFields, type ListArgs } from '../../graphql/fields.ts';
import { admission } from '../../graphql/operation.ts';
import { couponFields } from './fields.ts';
import { archiveCoupon, createCoupon, getCoupon, listCoupons, updateCoupon } from './service.ts';

export const Coupon = builder.prismaObject('Coupon', {
  description: 'A percent or per-currency amount off, once, for some months or forever (docs/coupons.md).',
  fields: (t) => exposeFields(t, couponFields),
});

const CouponAppliesToInput = builder.inputType('CouponAppliesToInput', {
  fields: (t) => ({ planIds: t.stringList() }),
});

// Fields are optional in the schema and checked by the service: a missing one is 400 naming it.
const CreateCouponInput = builder.inputType('CreateCouponInput', {
  description: 'Exactly one of percentOff and amountOff.',
  fields: (t) => ({
    name: t.string(),
    percentOff: t.float({ description: 'over 0 and at most 100, at most 2 decimals' }),
    amountOff: t.field({ type: 'JSON', description: 'currency -> integer amount over 0, e.g. {"IDR": 50000}' }),
    duration: t.string({ description: 'once, repeating or forever' }),
    durationInMonths: t.int({ description: '1-36, duration repeating only' }),
    maxRedemptions: t.int(),
    redeemBy: t.field({ type: 'DateTime' }),
    appliesTo: t.field({ type: CouponAppliesToInput }),
    metadata: t.field({ type: 'Metadata' }),
  }),
});
export type CreateCouponInput = typeof CreateCouponInput.$inferInput;

const UpdateCouponInput = builder.inputType('UpdateCouponInput', {
  description: 'Only name and metadata are mutable (docs/coupons.md); null clears metadata.',
  fields: (t) => ({ name: t.string(), metadata: t.field({ type: 'Metadata' }) }),
});
export type UpdateCouponInput = typeof UpdateCouponInput.$inferInput;

const listArgs = builder.args((t) => ({
  archived: t.boolean({ description: 'false (default): coupons not archived; true: archived coupons.' }),
  order: t.string(),
}));
export type ListCouponsArgs = ListArgs<typeof listArgs>;

builder.queryFields((t) => ({
  coupon: t.field({
    ...admission({ resource: 'coupon', scope: 'svc:coupon:read' }),
    type: Coupon,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_, { id }, ctx) => getCoupon(ctx, String(id)),
  }),
  coupons: t.connection({
    ...admission({ resource: 'coupon', scope: 'svc:coupon:read' }),
    type: Coupon,
    args: listArgs,
    resolve: (_, args, ctx) => listCoupons(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createCoupon: t.field({
    ...admission({ resource: 'coupon', scope: 'svc:coupon:write', idempotencyKey: 'required' }),
    type: Coupon,
    args: { input: t.arg({ type: CreateCouponInput, required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { input }, ctx) => createCoupon(ctx, input),
  }),
  updateCoupon: t.field({
    ...admission({ resource: 'coupon', scope: 'svc:coupon:write', idempotencyKey: 'required' }),
    type: Coupon,
    args: {
      id: t.arg.id({ required: true }),
      input: t.arg({ type: UpdateCouponInput, required: true }),
      idempotencyKey: t.arg.string(),
    },
    resolve: (_, { id, input }, ctx) => updateCoupon(ctx, String(id), input),
  }),
  archiveCoupon: t.field({
    ...admission({ resource: 'coupon', scope: 'svc:coupon:write', idempotencyKey: 'required' }),
    type: Coupon,
    args: { id: t.arg.id({ required: true }), idempotencyKey: t.arg.string() },
    resolve: (_, { id }, ctx) => archiveCoupon(ctx, String(id)),
  }),
}));
