import { db } from '../../core/db/client.ts';

/** spec Limits: the event archive keeps events at least 90 days from `createdAt` (a floor). */
export const eventRetentionDays = 90;
/** Rows per DELETE: short statements, so the relay and writers never wait long on one. */
export const retentionBatch = 10_000;

/**
 * Deletes events created more than 90 days before `now`, across every workspace and mode (the
 * owner pool: infrastructure, not a tenant's request), `retentionBatch` rows per statement
 * until none remain. Returns how many it deleted. The batch is chosen by `position` (unique
 * index); `createdAt` has no index of its own, so each batch scans for old rows. An event the
 * relay has not published yet is never deleted: it may still owe webhook deliveries, and the
 * relay is updating exactly those rows.
 */
export async function purgeExpiredEvents(now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - eventRetentionDays * 86_400_000);
  let total = 0;
  for (;;) {
    const { rowCount } = await db().system.query(
      `DELETE FROM events WHERE position IN
         (SELECT position FROM events WHERE "createdAt" < $1 AND "publishedAt" IS NOT NULL LIMIT $2)`,
      [cutoff, retentionBatch],
    );
    total += rowCount ?? 0;
    if ((rowCount ?? 0) < retentionBatch) return total;
  }
}
