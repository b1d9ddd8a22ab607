/**
 * One list spec per module (docs/architecture.md, "Lists"): a list's filters with their types and
 * allowed values (statuses from the state machine's table), its default page and keyset column,
 * declared once and read by the REST/GraphQL list (the service) and by the graph's connection
 * edges (`pageBy`, src/core/loaders.ts) alike. Arguments are checked here, once, with the errors
 * the spec gives (`error.field` is the argument).
 */
import type { Resource } from './errors.ts';
import { checkOrder, type PageArgs } from './pagination.ts';
import { oneOf } from './validation.ts';
import { sql, type Fragment } from './db/sql-template.ts';

type Op = '>' | '>=' | '<' | '<=';

/**
 * A filter argument: `eq` matches a column exactly (after its `check`, if any), `oneOf` too once the
 * value is checked to be one of `values` (a state machine's statuses), `bound` compares a date
 * column (`createdAfter`: `>`).
 */
/** A value check beyond the type (a currency code): throws the list's 400 naming `field`. */
type Check = (value: string, field: string, resource: Resource) => unknown;

export type Filter =
  | { kind: 'eq'; column?: string; check?: Check }
  | { kind: 'oneOf'; values: readonly string[]; column?: string }
  | { kind: 'bound'; column: string; op: Op }
  | { kind: 'custom' };

export const eq = (column?: string, check?: Check): Filter => ({ kind: 'eq', column, check });
export const oneOfValues = (values: readonly string[], column?: string): Filter => ({ kind: 'oneOf', values, column });
export const bound = (column: string, op: Op): Filter => ({ kind: 'bound', column, op });
/** A filter whose condition the list writes itself (webhook deliveries' `since` within the history); it binds cursors. */
export const custom = (): Filter => ({ kind: 'custom' });

export interface ListSpecInput<P extends string = string> {
  resource: Resource;
  /** The keyset column (`createdAt`, `issuedAt`). */
  position: P;
  /** The default page (REST `limit`, GraphQL `first`). */
  limit: number;
  /** The list forces an order (payouts and webhook deliveries are newest first): no `order` argument. */
  order?: 'desc';
  filters: Readonly<Record<string, Filter>>;
}

type Args = PageArgs & Record<string, unknown>;
const ops = { '=': sql.raw('='), '>': sql.raw('>'), '>=': sql.raw('>='), '<': sql.raw('<'), '<=': sql.raw('<=') };
const prismaOps = { '>': 'gt', '>=': 'gte', '<': 'lt', '<=': 'lte' } as const;

export interface ListSpec<A extends PageArgs, P extends string = string> extends ListSpecInput<P> {
  /** Checks `order` and each filter's allowed values; throws the list's 400. */
  check(args: A): void;
  /** The arguments with a forced order applied. */
  paged(args: A): A;
  /** The filters a cursor is bound to: each argument's value, or null (dates as ISO strings). */
  values(args: A): Record<string, string | boolean | number | null>;
  /** The filters as SQL conditions on `alias`, each ` AND ...` (nothing for an absent one). */
  where(args: A, alias?: string): Fragment;
  /** The same as a Prisma `where` (`AND` parts): the Prisma lists. */
  prisma(args: A): Record<string, unknown>[];
}

/**
 * Declares a list: `A` is its arguments (`ListArgs<typeof listArgs>`, src/graphql/fields.ts), `P`
 * its keyset column.
 */
export function defineList<A extends PageArgs, P extends string>(input: ListSpecInput<P>): ListSpec<A, P> {
  const entries = Object.entries(input.filters);
  const given = (args: A) =>
    entries.flatMap(([name, f]) => {
      const value = (args as Args)[name];
      if (value === null || value === undefined || f.kind === 'custom') return [];
      return [{ name, f, value, column: f.column ?? name }];
    });
  return {
    ...input,
    check(args) {
      if (!input.order) checkOrder(args.order, input.resource);
      for (const [name, f] of entries) {
        const value = (args as Args)[name];
        if (value == null) continue;
        if (f.kind === 'oneOf') oneOf(String(value), f.values, name, input.resource);
        if (f.kind === 'eq' && f.check) f.check(String(value), name, input.resource);
      }
    },
    paged: (args) => (input.order ? { ...args, order: input.order } : args),
    values: (args) =>
      Object.fromEntries(
        entries.map(([name]) => {
          const v = (args as Args)[name];
          return [name, v instanceof Date ? v.toISOString() : ((v ?? null) as string | boolean | number | null)];
        }),
      ),
    where: (args, alias = 't') =>
      given(args).reduce((acc, { f, value, column }) => {
        const col = sql`${sql.id(alias)}.${sql.id(column)}`;
        return sql`${acc} AND ${col} ${f.kind === 'bound' ? ops[f.op] : ops['=']} ${value}`;
      }, sql.empty),
    prisma: (args) =>
      given(args).map(({ f, value, column }) => {
        return f.kind === 'bound' ? { [column]: { [prismaOps[f.op]]: value } } : { [column]: value };
      }),
  };
}
