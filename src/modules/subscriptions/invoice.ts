/**
 * Subscription invoices (docs/billing.md, Renewals, Proration): lines from the pricing engine, tax from the workspace's
 * default invoice template (docs/billing.md, Tax), written as a draft (created event) and finalized at once
 * (number, hosted page, finalized event), so a cycle reads "created, finalized, then paid or
 * payment_failed". Shared by create, PATCH (proration), resume and the renewals. Caller's transaction.
 */
import { insertRows, sql as q, sqlOf, type AnyTx } from '../../core/db/sql.ts';
import { newId } from '../../core/ids.ts';
import type { RowScope } from '../../core/resource.ts';
import { nextState } from '../../core/state-machine.ts';
import type { Invoice, InvoiceLine, Plan, Price, Subscription } from '../../generated/prisma/client.ts';
import type { InvoiceRow } from '../invoices/fields.ts';
import { finalizeLocked, insertInvoiceEvents } from '../invoices/issue.ts';
import { invoiceDraft, invoiceMachine } from '../invoices/states.ts';
import { computeTotals, priceQuantity, type PriceTerms, type Tier, type TaxMode } from '../plans/pricing.ts';
import { templateForUse } from '../templates/service.ts';
import type { Period } from './periods.ts';

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
  price.model === 'usage' ? 0 : priceQuantity(termsOf(price), quantity).amount;

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
  const sql = sqlOf(tx);
  const rate = await cycleTaxRate(tx, scope);
  const subtotal = input.lines.reduce((s, l) => s + l.quantity * l.unitAmount, 0);
  const totals = computeTotals({ subtotal: Math.max(0, subtotal), taxMode: price.taxMode as TaxMode, rate });
  const id = newId('invoice');
  const invoice = {
    id,
    workspaceId: scope.workspaceId,
    mode: scope.mode,
    customerId: sub.customerId,
    subscriptionId: sub.id,
    status: invoiceDraft,
    number: null,
    currency: sub.currency,
    subtotal: BigInt(subtotal),
    discount: 0n,
    tax: BigInt(totals.tax),
    total: BigInt(Math.max(0, subtotal + totals.tax)),
    amountPaid: 0n,
    amountDue: BigInt(Math.max(0, subtotal + totals.tax)),
    dueAt: new Date(at.getTime() + dueInDays(input.billingReason, sub.paymentMethod) * 86_400_000),
    issuedAt: null,
    paidAt: null,
    voidedAt: null,
    pastDueAt: null,
    uncollectibleAt: null,
    collectionAttempts: 0,
    nextAttemptAt: null,
    dunningSnapshot: null,
    templateId: null,
    periodStart: input.period.start,
    periodEnd: input.period.end,
    billingReason: input.billingReason,
    testClockId: sub.testClockId,
    metadata: totals.taxIncluded > 0 ? { taxIncluded: String(totals.taxIncluded) } : null,
    createdAt: at,
    updatedAt: at,
  } satisfies Omit<Invoice, 'hostedSecret'>;
  const [row] = await sql.query<Invoice>(
    q`${insertRows('invoices', [invoice])}
      ON CONFLICT ("workspaceId", mode, "subscriptionId", "periodStart", "billingReason") DO NOTHING RETURNING *`,
  );
  if (!row) return null;
  const lines: InvoiceLine[] = input.lines.map((l, position) => ({
    id: newId('invoiceLine'),
    workspaceId: scope.workspaceId,
    mode: scope.mode,
    invoiceId: id,
    position,
    description: l.description.slice(0, 255),
    quantity: l.quantity,
    unitAmount: BigInt(l.unitAmount),
    amount: BigInt(l.quantity * l.unitAmount),
    priceId: l.priceId,
    metadata: l.metadata ?? null,
    createdAt: at,
  }));
  await sql.query(q`${insertRows('invoice_lines', lines)}`);
  const o = { accountId: scope.accountId, requestId: input.requestId, source: input.source ?? 'subscription', at };
  const draft: InvoiceRow = { ...row, accountId: scope.accountId, lines };
  await insertInvoiceEvents(tx, scope, draft, nextState(invoiceMachine, null, 'create').events, o);
  return finalizeLocked(tx, scope, draft, o);
}
