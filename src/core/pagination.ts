import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { config } from './config.ts';
import { safeEqual, sha256Hex } from './crypto.ts';
import { DomainError, type Resource } from './errors.ts';
import { clock } from './clock.ts';
import { sql, type Fragment } from './db/sql-template.ts';

/** Keyset position: the sort column value (ISO instant) and the id that breaks ties. */
export interface Position {
  at: string;
  id: string;
}

interface CursorBody {
  w: string; // workspace
  f: string; // fingerprint of filters and order
  p: Position;
  x: number; // expiry, epoch seconds
}

// Derived once, as a KeyObject: createHmac with a raw Buffer key costs ~13 µs on Node 24 (vs ~2 µs),
// and a list page signs a cursor per edge.
let cursorKeyObject: KeyObject | undefined;
const cursorKey = () =>
  (cursorKeyObject ??= createSecretKey(createHmac('sha256', config.masterKey).update('svc cursor v1').digest()));
const b64 = (s: string) => Buffer.from(s).toString('base64url');

/** The filters and order a cursor is bound to; a cursor used with other filters is refused. */
export const fingerprint = (filters: Record<string, unknown>) =>
  sha256Hex(
    JSON.stringify(
      Object.keys(filters)
        .sort()
        .map((k) => [k, filters[k] ?? null]),
    ),
  ).slice(0, 16);

export function encodeCursor(workspaceId: string, filters: Record<string, unknown>, p: Position): string {
  return signCursor(workspaceId, fingerprint(filters), expiry(), p);
}

const expiry = () => Math.floor(clock.now().getTime() / 1000) + config.cursorTtlSec;

function signCursor(w: string, f: string, x: number, p: Position): string {
  const body: CursorBody = { w, f, p, x };
  const payload = b64(JSON.stringify(body));
  const mac = createHmac('sha256', cursorKey()).update(payload).digest('base64url').slice(0, 22);
  return `cur_${payload}.${mac}`;
}

const invalid = (why: string) => new DomainError('invalid_cursor', `Invalid cursor: ${why}`, { field: 'cursor' });

export function decodeCursor(cursor: string, workspaceId: string, filters: Record<string, unknown>): Position {
  const m = /^cur_([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{22})$/.exec(cursor);
  if (!m) throw invalid('malformed');
  const mac = createHmac('sha256', cursorKey()).update(m[1]).digest('base64url').slice(0, 22);
  if (!safeEqual(mac, m[2])) throw invalid('signature mismatch');
  let body: CursorBody;
  try {
    body = JSON.parse(Buffer.from(m[1], 'base64url').toString('utf8'));
  } catch {
    throw invalid('malformed');
  }
  if (body.w !== workspaceId) throw invalid('issued to another workspace');
  if (body.x < Math.floor(clock.now().getTime() / 1000)) throw invalid('expired');
  if (body.f !== fingerprint(filters)) throw invalid('filters or order changed');
  return body.p;
}

/** spec: 1-100, out of range is 400 invalid_limit, never clamped. */
export function parseLimit(value: number | null | undefined, fallback: number): number {
  if (value === null || value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1 || value > 100) {
    throw new DomainError('invalid_limit', 'limit must be an integer from 1 to 100', { field: 'limit' });
  }
  return value;
}

export type Order = 'asc' | 'desc';

/**
 * spec Pagination: a list's `order` is `asc` or `desc` (default desc); anything else is refused, in the resource's
 * spelling.
 */
export function checkOrder(order: string | null | undefined, resource: Resource): void {
  if (order && order !== 'asc' && order !== 'desc')
    throw new DomainError('validation_error', 'order must be asc or desc', { field: 'order', resource });
}

/** The paging arguments of every list (Relay `first`/`after`, and `order` where the list has one). */
export interface PageArgs {
  first?: number | null;
  after?: string | null;
  order?: string | null;
}

/**
 * The default page of each root list, by its GraphQL field (spec Conventions, Limits: 20 on the
 * resources the spec lists, 50 on API keys, workspaces, webhook endpoints and deliveries, and in
 * the general convention; the resources of DECISIONS §3 as docs/decisions.md records each). One
 * source: the resolvers page by it when `first`/`limit` is omitted, and the graph's document cost
 * counts it (src/graphql/cost.ts).
 */
export const listPageSize = {
  apiKeys: 50,
  auditLog: 50,
  checkoutSessions: 20,
  coupons: 20,
  creditNotes: 20,
  customerBalanceTransactions: 20,
  customers: 50,
  dunningPolicies: 20,
  events: 20,
  invoices: 20,
  ledgerEntries: 20,
  members: 50,
  meters: 20,
  paymentMethods: 20,
  payments: 20,
  payouts: 20,
  plans: 20,
  receipts: 20,
  reconciliationExceptions: 20,
  reconciliationImports: 20,
  reconciliationMatches: 20,
  reconciliationRows: 20,
  reconciliationRuns: 20,
  refunds: 20,
  setupSessions: 20,
  settlementBatches: 20,
  subscriptions: 50,
  templates: 50,
  testClocks: 20,
  usageEvents: 20,
  webhookDeliveries: 50,
  webhookEndpoints: 50,
  workspaces: 50,
} as const satisfies Record<string, number>;

export interface PageRequest {
  limit: number;
  order: Order;
  after: Position | null;
}

/** Resolves `first`/`after` into a page request bound to the workspace and filters. */
export function pageRequest(
  args: PageArgs,
  workspaceId: string,
  filters: Record<string, unknown>,
  defaultLimit: number,
): PageRequest {
  const order: Order = args.order === 'asc' ? 'asc' : 'desc';
  const limit = parseLimit(args.first, defaultLimit);
  const after = args.after ? decodeCursor(args.after, workspaceId, { ...filters, order }) : null;
  return { limit, order, after };
}

/** Prisma `where` and `orderBy` for a keyset page on (createdAt-like column, id). */
export function keyset(page: PageRequest, column = 'createdAt') {
  const cmp = page.order === 'desc' ? 'lt' : 'gt';
  // The redundant inclusive bound lets PostgreSQL seek the (column, id) index instead of filtering from the start.
  const where = page.after
    ? {
        AND: [
          { [column]: { [`${cmp}e`]: new Date(page.after.at) } },
          {
            OR: [
              { [column]: { [cmp]: new Date(page.after.at) } },
              { [column]: new Date(page.after.at), id: { [cmp]: page.after.id } },
            ],
          },
        ],
      }
    : {};
  return { where, orderBy: [{ [column]: page.order }, { id: page.order }], take: page.limit + 1 };
}

/**
 * The same keyset as SQL, for hot reads that skip Prisma (bench/: Prisma costs ~2.5x per query):
 * rows strictly after the cursor's (column, id) in the page's order, one more than the limit.
 * `where` starts with " AND"; `tail` is ORDER BY + LIMIT.
 */
export function keysetSql(page: PageRequest, column: Fragment = sql`"createdAt"`): { where: Fragment; tail: Fragment } {
  const cmp = page.order === 'desc' ? sql.raw('<') : sql.raw('>');
  const dir = page.order === 'desc' ? sql.raw('DESC') : sql.raw('ASC');
  const after = page.after && { at: new Date(page.after.at), id: page.after.id };
  return {
    where: after
      ? sql` AND ${column} ${cmp}= ${after.at} AND (${column}, id) ${cmp} (${after.at}, ${after.id})`
      : sql.empty,
    tail: sql` ORDER BY ${column} ${dir}, id ${dir} LIMIT ${page.limit + 1}`,
  };
}

export interface Connection<T> {
  edges: { cursor: string; node: T }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  limit: number;
}

/** What every cursor of one page shares: signed per edge only when a client selects it. */
interface CursorSource<T> {
  workspaceId: string;
  fingerprint: string;
  expiry: number;
  /** A date (the sort column, ties broken by id), or a whole position for lists ordered otherwise (events). */
  positionOf: (row: T) => Date | Position;
}

/**
 * An edge whose `cursor` is signed on first read: REST reads only `endCursor`, and a GraphQL
 * client that selects no cursor pays for none (an HMAC per edge was ~10% of a REST list's CPU).
 * A class, so the getter lives on the prototype and an edge allocates one small object.
 */
class Edge<T extends { id: string }> {
  #cursor: string | undefined;
  constructor(
    readonly node: T,
    private readonly source: CursorSource<T>,
  ) {}
  get cursor(): string {
    const s = this.source;
    if (this.#cursor === undefined) {
      const p = s.positionOf(this.node);
      this.#cursor = signCursor(
        s.workspaceId,
        s.fingerprint,
        s.expiry,
        p instanceof Date ? { at: p.toISOString(), id: this.node.id } : p,
      );
    }
    return this.#cursor;
  }
}

class PageInfo<T extends { id: string }> {
  constructor(
    private readonly edges: Edge<T>[],
    readonly hasNextPage: boolean,
    readonly hasPreviousPage: boolean,
  ) {}
  get startCursor(): string | null {
    return this.edges[0]?.cursor ?? null;
  }
  get endCursor(): string | null {
    return this.hasNextPage ? this.edges[this.edges.length - 1].cursor : null;
  }
}

/** Rows fetched with `take: limit + 1` become a Relay connection with signed (lazily) cursors. */
export function toConnection<T extends { id: string }>(
  rows: T[],
  page: PageRequest,
  workspaceId: string,
  filters: Record<string, unknown>,
  positionOf: (row: T) => Date | Position,
): Connection<T> {
  const hasMore = rows.length > page.limit;
  const items = hasMore ? rows.slice(0, page.limit) : rows;
  // Fingerprint and expiry once per page, not per edge: every cursor of a page carries the same ones.
  const source: CursorSource<T> = {
    workspaceId,
    fingerprint: fingerprint({ ...filters, order: page.order }),
    expiry: expiry(),
    positionOf,
  };
  const edges = items.map((node) => new Edge(node, source));
  return { edges, pageInfo: new PageInfo(edges, hasMore, page.after !== null), limit: page.limit };
}

/**
 * The keyset list of a Prisma model: a page bound to the caller's workspace and filters, `find`
 * given the keyset's `where`, `orderBy` and `take`, its rows turned into a connection positioned
 * on `column`.
 */
export async function keysetList<C extends string, T extends { id: string } & { [K in C]: Date }>(
  req: { args: PageArgs; workspaceId: string; filters: Record<string, unknown>; limit: number; column: C },
  find: (ks: ReturnType<typeof keyset>) => Promise<T[]>,
): Promise<Connection<T>> {
  const page = pageRequest(req.args, req.workspaceId, req.filters, req.limit);
  const rows = await find(keyset(page, req.column));
  return toConnection(rows, page, req.workspaceId, req.filters, (r) => r[req.column]);
}
