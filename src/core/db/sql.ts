import pg from 'pg';
import { executeStatement, onConnection, prepareOn, scopeStatement, type Mode, type TenantScope, type Tx } from './client.ts';

/**
 * Raw SQL in a tenant transaction, the same from either side: a Prisma interactive transaction
 * or a bare `pg` one. Hot paths (checkout create, attempt, completion) run on `pg` with a handful
 * of statements; everything else stays on Prisma and still shares these statements through
 * `prismaSql(tx)`. Rows come back in Prisma's shape either way (`int8` as bigint, dates as Date).
 */
export interface Sql {
  query<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
  /**
   * The transaction's last statement: on `pg` it travels with COMMIT in one message (nothing may
   * follow it); on Prisma it is an ordinary statement and Prisma commits after the callback.
   */
  last<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
}

export const prismaSql = (tx: Tx): Sql => {
  const query = <R>(text: string, params: unknown[] = []) => tx.$queryRawUnsafe<R[]>(text, ...params);
  return { query, last: query };
};

/** Either kind of transaction, for functions that both the Prisma and the `pg` paths call. */
export type AnyTx = Tx | Sql;
export const sqlOf = (t: AnyTx): Sql => ('$queryRawUnsafe' in t ? prismaSql(t) : t);

// int8 as bigint like Prisma (pg's default is a string); everything else as pg parses it.
const INT8 = 20;
const parseInt8 = (v: string) => BigInt(v);
const types = { getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === INT8 ? parseInt8 : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser };

/**
 * One tenant transaction on the `pg` pool in as few round trips as the work allows: BEGIN and the
 * scope travel with the first statement, and COMMIT with the one sent as `last` (or alone after
 * the callback). Every statement is a prepared statement of the connection (prepareOn), run as a
 * simple-protocol `EXECUTE` with its parameters inlined, so it is planned once per connection and
 * still shares a message with BEGIN or COMMIT. ROLLBACK on any error; run once more on a fresh
 * connection if the prepared statements went stale (onConnection), so `fn` must be safe to repeat
 * after a rollback, as any transaction retry requires.
 */
export async function tenantTx<T>(scope: TenantScope, fn: (sql: Sql) => Promise<T>): Promise<T> {
  return onConnection(async (client) => {
    let state = 'new' as 'new' | 'open' | 'committed';
    const send = async <R>(text: string, params: unknown[], commit: boolean): Promise<R[]> => {
      if (state === 'committed') throw new Error('tenantTx: a statement after the last one');
      const statement = executeStatement(text, params);
      const head = state === 'new' ? ['BEGIN', await scopeStatement(client, scope)] : [];
      await prepareOn(client, [text]);
      state = 'open';
      const results = (await client.query({ text: [...head, statement, ...(commit ? ['COMMIT'] : [])].join('; '), types })) as unknown as pg.QueryResult | pg.QueryResult[];
      if (commit) state = 'committed';
      // BEGIN and the scope come first when they were sent; the statement's result follows them.
      return (Array.isArray(results) ? results[head.length] : results).rows as R[];
    };
    try {
      const out = await fn({ query: (text, params = []) => send(text, params, false), last: (text, params = []) => send(text, params, true) });
      if (state === 'open') await client.query('COMMIT');
      return out;
    } catch (e) {
      if (state === 'open') await client.query('ROLLBACK').catch(() => {});
      throw e;
    }
  });
}

/** The scope of one workspace and mode, as tenant transactions take it. */
export const scopeOf = (s: { workspaceId: string; mode: Mode }): TenantScope => ({ workspaceId: s.workspaceId, modes: [s.mode] });

/** JSON for `jsonb_populate_record(set)`: bigints as strings, which the column types read back exactly. */
export const toJson = (rows: unknown) => JSON.stringify(rows, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));

/** The quoted column list of a row object. */
export const columns = (row: object) => Object.keys(row).map((k) => `"${k}"`).join(', ');

/**
 * `INSERT INTO <table> (<keys>) SELECT <keys> FROM jsonb_populate_recordset(...)`: rows as one JSON
 * parameter, typed by the table itself, so one statement writes any number of rows. Columns not
 * named keep their database defaults.
 */
export function insertRows(table: string, rows: Record<string, unknown>[], param: number): { text: string; value: string } {
  const cols = columns(rows[0]);
  return { text: `INSERT INTO ${table} (${cols}) SELECT ${cols} FROM jsonb_populate_recordset(NULL::${table}, $${param}::jsonb)`, value: toJson(rows) };
}

/**
 * Updates one tenant row by id with the columns of `data`, typed by the table (jsonb, arrays and
 * bigints need no casts), and returns it as it is now. `last`: the transaction's last statement.
 */
export async function updateRow<R>(sql: Sql, table: string, key: { id: string; workspaceId: string; mode: Mode }, data: Record<string, unknown>, last = false): Promise<R> {
  const cols = columns(data);
  const [row] = await sql[last ? 'last' : 'query']<R>(
    `UPDATE ${table} SET (${cols}) = (SELECT ${cols} FROM jsonb_populate_record(NULL::${table}, $1::jsonb)) WHERE id = $2 AND "workspaceId" = $3 AND mode = $4 RETURNING *`,
    [toJson(data), key.id, key.workspaceId, key.mode],
  );
  if (!row) throw new Error(`${table} ${key.id} not found for update`);
  return row;
}

/** A checked-out `pg` client as `Sql` (rows in Prisma's shape), for work on the system pool: the relay and the webhook worker. */
export const clientSql = (client: pg.ClientBase): Sql => {
  const query = async <R>(text: string, params: unknown[] = []) => (await client.query({ text, values: params, types })).rows as R[];
  return { query, last: query };
};
