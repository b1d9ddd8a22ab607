import { bound, defineList, eq, oneOfValues } from '../../core/list-spec.ts';
import { listPageSize } from '../../core/pagination.ts';
import { checkCurrency } from '../../core/validation.ts';
import type { ListPayoutsArgs } from './schema.ts';
import { payoutMachine } from './states.ts';

/** GET /v1/payouts and GraphQL `payouts`: newest first. */
export const payoutList = defineList<ListPayoutsArgs, 'createdAt'>({
  resource: 'payout',
  position: 'createdAt',
  limit: listPageSize.payouts,
  order: 'desc',
  filters: {
    status: oneOfValues(payoutMachine.statuses),
    currency: eq(undefined, checkCurrency),
    createdSince: bound('createdAt', '>='),
    createdUntil: bound('createdAt', '<'),
  },
});
