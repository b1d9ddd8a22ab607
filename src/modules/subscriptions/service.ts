/**
 * Subscriptions (DECISIONS §3; docs/billing.md; docs/decisions.md, Subscriptions): create (trial, usage,
 * or the first invoice charged during the call), retrieve, list, PATCH (proration), cancel, pause,
 * resume. Each state change, its invoice and its events commit in one transaction; the charge runs
 * after it (collect.ts: write pending, call, reconcile). Business time comes from `businessTime`
 * (one place: a customer's test clock replaces the real clock there).
 */
import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import type { Auth } from '../../core/auth/authenticate.ts';
import { insertRows, scopedRow, scopeOf, sql as q, tenantTx, updateRow, type Sql } from '../../core/db/sql.ts';
import { inTenant } from '../../core/db/client.ts';
import { errorsFor } from '../../core/errors.ts';
import { claimOperation } from '../../core/operations.ts';
import { newId } from '../../core/ids.ts';
import { keysetList } from '../../core/pagination.ts';
import { scoped, type RowScope } from '../../core/resource.ts';
import { canMove, nextState, sqlIn, sqlStatus } from '../../core/state-machine.ts';
import { validateMetadata } from '../../core/validation.ts';
import type { Customer, Plan, Price, Subscription } from '../../generated/prisma/client.ts';
import { closeUnpaidInvoice } from '../invoices/close.ts';
import { lockInvoice } from '../invoices/issue.ts';
import {
  invoiceIssuedUnpaid,
  invoiceMachine,
  invoiceCloseVoid,
  invoicePaid,
  type InvoiceStatus,
} from '../invoices/states.ts';
import { collectInvoice, testPaymentMethods } from './collect.ts';
import {
  cycleTaxRate,
  licensedLines,
  periodAmount,
  periodFits,
  writeSubscriptionInvoice,
  type DraftLine,
} from './invoice.ts';
import { insertEvents } from '../../core/outbox.ts';
import { lockSubscription, moveSubscription, subscriptionEvents } from './moves.ts';
import { refusePastDueChange } from './past-due.ts';
import { nextPeriod } from './next-period.ts';
import { periodOf, prorate, type Cadence, type Interval } from '../../core/periods.ts';
import type {
  CancelSubscriptionInput,
  CreateSubscriptionInput,
  ListSubscriptionsArgs,
  UpdateSubscriptionInput,
} from './schema.ts';
import { subscriptionList } from './list.ts';
import {
  subscriptionBilled,
  subscriptionIncomplete,
  subscriptionLive,
  subscriptionMachine,
  subscriptionPaused,
  type SubscriptionStatus,
  type SubscriptionTrigger,
} from './states.ts';
import { checkClockRoom, clockTimeFor } from '../../core/business-time.ts';
import { checkSavedMethod, isSavedMethodId } from '../payment-methods/service.ts';
import { issueCreditNoteIn } from '../credit-notes/service.ts';
import { creditNoteIssued } from '../credit-notes/states.ts';
import { applyCoupon, removeDiscount, subscriptionDiscountColumn } from '../discounts/service.ts';

const err = errorsFor('subscription');
/** Bounds (hostile input; docs/billing.md, Plans and prices): trials up to 730 days (Stripe's cap). */
const MAX_QUANTITY = 1_000_000;
const MAX_TRIAL_DAYS = 730;
const DAY = 86_400_000;

type Scope = RowScope & { accountId: string };
const scopeOfAuth = (auth: Auth): Scope => ({ ...scoped(auth), accountId: auth.accountId });
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

/**
 * The business time of a customer: the real clock, or (docs/billing.md, Test clocks) the customer's clock
 * time. The one place the time of a subscription operation is read.
 */
export async function businessTime(sql: Sql, scope: RowScope, customer: Pick<Customer, 'testClockId'>) {
  return clockTimeFor(sql, { ...scoped(scope), testClockId: customer.testClockId });
}

const cadenceOf = (plan: Plan): Cadence => ({ interval: plan.interval as Interval, intervalCount: plan.intervalCount });

/** The value's shape; a saved method (`pm_`) is checked against its row in the transaction (`checkSavedMethod`). */
function checkPaymentMethod(v: unknown, mode: string): string | null {
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

function checkQuantity(v: unknown): number {
  if (!isInt(v) || v < 1 || v > MAX_QUANTITY)
    throw err.validation('quantity', `quantity must be an integer from 1 to ${MAX_QUANTITY}`);
  return v;
}

/** A reference as sent: a non-empty string of at most 64 characters; whether it names a row is a 404 question. */
const isIdString = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 64;

/** A price new subscriptions (or changes) may use, with its plan: active, plan not archived. */
async function usablePrice(sql: Sql, scope: RowScope, priceId: unknown, planId?: unknown) {
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
async function refuseUnbillable(sql: Sql, scope: RowScope, price: Price, quantity: number, quantitySent: boolean) {
  const rate = await cycleTaxRate(sql, scope);
  if (periodFits(price, quantity, rate)) return;
  const q = price.model === 'usage' ? 1 : quantity;
  const field = quantitySent && q > 1 && periodFits(price, 1, rate) ? 'quantity' : 'priceId';
  const tax = price.taxMode === 'exclusive' && Number(rate) > 0 ? ` with tax at ${rate}` : '';
  throw err.validation(
    field,
    `one period of ${q} x this price${tax} would bill more than 9007199254740991 (2^53 - 1) minor units`,
  );
}

export async function createSubscription(ctx: Context, input: CreateSubscriptionInput): Promise<Subscription> {
  const auth = authorize(ctx, 'svc:subscription:write');
  const scope = scopeOfAuth(auth);
  // A missing id is 400; any id naming no customer of this workspace (malformed ones too) is 404
  // (docs/decisions.md, Subscriptions).
  if (!isIdString(input.customerId)) throw err.validation('customerId', 'customerId is required: a cus_ customer id');
  const paymentMethod = checkPaymentMethod(input.paymentMethod, auth.mode);
  const quantity = input.quantity == null ? 1 : checkQuantity(input.quantity);
  if (input.trialDays != null && (!isInt(input.trialDays) || input.trialDays < 0 || input.trialDays > MAX_TRIAL_DAYS))
    throw err.validation('trialDays', `trialDays must be an integer from 0 to ${MAX_TRIAL_DAYS}`);
  if (input.trialDays != null && input.trialEnd != null)
    throw err.validation('trialEnd', 'send trialDays or trialEnd, not both');
  const metadata = input.metadata == null ? null : validateMetadata(input.metadata, 'metadata', 'subscription');
  const o = { requestId: ctx.requestId, source: ctx.source ?? 'api' };

  const id = newId('subscription');
  const created = await tenantTx(scopeOf(scope), async (sql) => {
    // The same request run again (its claim taken over) answers the subscription it made, uncharged again.
    const earlier = await claimOperation(sql, scope, ctx.replay, 'subscription.create', id);
    if (earlier) return { earlier };
    const customer = await scopedRow<Customer>(sql, 'customers', scope, input.customerId as string);
    if (!customer) throw err.notFound('customer');
    const { price, plan } = await usablePrice(sql, scope, input.priceId, input.planId);
    await refuseUnbillable(sql, scope, price, quantity, input.quantity != null);
    if (isSavedMethodId(paymentMethod)) await checkSavedMethod(sql, scope, customer.id, price.currency, paymentMethod);
    const at = await businessTime(sql, scope, customer);
    if (customer.testClockId)
      await checkClockRoom(sql, scope, customer.testClockId, () =>
        err.validation('customerId', "the customer's test clock is full (10,000 objects)"),
      );
    let trialEnd: Date | null = null;
    if (input.trialEnd != null) {
      const t = input.trialEnd;
      if (t.getTime() <= at.getTime() || t.getTime() > at.getTime() + MAX_TRIAL_DAYS * DAY)
        throw err.validation('trialEnd', `trialEnd must be in the future, within ${MAX_TRIAL_DAYS} days`);
      trialEnd = t;
    } else {
      const days = input.trialDays ?? plan.trialDays;
      if (days > 0) trialEnd = new Date(at.getTime() + days * DAY);
    }
    const usage = price.model === 'usage';
    const trigger: SubscriptionTrigger = trialEnd ? 'create_trialing' : usage ? 'create_active' : 'create_incomplete';
    const next = nextState(subscriptionMachine, null, trigger);
    // docs/billing.md, Trials: while trialing the period is [start, trialEnd); the first paid period starts there.
    const anchorAt = trialEnd ?? at;
    const first = periodOf(anchorAt, cadenceOf(plan), 0);
    const sub: Subscription = {
      id,
      workspaceId: scope.workspaceId,
      mode: scope.mode,
      status: next.to,
      customerId: customer.id,
      planId: plan.id,
      priceId: price.id,
      currency: price.currency,
      quantity: usage ? 1 : quantity,
      paymentMethod,
      anchorAt,
      periodIndex: trialEnd ? -1 : 0,
      currentPeriodStart: trialEnd ? at : first.start,
      currentPeriodEnd: trialEnd ?? first.end,
      trialEnd,
      cancelAtPeriodEnd: false,
      canceledAt: null,
      pausedAt: null,
      pendingPriceId: null,
      pendingQuantity: null,
      latestInvoiceId: null,
      discount: null,
      testClockId: customer.testClockId,
      metadata,
      createdAt: at,
      updatedAt: at,
    };
    await sql.query(q`${insertRows('subscriptions', [sub])}`);
    // docs/coupons.md, Applying: checked at business time and redeemed here; the first invoice is discounted.
    if (input.couponId != null) {
      const applied = await applyCoupon(sql, scope, input.couponId, discountTarget(sub), at, 'subscription');
      sub.discount = subscriptionDiscountColumn(applied) as Subscription['discount'];
      await updateRow(sql, 'subscriptions', { id: sub.id, ...scoped(scope) }, { discount: sub.discount });
    }
    // Before the first invoice: a zero one is paid at finalization and activates the subscription.
    await insertEvents(sql, subscriptionEvents(scope, null, sub, next.events, { ...o, at }));
    let row = sub;
    if (trigger === 'create_incomplete') {
      const invoice = await writeSubscriptionInvoice(sql, scope, {
        sub,
        price,
        lines: licensedLines(plan, price, sub.quantity, first),
        period: first,
        billingReason: 'subscription_create',
        at,
        ...o,
      });
      const [updated] = await sql.query<Subscription>(
        q`UPDATE subscriptions SET "latestInvoiceId" = ${invoice?.id ?? null}
          WHERE id = ${sub.id} AND "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode} RETURNING *`,
      );
      row = updated;
    }
    return { earlier: null, sub: row, at };
  });
  if (created.earlier !== null) return reload(scope, created.earlier);

  // docs/billing.md, First charge: the first charge runs during the create call, after the pending write committed.
  const { sub, at } = created;
  // The method that pays may be the customer's default (collect.ts resolves it; none: nothing is charged).
  if (sub.status === subscriptionIncomplete && sub.latestInvoiceId) await collectInvoice(scope, sub.latestInvoiceId, o);
  return reload(scope, sub.id);
}

async function reload(scope: RowScope, id: string): Promise<Subscription> {
  const row = await tenantTx(scopeOf(scope), (sql) => scopedRow<Subscription>(sql, 'subscriptions', scope, id));
  if (!row) throw err.notFound();
  return row;
}

export async function getSubscription(ctx: Context, id: string): Promise<Subscription> {
  const auth = authorize(ctx, 'svc:subscription:read');
  const row = await tenantTx(tenant(auth), (sql) => scopedRow<Subscription>(sql, 'subscriptions', scoped(auth), id));
  if (!row) throw err.notFound();
  return row;
}

export async function listSubscriptions(ctx: Context, args: ListSubscriptionsArgs) {
  const auth = authorize(ctx, 'svc:subscription:read');
  subscriptionList.check(args);
  const list = subscriptionList;
  return keysetList(
    { args, workspaceId: auth.workspaceId, filters: list.values(args), limit: list.limit, column: list.position },
    (ks) =>
      inTenant(tenant(auth), (tx) =>
        tx.subscription.findMany({
          where: { ...scoped(auth), AND: [...list.prisma(args), ks.where] },
          orderBy: ks.orderBy,
          take: ks.take,
        }),
      ),
  );
}

/**
 * Runs a change on the locked subscription at its customer's business time (404 when it is not in
 * the scope); returns the row and the invoice to charge once committed, if any.
 */
async function onLocked(
  ctx: Context,
  id: string,
  fn: (sql: Sql, sub: Subscription, at: Date, scope: Scope) => Promise<{ sub: Subscription; charge?: string | null }>,
): Promise<Subscription> {
  const auth = authorize(ctx, 'svc:subscription:write');
  const scope = scopeOfAuth(auth);
  const { sub, charge, at } = await tenantTx(scopeOf(scope), async (sql) => {
    const found = await lockSubscription(sql, scope, id);
    if (!found) throw err.notFound();
    const at = await businessTime(sql, scope, found);
    return { ...(await fn(sql, found, at, scope)), at };
  });
  if (charge) {
    await collectInvoice(scope, charge, { requestId: ctx.requestId, source: ctx.source ?? 'api' });
    return reload(scope, sub.id);
  }
  return sub;
}

const live = (s: Subscription) => (subscriptionLive as readonly string[]).includes(s.status);
const conflict = (s: Subscription, what: string) => err.of('conflict', `The subscription is ${s.status}; ${what}`);

/**
 * PATCH (docs/billing.md, Proration): priceId and quantity (same currency; an interval change resets the period;
 * `applyAt` now, the default for a higher amount, with a prorated invoice or, when the paid unused time is worth
 * more, order_change credit notes through the balance; period_end, the default otherwise, from the next renewal), paymentMethod,
 * cancelAtPeriodEnd, metadata (replaced; null clears). A canceled subscription is 409 conflict.
 */
export function updateSubscription(ctx: Context, id: string, input: UpdateSubscriptionInput) {
  const auth = authorize(ctx, 'svc:subscription:write');
  const paymentMethod =
    input.paymentMethod === undefined ? undefined : checkPaymentMethod(input.paymentMethod, auth.mode);
  const quantity = input.quantity == null ? undefined : checkQuantity(input.quantity);
  if (input.cancelAtPeriodEnd === null)
    throw err.validation('cancelAtPeriodEnd', 'cancelAtPeriodEnd must be a boolean');
  const proration = input.prorationBehavior ?? 'create_prorations';
  if (proration !== 'create_prorations' && proration !== 'none')
    throw err.validation('prorationBehavior', 'prorationBehavior must be create_prorations or none');
  const applyAt = input.applyAt ?? null;
  if (applyAt !== null && applyAt !== 'now' && applyAt !== 'period_end')
    throw err.validation('applyAt', 'applyAt must be now or period_end');
  const metadata =
    input.metadata === undefined
      ? undefined
      : input.metadata === null
        ? null
        : validateMetadata(input.metadata, 'metadata', 'subscription');
  const o = { requestId: ctx.requestId, source: ctx.source ?? 'api' };
  return onLocked(ctx, id, async (sql, sub, at, scope) => {
    if (!live(sub)) throw conflict(sub, 'it cannot be changed');
    refusePastDueChange(sub, { priceId: input.priceId, quantity });
    const data: Partial<Subscription> = {};
    if (isSavedMethodId(paymentMethod)) await checkSavedMethod(sql, scope, sub.customerId, sub.currency, paymentMethod);
    if (paymentMethod !== undefined) data.paymentMethod = paymentMethod;
    if (input.cancelAtPeriodEnd != null) data.cancelAtPeriodEnd = input.cancelAtPeriodEnd;
    if (metadata !== undefined) data.metadata = metadata;
    // Before a price change, so its proration invoice is discounted by the coupon now applied.
    if (input.couponId !== undefined) await changeDiscount(sql, scope, sub, input.couponId, input.priceId, at, data);
    let charge: string | null = null;
    if (input.priceId != null || quantity !== undefined) {
      const change = await priceChange(sql, scope, sub, input.priceId, quantity, at, { applyAt, proration });
      const rule = priceChangeRules.find((r) => r.applies(change))!;
      charge = await rule.apply(sql, scope, change, data, { ...o, proration, at });
    }
    return { sub: await moveSubscription(sql, scope, sub, null, data, { ...o, at }), charge };
  });
}

/** Where a subscription's coupon applies: its customer, currency and plan (docs/coupons.md, Applying). */
const discountTarget = (sub: Subscription, planIds: string[] = [sub.planId]) => ({
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
async function changeDiscount(
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
async function priceChange(
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
  if ((target.price.model === 'usage') !== (price.model === 'usage'))
    throw err.validation('priceId', 'a usage price cannot replace a licensed one, nor the reverse');
  const qty = target.price.model === 'usage' ? 1 : (quantity ?? sub.quantity);
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
const priceChangeRules: PriceChangeRule[] = [
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

/**
 * Cancel (docs/billing.md, Cancel and pause): now (canceled, canceledAt, `subscription.cancelled`; no refund;
 * open invoices stay collectible, but an incomplete subscription's unpaid first invoice is voided), or at the period
 * end (`cancelAtPeriodEnd`, `subscription.updated`). A canceled subscription is 409 conflict.
 */
export function cancelSubscription(ctx: Context, id: string, input: CancelSubscriptionInput) {
  if (input.atPeriodEnd === null) throw err.validation('atPeriodEnd', 'atPeriodEnd must be a boolean');
  const o = { requestId: ctx.requestId, source: ctx.source ?? 'api' };
  return onLocked(ctx, id, async (sql, sub, at, scope) => {
    if (input.atPeriodEnd) {
      if (!live(sub)) throw conflict(sub, 'cancel is not possible');
      return { sub: await moveSubscription(sql, scope, sub, null, { cancelAtPeriodEnd: true }, { ...o, at }) };
    }
    const wasIncomplete = sub.status === subscriptionIncomplete;
    const row = await moveSubscription(sql, scope, sub, 'cancel', { canceledAt: at }, { ...o, at });
    if (wasIncomplete && sub.latestInvoiceId) {
      const inv = await lockInvoice(sql, scope, sub.latestInvoiceId);
      if (inv)
        await closeUnpaidInvoice(sql, scope, inv, invoiceCloseVoid, at, { ...o, accountId: scope.accountId, at });
    }
    return { sub: row };
  });
}

/** Pause (docs/billing.md, Cancel and pause: `subscription.updated`): no invoices while paused. */
export function pauseSubscription(ctx: Context, id: string) {
  const o = { requestId: ctx.requestId, source: ctx.source ?? 'api' };
  return onLocked(ctx, id, async (sql, sub, at, scope) => ({
    sub: await moveSubscription(sql, scope, sub, 'pause', { pausedAt: at }, { ...o, at }),
  }));
}

/**
 * Resume (docs/billing.md, Cancel and pause): before the paid period ends it simply continues; after it, a new period
 * starts at the resume (the anchor moves there) with its invoice, charged from the stored method.
 */
export function resumeSubscription(ctx: Context, id: string) {
  const o = { requestId: ctx.requestId, source: ctx.source ?? 'api' };
  return onLocked(ctx, id, async (sql, sub, at, scope) => {
    nextState(subscriptionMachine, sub.status as SubscriptionStatus, 'resume');
    if (at.getTime() < sub.currentPeriodEnd.getTime())
      return { sub: await moveSubscription(sql, scope, sub, 'resume', { pausedAt: null }, { ...o, at }) };
    const next = await nextPeriod(sql, scope, sub);
    if (!next) throw err.notFound('price');
    const { price, plan, quantity } = next;
    const period = periodOf(at, cadenceOf(plan), 0);
    const data: Partial<Subscription> = {
      pausedAt: null,
      anchorAt: at,
      periodIndex: 0,
      currentPeriodStart: period.start,
      currentPeriodEnd: period.end,
      priceId: next.priceId,
      planId: next.planId,
      quantity,
      pendingPriceId: null,
      pendingQuantity: null,
    };
    let charge: string | null = null;
    if (price.model !== 'usage') {
      charge =
        (await invoiceChange(sql, scope, data, {
          sub: { ...sub, ...data } as Subscription,
          price,
          lines: licensedLines(plan, price, quantity, period),
          period,
          billingReason: 'subscription_cycle',
          at,
          ...o,
        })) ?? charge;
    }
    return { sub: await moveSubscription(sql, scope, sub, 'resume', data, { ...o, at }), charge };
  });
}

/**
 * A change's invoice (proration, resume): written, recorded as the subscription's latest, and
 * returned for the charge after commit when it is payable (a zero invoice is paid at finalization).
 */
async function invoiceChange(
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
