/**
 * Batched reads behind the graph's edges (docs/architecture.md, "Edges"). A resolver asks for one
 * row or one page of a parent; every ask of one edge at one place of the document lands in the
 * same DataLoader (one per request, edge and place), which reads them all in one statement: a
 * document costs one statement per edge it selects, whatever the number of rows. Each statement runs on the
 * raw path (`tenantTx`, one message) in the caller's workspace and mode, filtered in SQL and by RLS.
 */
import DataLoader from 'dataloader';
import type { GraphQLResolveInfo } from 'graphql';
import type { Auth } from './auth/authenticate.ts';
import type { Scope } from './auth/scopes.ts';
import { authorize, tenant, type Context } from './context.ts';
import { sql, tenantTx, type Fragment } from './db/sql.ts';
import { keysetSql, pageRequest, toConnection, type Connection, type PageArgs } from './pagination.ts';
import type { ListSpec } from './list-spec.ts';

type Row = Record<string, unknown>;

/** A table read by an edge: the scope the caller needs, and what the API type adds to a bare row. */
export interface Source<T> {
  table: string;
  scope: Scope;
  /** A raw row as the GraphQL type's row (`Refund` and `CheckoutSession` carry the `accountId`). */
  shape?: (row: Row, auth: Auth) => T;
}

let edges = 0;
const perRequest = new WeakMap<Context, Map<string, DataLoader<never, unknown, string>>>();

/** `payments.edges.node.customer`: a field's place in the document, list indexes left out. */
function placeOf(info: GraphQLResolveInfo): string {
  let place = info.fieldName;
  for (let p = info.path.prev; p; p = p.prev) if (typeof p.key === 'string') place = `${p.key}.${place}`;
  return place;
}

/**
 * The request's loader for one edge at one place of the document (aliases apart). Per place, not
 * per table: the statements a document costs are then its edges, whatever the order results arrive in.
 */
function loaderOf<K, V>(
  ctx: Context,
  edge: number,
  info: GraphQLResolveInfo,
  batch: (auth: Auth, keys: readonly K[]) => Promise<(V | Error)[]>,
): DataLoader<K, V, string> {
  const auth = ctx.auth as Auth;
  let loaders = perRequest.get(ctx);
  if (!loaders) perRequest.set(ctx, (loaders = new Map()));
  const place = `${edge} ${placeOf(info)}`;
  let loader = loaders.get(place) as DataLoader<K, V, string> | undefined;
  if (!loader) {
    // Batching only, no cache: a subscription keeps its context for every event, and a cache there
    // would grow for the socket's life and answer stale rows. 1,000 keys at most per statement.
    loader = new DataLoader<K, V, string>((keys) => batch(auth, keys), { maxBatchSize: 1000, cache: false });
    loaders.set(place, loader as unknown as DataLoader<never, unknown, string>);
  }
  return loader;
}

const read = (auth: Auth, statement: Fragment) => tenantTx(tenant(auth), (s) => s.last<Row>(statement));
const inTenantRows = (auth: Auth, table: string) =>
  sql`SELECT * FROM ${sql.id(table)} t WHERE t."workspaceId" = ${auth.workspaceId} AND t.mode = ${auth.mode}`;
const shaped = <T>(source: Source<T>, auth: Auth, row: Row) => (source.shape ? source.shape(row, auth) : (row as T));

/**
 * A to-one edge: the row whose `column` (default `id`) equals the parent's value, or null (none, or
 * another tenant's). `where` narrows further (a constant, e.g. the receipt's `sourceType`).
 */
export function oneBy<T>(source: Source<T>, opts: { column?: string; where?: Fragment } = {}) {
  const edge = ++edges;
  const column = sql.id(opts.column ?? 'id');
  return (ctx: Context, value: string | null | undefined, info: GraphQLResolveInfo): Promise<T | null> => {
    authorize(ctx, source.scope);
    if (value == null) return Promise.resolve(null);
    return loaderOf<string, T | null>(ctx, edge, info, async (auth, keys) => {
      const rows = await read(
        auth,
        sql`${inTenantRows(auth, source.table)} AND t.${column} = ANY(${keys}::text[])${opts.where ?? sql.empty}`,
      );
      const byKey = new Map(rows.map((r) => [r[opts.column ?? 'id'] as string, r]));
      return keys.map((k) => {
        const row = byKey.get(k);
        return row ? shaped(source, auth, row) : null;
      });
    }).load(value);
  };
}

/** A small to-many edge returned whole (a payment's ledger entries): rows whose `column` is the value. */
export function manyBy<T>(source: Source<T>, opts: { column: string; where?: Fragment; orderBy: Fragment }) {
  const edge = ++edges;
  return (ctx: Context, value: string | null | undefined, info: GraphQLResolveInfo): Promise<T[]> => {
    authorize(ctx, source.scope);
    if (value == null) return Promise.resolve([]);
    return loaderOf<string, T[]>(ctx, edge, info, async (auth, keys) => {
      const rows = await read(
        auth,
        sql`${inTenantRows(auth, source.table)} AND t.${sql.id(opts.column)} = ANY(${keys}::text[])${opts.where ?? sql.empty}
          ORDER BY ${opts.orderBy}`,
      );
      const byKey = new Map<string, T[]>(keys.map((k) => [k, []]));
      for (const r of rows) byKey.get(r[opts.column] as string)?.push(shaped(source, auth, r));
      return keys.map((k) => byKey.get(k) ?? []);
    }).load(value);
  };
}

/** What a to-many connection edge declares, beside its source. */
export interface PageOf<A extends PageArgs> {
  /** The REST list's spec (src/core/list-spec.ts): filters, checks, default page, keyset column. */
  list: ListSpec<A>;
  /** The list's filter the parent fills (its cursor binding: `chargeId` for a payment's refunds). */
  parent: keyof A & string;
  /** The child's column that holds the parent's id. */
  column: string;
  /** Conditions beyond the list's filters (` AND ...` on `t`): webhook deliveries' history window. */
  where?: (args: A) => Fragment;
}

interface PageKey<A> {
  parentId: string;
  args: A;
}

/**
 * A to-many edge as a connection (a customer's payments): each parent's page, all parents' pages
 * in one statement (a LATERAL subquery per parent id, on the list's (parent, position, id) index).
 * Arguments, defaults, filters and cursors are the REST list's; a cursor is bound to its parent.
 */
export function pageBy<T extends { id: string }, A extends PageArgs>(
  source: Source<T>,
  spec: PageOf<A>,
): ((
  ctx: Context,
  parentId: string,
  args: Omit<A, PageOf<A>['parent']>,
  info: GraphQLResolveInfo,
) => Promise<Connection<T>>) & {
  extensions: { pageSize: number };
} {
  const edge = ++edges;
  const { list } = spec;
  const position = sql.id(list.position);
  const filters = (args: A, parentId: string) => ({ ...list.values(args), [spec.parent]: parentId });
  const load = (ctx: Context, parentId: string, edgeArgs: Omit<A, PageOf<A>['parent']>, info: GraphQLResolveInfo) => {
    const auth = authorize(ctx, source.scope);
    const args = list.paged(edgeArgs as A);
    list.check(args);
    return loaderOf<PageKey<A>, Connection<T>>(ctx, edge, info, async (auth, keys) => {
      // Keys of one field share their arguments; fields with other arguments batch apart.
      const groups = new Map<string, number[]>();
      keys.forEach((k, i) => {
        const g = JSON.stringify(k.args);
        groups.set(g, [...(groups.get(g) ?? []), i]);
      });
      const out: (Connection<T> | Error)[] = new Array(keys.length);
      for (const indexes of groups.values()) {
        const pages = new Map<number, ReturnType<typeof pageRequest>>();
        for (const i of indexes) {
          const k = keys[i];
          try {
            pages.set(i, pageRequest(k.args, auth.workspaceId, filters(k.args, k.parentId), list.limit));
          } catch (e) {
            out[i] = e as Error;
          }
        }
        if (!pages.size) continue;
        const [first] = pages.values();
        const ks = keysetSql(first, sql`t.${position}`);
        const ids = [...pages.keys()].map((i) => keys[i].parentId);
        const rows = await read(
          auth,
          sql`SELECT c.* FROM unnest(${ids}::text[]) AS p(parent_id) CROSS JOIN LATERAL (
              ${inTenantRows(auth, source.table)} AND t.${sql.id(spec.column)} = p.parent_id${list.where(keys[indexes[0]].args)}${spec.where?.(keys[indexes[0]].args) ?? sql.empty}
              ${ks.where}${ks.tail}) c`,
        );
        const byParent = new Map<string, T[]>(ids.map((id) => [id, []]));
        for (const r of rows) byParent.get(r[spec.column] as string)?.push(shaped(source, auth, r));
        for (const [i, page] of pages) {
          const k = keys[i];
          const rowsOf = byParent.get(k.parentId) ?? [];
          const at = (r: T) => (r as unknown as Record<string, Date>)[list.position];
          out[i] = toConnection(rowsOf, page, auth.workspaceId, filters(k.args, k.parentId), at);
        }
      }
      return out;
    }).load({ parentId, args });
  };
  // The field's `extensions`: the document cost counts an omitted `first` as this page (src/graphql/cost.ts).
  return Object.assign(load, { extensions: { pageSize: list.limit } });
}
