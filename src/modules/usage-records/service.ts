/**
 * Usage records (DECISIONS §3; docs/billing.md, Usage; docs/decisions.md, Usage): reported quantities of a
 * subscription's `usage` price, summed, maxed or last-taken over the closed half-open period at
 * renewal (renewals.ts).
 */
import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant } from '../../core/db/client.ts';
import { sql as q, sqlOf, type Sql } from '../../core/db/sql.ts';
import { clock } from '../../core/clock.ts';
import { errorsFor } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { earlierRow } from '../../core/operations.ts';
import { sqlIn } from '../../core/state-machine.ts';
import type { RowScope } from '../../core/resource.ts';
import type { UsageRecord } from '../../generated/prisma/client.ts';
import { productAmount, type UsageAggregate } from '../plans/pricing.ts';
import { subscriptionLive } from '../subscriptions/states.ts';
import { usageQuantities } from '../subscriptions/usage.ts';
import { clockTimeFor } from '../../core/business-time.ts';

const err = errorsFor('subscription');
/** Stripe's meter rule: at most 5 minutes ahead of the subscription's (clock) time. */
export const USAGE_AHEAD_MS = 5 * 60_000;
const MAX_QUANTITY = 1_000_000_000;

export interface UsageInput {
  quantity?: number | null;
  /** Parsed by the DateTime scalar (ISO 8601 or epoch seconds). */
  timestamp?: Date | null;
}

const live = sqlIn(q`s.status`, subscriptionLive);

/**
 * POST /v1/subscriptions/:id/usage (the key is required on the mutation field): a record inside the
 * open period of a live subscription with a `usage` price. The timestamp defaults to the
 * subscription's time (its test clock's: docs/billing.md, Test clocks); before the period start (already
 * invoiced) or more than 5 minutes ahead is 400, a canceled subscription 409.
 */
export async function createUsageRecord(ctx: Context, subscriptionId: string, input: UsageInput): Promise<UsageRecord> {
  const auth = authorize(ctx, 'svc:subscription:write');
  if (!input || typeof input !== 'object') throw err.validation('quantity', 'a body {quantity, timestamp} is required');
  const quantity = input.quantity;
  if (typeof quantity !== 'number' || !Number.isSafeInteger(quantity) || quantity < 0 || quantity > MAX_QUANTITY)
    throw err.validation('quantity', `quantity must be an integer from 0 to ${MAX_QUANTITY}`);
  const given = input.timestamp ?? null;
  const scope = tenant(auth);
  const id = newId('usageRecord');
  return inTenant(scope, async (tx) => {
    const sql = sqlOf(tx);
    // The same request run again (its claim taken over) answers the record it wrote, not a second one.
    const earlier = await earlierRow<UsageRecord>(sql, scope, ctx.replay, 'usage_record.create', 'usage_records', id);
    if (earlier) return earlier;
    // Locked so a renewal cannot close the period between the check and the insert, and so usage
    // reported at once is summed one record after the other (the amount check below).
    const [sub] = await sql.query<{
      id: string;
      status: string;
      currentPeriodStart: Date;
      currentPeriodEnd: Date;
      testClockId: string | null;
      model: string;
      live: boolean;
      usageAggregate: UsageAggregate | null;
      unitAmount: string | null;
    }>(
      q`SELECT s.id, s.status, s."currentPeriodStart", s."currentPeriodEnd", s."testClockId", p.model, ${live} AS live,
          pl."usageAggregate", greatest(p."unitAmount", CASE WHEN np.model = 'usage' THEN np."unitAmount" END)::text
            AS "unitAmount"
        FROM subscriptions s JOIN prices p ON p."workspaceId" = s."workspaceId" AND p.mode = s.mode AND p.id = s."priceId"
        JOIN plans pl ON pl."workspaceId" = s."workspaceId" AND pl.mode = s.mode AND pl.id = s."planId"
        LEFT JOIN prices np ON np."workspaceId" = s."workspaceId" AND np.mode = s.mode AND np.id = s."pendingPriceId"
        WHERE s."workspaceId" = ${auth.workspaceId} AND s.mode = ${auth.mode} AND s.id = ${subscriptionId}
        FOR NO KEY UPDATE OF s`,
    );
    if (!sub) throw err.notFound();
    if (!sub.live) throw err.conflict(`subscription is ${sub.status}: usage is not accepted`);
    if (sub.model !== 'usage')
      throw err.validation('subscriptionId', 'the subscription has no usage price: usage records need one');
    const now = sub.testClockId ? await clockTime(sql, auth, sub.testClockId) : clock.now();
    const timestamp = given ?? now;
    if (timestamp < sub.currentPeriodStart)
      throw err.validation('timestamp', 'timestamp is before the current period: that period is closed and invoiced');
    if (timestamp.getTime() > now.getTime() + USAGE_AHEAD_MS)
      throw err.validation('timestamp', 'timestamp is more than 5 minutes in the future');
    await refuseUnbillable(sql, auth, sub, quantity, timestamp);
    const [row] = await sql.query<UsageRecord>(
      q`INSERT INTO usage_records (id, "workspaceId", mode, "subscriptionId", quantity, timestamp, "createdAt")
        VALUES (${id}, ${auth.workspaceId}, ${auth.mode}, ${sub.id}, ${quantity},
          ${timestamp}::timestamptz, ${clock.now()}::timestamptz)
        RETURNING *`,
    );
    return row;
  });
}

/**
 * Usage whose period would bill more than 2^53 - 1 minor units is refused here, not found at renewal
 * (where it used to stop the sweep): the period's aggregate with this record, times the unit
 * amount of the subscription's usage price (or of its pending one, if larger), must be an amount.
 * The period is the open one, or the next when the record falls after its end (not renewed yet).
 */
async function refuseUnbillable(
  sql: Sql,
  scope: RowScope,
  sub: {
    id: string;
    currentPeriodStart: Date;
    currentPeriodEnd: Date;
    usageAggregate: UsageAggregate | null;
    unitAmount: string | null;
  },
  quantity: number,
  timestamp: Date,
) {
  if (sub.unitAmount === null) return;
  const unit = Number(sub.unitAmount);
  const aggregate = sub.usageAggregate ?? 'sum';
  let total = quantity;
  if (aggregate === 'sum') {
    const closed = timestamp >= sub.currentPeriodEnd;
    const [start, end] = closed ? [sub.currentPeriodEnd, FAR_FUTURE] : [sub.currentPeriodStart, sub.currentPeriodEnd];
    const sums = await usageQuantities(sql, scope, [{ subscriptionId: sub.id, start, end, aggregate }]);
    total += sums.get(sub.id) ?? 0;
  }
  // `max` and `last` bill one record's quantity: this one, or one already checked when it was created.
  if (productAmount(total, unit) === null)
    throw err.validation(
      'quantity',
      `the period's usage (${total}) x unitAmount (${unit}) would exceed 2^53 - 1 minor units: refused`,
    );
}
const FAR_FUTURE = new Date('9999-12-31T00:00:00.000Z');

/** The business time of a subscription on a test clock (docs/billing.md, Test clocks). */
const clockTime = (sql: Sql, scope: RowScope, testClockId: string) =>
  clockTimeFor(sql, { workspaceId: scope.workspaceId, mode: scope.mode, testClockId });
