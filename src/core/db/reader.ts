/**
 * Reads that may go to a replica (docs/deploy.md, The reader): ledger reports and the ledger export
 * only. Never money paths, idempotency, authentication, rate limits, jobs or a read after a write:
 * those stay on the writer (tenantQuery, inTenant).
 *
 * `SVC_READ_DATABASE_URL` (optional; HAProxy's replica port) opens the reader pool; unset, every read
 * runs on the writer. Each read on it carries its own lag check, in the same message and transaction:
 * the age of the heartbeat row the workers upsert every second on the writer (svc_heartbeat), which
 * stays meaningful when nothing else commits. Without that row, a replica that has replayed all it
 * received while streaming counts as current, else the age of its last replayed commit. Older than
 * `SVC_READ_MAX_LAG_MS` (5000), or the reader unreachable within `SVC_READ_ACQUIRE_TIMEOUT_MS` (1000),
 * or any error there: the result is dropped and the read runs on the writer.
 */
import pg from 'pg';
import { config } from '../config.ts';
import { readsByTarget } from '../metrics.ts';
import { db, executeStatement, onConnection, prepareOn, scopeStatement, type TenantScope } from './client.ts';
import { compile, type Fragment } from './sql-template.ts';
import { warnUnavailable } from './unavailable.ts';

/** The lag check: milliseconds behind the writer, as the server it runs on sees it. */
export const LAG_CHECK = `SELECT greatest(0, extract(epoch FROM now() - coalesce(
    (SELECT at FROM svc_heartbeat WHERE id = 1),
    CASE WHEN NOT pg_is_in_recovery() THEN now()
         WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn()
          AND EXISTS (SELECT 1 FROM pg_stat_wal_receiver WHERE status = 'streaming') THEN now()
         ELSE pg_last_xact_replay_timestamp() END)) * 1000)::float8 AS lag_ms, pg_is_in_recovery() AS replica`;

/** The upsert the workers run every second on the writer. */
export const HEARTBEAT = `INSERT INTO svc_heartbeat (id, at) VALUES (1, now()) ON CONFLICT (id) DO UPDATE SET at = excluded.at`;

export type ReadTarget = 'replica' | 'writer';
export type ReadReason = 'fresh' | 'lagging' | 'unreachable' | 'unset';

let pool: pg.Pool | null | undefined;

function readerPool(): pg.Pool | null {
  if (pool !== undefined) return pool;
  const url = config.readDatabaseUrl;
  if (!url) return (pool = null);
  const p = new pg.Pool({
    connectionString: url,
    max: Math.max(2, Math.floor(config.poolSize / 2)),
    connectionTimeoutMillis: config.readAcquireTimeoutMs,
  });
  // A replica that goes away is no outage of the service: reads fall back to the writer.
  const lost = (err: Error) => p.ending || warnUnavailable('database (reader pool)', err);
  p.on('connect', (client) => client.on('error', lost));
  p.on('error', lost);
  return (pool = p);
}

/** Closes the reader pool (a stop; tests that change SVC_READ_DATABASE_URL). */
export async function closeReader() {
  const p = pool;
  pool = undefined;
  if (p) await p.end().catch(() => {});
}

/** The last choice made, for tests and the metrics: where, why, and the lag seen (null: not checked). */
export const lastRead: { target: ReadTarget; reason: ReadReason; lagMs: number | null } = {
  target: 'writer',
  reason: 'unset',
  lagMs: null,
};

function chose(target: ReadTarget, reason: ReadReason, lagMs: number | null) {
  Object.assign(lastRead, { target, reason, lagMs });
  readsByTarget(target, reason);
}

const fresh = (lagMs: number) => lagMs <= config.readMaxLagMs;

async function connectReader(p: pg.Pool): Promise<pg.PoolClient | null> {
  try {
    return await p.connect();
  } catch {
    chose('writer', 'unreachable', null);
    return null;
  }
}

/** A tenant read (a `sql` fragment) on the replica when it is fresh enough, else on the writer. */
export async function readerQuery<R extends pg.QueryResultRow>(scope: TenantScope, statement: Fragment): Promise<R[]> {
  const p = readerPool();
  const { text, values } = compile(statement);
  const execute = executeStatement(text, values);
  const on = async (client: pg.PoolClient, check: boolean) => {
    const setScope = await scopeStatement(client, scope);
    await prepareOn(client, [text]);
    const results = (await client.query(
      `${check ? `${LAG_CHECK}; ` : ''}${setScope}; ${execute}`,
    )) as unknown as pg.QueryResult[];
    return results;
  };
  if (p) {
    const client = await connectReader(p);
    if (client) {
      let failed: Error | undefined;
      try {
        const results = await on(client, true);
        const lagMs = Number(results[0].rows[0].lag_ms);
        if (fresh(lagMs)) {
          chose('replica', 'fresh', lagMs);
          return results[2].rows as R[];
        }
        chose('writer', 'lagging', lagMs);
      } catch (e) {
        failed = e as Error;
        chose('writer', 'unreachable', null);
      } finally {
        client.release(failed);
      }
    }
  } else chose('writer', 'unset', null);
  return onConnection(async (client) => (await on(client, false))[1].rows as R[]);
}

/**
 * A connection with a read-only transaction open (`begin`, e.g. `BEGIN ISOLATION LEVEL REPEATABLE
 * READ READ ONLY`) and the tenant scope set: on the replica when its lag, checked inside that
 * transaction's snapshot, is within the bound; else on the writer. The caller ends the transaction
 * and releases the connection.
 */
export async function readerTransaction(scope: TenantScope, begin: string): Promise<pg.PoolClient> {
  const p = readerPool();
  if (p) {
    const client = await connectReader(p);
    if (client) {
      let failed: Error | undefined;
      try {
        const setScope = await scopeStatement(client, scope);
        const results = (await client.query(`${begin}; ${LAG_CHECK}; ${setScope}`)) as unknown as pg.QueryResult[];
        const lagMs = Number(results[1].rows[0].lag_ms);
        if (fresh(lagMs)) {
          chose('replica', 'fresh', lagMs);
          return client;
        }
        chose('writer', 'lagging', lagMs);
        await client.query('ROLLBACK');
      } catch (e) {
        failed = e as Error;
        chose('writer', 'unreachable', null);
      }
      client.release(failed);
    }
  } else chose('writer', 'unset', null);
  const client = await db().app.connect();
  try {
    await client.query(`${begin}; ${await scopeStatement(client, scope)}`);
  } catch (e) {
    client.release(e as Error);
    throw e;
  }
  return client;
}

/** The workers' heartbeat on the writer, every second; an outage skips beats (the reads fall back). */
export function startHeartbeat(): () => void {
  const beat = () =>
    db()
      .system.query(HEARTBEAT)
      .catch((e) => warnUnavailable('heartbeat', e));
  void beat();
  const timer = setInterval(beat, 1000);
  timer.unref();
  return () => clearInterval(timer);
}
