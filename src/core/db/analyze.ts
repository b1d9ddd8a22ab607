/**
 * Statistics after bulk writes (docs/decisions.md, Statistics after bulk writes). PostgreSQL's advice
 * after a bulk load is to ANALYZE: plans cached while a table was tiny (foreign-key checks, trigger
 * queries, cached per connection) otherwise keep an index that shares only the `(workspaceId, mode)`
 * prefix and scan the whole workspace per row. Autovacuum's analyze comes eventually, but a burst of
 * renewals (or a test clock's year) can grow the billing tables tenfold before it does.
 *
 * A bulk writer calls `analyzeGrown` as it goes: at most once per CHECK_MS and per CHECK_ROWS written
 * in this process it reads pg_stat_user_tables, and the tables whose changes since their last analyze
 * reach MIN_CHANGES and GROWTH of their planner row count, with no analyze (manual or auto) in the
 * last MIN_INTERVAL_S (unless their statistics saw them nearly empty), are analyzed: outside any
 * transaction, by one worker of the cluster at a time (an advisory lock tried, never waited for).
 * ANALYZE invalidates the cached plans.
 */
import { db } from './client.ts';
import { logger } from '../logger.ts';

/** Changes since the last analyze that make a table a candidate, and as a fraction of its rows. */
export const MIN_CHANGES = 1000;
export const GROWTH = 0.5;
/** No table is analyzed again by this within this many seconds of its last analyze (any origin). */
export const MIN_INTERVAL_S = 10;
/** Rows a process writes, and milliseconds, between two looks at pg_stat_user_tables. */
const CHECK_ROWS = 500;
const CHECK_MS = 1000;

const LOCK = "hashtextextended('analyze-grown', 0)";

let written = 0;
let lastCheck = Number.NEGATIVE_INFINITY;
let running: Promise<string[]> | null = null;

export interface AnalyzeOptions {
  /** Seconds since a table's last analyze before it may be analyzed again (MIN_INTERVAL_S). */
  minIntervalS?: number;
}

/**
 * Called by a bulk writer after it committed `rows` rows (e.g. a renewal batch) that touch `tables`.
 * Cheap when nothing is due: a counter and a clock reading. Returns the tables it analyzed.
 */
export async function analyzeGrown(tables: readonly string[], rows: number): Promise<string[]> {
  written += rows;
  const now = performance.now();
  if (running || written < CHECK_ROWS || now - lastCheck < CHECK_MS) return [];
  written = 0;
  lastCheck = now;
  // Maintenance, not the writer's work: a failure is logged, never the writer's failure.
  running = analyzeTables(tables)
    .catch((err: unknown) => {
      logger.warn({ err }, 'analyze after bulk writes failed');
      return [];
    })
    .finally(() => {
      running = null;
    });
  return running;
}

/**
 * The tables among `tables` that grew enough since their last analyze, not analyzed recently. Statistics
 * taken while a table was nearly empty (fewer planner rows than MIN_CHANGES) are replaced as soon as it
 * grew, whatever the interval: with them the planner takes any index that starts with `(workspaceId,
 * mode)` for a lookup by id and scans the whole workspace each time (2 ms instead of 0.02 ms per
 * row at 8,000 invoices; the lines' lock trigger and the foreign-key checks run one per row).
 */
export async function grownTables(tables: readonly string[], o: AnalyzeOptions = {}): Promise<string[]> {
  const { rows } = await db().system.query<{ relname: string }>(
    `SELECT s.relname FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
      WHERE s.schemaname = current_schema() AND s.relname = ANY($1::text[])
        AND s.n_mod_since_analyze >= $2 AND s.n_mod_since_analyze >= $3 * greatest(c.reltuples, 0)
        AND (greatest(c.reltuples, 0) < $2
          OR coalesce(greatest(s.last_analyze, s.last_autoanalyze), '-infinity') < now() - make_interval(secs => $4))
      ORDER BY s.relname`,
    [tables, MIN_CHANGES, GROWTH, o.minIntervalS ?? MIN_INTERVAL_S],
  );
  return rows.map((r) => r.relname);
}

/**
 * Analyzes the grown tables among `tables` now (the in-process pacing of `analyzeGrown` aside), if no
 * other worker is doing it; returns those analyzed.
 */
export async function analyzeTables(tables: readonly string[], o: AnalyzeOptions = {}): Promise<string[]> {
  if (!(await grownTables(tables, o)).length) return [];
  const client = await db().system.connect();
  try {
    const { rows } = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${LOCK}) AS ok`);
    if (!rows[0].ok) return [];
    try {
      // Again under the lock: the worker that held it may just have analyzed them.
      const grown = await grownTables(tables, o);
      // One statement per table, each its own transaction: its plans are invalidated as it finishes.
      for (const t of grown) await client.query(`ANALYZE ${client.escapeIdentifier(t)}`);
      if (grown.length) logger.info({ tables: grown }, 'analyzed tables grown by bulk writes');
      return grown;
    } finally {
      await client.query(`SELECT pg_advisory_unlock(${LOCK})`);
    }
  } finally {
    client.release();
  }
}
