import type { PgBoss } from 'pg-boss';
import { db } from '../src/core/db/client.ts';

/** Queue `idempotency-purge`: hourly, deletes keys past their 24 h window. */
export const queue = 'idempotency-purge';

export async function register(boss: PgBoss) {
  await boss.createQueue(queue, { retryLimit: 2 });
  await boss.schedule(queue, '17 * * * *');
  await boss.work(queue, async () => {
    await db().system.query('DELETE FROM idempotency_keys WHERE "expiresAt" < now()');
  });
}
