import pg from 'pg';
// @ts-expect-error pg's array literal encoder has no type declarations
import { prepareValue } from 'pg/lib/utils.js';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient, type Prisma } from '../../generated/prisma/client.ts';
import { config } from '../config.ts';
import { logger } from '../logger.ts';

/** The role every tenant query runs as: it owns nothing and cannot bypass row-level security. */
export const APP_ROLE = 'svc_app';

export type Tx = Prisma.TransactionClient;
export type Mode = 'test' | 'live';

/** What a tenant transaction may see: one workspace and the modes the operation allows. */
export interface TenantScope {
  workspaceId: string;
  modes: readonly Mode[];
}

export interface Database {
  url: string;
  /** Tenant pool: every connection switches to APP_ROLE, so RLS always applies. */
  app: pg.Pool;
  /** Infrastructure pool (auth lookups, relay, jobs, bootstrap): the owner role, across tenants. */
  system: pg.Pool;
  prisma: PrismaClient;
  /** Prisma over the owner pool, created on first use: each client holds its own query compiler (tens of MB). */
  readonly systemPrisma: PrismaClient;
}

let current: Database | undefined;

export function openDatabase(url: string): Database {
  if (current) return current;
  // The role is a startup parameter: set before the connection is handed out, no extra statement.
  const app = new pg.Pool({ connectionString: url, max: config.poolSize, options: `-c role=${APP_ROLE}` });
  const system = new pg.Pool({ connectionString: url, max: Math.max(4, Math.floor(config.poolSize / 2)) });
  // An idle connection dropped by the server (restart, failover) is replaced on next use; unhandled, it would kill the process.
  for (const pool of [app, system]) pool.on('error', (err) => logger.warn({ code: (err as { code?: string }).code, reason: err.message }, 'idle database connection lost'));
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
  };
  return current;
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
  await Promise.allSettled([d.prisma.$disconnect(), system?.$disconnect()]);
  await Promise.allSettled([d.app.end(), d.system.end()]);
}

const SET_SCOPE = `SELECT set_config('app.workspace_id', $1, true), set_config('app.modes', $2, true)`;

/** A string as an SQL literal (standard_conforming_strings; see sqlLiteral for any value). */
const literal = (v: string) => `'${v.replace(/'/g, "''")}'`;
/** The tenant scope as a statement without parameters, to travel in one message with others. */
export const scopeStatement = (scope: TenantScope) =>
  `SELECT set_config('app.workspace_id', ${literal(scope.workspaceId)}, true), set_config('app.modes', ${literal(scope.modes.join(','))}, true)`;
export const beginScoped = (scope: TenantScope) => `BEGIN; ${scopeStatement(scope)}`;

/** One tenant transaction through Prisma: the scope is set first, for this transaction only. */
export function inTenant<T>(scope: TenantScope, fn: (tx: Tx) => Promise<T>, opts: { serializable?: boolean } = {}): Promise<T> {
  return db().prisma.$transaction(
    async (tx) => {
      await tx.$queryRawUnsafe(SET_SCOPE, scope.workspaceId, scope.modes.join(','));
      return fn(tx);
    },
    // READ COMMITTED is PostgreSQL's default: naming it costs a `SET TRANSACTION` round trip per transaction.
    { isolationLevel: opts.serializable ? 'Serializable' : undefined, timeout: 15_000, maxWait: 10_000 },
  );
}

/**
 * The raw-SQL path for hot statements: same role, same scope, no ORM, one round trip. The scope
 * and the statement travel as one simple-protocol message, which PostgreSQL runs as one implicit
 * transaction (rolled back whole on error), so parameters are sent inlined as literals. Write the
 * SQL with `$n` placeholders as usual; they must not appear inside the SQL's own string literals.
 */
export async function tenantQuery<R extends pg.QueryResultRow>(scope: TenantScope, sql: string, params: unknown[]): Promise<R[]> {
  const results = (await db().app.query(`${scopeStatement(scope)}; ${inlineParams(sql, params)}`)) as unknown as pg.QueryResult<R>[];
  return results[1].rows;
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
