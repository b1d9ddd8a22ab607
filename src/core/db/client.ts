import { createHash } from 'node:crypto';
import pg from 'pg';
// @ts-expect-error pg's array literal encoder has no type declarations
import { prepareValue } from 'pg/lib/utils.js';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient, type Prisma } from '../../generated/prisma/client.ts';
import { config } from '../config.ts';

import { appDatabaseUrl } from './roles.ts';
import { compile, type Fragment } from './sql-template.ts';
import { instrumentPool } from './statements.ts';
import { insideTransaction } from './open-transaction.ts';
import { READ_ONLY_SQLSTATE, warnUnavailable } from './unavailable.ts';

/** The roles tenant queries run as (src/core/db/roles.ts): they own nothing and cannot bypass row-level security. */
export { APP_ROLE, APP_LOGIN_ROLE } from './roles.ts';

export type Tx = Prisma.TransactionClient;
export type Mode = 'test' | 'live';

/** What a tenant transaction may see: one workspace and the modes the operation allows. */
export interface TenantScope {
  workspaceId: string;
  modes: readonly Mode[];
}

export interface Database {
  url: string;
  /** Tenant pool: logs in as APP_LOGIN_ROLE (appDatabaseUrl), so RLS always applies. */
  app: pg.Pool;
  /** Infrastructure pool (auth lookups, relay, jobs, bootstrap): the owner role, across tenants. */
  system: pg.Pool;
  prisma: PrismaClient;
  /** Prisma over the owner pool, created on first use: each client holds its own query compiler (tens of MB). */
  readonly systemPrisma: PrismaClient;
  /**
   * The reconciliation pool (tenant role, `SVC_RECON_POOL_SIZE`), created on first use: an upload holds a
   * connection for its whole file, never one of the request pool's (docs/reconciliation.md, Import pipeline).
   */
  readonly recon: pg.Pool;
}

let current: Database | undefined;
/** The longest an upload waits for a connection of the reconciliation pool. */
const RECON_ACQUIRE_MS = 60_000;

/** `url` is the owner's (DATABASE_URL); the tenant pool's is derived from it unless `appUrl` is given. */
export function openDatabase(url: string, opts: { appUrl?: string } = {}): Database {
  if (current) return current;
  // Its own login, not `SET ROLE` on an owner connection: nothing on it can switch back to the owner.
  // connectionTimeoutMillis bounds both the wait for a free connection and opening a new one: a full or
  // unreachable pool fails the caller (503, src/core/db/unavailable.ts) instead of queueing it forever.
  const timeout = { connectionTimeoutMillis: config.dbAcquireTimeoutMs };
  const app = new pg.Pool({ connectionString: opts.appUrl ?? appDatabaseUrl(url), max: config.poolSize, ...timeout });
  const system = new pg.Pool({
    connectionString: url,
    max: Math.max(4, Math.floor(config.poolSize / 2)),
    ...timeout,
  });
  for (const pool of [app, system]) {
    instrumentPool(pool);
    discardReadOnly(pool);
  }
  for (const [name, pool] of [
    ['app', app],
    ['system', system],
  ] as const) {
    // pg-pool listens for errors only while a connection is idle: one dropped while checked out
    // (between the statements of a unit of work, a held relay transaction) would emit an unheard
    // 'error' and kill the process. This listener stays for the connection's whole life; the
    // statement in flight fails by itself (503 to its request) and pg-pool discards the connection
    // on release (it is no longer queryable), so the next request gets a fresh one.
    // A pool being closed (a stop) may hear its last connections go: that is no outage.
    const lost = (err: Error) => pool.ending || warnUnavailable(`database (${name} pool)`, err);
    pool.on('connect', (client) => client.on('error', lost));
    // An idle connection dropped by the server (restart, failover) is replaced on next use.
    pool.on('error', lost);
  }
  current = {
    url,
    app,
    system,
    prisma: new PrismaClient({ adapter: new PrismaPg(app) }),
    get systemPrisma() {
      const client = new PrismaClient({ adapter: new PrismaPg(system) });
      Object.defineProperty(this, 'systemPrisma', { value: client });
      return client;
    },
    get recon() {
      // Up to 4 uploads stream per process on 2 connections by default: the others wait for one (up to a minute,
      // an upload's pace), not the request pool's 5 s.
      const pool = new pg.Pool({
        connectionString: opts.appUrl ?? appDatabaseUrl(url),
        max: config.reconPoolSize,
        connectionTimeoutMillis: Math.max(config.dbAcquireTimeoutMs, RECON_ACQUIRE_MS),
      });
      instrumentPool(pool);
      discardReadOnly(pool);
      const lost = (err: Error) => pool.ending || warnUnavailable('database (recon pool)', err);
      pool.on('connect', (client) => client.on('error', lost));
      pool.on('error', lost);
      Object.defineProperty(this, 'recon', { value: pool });
      return pool;
    },
  };
  return current;
}

/**
 * A connection that answered 25006 (read_only_sql_transaction) reached a node that cannot write: a
 * failover's new primary in its read-only moment, a demoted one, a session left read-only. It is
 * closed when released instead of going back to the pool, so the next unit of work connects again
 * (through the load balancer, to the writer). Prisma releases its connections without the error,
 * hence the watch on every statement's outcome; the wrapper calls whatever `query` the connection
 * had (src/core/db/statements.ts may have wrapped it) or, if none of its own, the prototype's at call time.
 */
function discardReadOnly(pool: pg.Pool) {
  const readOnly = new WeakSet<pg.ClientBase>();
  pool.on('connect', (client) => {
    const own = Object.hasOwn(client, 'query') ? client.query : undefined;
    client.query = function (this: pg.PoolClient, ...args: unknown[]) {
      const query = own ?? (Object.getPrototypeOf(client) as { query: (...a: unknown[]) => unknown }).query;
      const result = query.apply(this, args) as Promise<unknown> | undefined;
      if (typeof result?.then === 'function')
        result.then(undefined, (e: { code?: string }) => {
          if (e?.code === READ_ONLY_SQLSTATE) readOnly.add(client);
        });
      return result;
    } as typeof client.query;
  });
  // Emitted before pg-pool decides: a connection that is ending is removed, never handed out again.
  pool.on('release', (_err, client) => {
    if (readOnly.has(client)) client.end().catch(() => {});
  });
}

export function db(): Database {
  if (!current) throw new Error('database not opened');
  return current;
}

export async function closeDatabase() {
  const d = current;
  current = undefined;
  if (!d) return;
  // Reading systemPrisma here would create it: only a client that exists is disconnected.
  const system = Object.getOwnPropertyDescriptor(d, 'systemPrisma')?.value as PrismaClient | undefined;
  const recon = Object.getOwnPropertyDescriptor(d, 'recon')?.value as pg.Pool | undefined;
  await Promise.allSettled([d.prisma.$disconnect(), system?.$disconnect()]);
  await Promise.allSettled([ended(d.app), ended(d.system), ...(recon ? [ended(recon)] : [])]);
}

/**
 * pg-pool's `end()` resolves once it has asked its connections to close, not once they have: the
 * caller (a stop that then stops the embedded PostgreSQL) waits for each to be gone, at most 2 s.
 */
async function ended(pool: pg.Pool) {
  const open = pool.totalCount;
  let removed = 0;
  const gone = new Promise<void>((resolve) => {
    if (open === 0) resolve();
    pool.on('remove', () => ++removed >= open && resolve());
  });
  await pool.end();
  await Promise.race([gone, new Promise((r) => setTimeout(r, 2000).unref())]);
}

const SET_SCOPE = `SELECT set_config('app.workspace_id', $1, true), set_config('app.modes', $2, true)`;

/** A string as an SQL literal (standard_conforming_strings; see sqlLiteral for any value). */
const literal = (v: string) => `'${v.replace(/'/g, "''")}'`;

/*
 * Server-side prepared statements for the raw-SQL paths. Parsing and planning were nearly half of
 * PostgreSQL's CPU on the checkout path, so each statement text is prepared once per connection
 * (`PREPARE`, its own round trip, the first time) and then run as `EXECUTE name(literals)`. That
 * stays a simple-protocol statement, so it still travels in one message with BEGIN, the scope and
 * COMMIT. Names are a hash of the text: the same text is the same statement on every connection.
 */
const PREPARED_PER_CONNECTION = 500;
const preparedOn = new WeakMap<pg.ClientBase, Set<string>>();
const statements = new Map<string, { name: string; arity: number }>();

function statementOf(text: string) {
  let s = statements.get(text);
  if (!s) {
    const arity = Math.max(0, ...[...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
    s = { name: `svc_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`, arity };
    // Statement texts come from code, so this stays small; the bound is a guard against a dynamic one.
    if (statements.size >= 10_000) statements.clear();
    statements.set(text, s);
  }
  return s;
}

/** Prepares on this connection whichever of `texts` it has not prepared yet. PREPARE outlives a rollback. */
export async function prepareOn(client: pg.ClientBase, texts: string[]) {
  let done = preparedOn.get(client);
  if (!done) preparedOn.set(client, (done = new Set()));
  for (const text of texts) {
    const { name } = statementOf(text);
    if (done.has(name)) continue;
    if (done.size >= PREPARED_PER_CONNECTION) {
      await client.query('DEALLOCATE ALL');
      done.clear();
    }
    await client.query(`PREPARE ${name} AS ${text}`);
    done.add(name);
  }
}

/**
 * `EXECUTE` of a statement prepared by prepareOn, its parameters inlined as literals (see sqlLiteral).
 * Statement text shows in pg_stat_activity and in the server's error log: secrets and ciphertext
 * never go through here (they are written through Prisma, with bind parameters; idempotent
 * responses are stored without their secrets, src/core/idempotency.ts).
 */
export function executeStatement(text: string, params: unknown[]) {
  const { name, arity } = statementOf(text);
  if (params.length < arity) throw new Error(`prepared SQL: $${arity} has no parameter`);
  return arity ? `EXECUTE ${name}(${params.slice(0, arity).map(sqlLiteral).join(', ')})` : `EXECUTE ${name}`;
}

/**
 * A connection whose prepared statements no longer match the server: one was dropped (DISCARD,
 * DEALLOCATE), or a migration changed a table under a `SELECT *` plan ("cached plan must not change
 * result type"). Such a connection is closed, not reused, and the unit of work runs once more on a
 * fresh one (onConnection); PostgreSQL rolled the failed attempt back whole.
 */
export const stalePrepared = (e: unknown) => {
  const code = (e as { code?: string }).code;
  return code === '26000' || (code === '0A000' && /cached plan/.test((e as Error).message));
};

/** Runs `unit` on a pooled connection, once more on a fresh one if its prepared statements went stale. */
export async function onConnection<T>(unit: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await db().app.connect();
    let stale: Error | undefined;
    try {
      return await unit(client);
    } catch (e) {
      if (stalePrepared(e)) stale = e as Error;
      if (!stale || attempt > 1) throw e;
    } finally {
      client.release(stale);
    }
  }
}

/** The statement that sets the tenant scope for the current transaction, prepared on `client`. */
export async function scopeStatement(client: pg.ClientBase, scope: TenantScope) {
  await prepareOn(client, [SET_SCOPE]);
  return executeStatement(SET_SCOPE, [scope.workspaceId, scope.modes.join(',')]);
}

/** One tenant transaction through Prisma: the scope is set first, for this transaction only. */
export function inTenant<T>(
  scope: TenantScope,
  fn: (tx: Tx) => Promise<T>,
  opts: { serializable?: boolean } = {},
): Promise<T> {
  return db().prisma.$transaction(
    (tx) =>
      insideTransaction(async () => {
        await tx.$queryRawUnsafe(SET_SCOPE, scope.workspaceId, scope.modes.join(','));
        return fn(tx);
      }),
    // READ COMMITTED is PostgreSQL's default: naming it costs a `SET TRANSACTION` round trip per transaction.
    { isolationLevel: opts.serializable ? 'Serializable' : undefined, timeout: 15_000, maxWait: 10_000 },
  );
}

/**
 * The raw-SQL path for hot statements: same role, same scope, no ORM, one round trip. The scope
 * and the statement travel as one simple-protocol message, which PostgreSQL runs as one implicit
 * transaction (rolled back whole on error); both are prepared statements (prepareOn), so
 * parameters are sent inlined as literals. Build the statement with `sql` (sql-template.ts): its
 * `$n` never appear inside the SQL's own string literals.
 */
export async function tenantQuery<R extends pg.QueryResultRow>(scope: TenantScope, statement: Fragment): Promise<R[]> {
  const { text: sql, values } = compile(statement);
  const execute = executeStatement(sql, values);
  return onConnection(async (client) => {
    const setScope = await scopeStatement(client, scope);
    await prepareOn(client, [sql]);
    const results = (await client.query(`${setScope}; ${execute}`)) as unknown as pg.QueryResult<R>[];
    return results[1].rows;
  });
}

/** `$n` replaced by the n-th parameter as an SQL literal (see sqlLiteral). */
export const inlineParams = (sql: string, params: unknown[]) =>
  sql.replace(/\$(\d+)/g, (_, n: string) => {
    if (Number(n) > params.length) throw new Error(`inlined SQL: $${n} has no parameter`);
    return sqlLiteral(params[Number(n) - 1]);
  });

/**
 * A parameter as an untyped literal, which PostgreSQL types from its context exactly as it types a
 * bound parameter. Backslashes use the E'' form, so the result does not depend on
 * standard_conforming_strings.
 */
function sqlLiteral(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (Buffer.isBuffer(v)) return `E'\\\\x${v.toString('hex')}'`;
  if (v instanceof Date) return literal(v.toISOString());
  if (typeof v === 'object') return literal(Array.isArray(v) ? String(prepareValue(v)) : JSON.stringify(v));
  const text = String(v);
  return text.includes('\\') ? `E${literal(text.replace(/\\/g, '\\\\'))}` : literal(text);
}
