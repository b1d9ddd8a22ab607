import { custom, defineList } from '../../core/list-spec.ts';
import { listPageSize } from '../../core/pagination.ts';
import type { ListCouponsArgs } from './schema.ts';

/** GET /v1/coupons and GraphQL `coupons`: `archived` (default false) picks archived or live coupons. */
export const couponList = defineList<ListCouponsArgs, 'createdAt'>({
  resource: 'coupon',
  position: 'createdAt',
  limit: listPageSize.coupons,
  filters: { archived: custom() },
});
