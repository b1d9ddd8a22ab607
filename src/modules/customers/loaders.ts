import { oneBy, type Source } from '../../core/loaders.ts';
import type { Customer } from '../../generated/prisma/client.ts';

/** Batched reads of customers for the graph's edges (src/core/loaders.ts). */
const customers: Source<Customer> = { table: 'customers', scope: 'svc:customer:read' };

export const customerById = oneBy(customers);
