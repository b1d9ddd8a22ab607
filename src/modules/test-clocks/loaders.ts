import { oneBy, type Source } from '../../core/loaders.ts';
import { sql } from '../../core/db/sql.ts';
import type { TestClock } from '../../generated/prisma/client.ts';

/** Batched reads of test clocks for the graph's edges (src/core/loaders.ts); a deleted clock reads as none. */
const clocks: Source<TestClock> = { table: 'test_clocks', scope: 'svc:subscription:read' };

export const testClockById = oneBy(clocks, { where: sql` AND t."deletedAt" IS NULL` });
