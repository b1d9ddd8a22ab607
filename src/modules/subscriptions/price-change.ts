/**
 * A PATCH's price, quantity and coupon changes (docs/billing.md, Proration; docs/coupons.md, Applying):
 * the change loaded and checked, then the first of its rules that applies (now with a prorated invoice
 * or credit notes, or at the period end).
 */
import {
  cadenceOf,
  conflict,
  err,
  invoiceChange,
  isIdString,
  refuseUnbillable,
  usablePrice,
  type Scope,
} from './checks.ts';
import { scopedRow, sql as q, type Sql } from '../../core/db/sql.ts';
import { sqlIn, sqlStatus } from '../../core/state-machine.ts';
import type { Plan, Price, Subscription } from '../../generated/prisma/client.ts';
import { invoiceIssuedUnpaid, invoicePaid } from '../invoices/states.ts';
import { licensedLines, periodAmount, type DraftLine } from './invoice.ts';
import { periodOf, prorate } from '../../core/periods.ts';
import { billsInArrears, refuseMeteredMove } from './metered.ts';
import { subscriptionBilled, subscriptionIncomplete, subscriptionPaused } from './states.ts';
import { issueCreditNoteIn } from '../credit-notes/service.ts';
import { creditNoteIssued } from '../credit-notes/states.ts';
import { applyCoupon, removeDiscount, subscriptionDiscountColumn } from '../discounts/service.ts';

/** Where a subscription's coupon applies: its customer, currency and plan (docs/coupons.md, Applying). */
export const discountTarget = (sub: Subscription, planIds: string[] = [sub.planId]) => ({
  customerId: sub.customerId,
  subscriptionId: sub.id,
  currency: sub.currency,
  planIds,
});

/**
 * PATCH `couponId` (docs/coupons.md, Applying): null removes the active discount (`removed`, `end` =
 * now); another id replaces it (the old one removed, the new one checked and redeemed). `data.discount`
 * changes, so `subscription.updated` carries `previousAttributes.discount`.
 */
export async function changeDiscount(
  sql: Sql,
  scope: Scope,
  sub: Subscription,
  couponId: string | null,
  priceId: string | null | undefined,
  at: Date,
  data: Partial<Subscription>,
) {
  await removeDiscount(sql, scope, { subscriptionId: sub.id }, at);
  if (couponId === null) {
    data.discount = null as unknown as Subscription['discount'];
    return;
  }
  // A price change in the same PATCH: the coupon may cover the plan billed from now on.
  const target = isIdString(priceId) ? await scopedRow<Price>(sql, 'prices', scope, priceId) : null;
  const planIds = target ? [sub.planId, target.planId] : [sub.planId];
  const applied = await applyCoupon(sql, scope, couponId, discountTarget(sub, planIds), at, 'subscription');
  data.discount = subscriptionDiscountColumn(applied) as Subscription['discount'];
}

/** A price or quantity change as PATCH asked for it, checked, with what decides its rule. */
interface PriceChange {
  sub: Subscription;
  current: { price: Price; plan: Plan };
  target: { price: Price; plan: Plan };
  quantity: number;
  /** One period's amount before and after the change (usage prices: 0, billed in arrears). */
  before: number;
  after: number;
  /** The current period was invoiced in advance (active, past_due): a change inside it is prorated. */
  billed: boolean;
  /** ...and every invoice of it is paid: only then is its unused time credited. */
  paid: boolean;
  cadenceChange: boolean;
  /** When the change applies (default: an increase or an interval change now, anything else at the period end). */
  applyAt: 'now' | 'period_end';
  proration: ChangeOptions['proration'];
  /** The unused time of the current period (0 unless paid and prorated) and what the target bills for the rest of it
   * (an interval change: its whole new period). */
  unused: number;
  newCharge: number;
  at: Date;
}

interface ChangeOptions {
  requestId?: string;
  source: string;
  proration: 'create_prorations' | 'none';
  at: Date;
}

/** Loads and checks a change of price or quantity of the locked subscription. */
export async function priceChange(
  sql: Sql,
  scope: Scope,
  sub: Subscription,
  priceId: string | null | undefined,
  quantity: number | undefined,
  at: Date,
  how: { applyAt: 'now' | 'period_end' | null; proration: ChangeOptions['proration'] },
): Promise<PriceChange> {
  // The open first invoice bills the price the customer chose: pay or cancel it first.
  if (sub.status === subscriptionIncomplete)
    throw conflict(sub, 'its price and quantity change once the first invoice is paid');
  const price = await scopedRow<Price>(sql, 'prices', scope, sub.priceId);
  const plan = await scopedRow<Plan>(sql, 'plans', scope, sub.planId);
  if (!price || !plan) throw err.notFound('price');
  const current = { price, plan };
  const target = priceId != null && priceId !== sub.priceId ? await usablePrice(sql, scope, priceId) : current;
  if (target.price.currency !== sub.currency)
    throw err.validation('priceId', `the price is in ${target.price.currency}; the subscription bills ${sub.currency}`);
  refuseMeteredMove(price, target.price);
  if ((target.price.model === 'usage') !== (price.model === 'usage'))
    throw err.validation('priceId', 'a usage price cannot replace a licensed one, nor the reverse');
  const qty = billsInArrears(target.price) ? 1 : (quantity ?? sub.quantity);
  await refuseUnbillable(sql, scope, target.price, qty, quantity !== undefined);
  const cadenceChange = target.plan.interval !== plan.interval || target.plan.intervalCount !== plan.intervalCount;
  if (cadenceChange && (sub.status === subscriptionPaused || target.price.model === 'usage'))
    throw err.validation('priceId', 'the billing interval of a paused or usage subscription cannot change');
  const billed = (subscriptionBilled as readonly string[]).includes(sub.status);
  const before = periodAmount(price, sub.quantity);
  const after = periodAmount(target.price, qty);
  const applyAt = how.applyAt ?? (after > before || cadenceChange ? 'now' : 'period_end');
  // docs/billing.md, Proration: an interval change restarts the period, so it cannot wait for the period end.
  if (cadenceChange && billed && applyAt === 'period_end')
    throw err.validation('applyAt', 'an interval change applies now: applyAt must be now');
  const paid = billed && (await periodPaid(sql, scope, sub));
  const period = { start: sub.currentPeriodStart, end: sub.currentPeriodEnd };
  const prorated = paid && how.proration === 'create_prorations';
  return {
    sub,
    current,
    target,
    quantity: qty,
    before,
    after,
    billed,
    paid,
    cadenceChange,
    applyAt,
    proration: how.proration,
    unused: prorated ? Math.max(0, prorate(before, period, at)) : 0,
    newCharge: cadenceChange ? after : prorate(after, period, at),
    at,
  };
}

/**
 * Whether no invoice of the subscription's current period is left unpaid (open, past due,
 * uncollectible): a declined renewal's period is not paid, so an upgrade credits none of it.
 */
async function periodPaid(sql: Sql, scope: Scope, sub: Subscription): Promise<boolean> {
  const [unpaid] = await sql.query(
    q`SELECT 1 FROM invoices WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
      AND "subscriptionId" = ${sub.id} AND ${unpaidInvoice}
      AND "periodStart" < ${sub.currentPeriodEnd}::timestamptz AND "periodEnd" > ${sub.currentPeriodStart}::timestamptz
      LIMIT 1`,
  );
  return !unpaid;
}
const unpaidInvoice = sqlIn(q`status`, invoiceIssuedUnpaid);

/** The subscription moved to the target price and quantity (no pending change left). */
const moveTo = (c: PriceChange): Partial<Subscription> => ({
  priceId: c.target.price.id,
  planId: c.target.plan.id,
  quantity: c.quantity,
  pendingPriceId: null,
  pendingQuantity: null,
});

/** The credit line for the unused time of the current period: only a paid period, only with prorations. */
function unusedCredit(c: PriceChange): DraftLine[] {
  const unused = c.unused;
  if (unused <= 0) return [];
  return [
    {
      description: `Unused time on ${c.current.plan.name} x ${c.sub.quantity}`,
      quantity: 1,
      unitAmount: -unused,
      priceId: c.current.price.id,
      metadata: { proration: 'true' },
    },
  ];
}

const lineTotal = (lines: DraftLine[]) => lines.reduce((s, l) => s + l.quantity * l.unitAmount, 0);

interface PriceChangeRule {
  applies(c: PriceChange): boolean;
  /** Writes the change into `data` (and its invoice); returns the invoice to charge after commit. */
  apply(sql: Sql, scope: Scope, c: PriceChange, data: Partial<Subscription>, o: ChangeOptions): Promise<string | null>;
}

/** The rules of a price or quantity change (docs/billing.md, Proration), the first that applies wins. */
export const priceChangeRules: PriceChangeRule[] = [
  {
    // Back to what it bills now: a waiting change is dropped.
    applies: (c) => c.target.price.id === c.sub.priceId && c.quantity === c.sub.quantity,
    async apply(_sql, _scope, _c, data) {
      Object.assign(data, { pendingPriceId: null, pendingQuantity: null });
      return null;
    },
  },
  {
    // Nothing invoiced for this period (trialing, paused): the change applies now, billed from the next invoice.
    applies: (c) => !c.billed,
    async apply(_sql, _scope, c, data) {
      Object.assign(data, moveTo(c));
      return null;
    },
  },
  {
    // Applied now in a paid period whose unused time exceeds what the target bills for the rest (a decrease; an
    // interval change worth less than the unused time): the unused time becomes order_change credit notes, credited
    // to the customer balance, and the target's invoice is paid from that balance at finalization (creditThrough).
    applies: (c) => c.applyAt === 'now' && c.unused > c.newCharge,
    async apply(sql, scope, c, data, o) {
      await creditUnusedTime(sql, scope, c, o);
      const period = startPeriod(c, data);
      const lines = c.cadenceChange
        ? licensedLines(c.target.plan, c.target.price, c.quantity, period)
        : [remainingLine(c)];
      if (lineTotal(lines) <= 0) return null;
      return invoiceChange(sql, scope, data, {
        sub: { ...c.sub, ...data } as Subscription,
        price: c.target.price,
        lines,
        period,
        billingReason: 'subscription_update',
        ...o,
      });
    },
  },
  {
    // An interval change of an invoiced period resets the period: a new one starts now (the anchor
    // moves), billed in full, less the unused time of the old one.
    applies: (c) => c.cadenceChange && c.applyAt === 'now',
    async apply(sql, scope, c, data, o) {
      const credit = unusedCredit(c);
      const period = startPeriod(c, data);
      return invoiceChange(sql, scope, data, {
        sub: { ...c.sub, ...data } as Subscription,
        price: c.target.price,
        lines: [...credit, ...licensedLines(c.target.plan, c.target.price, c.quantity, period)],
        period,
        billingReason: 'subscription_update',
        ...o,
      });
    },
  },
  {
    // Applied now inside an invoiced period (an increase by default): an invoice for the remaining time
    // less the unused time of the old price (when paid).
    applies: (c) => c.applyAt === 'now',
    async apply(sql, scope, c, data, o) {
      Object.assign(data, moveTo(c));
      if (o.proration !== 'create_prorations') return null;
      const lines: DraftLine[] = [...unusedCredit(c), remainingLine(c)];
      if (lineTotal(lines) <= 0) return null;
      return invoiceChange(sql, scope, data, {
        sub: { ...c.sub, ...data } as Subscription,
        price: c.target.price,
        lines,
        period: { start: c.at, end: c.sub.currentPeriodEnd },
        billingReason: 'subscription_update',
        ...o,
      });
    },
  },
  {
    // applyAt period_end (a decrease by default) waits for the renewal (next-period.ts applies it).
    applies: () => true,
    async apply(_sql, _scope, c, data) {
      Object.assign(data, { pendingPriceId: c.target.price.id, pendingQuantity: c.quantity });
      return null;
    },
  },
];

/** Moves the subscription to the target; an interval change restarts its period now. Returns the period to bill. */
function startPeriod(c: PriceChange, data: Partial<Subscription>) {
  Object.assign(data, moveTo(c));
  if (!c.cadenceChange) return { start: c.at, end: c.sub.currentPeriodEnd };
  const period = periodOf(c.at, cadenceOf(c.target.plan), 0);
  Object.assign(data, {
    anchorAt: c.at,
    periodIndex: 0,
    currentPeriodStart: period.start,
    currentPeriodEnd: period.end,
  });
  return period;
}

/** The target's line for the rest of the current period. */
const remainingLine = (c: PriceChange): DraftLine => ({
  description: `Remaining time on ${c.target.plan.name} x ${c.quantity}`,
  quantity: 1,
  unitAmount: c.newCharge,
  priceId: c.target.price.id,
  metadata: { proration: 'true' },
});

/**
 * docs/credit-notes.md, Order changes: the unused time as `order_change` notes against the invoices that billed the
 * current period, newest first, each up to what remains of it and of its line of the current price; issued by the
 * credit-notes module (`issueCreditNoteIn`) in this transaction, their post-payment part credited to the balance.
 */
async function creditUnusedTime(sql: Sql, scope: Scope, c: PriceChange, o: ChangeOptions) {
  const sub = c.sub;
  const rows = await sql.query<{ invoiceId: string; remaining: bigint; lineId: string; lineLeft: bigint }>(
    q`SELECT i.id AS "invoiceId", i.total - i."creditedAmount" AS remaining, l.id AS "lineId",
        l.amount - coalesce((SELECT sum(cl.amount) FROM credit_note_lines cl JOIN credit_notes n
          ON n."workspaceId" = cl."workspaceId" AND n.mode = cl.mode AND n.id = cl."creditNoteId"
          WHERE cl."workspaceId" = l."workspaceId" AND cl.mode = l.mode AND cl."invoiceLineId" = l.id
            AND n.status = ${creditNoteIssued}), 0) AS "lineLeft"
      FROM invoices i JOIN invoice_lines l ON l."workspaceId" = i."workspaceId" AND l.mode = i.mode AND l."invoiceId" = i.id
      WHERE i."workspaceId" = ${scope.workspaceId} AND i.mode = ${scope.mode} AND i."subscriptionId" = ${sub.id}
        AND i.status = ${sqlStatus(invoicePaid)} AND l."priceId" = ${c.current.price.id} AND l.amount > 0
        AND i."periodStart" < ${sub.currentPeriodEnd}::timestamptz AND i."periodEnd" > ${sub.currentPeriodStart}::timestamptz
      ORDER BY i."createdAt" DESC, i.id DESC, l.position`,
  );
  let left = BigInt(c.unused);
  const remaining = new Map<string, bigint>();
  for (const r of rows) {
    if (left <= 0n) break;
    const room = remaining.get(r.invoiceId) ?? BigInt(r.remaining);
    const amount = [left, room, BigInt(r.lineLeft)].reduce((m, v) => (v < m ? v : m));
    if (amount <= 0n) continue;
    await issueCreditNoteIn(
      sql,
      scope,
      {
        invoiceId: r.invoiceId,
        lines: [{ invoiceLineId: r.lineId, amount: Number(amount) }],
        reason: 'order_change',
        memo: `Unused time on ${c.current.plan.name} x ${sub.quantity}`,
      },
      { requestId: o.requestId, source: o.source, at: o.at },
    );
    remaining.set(r.invoiceId, room - amount);
    left -= amount;
  }
}
