/**
 * Discounts (docs/coupons.md, Discounts): a coupon applied to a subscription or to one invoice. The
 * one home of applying (checked at business time, redeemed through `redeemCoupon` in the caller's
 * transaction), removing and ending discounts, of what a subscription invoice is discounted by
 * (`discountLines`, the coupon maths of coupons/discount.ts) and of `subscriptions.discount`, the
 * active discount's wire object kept beside its row. Imports nothing from invoices or subscriptions
 * (both import this file).
 */
import { insertRows, sql as q, sqlOf, type AnyTx } from '../../core/db/sql.ts';
import { errorsFor, type Resource } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import type { RowScope } from '../../core/resource.ts';
import { nextState } from '../../core/state-machine.ts';
import type { Coupon, Discount } from '../../generated/prisma/client.ts';
import {
  coversCurrency,
  discountAmount,
  discountAppliesAt,
  discountEnd,
  eligibleBase,
  type DiscountTerms,
} from '../coupons/discount.ts';
import { couponValid, redeemCoupon } from '../coupons/redeem.ts';
import { discountSnapshot, type DiscountCoupon, type DiscountRow, type InvoiceDiscount } from './fields.ts';
import { discountActive, discountEnded, discountMachine, discountRemoved } from './states.ts';

/** A reference as sent: a string of 1-64 characters; whether it names a coupon is a 404 question. */
const isIdString = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 64;

export const couponOf = (
  c: Pick<Coupon, 'name' | 'percentOffHundredths' | 'amountOff' | 'duration' | 'durationInMonths'>,
): DiscountCoupon => ({
  name: c.name,
  percentOff: c.percentOffHundredths === null ? null : c.percentOffHundredths / 100,
  amountOff: (c.amountOff as Record<string, number> | null) ?? null,
  duration: c.duration,
  durationInMonths: c.durationInMonths,
});

/** Where a coupon is applied: one subscription or one invoice of a customer, in a currency. */
export interface ApplyTarget {
  customerId: string;
  subscriptionId?: string | null;
  invoiceId?: string | null;
  currency: string;
  /**
   * The plans the target bills (a subscription's plan; an invoice's lines' plans): a coupon limited to
   * `appliesTo.planIds` must cover one of them.
   */
  planIds: readonly string[];
}

/**
 * Applies `couponId` (docs/coupons.md, Applying) at business time `at`: unknown (another workspace's
 * too) -> 404 `not_found` spelled for `resource`; not valid (archived, past `redeemBy`, used up), a
 * currency its `amountOff` lacks, or no billed plan in `appliesTo` -> 400 on `couponId`. Redeems it
 * (the one conditional UPDATE of `timesRedeemed`) and writes the `active` discount row. The caller
 * removed any active discount of the target first, in its transaction.
 */
export async function applyCoupon(
  tx: AnyTx,
  scope: RowScope,
  couponId: unknown,
  target: ApplyTarget,
  at: Date,
  resource: Resource,
): Promise<DiscountRow> {
  const err = errorsFor(resource);
  if (!isIdString(couponId)) throw err.validation('couponId', 'couponId must be a cpn_ coupon id or null');
  const sql = sqlOf(tx);
  const [coupon] = await sql.query<Coupon>(
    q`SELECT * FROM coupons WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode} AND id = ${couponId}`,
  );
  if (!coupon) throw err.notFound('coupon');
  if (!couponValid(coupon, at))
    throw err.validation('couponId', `Coupon ${couponId} is not valid (archived, past redeemBy or fully redeemed)`);
  if (!coversCurrency(termsOf(coupon), target.currency))
    throw err.validation('couponId', `Coupon ${couponId} has no amountOff in ${target.currency}`);
  const appliesTo = coupon.appliesTo as { planIds: string[] } | null;
  if (appliesTo && !target.planIds.some((p) => appliesTo.planIds.includes(p)))
    throw err.validation('couponId', `Coupon ${couponId} does not apply to this plan`);
  // Concurrent redeemers queue on the coupon row; one past maxRedemptions is 400 here too.
  const redeemed = await redeemCoupon(tx, scope, couponId, at, resource);
  const row: Discount = {
    id: newId('discount'),
    workspaceId: scope.workspaceId,
    mode: scope.mode,
    couponId,
    customerId: target.customerId,
    subscriptionId: target.subscriptionId ?? null,
    invoiceId: target.invoiceId ?? null,
    start: at,
    end: discountEnd(redeemed, at),
    status: nextState(discountMachine, null, 'apply').to,
    createdAt: at,
    updatedAt: at,
  };
  await sql.query(q`${insertRows('discounts', [row])}`);
  return { ...row, coupon: couponOf(redeemed) };
}

const termsOf = (c: Pick<Coupon, 'percentOffHundredths' | 'amountOff'>): DiscountTerms => ({
  percentOffHundredths: c.percentOffHundredths,
  amountOff: (c.amountOff as Record<string, number> | null) ?? null,
});

/**
 * Removes the active discount of a subscription or invoice (`removed`, `end` = `at`): PATCH `couponId`
 * null, or another coupon replacing it. Returns the removed row, or null when there was none.
 */
export async function removeDiscount(
  tx: AnyTx,
  scope: RowScope,
  target: { subscriptionId?: string | null; invoiceId?: string | null },
  at: Date,
): Promise<Discount | null> {
  const column = target.subscriptionId ? q`"subscriptionId"` : q`"invoiceId"`;
  const id = target.subscriptionId ?? target.invoiceId ?? null;
  if (!id) return null;
  const [row] = await sqlOf(tx).query<Discount>(
    q`UPDATE discounts SET status = ${discountRemoved}, "end" = ${at}::timestamptz, "updatedAt" = ${at}::timestamptz
      WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode} AND ${column} = ${id}
        AND status = ${discountActive}
      RETURNING *`,
  );
  return row ?? null;
}

/** Voided drafts' coupon discounts are `removed` (`end` = the void): they discounted nothing. One statement. */
export async function removeInvoiceDiscounts(tx: AnyTx, scope: RowScope, invoiceIds: readonly string[], at: Date) {
  if (!invoiceIds.length) return;
  await sqlOf(tx).query(
    q`UPDATE discounts SET status = ${discountRemoved}, "end" = ${at}::timestamptz, "updatedAt" = ${at}::timestamptz
      WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
        AND "invoiceId" = ANY (${[...invoiceIds]}::text[]) AND status = ${discountActive}`,
  );
}

/** `subscriptions.discount`: the wire object of the active discount (null: none), kept with its row. */
export const subscriptionDiscountColumn = (d: DiscountRow | null) => (d ? discountSnapshot(d) : null);

/** An active discount with what computing it needs: its coupon's terms and the prices it covers. */
export interface ActiveDiscount {
  id: string;
  couponId: string;
  name: string;
  terms: DiscountTerms;
  start: Date;
  end: Date | null;
  appliesTo: { planIds: string[] } | null;
  /** The plan of each price of the coupon's `appliesTo` plans (lines are priced; eligibility is by plan). */
  planOfPrice: Record<string, string>;
}

/**
 * The active discounts of some subscriptions at business time `at`, in one statement: a repeating
 * discount past its `end` is ended on the way (its `subscriptions.discount` cleared), so a renewal
 * batch adds one statement whatever its size. By subscription id.
 */
export const subscriptionDiscounts = (tx: AnyTx, scope: RowScope, ids: readonly string[], at: Date) =>
  activeDiscounts(tx, scope, 'subscriptionId', ids, at);

/** The active discount of draft invoices (at most one each), by invoice id. */
export const invoiceDiscounts = (tx: AnyTx, scope: RowScope, ids: readonly string[], at: Date) =>
  activeDiscounts(tx, scope, 'invoiceId', ids, at);

async function activeDiscounts(
  tx: AnyTx,
  scope: RowScope,
  by: 'subscriptionId' | 'invoiceId',
  ids: readonly string[],
  at: Date,
): Promise<Map<string, ActiveDiscount>> {
  const out = new Map<string, ActiveDiscount>();
  if (!ids.length) return out;
  const column = q.id(by);
  const rows = await sqlOf(tx).query<
    Discount &
      Pick<Coupon, 'name' | 'percentOffHundredths' | 'amountOff' | 'appliesTo'> & {
        planOfPrice: Record<string, string> | null;
      }
  >(
    q`WITH expired AS (
        UPDATE discounts SET status = ${discountEnded}, "updatedAt" = ${at}::timestamptz
        WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
          AND ${column} = ANY (${[...ids]}::text[]) AND status = ${discountActive}
          AND "end" IS NOT NULL AND "end" <= ${at}::timestamptz
        RETURNING id, "subscriptionId")
      , cleared AS (
        UPDATE subscriptions s SET discount = NULL FROM expired e
        WHERE s."workspaceId" = ${scope.workspaceId} AND s.mode = ${scope.mode} AND s.id = e."subscriptionId"
          AND s.discount ->> 'id' = e.id
        RETURNING 1)
      SELECT d.*, c.name, c."percentOffHundredths", c."amountOff", c."appliesTo",
        (SELECT jsonb_object_agg(p.id, p."planId") FROM prices p
          WHERE p."workspaceId" = c."workspaceId" AND p.mode = c.mode
            AND p."planId" IN (SELECT jsonb_array_elements_text(c."appliesTo" -> 'planIds'))) AS "planOfPrice"
      FROM discounts d JOIN coupons c ON c."workspaceId" = d."workspaceId" AND c.mode = d.mode AND c.id = d."couponId"
      WHERE d."workspaceId" = ${scope.workspaceId} AND d.mode = ${scope.mode}
        AND d.${column} = ANY (${[...ids]}::text[]) AND d.status = ${discountActive}
        AND (d."end" IS NULL OR d."end" > ${at}::timestamptz)`,
  );
  for (const r of rows)
    out.set((by === 'subscriptionId' ? r.subscriptionId : r.invoiceId)!, {
      id: r.id,
      couponId: r.couponId,
      name: r.name,
      terms: termsOf(r),
      start: r.start,
      end: r.end,
      appliesTo: (r.appliesTo as { planIds: string[] } | null) ?? null,
      planOfPrice: r.planOfPrice ?? {},
    });
  return out;
}

/** A priced line as the discount maths reads it. */
export interface PricedLine {
  quantity: number;
  unitAmount: number | bigint;
  priceId: string | null;
}

/**
 * docs/coupons.md, Computation: what `discount` takes off lines in `currency` at business time `at`
 * (finalization): base = Σ eligible lines (all, or those whose price's plan is in `appliesTo`),
 * floored at 0 and never above what the invoice's subtotal leaves after `alreadyOff` (a manual
 * invoice's flat discount); percent half-up, amount `min(amountOff, base)`. Nothing when the discount
 * is outside `[start, end)` or lacks the currency. Returns the `invoice.discounts[]` entries (empty,
 * or one entry).
 */
export function discountLines(
  d: ActiveDiscount | null | undefined,
  lines: readonly PricedLine[],
  currency: string,
  at: Date,
  alreadyOff = 0,
): InvoiceDiscount[] {
  if (!d || !discountAppliesAt(d, at) || !coversCurrency(d.terms, currency)) return [];
  const amounts = lines.map((l) => ({
    amount: Number(BigInt(l.quantity) * BigInt(l.unitAmount)),
    planId: d.appliesTo === null ? null : l.priceId === null ? null : (d.planOfPrice[l.priceId] ?? null),
  }));
  const subtotal = Math.max(0, amounts.reduce((s, l) => s + l.amount, 0) - alreadyOff);
  const base = Math.min(eligibleBase(amounts, d.appliesTo), subtotal);
  const amount = discountAmount(d.terms, base, currency);
  return [{ couponId: d.couponId, discountId: d.id, name: d.name, amount }];
}

/**
 * At finalization (docs/coupons.md, Computation and durations): a `once` discount ends after the first invoice it
 * discounts (an amount > 0), an invoice's discount with its invoice; `end` = the finalization, and a
 * subscription's `discount` column is cleared. One statement, none when no entry names a discount.
 */
export async function endConsumedDiscounts(
  tx: AnyTx,
  scope: RowScope,
  entries: readonly InvoiceDiscount[],
  at: Date,
): Promise<void> {
  const ids = entries.filter((e) => e.discountId !== null && e.amount > 0).map((e) => e.discountId!);
  if (!ids.length) return;
  await sqlOf(tx).query(
    q`WITH ended AS (
        UPDATE discounts d SET status = ${discountEnded}, "end" = ${at}::timestamptz, "updatedAt" = ${at}::timestamptz
        FROM coupons c
        WHERE d."workspaceId" = ${scope.workspaceId} AND d.mode = ${scope.mode} AND d.id = ANY (${ids}::text[])
          AND d.status = ${discountActive}
          AND c."workspaceId" = d."workspaceId" AND c.mode = d.mode AND c.id = d."couponId"
          AND (c.duration = 'once' OR d."invoiceId" IS NOT NULL)
        RETURNING d.id, d."subscriptionId")
      UPDATE subscriptions s SET discount = NULL FROM ended e
      WHERE s."workspaceId" = ${scope.workspaceId} AND s.mode = ${scope.mode} AND s.id = e."subscriptionId"
        AND s.discount ->> 'id' = e.id`,
  );
}

/** The discount rows named by ids (with their coupons), for `Discount` reads. */
export async function discountsById(tx: AnyTx, scope: RowScope, ids: readonly string[]): Promise<DiscountRow[]> {
  if (!ids.length) return [];
  const rows = await sqlOf(tx).query<
    Discount & Pick<Coupon, 'name' | 'percentOffHundredths' | 'amountOff' | 'duration' | 'durationInMonths'>
  >(
    q`SELECT d.*, c.name, c."percentOffHundredths", c."amountOff", c.duration, c."durationInMonths"
      FROM discounts d JOIN coupons c ON c."workspaceId" = d."workspaceId" AND c.mode = d.mode AND c.id = d."couponId"
      WHERE d."workspaceId" = ${scope.workspaceId} AND d.mode = ${scope.mode} AND d.id = ANY (${[...ids]}::text[])`,
  );
  return rows.map((r) => ({
    id: r.id,
    workspaceId: r.workspaceId,
    mode: r.mode,
    couponId: r.couponId,
    customerId: r.customerId,
    subscriptionId: r.subscriptionId,
    invoiceId: r.invoiceId,
    start: r.start,
    end: r.end,
    status: r.status,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    coupon: couponOf(r),
  }));
}
