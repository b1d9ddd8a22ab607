import { config } from '../src/core/config.ts';
import { db } from '../src/core/db/client.ts';
import { job } from './job.ts';

/**
 * Queue `idempotency-purge`: hourly, deletes keys past their 24 h window, and the operations their
 * requests recorded (src/core/operations.ts) once no key can still be taken over to look them up.
 */
export const idempotencyPurge = job({
  queue: 'idempotency-purge',
  schedule: '17 * * * *',
  policy: { retryLimit: 2 },
  async handler() {
    await db().system.query('DELETE FROM idempotency_keys WHERE "expiresAt" < now()');
    await db().system.query(`DELETE FROM idempotent_operations WHERE "createdAt" < now() - make_interval(secs => $1)`, [
      config.idempotencyTtlHours * 3600,
    ]);
  },
});
