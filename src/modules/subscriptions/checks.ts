import type { Auth } from '../../core/auth/authenticate.ts';
import { scopedRow, type Sql } from '../../core/db/sql.ts';
import { errorsFor } from '../../core/errors.ts';
import { scoped, type RowScope } from '../../core/resource.ts';
import { canMove } from '../../core/state-machine.ts';
import type { Customer, Plan, Price, Subscription } from '../../generated/prisma/client.ts';
import { invoiceMachine, type InvoiceStatus } from '../invoices/states.ts';
import { testPaymentMethods } from '../collection/charge.ts';
import { cycleTaxRate, periodFits, writeSubscriptionInvoice } from './invoice.ts';
import type { Cadence, Interval } from '../../core/periods.ts';
import { subscriptionLive } from './states.ts';
import { clockTimeFor } from '../../core/business-time.ts';
import { isSavedMethodId } from '../payment-methods/service.ts';
import { billsInArrears } from '../plans/metered.ts';

export const err = errorsFor('subscription');
/** Bounds (hostile input; docs/billing.md, Plans and prices): trials up to 730 days (Stripe's cap). */
export const MAX_QUANTITY = 1_000_000;
export const MAX_TRIAL_DAYS = 730;
export const DAY = 86_400_000;

export type Scope = RowScope & { accountId: string };
export const scopeOfAuth = (auth: Auth): Scope => ({ ...scoped(auth), accountId: auth.accountId });
export const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

/**
 * The business time of a customer: the real clock, or (docs/billing.md, Test clocks) the customer's clock
 * time. The one place the time of a subscription operation is read.
 */
export async function businessTime(sql: Sql, scope: RowScope, customer: Pick<Customer, 'testClockId'>) {
  return clockTimeFor(sql, { ...scoped(scope), testClockId: customer.testClockId });
}

export const cadenceOf = (plan: Plan): Cadence => ({
  interval: plan.interval as Interval,
  intervalCount: plan.intervalCount,
});

/** The value's shape; a saved method (`pm_`) is checked against its row in the transaction (`checkSavedMethod`). */
export function checkPaymentMethod(v: unknown, mode: string): string | null {
  if (v == null) return null;
  if (isSavedMethodId(v) && isIdString(v)) return v;
  if (typeof v !== 'string' || !(testPaymentMethods as readonly string[]).includes(v))
    throw err.validation(
      'paymentMethod',
      `paymentMethod must be a pm_ payment method of the customer, one of ${testPaymentMethods.join(', ')} (test mode) or null`,
    );
  // Live mode has no stored-credential charge yet (src/providers/types.ts): hosted page only.
  if (mode === 'live') throw err.validation('paymentMethod', 'test payment methods are refused in live mode');
  return v;
}

export function checkQuantity(v: unknown): number {
  if (!isInt(v) || v < 1 || v > MAX_QUANTITY)
    throw err.validation('quantity', `quantity must be an integer from 1 to ${MAX_QUANTITY}`);
  return v;
}

/** A reference as sent: a non-empty string of at most 64 characters; whether it names a row is a 404 question. */
export const isIdString = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 64;

/** A price new subscriptions (or changes) may use, with its plan: active, plan not archived. */
export async function usablePrice(sql: Sql, scope: RowScope, priceId: unknown, planId?: unknown) {
  if (!isIdString(priceId)) throw err.validation('priceId', 'priceId is required: a pr_ price id');
  const price = await scopedRow<Price>(sql, 'prices', scope, priceId);
  if (!price) throw err.notFound('price');
  if (planId != null && planId !== price.planId) throw err.validation('planId', "planId must be the price's plan");
  const plan = await scopedRow<Plan>(sql, 'plans', scope, price.planId);
  if (!plan) throw err.notFound('plan');
  // spec Plan and price: an inactive price or archived plan is "rejected for new subscriptions".
  if (!price.active) throw err.validation('priceId', 'the price is inactive');
  if (plan.archivedAt || !plan.active) throw err.validation('planId', 'the plan is archived or inactive');
  return { price, plan };
}

/**
 * One period of `price` x `quantity` must be an amount (`periodFits`, with the tax at the workspace's
 * rate), or no invoice of it could ever be written: refused on every create and change, trialing
 * or not. The quantity is named when the caller sent it and one unit fits; otherwise the price.
 */
export async function refuseUnbillable(
  sql: Sql,
  scope: RowScope,
  price: Price,
  quantity: number,
  quantitySent: boolean,
) {
  const rate = await cycleTaxRate(sql, scope);
  if (periodFits(price, quantity, rate)) return;
  const q = billsInArrears(price) ? 1 : quantity;
  const field = quantitySent && q > 1 && periodFits(price, 1, rate) ? 'quantity' : 'priceId';
  const tax = price.taxMode === 'exclusive' && Number(rate) > 0 ? ` with tax at ${rate}` : '';
  throw err.validation(
    field,
    `one period of ${q} x this price${tax} would bill more than 9007199254740991 (2^53 - 1) minor units`,
  );
}

export const live = (s: Subscription) => (subscriptionLive as readonly string[]).includes(s.status);
export const conflict = (s: Subscription, what: string) =>
  err.of('conflict', `The subscription is ${s.status}; ${what}`);

/**
 * A change's invoice (proration, resume): written, recorded as the subscription's latest, and
 * returned for the charge after commit when it is payable (a zero invoice is paid at finalization).
 */
export async function invoiceChange(
  sql: Parameters<typeof writeSubscriptionInvoice>[0],
  scope: Parameters<typeof writeSubscriptionInvoice>[1],
  data: Record<string, unknown>,
  args: Parameters<typeof writeSubscriptionInvoice>[2],
): Promise<string | null> {
  const invoice = await writeSubscriptionInvoice(sql, scope, args);
  if (!invoice) return null;
  data.latestInvoiceId = invoice.id;
  return canMove(invoiceMachine, invoice.status as InvoiceStatus, 'pay') ? invoice.id : null;
}
