/**
 * Dedupe keys in two rotating generations (docs/usage.md, Dedupe generations). The generation is a
 * function of time (35-day steps since the epoch): keys go into the current generation's table, the
 * other holds the previous one's; a key older than 35 days counts as absent wherever it sits, so
 * when `usage_keys_rotate()` empties a table does not change any answer.
 */
import { sql, type Fragment } from '../../core/db/sql-template.ts';
import type { RowScope } from '../../core/resource.ts';

const DAY_MS = 86_400_000;
export const keyTtlMs = 35 * DAY_MS;
/** Keys go into both generations this long after a rotation, so requests straddling it still collide. */
const straddleMs = 10 * 60_000;
const tables = [sql.id('usage_event_keys_0'), sql.id('usage_event_keys_1')] as const;

export function generationAt(nowMs: number) {
  const gen = Math.floor(nowMs / keyTtlMs);
  return {
    current: tables[gen % 2],
    other: tables[(gen + 1) % 2],
    straddle: nowMs - gen * keyTtlMs < straddleMs,
  };
}

/** The keys to claim: one per first occurrence of a well-formed event. */
export interface KeyClaim {
  ids: string[];
  hashes: Buffer[];
  timestamps: Date[];
  seqs: string[];
}

function insertInto(table: Fragment, scope: RowScope, at: Date, guard: Fragment): Fragment {
  const cutoff = new Date(at.getTime() - keyTtlMs);
  return sql`INSERT INTO ${table} ("workspaceId", mode, id, hash, "acceptedAt", "timestamp", "receivedAt", "ingestSeq")
    SELECT ${scope.workspaceId}, ${scope.mode}, i.id, i.hash, ${at}, i.ts, ${at}, i.seq FROM input i ${guard}
    ON CONFLICT ("workspaceId", mode, id) DO UPDATE SET hash = EXCLUDED.hash, "acceptedAt" = EXCLUDED."acceptedAt",
      "timestamp" = EXCLUDED."timestamp", "receivedAt" = EXCLUDED."receivedAt", "ingestSeq" = EXCLUDED."ingestSeq"
    WHERE ${table}."acceptedAt" <= ${cutoff}
    RETURNING id`;
}

/**
 * One statement: the ids this transaction now holds (a free key, or one over 35 days old). A key
 * live in the other generation is not taken; in the straddle minutes both generations are claimed
 * and an id counts as held only when both returned it.
 */
export function claimKeys(scope: RowScope, at: Date, k: KeyClaim): Fragment {
  const g = generationAt(at.getTime());
  const cutoff = new Date(at.getTime() - keyTtlMs);
  const input = sql`input AS (SELECT * FROM unnest(${k.ids}::text[], ${k.hashes}::bytea[], ${k.timestamps}::timestamptz[],
    ${k.seqs}::bigint[]) AS u(id, hash, ts, seq))`;
  if (!g.straddle) {
    const live = sql`WHERE NOT EXISTS (SELECT 1 FROM ${g.other} o WHERE o."workspaceId" = ${scope.workspaceId}
      AND o.mode = ${scope.mode} AND o.id = i.id AND o."acceptedAt" > ${cutoff})`;
    return sql`WITH ${input}, a AS (${insertInto(g.current, scope, at, live)}) SELECT id, 2 AS n FROM a`;
  }
  return sql`WITH ${input}, a AS (${insertInto(g.current, scope, at, sql.empty)}),
    b AS (${insertInto(g.other, scope, at, sql.empty)})
    SELECT id, count(*)::int AS n FROM (SELECT id FROM a UNION ALL SELECT id FROM b) x GROUP BY id`;
}

/** The live keys of ids this transaction did not take, with their content hash (not this batch's own rows). */
export function liveKeys(scope: RowScope, at: Date, ids: string[], seqRange: [string, string]): Fragment {
  const cutoff = new Date(at.getTime() - keyTtlMs);
  const from = (t: Fragment) => sql`SELECT id, hash FROM ${t} WHERE "workspaceId" = ${scope.workspaceId}
    AND mode = ${scope.mode} AND id = ANY(${ids}::text[]) AND "acceptedAt" > ${cutoff}
    AND "ingestSeq" NOT BETWEEN ${seqRange[0]} AND ${seqRange[1]}`;
  return sql`${from(tables[0])} UNION ALL ${from(tables[1])}`;
}

/** Keys this batch took for events it then rejected: they reserve nothing (both generations, our rows only). */
export function releaseKeys(scope: RowScope, ids: string[], seqRange: [string, string]): Fragment {
  const from = (t: Fragment) => sql`DELETE FROM ${t} WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
    AND id = ANY(${ids}::text[]) AND "ingestSeq" BETWEEN ${seqRange[0]} AND ${seqRange[1]}`;
  return sql`r0 AS (${from(tables[0])}), r1 AS (${from(tables[1])})`;
}
