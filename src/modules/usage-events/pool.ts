/**
 * Ingestion's own connections (docs/usage.md, Admission): a flood of usage events waits for these
 * `usageDbPool` connections, never for the ones every other request needs. Same login as the tenant
 * pool, so row-level security applies; one pool per database the process has open.
 */
import pg from 'pg';
import { config } from '../../core/config.ts';
import { db, scopeStatement, type TenantScope } from '../../core/db/client.ts';
import { appDatabaseUrl } from '../../core/db/roles.ts';
import { compile, type Fragment } from '../../core/db/sql-template.ts';

let current: { url: string; pool: pg.Pool } | undefined;

function ingestPool(): pg.Pool {
  const url = db().url;
  if (current?.url === url) return current.pool;
  current?.pool.end().catch(() => {});
  const pool = new pg.Pool({
    connectionString: appDatabaseUrl(url),
    max: config.usageDbPool,
    connectionTimeoutMillis: config.dbAcquireTimeoutMs,
    idleTimeoutMillis: 30_000,
    // An idle ingestion connection never keeps a stopping process alive.
    allowExitOnIdle: true,
  });
  pool.on('error', () => {});
  current = { url, pool };
  return pool;
}

/** One statement of an ingestion transaction: bound parameters, extended protocol (arrays stay binary-safe). */
export type Run = <R>(statement: Fragment) => Promise<R[]>;

/** One tenant transaction on the ingestion pool; ROLLBACK on any error. */
export async function inIngestTx<T>(scope: TenantScope, fn: (run: Run) => Promise<T>): Promise<T> {
  const client = await ingestPool().connect();
  let broken: Error | undefined;
  try {
    await client.query(`BEGIN; ${await scopeStatement(client, scope)}`);
    const run: Run = async (statement) => (await client.query(compile(statement))).rows;
    try {
      const out = await fn(run);
      await client.query('COMMIT');
      return out;
    } catch (e) {
      await client.query('ROLLBACK').catch((r: Error) => (broken = r));
      throw e;
    }
  } finally {
    client.release(broken);
  }
}

/** For shutdown and tests: the pool's connections closed. */
export async function closeIngestPool() {
  const c = current;
  current = undefined;
  await c?.pool.end();
}
