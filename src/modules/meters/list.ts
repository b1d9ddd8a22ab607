import { custom, defineList, eq } from '../../core/list-spec.ts';
import { listPageSize } from '../../core/pagination.ts';
import type { ListMetersArgs } from './schema.ts';

/** GET /v1/meters and GraphQL `meters`: `eventName` exact, `archived` (default false) picks archived or active. */
export const meterList = defineList<ListMetersArgs, 'createdAt'>({
  resource: 'meter',
  position: 'createdAt',
  limit: listPageSize.meters,
  filters: { eventName: eq(), archived: custom() },
});
