/**
 * Current usage (docs/usage.md, Current usage): a subscription's metered prices over its current
 * period, read from rollups only and priced by the pricing engine as if the period closed now.
 */
import type { Context } from '../../core/context.ts';
import { authorize } from '../../core/context.ts';
import { scopedRow, scopedRows, sql as q, tenantTx, scopeOf, type Sql } from '../../core/db/sql.ts';
import { errorsFor } from '../../core/errors.ts';
import type { RowScope } from '../../core/resource.ts';
import type { Customer, Meter, Price, Subscription } from '../../generated/prisma/client.ts';
import { billableQuantity, type QuantityRounding } from '../plans/metered.ts';
import { priceQuantity } from '../plans/pricing.ts';
import { businessTime, scopeOfAuth } from '../subscriptions/checks.ts';
import { termsOf } from '../subscriptions/invoice.ts';
import { valueExpression } from './read.ts';
import { sqlStatus } from '../../core/state-machine.ts';
import { subscriptionCanceled } from '../subscriptions/states.ts';

const err = errorsFor('usage_event');

export interface UsageQuery {
  meterId?: string | null;
  groupBy?: string | null;
}

export interface UsageGroup {
  dimensions: Record<string, string | null>;
  value: string;
}

export interface UsageItem {
  priceId: string;
  meterId: string;
  aggregation: string;
  value: string;
  quantity: number;
  amount: number;
  groups: UsageGroup[] | null;
}

export interface SubscriptionUsage {
  subscriptionId: string;
  customerId: string;
  currency: string;
  periodStart: Date;
  periodEnd: Date;
  asOf: Date;
  amount: number;
  items: UsageItem[];
}

/** The subscription's metered prices in billing order (`priceId` first) with their meters. */
async function meteredItems(sql: Sql, scope: RowScope, sub: Subscription) {
  const ids = [sub.priceId, ...sub.meteredPriceIds];
  const prices = await scopedRows<Price>(sql, 'prices', scope, ids);
  const byId = new Map(prices.map((p) => [p.id, p]));
  const metered = ids.map((id) => byId.get(id)!).filter((p) => p?.meterId);
  const meters = await scopedRows<Meter>(
    sql,
    'meters',
    scope,
    metered.map((p) => p.meterId!),
  );
  const meterById = new Map(meters.map((m) => [m.id, m]));
  return metered.map((price) => ({ price, meter: meterById.get(price.meterId!)! }));
}

/** The query's refusals (settled spelling: lower case, fields `meterId` and `groupBy`). */
function checkQuery(items: { meter: Meter }[], query: UsageQuery): { meter: Meter | null; groupBy: string[] | null } {
  const groupBy = query.groupBy ? query.groupBy.split(',').map((g) => g.trim()) : null;
  if (!query.meterId) {
    if (groupBy) throw err.validation('meterId', 'groupBy needs meterId');
    return { meter: null, groupBy: null };
  }
  const meter = items.find((i) => i.meter.id === query.meterId)?.meter;
  if (!meter) throw err.validation('meterId', 'the subscription does not bill this meter');
  if (groupBy) {
    const unknown = groupBy.find((g) => !meter.groupBy.includes(g));
    if (unknown !== undefined || new Set(groupBy).size !== groupBy.length)
      throw err.validation('groupBy', `groupBy must name distinct properties of the meter's groupBy`);
    if (meter.aggregation === 'unique_count' && groupBy.length !== meter.groupBy.length)
      throw err.validation('groupBy', 'a unique_count meter groups only by its whole groupBy');
  }
  return { meter, groupBy };
}

/** The period total per meter: one index range scan over the subscription's period rows. */
async function totals(sql: Sql, scope: RowScope, sub: Subscription) {
  const rows = await sql.query<{ meterId: string; value: string }>(
    q`SELECT r."meterId", ${valueExpression} AS value FROM usage_rollups r
      JOIN meters m ON m."workspaceId" = r."workspaceId" AND m.mode = r.mode AND m.id = r."meterId"
      WHERE r."workspaceId" = ${scope.workspaceId} AND r.mode = ${scope.mode} AND r."subscriptionId" = ${sub.id}
        AND r."periodStart" = ${sub.currentPeriodStart} AND r."groupKey" = ''`,
  );
  return new Map(rows.map((r) => [r.meterId, r.value]));
}

/**
 * Group rows projected on `groupBy` and combined by the meter's aggregation, sorted by the dimension
 * values in `groupBy` order (array order puts null elements last).
 */
async function groups(sql: Sql, scope: RowScope, sub: Subscription, meter: Meter, groupBy: string[]) {
  const dims = q.join(groupBy.map((g) => q`g.dimensions ->> ${g}`));
  const rows = await sql.query<{ d: (string | null)[]; value: string }>(
    q`WITH m AS (SELECT * FROM meters WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
        AND id = ${meter.id}),
      g AS (SELECT ARRAY[${dims}]::text[] AS d, g.* FROM usage_rollups g
        WHERE g."workspaceId" = ${scope.workspaceId} AND g.mode = ${scope.mode} AND g."subscriptionId" = ${sub.id}
          AND g."periodStart" = ${sub.currentPeriodStart} AND g."meterId" = ${meter.id} AND g."groupKey" <> ''
          AND g.count > 0),
      r AS (SELECT d, sum(count)::bigint AS count, sum(sum) AS sum, min(min) AS min, max(max) AS max,
          sum("distinctCount")::bigint AS "distinctCount",
          (array_agg("latestValue" ORDER BY "latestAt" DESC NULLS LAST, "latestSeq" DESC NULLS LAST))[1]
            AS "latestValue"
        FROM g GROUP BY d)
      SELECT r.d, ${valueExpression} AS value FROM r, m ORDER BY r.d`,
  );
  return rows.map((r) => ({ dimensions: Object.fromEntries(groupBy.map((g, i) => [g, r.d[i]])), value: r.value }));
}

/** The usage object of one live subscription, in its transaction. */
async function usageOf(sql: Sql, scope: RowScope, sub: Subscription, query: UsageQuery): Promise<SubscriptionUsage> {
  const all = await meteredItems(sql, scope, sub);
  const { meter, groupBy } = checkQuery(all, query);
  const chosen = meter ? all.filter((i) => i.meter.id === meter.id) : all;
  const customer = await scopedRow<Customer>(sql, 'customers', scope, sub.customerId);
  const asOf = await businessTime(sql, scope, customer!);
  const values = await totals(sql, scope, sub);
  const items: UsageItem[] = [];
  for (const { price, meter: m } of chosen) {
    const value = values.get(m.id) ?? '0';
    const quantity = billableQuantity(
      value,
      price.divideBy ?? 1,
      (price.quantityRounding ?? 'half_up') as QuantityRounding,
    );
    const amount = priceQuantity(termsOf(price), quantity).amount;
    const g = groupBy ? await groups(sql, scope, sub, m, groupBy) : null;
    items.push({ priceId: price.id, meterId: m.id, aggregation: m.aggregation, value, quantity, amount, groups: g });
  }
  return {
    subscriptionId: sub.id,
    customerId: sub.customerId,
    currency: sub.currency,
    periodStart: sub.currentPeriodStart,
    periodEnd: sub.currentPeriodEnd,
    asOf,
    amount: items.reduce((s, i) => s + i.amount, 0),
    items,
  };
}

/** GET /v1/subscriptions/:id/current-usage: 404 unknown, 409 canceled. */
export async function subscriptionCurrentUsage(ctx: Context, id: string, query: UsageQuery) {
  const auth = authorize(ctx, 'svc:usage:read');
  const scope = scopeOfAuth(auth);
  return tenantTx(scopeOf(scope), async (sql) => {
    const sub = await scopedRow<Subscription>(sql, 'subscriptions', scope, id);
    if (!sub) throw err.notFound('subscription');
    if (sub.status === subscriptionCanceled) throw err.conflict('the subscription is canceled');
    return usageOf(sql, scope, sub, query);
  });
}

/** GET /v1/customers/:id/current-usage: each live subscription with a metered item, oldest first. */
export async function customerCurrentUsage(ctx: Context, id: string, query: UsageQuery) {
  const auth = authorize(ctx, 'svc:usage:read');
  const scope = scopeOfAuth(auth);
  return tenantTx(scopeOf(scope), async (sql) => {
    const customer = await scopedRow<Customer>(sql, 'customers', scope, id);
    if (!customer) throw err.notFound('customer');
    const subs = await sql.query<Subscription>(
      q`SELECT * FROM subscriptions WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
        AND "customerId" = ${id} AND status <> ${sqlStatus(subscriptionCanceled)} ORDER BY "createdAt", id`,
    );
    const out: SubscriptionUsage[] = [];
    for (const sub of subs) {
      const bills = (await meteredItems(sql, scope, sub)).some((i) => !query.meterId || i.meter.id === query.meterId);
      if (bills) out.push(await usageOf(sql, scope, sub, query));
    }
    return { customerId: id, asOf: await businessTime(sql, scope, customer), subscriptions: out };
  });
}
