import type { Sql } from '../../core/db/sql.ts';
import type { Run } from './pool.ts';

/** An ingestion transaction's statements as the `Sql` the shared readers take (the meter cache). */
export const clientlessSql = (run: Run): Sql => ({ query: run, last: run });
