/**
 * Active meters by eventName for ingestion (docs/usage.md, Meter cache): one read per workspace and
 * mode, kept `keyCacheMs` like API keys, dropped at once on this instance when a meter changes
 * (other instances see the change within that bound, as they do a revoked key).
 */
import { BoundedCache } from '../../core/bounded-cache.ts';
import { config } from '../../core/config.ts';
import type { AnyTx } from '../../core/db/sql.ts';
import { sql, sqlOf } from '../../core/db/sql.ts';
import type { RowScope } from '../../core/resource.ts';
import { sqlStatus } from '../../core/state-machine.ts';
import { meterActive } from './states.ts';

/** What ingestion needs of a meter to match and check an event. */
export interface MeterMatch {
  id: string;
  aggregation: string;
  valueProperty: string | null;
  filters: Record<string, string[]>;
}

type ByEventName = Map<string, MeterMatch[]>;
const cache = new BoundedCache<string, { at: number; meters: ByEventName }>(10_000);
const keyOf = (s: RowScope) => `${s.workspaceId}:${s.mode}`;

/** The meters of one workspace and mode changed here: the next ingestion reads them again. */
export function forgetMeters(scope: RowScope) {
  cache.delete(keyOf(scope));
}

/** Active meters by eventName, oldest first, from the cache or one query on `tx`. */
export async function activeMeters(tx: AnyTx, scope: RowScope): Promise<ByEventName> {
  const hit = cache.get(keyOf(scope));
  if (hit && Date.now() - hit.at < config.keyCacheMs) return hit.meters;
  const rows = await sqlOf(tx).query<MeterMatch & { eventName: string }>(
    sql`SELECT id, "eventName", aggregation, "valueProperty", filters FROM meters
      WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode} AND status = ${sqlStatus(meterActive)}
      ORDER BY "createdAt", id`,
  );
  const meters: ByEventName = new Map();
  for (const r of rows) {
    const list = meters.get(r.eventName) ?? [];
    list.push({ id: r.id, aggregation: r.aggregation, valueProperty: r.valueProperty, filters: r.filters ?? {} });
    meters.set(r.eventName, list);
  }
  cache.set(keyOf(scope), { at: Date.now(), meters });
  return meters;
}
