import { config } from '../config.ts';
import { DomainError } from '../errors.ts';
import { logger } from '../logger.ts';

/*
 * "The database is not there right now", as opposed to a fault in a statement: the server went
 * away (restart, failover, a terminated backend), refuses connections, or every pooled connection
 * stayed busy past the acquire timeout. Such a failure is the client's 503 `service_unavailable`
 * with `Retry-After`, and a rate-limited warning, never a 500 and an error line per request.
 */

/**
 * SQLSTATEs: admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections, and
 * read_only_sql_transaction: a failover's new primary runs read-only for a moment after its crash
 * recovery while the load balancer already sends it connections (docs/scaling.md); class 08 is
 * connection_exception.
 */
export const READ_ONLY_SQLSTATE = '25006';
const UNAVAILABLE_SQLSTATE = new Set(['57P01', '57P02', '57P03', '53300', READ_ONLY_SQLSTATE]);
const UNAVAILABLE_ERRNO = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** Prisma: can't reach the server, the server closed the connection, timed out taking a pooled connection. */
const UNAVAILABLE_PRISMA = new Set(['P1001', 'P1002', 'P1017', 'P2024']);
/** What the adapter makes of a socket error (@prisma/adapter-pg, convertDriverError). */
const UNAVAILABLE_KIND = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
/**
 * node-postgres and pg-pool raise these as plain Errors, without a code; so does pg-boss's LISTEN
 * connection when it closes without an error, stops answering its heartbeat or lost its LISTEN (it
 * reconnects itself).
 */
const UNAVAILABLE_MESSAGE =
  /^(timeout exceeded when trying to connect|Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|Cannot use a pool after calling end|Unable to start a transaction in the given time|LISTEN\/NOTIFY (connection ended|heartbeat timed out|channel registration was lost))/;

/** True when `e` (or what it wraps) says the database is unreachable rather than that a statement failed. */
export function isDatabaseUnavailable(e: unknown, depth = 0): boolean {
  if (!e || typeof e !== 'object' || depth > 5) return false;
  const x = e as {
    code?: unknown;
    originalCode?: unknown;
    kind?: unknown;
    message?: unknown;
    cause?: unknown;
    originalError?: unknown;
    meta?: { driverAdapterError?: { cause?: unknown } };
  };
  for (const code of [x.code, x.originalCode])
    if (
      typeof code === 'string' &&
      (UNAVAILABLE_SQLSTATE.has(code) ||
        /^08[0-9A-Z]{3}$/.test(code) ||
        UNAVAILABLE_ERRNO.has(code) ||
        UNAVAILABLE_PRISMA.has(code))
    )
      return true;
  if (typeof x.kind === 'string' && UNAVAILABLE_KIND.has(x.kind)) return true;
  if (typeof x.message === 'string' && UNAVAILABLE_MESSAGE.test(x.message)) return true;
  return [x.cause, x.originalError, x.meta?.driverAdapterError?.cause, x.meta?.driverAdapterError].some((inner) =>
    isDatabaseUnavailable(inner, depth + 1),
  );
}

/** Seconds a client is asked to wait: about one reconnect attempt of the pools and the boot wait. */
export const RETRY_AFTER_SEC = 2;

export const serviceUnavailable = () =>
  new DomainError('service_unavailable', 'The database is unavailable; retry after `Retry-After` seconds', {
    headers: { 'retry-after': String(RETRY_AFTER_SEC) },
  });

const lastWarned = new Map<string, number>();
const suppressed = new Map<string, number>();

/**
 * One warning per component per interval (`SVC_DB_WARN_INTERVAL_MS`) while the database is away,
 * with how many failures it stands for, instead of a line per failed request or job.
 */
export function warnUnavailable(component: string, e: unknown) {
  const now = Date.now();
  const entry = suppressed.get(component) ?? 0;
  const last = lastWarned.get(component);
  if (last !== undefined && now - last < config.dbWarnIntervalMs) {
    suppressed.set(component, entry + 1);
    return;
  }
  lastWarned.set(component, now);
  suppressed.set(component, 0);
  const err = e as { code?: string; message?: string };
  logger.warn(
    { component, code: err?.code, reason: err?.message, ...(entry ? { suppressed: entry } : {}) },
    'database unavailable',
  );
}
/** `e` as the client sees it: a database outage becomes 503 `service_unavailable` (warned once per interval). */
export function asUnavailable(e: unknown, component = 'api'): DomainError | undefined {
  if (e instanceof DomainError || !isDatabaseUnavailable(e)) return undefined;
  warnUnavailable(component, e);
  return serviceUnavailable();
}
