import { AsyncLocalStorage } from 'node:async_hooks';
import type pg from 'pg';

/**
 * Statements sent to PostgreSQL per request, for the no-N+1 tests and `npm run bench:graph`.
 * Off by default: then connections are not even wrapped. On (`SVC_COUNT_STATEMENTS=1` or
 * `countStatements(true)` before the app is built), every request runs inside a counter and its
 * count is sent back in the `x-svc-statements` header (src/server/statement-count.ts).
 *
 * One statement is one `query` message on a pooled connection, Prisma's or ours: a tenantTx message
 * that carries BEGIN, the scope, the statement and COMMIT counts once (one round trip), a Prisma
 * transaction counts BEGIN, the scope, each query and COMMIT. `PREPARE`/`DEALLOCATE` are not counted:
 * they happen once per connection (src/core/db/client.ts prepareOn), so they depend on which
 * connection a request gets, not on the request.
 */
export interface StatementCounter {
  count: number;
}

const store = new AsyncLocalStorage<StatementCounter>();
let enabled = process.env.SVC_COUNT_STATEMENTS === '1';

export const countingStatements = () => enabled;
export function countStatements(on: boolean) {
  enabled = on;
}

/** Runs `fn` (and everything it starts) with a fresh counter. */
export function withStatementCounter<T>(counter: StatementCounter, fn: () => T): T {
  return store.run(counter, fn);
}

const perConnection = /^\s*(PREPARE|DEALLOCATE)\b/i;

/**
 * Wraps `query` of each connection the pool opens while counting is on (pg's own `pool.query` goes
 * through it too); connections opened with counting off are left untouched. The wrapper calls the
 * prototype's `query` as it is at call time, so tests that patch `pg.Client.prototype.query` still see it.
 */
export function instrumentPool(pool: pg.Pool) {
  pool.on('connect', (client) => {
    if (!enabled) return;
    const proto = Object.getPrototypeOf(client) as { query: (...a: unknown[]) => unknown };
    client.query = function (this: pg.PoolClient, ...args: unknown[]) {
      const counter = enabled ? store.getStore() : undefined;
      if (counter) {
        const first = args[0] as string | { text?: string } | undefined;
        const text = typeof first === 'string' ? first : (first?.text ?? '');
        if (!perConnection.test(text)) counter.count++;
      }
      return proto.query.apply(this, args);
    } as typeof client.query;
  });
}
