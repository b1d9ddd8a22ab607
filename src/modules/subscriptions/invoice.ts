/**
 * Subscription invoices (docs/billing.md, Renewals, Proration): lines from the pricing engine, tax from the workspace's
 * default invoice template (docs/billing.md, Tax), written as a draft (created event) and finalized at once
 * (number, hosted page, finalized event), so a cycle reads "created, finalized, then paid or
 * payment_failed". Shared by create, PATCH (proration), resume and the renewals. Caller's transaction.
 */
import type { AnyTx, Sql } from '../../core/db/sql.ts';
import type { NextPeriod } from './next-period.ts';
import { usageQuantities } from './usage.ts';
import { billsInArrears } from '../plans/metered.ts';
import type { RowScope } from '../../core/resource.ts';
import type { Plan, Price, Subscription } from '../../generated/prisma/client.ts';
import type { InvoiceRow } from '../invoices/fields.ts';
import { finalizeLocked, writeDrafts, type NewInvoice } from '../invoices/issue.ts';
import {
  computeTotals,
  periodTotal,
  priceQuantity,
  type PriceTerms,
  type Tier,
  type TaxMode,
  type UsageAggregate,
} from '../plans/pricing.ts';
import { templateForUse } from '../templates/service.ts';
import { methodsThatPay } from '../payment-methods/resolve.ts';
import type { Period } from '../../core/periods.ts';
import { discountLines, subscriptionDiscounts, type ActiveDiscount } from '../discounts/service.ts';

/** Why a subscription invoice was made (Stripe's `billing_reason` spelling). */
export type BillingReason = 'subscription_create' | 'subscription_cycle' | 'subscription_update';

/** A generated line: `amount = quantity x unitAmount`; only these may be negative (a proration credit). */
export interface DraftLine {
  description: string;
  quantity: number;
  unitAmount: number;
  priceId: string;
  metadata?: Record<string, string> | null;
}

/**
 * docs/billing.md, Due dates: due on issue with a stored method (the failed charge makes it past_due), else in 7
 * days; a subscription's first invoice is its pay link while incomplete: due in 1 day (Stripe expires
 * incomplete subscriptions after 23 hours).
 */
export const UNATTENDED_DUE_DAYS = 7;
export const FIRST_INVOICE_DUE_DAYS = 1;
const dueInDays = (reason: BillingReason, method: string | null) =>
  reason === 'subscription_create' ? FIRST_INVOICE_DUE_DAYS : method ? 0 : UNATTENDED_DUE_DAYS;

export const termsOf = (p: Price): PriceTerms => ({
  model: p.model as PriceTerms['model'],
  unitAmount: p.unitAmount === null ? null : Number(p.unitAmount),
  tiers: (p.tiers as unknown as Tier[] | null) ?? null,
});

/** The amount of one licensed period of `price` x `quantity` (usage prices bill in arrears: 0 here). */
export const periodAmount = (price: Price, quantity: number) =>
  billsInArrears(price) ? 0 : priceQuantity(termsOf(price), quantity).amount;

/**
 * Whether one period of `price` x `quantity`, with its tax at `rate`, is an amount (pricing.ts
 * `periodTotal`; docs/billing.md, Plans and prices). A usage price is checked at one unit, the least it bills.
 */
export const periodFits = (price: Price, quantity: number, rate: string) =>
  periodTotal({ ...termsOf(price), taxMode: price.taxMode as TaxMode }, billsInArrears(price) ? 1 : quantity, rate) !==
  null;

/** Licensed lines of one period, decomposed per tier (docs/billing.md, Pricing); one 0 line when nothing is owed. */
export function licensedLines(plan: Plan, price: Price, quantity: number, period: Period): DraftLine[] {
  const priced = priceQuantity(termsOf(price), quantity);
  const span = `${period.start.toISOString().slice(0, 10)} - ${period.end.toISOString().slice(0, 10)}`;
  const lines = priced.lines.map((l) => ({
    description:
      l.tier === null
        ? `${plan.name} (${span})`
        : `${plan.name}, tier ${l.tier + 1}${l.flatFee ? ' flat fee' : ''} (${span})`,
    quantity: l.quantity,
    unitAmount: l.unitAmount,
    priceId: price.id,
  }));
  return lines.length
    ? lines
    : [{ description: `${plan.name} (${span})`, quantity: 1, unitAmount: 0, priceId: price.id }];
}

/** docs/billing.md, Tax: tax only when the workspace's default invoice template shows it (its rate, default 0.11). */
export async function cycleTaxRate(tx: AnyTx, scope: RowScope): Promise<string> {
  const template = await templateForUse(tx, scope, null, 'invoice', 'invoice');
  return template?.showTax ? String(template.taxRate ?? '0.11') : '0';
}

/** What a subscription invoice bills: its lines, period and reason; the totals and due dates follow from them. */
export interface SubscriptionBill {
  sub: Pick<Subscription, 'id' | 'customerId' | 'currency' | 'paymentMethod' | 'testClockId'>;
  taxMode: TaxMode;
  lines: DraftLine[];
  period: Period;
  billingReason: BillingReason;
  /** The first collection attempt is due at issue (renewals: charged in their transaction or by the next pass). */
  attemptNow?: boolean;
  /** The method that pays (`methodsThatPay`: the subscription's, else the customer's default); default `sub.paymentMethod`. */
  method?: string | null;
  /** The subscription's active discount (`subscriptionDiscounts`), if any. */
  discount?: ActiveDiscount | null;
}

/**
 * A subscription invoice as the invoices module writes it (`writeDrafts`): the subscription's discount
 * taken off before tax (docs/coupons.md, Computation; it is finalized at `at` too, so the check at draft
 * is the check at finalize), tax per docs/billing.md, Tax (`rate`: cycleTaxRate), a negative subtotal (a
 * proration credit larger than the charge) billed as 0, due per `dueInDays`. Create, PATCH, resume and
 * the renewals all bill through here.
 */
export function subscriptionInvoice(b: SubscriptionBill, rate: string, at: Date): NewInvoice {
  const subtotal = b.lines.reduce((s, l) => s + l.quantity * l.unitAmount, 0);
  const discounts = discountLines(b.discount, b.lines, b.sub.currency, at);
  const discount = discounts.reduce((s, d) => s + d.amount, 0);
  const totals = computeTotals({ subtotal: Math.max(0, subtotal), discount, taxMode: b.taxMode, rate });
  const total = BigInt(Math.max(0, subtotal - discount + totals.tax));
  const method = b.method === undefined ? b.sub.paymentMethod : b.method;
  return {
    customerId: b.sub.customerId,
    subscriptionId: b.sub.id,
    currency: b.sub.currency,
    lines: b.lines,
    subtotal: BigInt(subtotal),
    discount: BigInt(discount),
    discounts,
    tax: BigInt(totals.tax),
    total,
    dueAt: new Date(at.getTime() + dueInDays(b.billingReason, method) * 86_400_000),
    nextAttemptAt: b.attemptNow && method !== null && total > 0n ? at : null,
    periodStart: b.period.start,
    periodEnd: b.period.end,
    billingReason: b.billingReason,
    testClockId: b.sub.testClockId,
    metadata: totals.taxIncluded > 0 ? { taxIncluded: String(totals.taxIncluded) } : null,
  };
}

/**
 * Writes a subscription invoice (draft, lines, created event) and finalizes it, at business time `at`.
 * Null when the cycle key (subscription, periodStart, billingReason) already has one: a repeated
 * renewal or a retried request is a no-op.
 */
export async function writeSubscriptionInvoice(
  tx: AnyTx,
  scope: RowScope & { accountId: string },
  input: {
    sub: Subscription;
    price: Price;
    lines: DraftLine[];
    period: Period;
    billingReason: BillingReason;
    at: Date;
    requestId?: string;
    source?: string;
  },
): Promise<InvoiceRow | null> {
  const { sub, price, at } = input;
  const rate = await cycleTaxRate(tx, scope);
  const bill = { ...input, taxMode: price.taxMode as TaxMode };
  const o = { accountId: scope.accountId, requestId: input.requestId, source: input.source ?? 'subscription', at };
  const method = (await methodsThatPay(tx, scope, [sub])).get(sub.id) ?? null;
  const discount = (await subscriptionDiscounts(tx, scope, [sub.id], at)).get(sub.id) ?? null;
  const [draft] = await writeDrafts(tx, scope, [subscriptionInvoice({ ...bill, sub, method, discount }, rate, at)], {
    ...o,
    skipExisting: true,
  });
  return draft ? finalizeLocked(tx, scope, draft, o) : null;
}

/** What a renewal bills (renewals.ts plans it): the subscription, its next price and the period billed, if any. */
export interface CycleBill {
  sub: Subscription & { accountId: string };
  bills: NextPeriod;
  invoice: { periodStart: Date; periodEnd: Date; quantity: number | null; usage: boolean } | null;
}

export const CYCLE_REASON: BillingReason = 'subscription_cycle';

/** Event metadata of work done on a test clock: which clock, at which simulated time (docs/billing.md, Test clocks). */
export const clockMeta = (testClockId: string | null, at: Date) =>
  testClockId ? { testClock: { id: testClockId, time: at.toISOString() } } : undefined;

/** A cycle invoice's events carry the test clock's instant (docs/billing.md, Test clocks). */
export const cycleMeta = (at: Date) => (r: InvoiceRow) => clockMeta(r.testClockId, at);

/**
 * The batch's cycle invoices as drafts, with their lines and created events (in the batch's order).
 * Tax from the workspace's default invoice template (docs/billing.md, Tax). Each invoice records its first
 * collection attempt as due now (`nextAttemptAt`): charged in this transaction when the method is
 * charged in process, else by the next pass.
 */
export async function writeCycleDrafts(sql: Sql, scope: RowScope, at: Date, plans: CycleBill[]): Promise<InvoiceRow[]> {
  const billed = plans.filter((p) => p.invoice);
  if (!billed.length) return [];
  const rate = await cycleTaxRate(sql, scope);
  const usage = await usageQuantities(
    sql,
    scope,
    billed
      .filter((p) => p.invoice?.usage)
      .map((p) => ({
        subscriptionId: p.sub.id,
        start: p.invoice!.periodStart,
        end: p.invoice!.periodEnd,
        aggregate: (p.bills.plan.usageAggregate as UsageAggregate | null) ?? 'sum',
      })),
  );
  const methods = await methodsThatPay(
    sql,
    scope,
    billed.map((p) => p.sub),
  );
  // docs/coupons.md, Computation: the batch's active discounts in one statement.
  const discounts = await subscriptionDiscounts(
    sql,
    scope,
    billed.map((p) => p.sub.id),
    at,
  );
  const bills = billed.map((p) => {
    const s = p.sub;
    const b = p.invoice!;
    const { price, planName } = p.bills;
    const quantity = b.usage ? (usage.get(s.id) ?? 0) : (b.quantity ?? 1);
    const priced = priceQuantity(termsOf(price), quantity);
    const span = `${b.periodStart.toISOString().slice(0, 10)} - ${b.periodEnd.toISOString().slice(0, 10)}`;
    const lines: DraftLine[] = priced.lines.map((l) => ({
      description: `${planName}${l.flatFee ? ' (flat fee)' : ''} ${span}`,
      quantity: l.quantity,
      unitAmount: l.unitAmount,
      priceId: price.id,
    }));
    const period = { start: b.periodStart, end: b.periodEnd };
    const bill = { sub: s, taxMode: price.taxMode as TaxMode, lines, period, billingReason: CYCLE_REASON };
    const how = { attemptNow: true, method: methods.get(s.id) ?? null, discount: discounts.get(s.id) ?? null };
    return subscriptionInvoice({ ...bill, ...how }, rate, at);
  });
  // occurredAt on business time, as the invoice's later events (paid, payment_failed): docs/decisions.md, Test clocks.
  const o = { accountId: plans[0].sub.accountId, source: 'billing', at, meta: cycleMeta(at) };
  return (await writeDrafts(sql, { ...scope, accountId: o.accountId }, bills, o)) as InvoiceRow[];
}
