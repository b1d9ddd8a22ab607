import pg from 'pg';
import {
  executeStatement,
  onConnection,
  prepareOn,
  scopeStatement,
  type Mode,
  type TenantScope,
  type Tx,
} from './client.ts';
import { compile, sql as q, type Fragment } from './sql-template.ts';
import { insideTransaction } from './open-transaction.ts';
import type { RowScope } from '../resource.ts';

export { sql, Fragment } from './sql-template.ts';

/**
 * Raw SQL in a tenant transaction, the same from either side: a Prisma interactive transaction
 * or a bare `pg` one. Hot paths (checkout create, attempt, completion) run on `pg` with a handful
 * of statements; everything else stays on Prisma and still shares these statements through
 * `prismaSql(tx)`. Rows come back in Prisma's shape either way (`int8` as bigint, dates as Date).
 */
export interface Sql {
  query<R = Record<string, unknown>>(statement: Fragment): Promise<R[]>;
  /**
   * The transaction's last statement: on `pg` it travels with COMMIT in one message (nothing may
   * follow it); on Prisma it is an ordinary statement and Prisma commits after the callback.
   */
  last<R = Record<string, unknown>>(statement: Fragment): Promise<R[]>;
}

export const prismaSql = (tx: Tx): Sql => {
  const query = <R>(statement: Fragment) => {
    const { text, values } = compile(statement);
    return tx.$queryRawUnsafe<R[]>(text, ...values);
  };
  return { query, last: query };
};

/** Either kind of transaction, for functions that both the Prisma and the `pg` paths call. */
export type AnyTx = Tx | Sql;
export const sqlOf = (t: AnyTx): Sql => ('$queryRawUnsafe' in t ? prismaSql(t) : t);

// int8 as bigint like Prisma (pg's default is a string); everything else as pg parses it.
const INT8 = 20;
const parseInt8 = (v: string) => BigInt(v);
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8 ? parseInt8 : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

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
    const send = async <R>(fragment: Fragment, commit: boolean): Promise<R[]> => {
      if (state === 'committed') throw new Error('tenantTx: a statement after the last one');
      const { text, values } = compile(fragment);
      const statement = executeStatement(text, values);
      const head = state === 'new' ? ['BEGIN', await scopeStatement(client, scope)] : [];
      await prepareOn(client, [text]);
      state = 'open';
      const results = (await client.query({
        text: [...head, statement, ...(commit ? ['COMMIT'] : [])].join('; '),
        types,
      })) as unknown as pg.QueryResult | pg.QueryResult[];
      if (commit) state = 'committed';
      // BEGIN and the scope come first when they were sent; the statement's result follows them.
      return (Array.isArray(results) ? results[head.length] : results).rows as R[];
    };
    try {
      const out = await insideTransaction(() => fn({ query: (f) => send(f, false), last: (f) => send(f, true) }));
      if (state === 'open') await client.query('COMMIT');
      return out;
    } catch (e) {
      if (state === 'open') await client.query('ROLLBACK').catch(() => {});
      throw e;
    }
  });
}

/** The scope of one workspace and mode, as tenant transactions take it. */
export const scopeOf = (s: RowScope): TenantScope => ({
  workspaceId: s.workspaceId,
  modes: [s.mode],
});

/**
 * Rows of one tenant table by id, in the caller's workspace and mode (another tenant's id reads as an
 * unknown one), in id order; `lock`: `FOR UPDATE` for the rest of the transaction (id order, so two
 * batches that share rows queue rather than deadlock). The one way a service loads scoped rows by id
 * on either SQL path; `scopedRow` is a batch of one.
 */
export async function scopedRows<R>(
  tx: AnyTx,
  table: string,
  scope: RowScope,
  ids: readonly string[],
  o: { lock?: boolean } = {},
): Promise<R[]> {
  if (!ids.length) return [];
  return sqlOf(tx).query<R>(
    q`SELECT * FROM ${q.id(table)} WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
      AND id = ANY (${[...new Set(ids)]}::text[]) ORDER BY id${o.lock ? q` FOR UPDATE` : q.empty}`,
  );
}

/** `scopedRows` of one id: the row, or null when it is not in the scope. */
export async function scopedRow<R>(tx: AnyTx, table: string, scope: RowScope, id: string, o: { lock?: boolean } = {}) {
  const [row] = await scopedRows<R>(tx, table, scope, [id], o);
  return row ?? null;
}

/** JSON for `jsonb_populate_record(set)`: bigints as strings, which the column types read back exactly. */
export const toJson = (rows: unknown) => JSON.stringify(rows, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));

/** The column list of a row object, each name an escaped identifier (`alias`: qualified, `r."id"`). */
export const columns = (row: object, alias?: string) =>
  q.join(Object.keys(row).map((k) => (alias ? q`${q.id(alias)}.${q.id(k)}` : q.id(k))));

/**
 * `INSERT INTO <table> (<keys>) SELECT <keys> FROM jsonb_populate_recordset(...)`: rows as one JSON
 * parameter, typed by the table itself, so one statement writes any number of rows. Columns not
 * named keep their database defaults. The text depends on the table and the keys only.
 */
export function insertRows(table: string, rows: Record<string, unknown>[]): Fragment {
  const cols = columns(rows[0]);
  const t = q.id(table);
  return q`INSERT INTO ${t} (${cols}) SELECT ${cols} FROM jsonb_populate_recordset(NULL::${t}, ${toJson(rows)}::jsonb)`;
}

/**
 * Updates one tenant row by id with the columns of `data`, typed by the table (jsonb, arrays and
 * bigints need no casts), and returns it as it is now. `last`: the transaction's last statement.
 */
export async function updateRow<R>(
  sql: Sql,
  table: string,
  key: { id: string; workspaceId: string; mode: Mode },
  data: Record<string, unknown>,
  last = false,
): Promise<R> {
  const cols = columns(data);
  const t = q.id(table);
  const [row] = await sql[last ? 'last' : 'query']<R>(
    q`UPDATE ${t} SET (${cols}) = (SELECT ${cols} FROM jsonb_populate_record(NULL::${t}, ${toJson(data)}::jsonb))
      WHERE id = ${key.id} AND "workspaceId" = ${key.workspaceId} AND mode = ${key.mode} RETURNING *`,
  );
  if (!row) throw new Error(`${table} ${key.id} not found for update`);
  return row;
}

/**
 * `updateRow` for many rows of one workspace and mode in one statement: each row is `{id, ...columns}`
 * (the same columns in every row), typed by the table. Returns the rows as they are now, in no order.
 */
export async function updateRows<R>(
  sql: Sql,
  table: string,
  key: { workspaceId: string; mode: Mode },
  rows: ({ id: string } & Record<string, unknown>)[],
): Promise<R[]> {
  const keys = Object.keys(rows[0]).filter((k) => k !== 'id');
  const t = q.id(table);
  const out = await sql.query<R>(
    q`UPDATE ${t} AS u SET (${q.join(keys.map((k) => q.id(k)))}) = (SELECT ${q.join(keys.map((k) => q`r.${q.id(k)}`))})
      FROM jsonb_populate_recordset(NULL::${t}, ${toJson(rows)}::jsonb) AS r
      WHERE u.id = r.id AND u."workspaceId" = ${key.workspaceId} AND u.mode = ${key.mode} RETURNING u.*`,
  );
  if (out.length !== rows.length) throw new Error(`${table}: ${rows.length - out.length} rows not found for update`);
  return out;
}

/**
 * A checked-out `pg` client as `Sql` (rows in Prisma's shape), for work on the system pool (the relay and the webhook
 * worker) and on the reconciliation pool (an upload's transaction).
 */
export const clientSql = (client: pg.ClientBase): Sql => {
  const query = async <R>(statement: Fragment) => (await client.query({ ...compile(statement), types })).rows as R[];
  return { query, last: query };
};
