/**
 * The statements of one fold (docs/usage.md, Fold): journal entries in, rollup rows out. Attribution
 * (which subscription period an event counts in) is a join with `subscription_periods`; every sum is
 * PostgreSQL `numeric`, so values stay exact decimals.
 */
import { sql as q, type Fragment } from '../../core/db/sql.ts';
import { sqlStatus } from '../../core/state-machine.ts';
import { usageEventAccepted } from '../usage-events/states.ts';

export interface Scope {
  workspaceId: string;
  mode: string;
}

/** A journal entry to apply: an ingest batch counts its events once (+1), a correction un-counts one (-1). */
export interface Entry {
  firstSeq: string;
  lastSeq: string;
  sign: 1 | -1;
}

/** A property's string form (docs/usage.md, Rollups): strings as sent, booleans, numbers canonical. */
const stringForm = (v: Fragment) => q`CASE jsonb_typeof(${v})
  WHEN 'string' THEN (${v}) #>> '{}' WHEN 'boolean' THEN (${v})::text
  WHEN 'number' THEN trim_scale((${v})::text::numeric)::text END`;

/**
 * Every (event, meter, subscription period, group) the entries touch, with the event's sign, value and
 * string form. Each event counts in the period total (groupKey '') and, for a meter with `groupBy`,
 * in the group of its dimensions. The attribution rule: the subscription's customer's event, matched
 * at receipt, received once the subscription existed, its timestamp inside the half-open period.
 */
function attributed(s: Scope, entries: Entry[]): Fragment {
  const prop = q`e.properties -> m."valueProperty"`;
  // The whole span as constants too, so each partition's BRIN index on ingestSeq bounds the scan.
  const seqs = entries.flatMap((e) => [BigInt(e.firstSeq), BigInt(e.lastSeq)]).sort((a, b) => (a < b ? -1 : 1));
  const [lo, hi] = [seqs[0].toString(), seqs[seqs.length - 1].toString()];
  return q`b AS (SELECT * FROM unnest(${entries.map((e) => e.firstSeq)}::bigint[],
        ${entries.map((e) => e.lastSeq)}::bigint[], ${entries.map((e) => e.sign)}::int[]) AS b(f, l, s)),
    att AS (SELECT b.s, e."timestamp", e."ingestSeq", m.id AS "meterId", m.aggregation, p."subscriptionId",
        p."periodStart", p."periodEnd",
        CASE WHEN m.aggregation NOT IN ('count', 'unique_count') THEN ((${prop}) #>> '{}')::numeric END AS v,
        CASE WHEN m.aggregation = 'unique_count' THEN ${stringForm(prop)} END AS sv,
        CASE WHEN cardinality(m."groupBy") > 0 THEN
          (SELECT jsonb_object_agg(g, ${stringForm(q`e.properties -> g`)}) FROM unnest(m."groupBy") g) END AS dims
      FROM b JOIN usage_events e ON e."workspaceId" = ${s.workspaceId} AND e.mode = ${s.mode}
        AND e."ingestSeq" BETWEEN b.f AND b.l AND e."ingestSeq" BETWEEN ${lo}::bigint AND ${hi}::bigint
      CROSS JOIN LATERAL unnest(e."meterIds") AS mid
      JOIN meters m ON m."workspaceId" = ${s.workspaceId} AND m.mode = ${s.mode} AND m.id = mid
      JOIN subscription_periods p ON p."workspaceId" = ${s.workspaceId} AND p.mode = ${s.mode}
        AND p."customerId" = e."customerId" AND e."timestamp" >= p."periodStart" AND e."timestamp" < p."periodEnd"
        AND p."subscriptionCreatedAt" <= e."receivedAt"),
    keyed AS (SELECT att.*, '' AS "groupKey", NULL::jsonb AS dimensions FROM att
      UNION ALL SELECT att.*, dims::text, dims FROM att WHERE dims IS NOT NULL)`;
}

const key = q`"subscriptionId", "meterId", "periodStart", "groupKey"`;

/** The latest event's time, seq and value (greatest timestamp, ties to the later received) among `filter`. */
const latestOf = (filter: Fragment) => {
  const last = (col: Fragment) =>
    q`(array_agg(${col} ORDER BY "timestamp" DESC, "ingestSeq" DESC) FILTER (${filter}))[1]`;
  return q`${last(q`"timestamp"`)} AS lat, ${last(q`"ingestSeq"`)} AS lseq, ${last(q`v`)} AS lv`;
};

/**
 * Applies the entries: count and sum by signed delta; min, max and latest by comparison over the
 * counted (+1) events; distinct values by reference count, a count leaving or reaching 0 moving
 * `distinctCount`. Returns the rollup keys a correction touched, whose min, max and latest
 * `recount` recomputes (a comparison cannot take a value back).
 */
export function applyStatement(s: Scope, entries: Entry[]): Fragment {
  return q`WITH ${attributed(s, entries)},
    dv AS (SELECT ${key}, decode(md5(sv), 'hex') AS h, sum(s) AS d FROM keyed WHERE sv IS NOT NULL
      GROUP BY ${key}, h HAVING sum(s) <> 0),
    old AS (SELECT dv.*, COALESCE(u.refs, 0) AS o FROM dv LEFT JOIN usage_distinct u
      ON u."workspaceId" = ${s.workspaceId} AND u.mode = ${s.mode} AND u."subscriptionId" = dv."subscriptionId"
        AND u."meterId" = dv."meterId" AND u."periodStart" = dv."periodStart" AND u."groupKey" = dv."groupKey"
        AND u."valueHash" = dv.h),
    refs AS (INSERT INTO usage_distinct ("workspaceId", mode, ${key}, "valueHash", refs)
      SELECT ${s.workspaceId}, ${s.mode}, ${key}, h, o + d FROM old
      ON CONFLICT ("workspaceId", mode, ${key}, "valueHash") DO UPDATE SET refs = EXCLUDED.refs),
    moved AS (SELECT ${key}, sum((o + d > 0)::int - (o > 0)::int) AS dd FROM old GROUP BY ${key}),
    agg AS (SELECT ${key}, max("periodEnd") AS pe, (array_agg(dimensions))[1] AS dims, sum(s) AS dc,
        COALESCE(sum(s * v), 0) AS ds, min(v) FILTER (WHERE s > 0) AS mn, max(v) FILTER (WHERE s > 0) AS mx,
        ${latestOf(q`WHERE s > 0 AND v IS NOT NULL`)},
        bool_or(s < 0) AS voided
      FROM keyed GROUP BY ${key}),
    up AS (INSERT INTO usage_rollups AS r ("workspaceId", mode, ${key}, "periodEnd", dimensions, count, sum, min, max,
        "latestAt", "latestSeq", "latestValue", "distinctCount", "updatedAt")
      SELECT ${s.workspaceId}, ${s.mode}, a."subscriptionId", a."meterId", a."periodStart", a."groupKey", pe, dims, dc,
        ds, mn, mx, lat, lseq, lv, COALESCE(mv.dd, 0), now()
      FROM agg a LEFT JOIN moved mv USING ("subscriptionId", "meterId", "periodStart", "groupKey")
      ON CONFLICT ("workspaceId", mode, ${key}) DO UPDATE SET count = r.count + EXCLUDED.count,
        sum = r.sum + EXCLUDED.sum, min = LEAST(r.min, EXCLUDED.min), max = GREATEST(r.max, EXCLUDED.max),
        "distinctCount" = r."distinctCount" + EXCLUDED."distinctCount", "periodEnd" = EXCLUDED."periodEnd",
        ("latestAt", "latestSeq", "latestValue") = (SELECT * FROM (VALUES
          (r."latestAt", r."latestSeq", r."latestValue"),
          (EXCLUDED."latestAt", EXCLUDED."latestSeq", EXCLUDED."latestValue")) x(a, b, c)
          ORDER BY a DESC NULLS LAST, b DESC NULLS LAST LIMIT 1),
        "updatedAt" = now())
    SELECT DISTINCT "subscriptionId", "meterId", "periodStart" FROM agg
      WHERE voided AND (SELECT aggregation FROM meters WHERE "workspaceId" = ${s.workspaceId} AND mode = ${s.mode}
        AND id = agg."meterId") IN ('min', 'max', 'latest')`;
}

/**
 * Recomputes min, max and latest of one subscription period and meter from its accepted events
 * (after a void; the index on customer, eventName and timestamp bounds the scan to the period).
 * Events of journal entries not folded yet may be seen: comparisons are idempotent, so folding
 * them later changes nothing.
 */
export function recountStatement(s: Scope, k: { subscriptionId: string; meterId: string; periodStart: Date }) {
  const prop = q`e.properties -> m."valueProperty"`;
  return q`WITH p AS (SELECT * FROM subscription_periods WHERE "workspaceId" = ${s.workspaceId} AND mode = ${s.mode}
        AND "subscriptionId" = ${k.subscriptionId} AND "periodStart" = ${k.periodStart}),
    m AS (SELECT * FROM meters WHERE "workspaceId" = ${s.workspaceId} AND mode = ${s.mode} AND id = ${k.meterId}),
    ev AS (SELECT e."timestamp", e."ingestSeq", ((${prop}) #>> '{}')::numeric AS v,
        CASE WHEN cardinality(m."groupBy") > 0 THEN
          (SELECT jsonb_object_agg(g, ${stringForm(q`e.properties -> g`)}) FROM unnest(m."groupBy") g)::text END AS gk
      FROM p, m, usage_events e WHERE e."workspaceId" = ${s.workspaceId} AND e.mode = ${s.mode}
        AND e."customerId" = p."customerId" AND e."eventName" = m."eventName" AND e."timestamp" >= p."periodStart"
        AND e."timestamp" < p."periodEnd" AND e."receivedAt" >= p."subscriptionCreatedAt" AND e.status = ${sqlStatus(usageEventAccepted)}
        AND m.id = ANY (e."meterIds")),
    keyed AS (SELECT '' AS "groupKey", ev.* FROM ev UNION ALL SELECT gk, ev.* FROM ev WHERE gk IS NOT NULL),
    agg AS (SELECT "groupKey", min(v) AS mn, max(v) AS mx,
        ${latestOf(q`WHERE v IS NOT NULL`)}
      FROM keyed GROUP BY "groupKey")
    UPDATE usage_rollups r SET min = a.mn, max = a.mx, "latestAt" = a.lat, "latestSeq" = a.lseq,
        "latestValue" = a.lv, "updatedAt" = now()
      FROM usage_rollups r0 LEFT JOIN agg a ON a."groupKey" = r0."groupKey"
      WHERE r."workspaceId" = ${s.workspaceId} AND r.mode = ${s.mode} AND r."subscriptionId" = ${k.subscriptionId}
        AND r."meterId" = ${k.meterId} AND r."periodStart" = ${k.periodStart}
        AND r0."workspaceId" = r."workspaceId" AND r0.mode = r.mode AND r0."subscriptionId" = r."subscriptionId"
        AND r0."meterId" = r."meterId" AND r0."periodStart" = r."periodStart" AND r0."groupKey" = r."groupKey"`;
}
