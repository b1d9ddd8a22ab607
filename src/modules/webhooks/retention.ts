import { db } from '../../core/db/client.ts';
import { clock } from '../../core/clock.ts';
import { HISTORY_MS } from './list.ts';

/** Deletes deliveries created more than 30 days ago, 10,000 rows per statement so no lock is held long. */
export async function purgeDeliveryHistory(now: Date = clock.now()): Promise<number> {
  const before = new Date(now.getTime() - HISTORY_MS);
  let total = 0;
  for (;;) {
    const { rowCount } = await db().system.query(
      `DELETE FROM webhook_deliveries
       WHERE id IN (SELECT id FROM webhook_deliveries WHERE "createdAt" < $1 LIMIT 10000)`,
      [before],
    );
    total += rowCount ?? 0;
    if ((rowCount ?? 0) < 10000) return total;
  }
}
