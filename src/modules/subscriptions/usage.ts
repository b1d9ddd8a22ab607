// The usage a renewal bills, read beside the renewals that need it (usage-records, above, writes the rows).
import { sql as q, sqlOf, type AnyTx } from '../../core/db/sql.ts';
import type { RowScope } from '../../core/resource.ts';
import type { UsageAggregate } from '../plans/pricing.ts';

export interface UsageQuery {
  subscriptionId: string;
  start: Date;
  end: Date;
  aggregate: UsageAggregate;
}

/**
 * Each subscription's aggregate over its half-open period [start, end) in one statement, the
 * pricing engine's rule in SQL (src/modules/plans/pricing.ts `aggregateUsage`): an empty period is 0;
 * `last` is the latest timestamp, ties to the later insert. Reads the (subscriptionId, timestamp) index.
 */
export async function usageQuantities(tx: AnyTx, scope: RowScope, items: UsageQuery[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (!items.length) return out;
  const inPeriod = q`u."workspaceId" = ${scope.workspaceId} AND u.mode = ${scope.mode} AND u."subscriptionId" = p.sid
    AND u.timestamp >= p.s AND u.timestamp < p.e`;
  const rows = await sqlOf(tx).query<{ sid: string; value: string | null }>(
    q`SELECT p.sid, (CASE p.agg
        WHEN 'last' THEN (SELECT u.quantity::bigint FROM usage_records u WHERE ${inPeriod}
          ORDER BY u.timestamp DESC, u."createdAt" DESC, u.id DESC LIMIT 1)
        WHEN 'max' THEN (SELECT max(u.quantity)::bigint FROM usage_records u WHERE ${inPeriod})
        ELSE (SELECT sum(u.quantity)::bigint FROM usage_records u WHERE ${inPeriod}) END)::text AS value
      FROM unnest(${items.map((i) => i.subscriptionId)}::text[], ${items.map((i) => i.start)}::timestamptz[],
        ${items.map((i) => i.end)}::timestamptz[], ${items.map((i) => i.aggregate)}::text[]) AS p(sid, s, e, agg)`,
  );
  for (const r of rows) out.set(r.sid, r.value === null ? 0 : Number(r.value));
  return out;
}
