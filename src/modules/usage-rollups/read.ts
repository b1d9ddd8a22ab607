/**
 * Reading rollups (docs/usage.md, Rollups): a value is a function of one row, answered as a canonical
 * decimal string (no exponent, no trailing fractional zeros; an empty set is "0").
 */
import { sql as q, type Sql } from '../../core/db/sql.ts';
import type { Scope } from './apply.ts';

/** The SQL expression of a rollup row's value for its meter's aggregation (`r`: the row, `m`: the meter). */
export const valueExpression = q`trim_scale(CASE m.aggregation
  WHEN 'count' THEN r.count::numeric
  WHEN 'unique_count' THEN r."distinctCount"::numeric
  WHEN 'sum' THEN r.sum
  WHEN 'min' THEN COALESCE(r.min, 0)
  WHEN 'max' THEN COALESCE(r.max, 0)
  WHEN 'average' THEN CASE WHEN r.count > 0 THEN round(r.sum / r.count, 12) ELSE 0 END
  WHEN 'latest' THEN COALESCE(r."latestValue", 0)
  ELSE 0 END)::text`;

export interface RollupValue {
  meterId: string;
  periodStart: Date;
  periodEnd: Date;
  groupKey: string;
  dimensions: Record<string, string | null> | null;
  value: string;
}

/** The rollup values of one subscription's period (every meter, totals and groups): one index range scan. */
export async function periodValues(sql: Sql, s: Scope, subscriptionId: string, periodStart: Date) {
  return sql.query<RollupValue>(
    q`SELECT r."meterId", r."periodStart", r."periodEnd", r."groupKey", r.dimensions, ${valueExpression} AS value
      FROM usage_rollups r JOIN meters m ON m."workspaceId" = r."workspaceId" AND m.mode = r.mode AND m.id = r."meterId"
      WHERE r."workspaceId" = ${s.workspaceId} AND r.mode = ${s.mode} AND r."subscriptionId" = ${subscriptionId}
        AND r."periodStart" = ${periodStart} ORDER BY r."meterId", r."groupKey"`,
  );
}
