import { db } from '../../core/db/client.ts';

/**
 * The usage events' storage kept ahead of time (docs/usage.md): monthly partitions of both modes from two
 * months back to three ahead exist, and the dedupe generation not being written loses its keys older than
 * 35 days (they already count as absent; this returns their space). Owner pool: partitions are DDL and the
 * keys span every workspace. Both SQL functions are idempotent, so a run that fails is simply run again.
 */
export async function maintainUsageStorage(now: Date): Promise<void> {
  await db().system.query('SELECT usage_partitions_premake(3)');
  await db().system.query('SELECT usage_keys_rotate($1)', [now]);
}
