/**
 * Subscriptions (DECISIONS §3; docs/billing.md; docs/decisions.md, Subscriptions): create (trial, usage,
 * or the first invoice charged during the call), retrieve, list, PATCH (proration), cancel, pause,
 * resume. Each state change, its invoice and its events commit in one transaction; the charge runs
 * after it (collect.ts: write pending, call, reconcile). Business time comes from `businessTime`
 * (one place: a customer's test clock replaces the real clock there).
 */
import {
  businessTime,
  cadenceOf,
  checkPaymentMethod,
  checkQuantity,
  conflict,
  DAY,
  err,
  invoiceChange,
  isIdString,
  isInt,
  live,
  MAX_TRIAL_DAYS,
  refuseUnbillable,
  scopeOfAuth,
  usablePrice,
  type Scope,
} from './checks.ts';
import { changeDiscount, discountTarget, priceChange, priceChangeRules } from './price-change.ts';
import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { insertRows, scopedRow, scopeOf, sql as q, tenantTx, updateRow, type Sql } from '../../core/db/sql.ts';
import { inTenant } from '../../core/db/client.ts';
import { claimOperation } from '../../core/operations.ts';
import { newId } from '../../core/ids.ts';
import { keysetList } from '../../core/pagination.ts';
import { scoped, type RowScope } from '../../core/resource.ts';
import { nextState } from '../../core/state-machine.ts';
import { validateMetadata } from '../../core/validation.ts';
import type { Customer, Subscription } from '../../generated/prisma/client.ts';
import { closeUnpaidInvoice } from '../invoices/close.ts';
import { invoiceCloseVoid } from '../invoices/states.ts';
import { lockInvoice } from '../invoices/issue.ts';
import { collectInvoice } from '../collection/collect.ts';
import { licensedLines, writeSubscriptionInvoice } from './invoice.ts';
import { insertEvents } from '../../core/outbox.ts';
import { lockSubscription, moveSubscription, subscriptionEvents } from './moves.ts';
import { refusePastDueChange } from './past-due.ts';
import { nextPeriod } from './next-period.ts';
import { periodOf } from '../../core/periods.ts';
import type {
  CancelSubscriptionInput,
  CreateSubscriptionInput,
  ListSubscriptionsArgs,
  UpdateSubscriptionInput,
} from './schema.ts';
import { subscriptionList } from './list.ts';
import {
  subscriptionIncomplete,
  subscriptionMachine,
  type SubscriptionStatus,
  type SubscriptionTrigger,
} from './states.ts';
import { checkClockRoom } from '../../core/business-time.ts';
import { checkSavedMethod, isSavedMethodId } from '../payment-methods/service.ts';
import { applyCoupon, subscriptionDiscountColumn } from '../discounts/service.ts';
import { billsInArrears, meteredPriceIdsFor, refuseMeteredChange, refuseUnbilledMeters } from './metered.ts';

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
    const meteredPriceIds = await meteredPriceIdsFor(sql, scope, price, input.meteredPriceIds);
    refuseUnbilledMeters(scope, price, meteredPriceIds);
    const usage = billsInArrears(price);
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
      meteredPriceIds,
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

/**
 * PATCH (docs/billing.md, Proration): priceId and quantity (same currency; an interval change resets the period;
 * `applyAt` now, the default for a higher amount, with a prorated invoice or, when the paid unused time is worth
 * more, order_change credit notes through the balance; period_end, the default otherwise, from the next renewal), paymentMethod,
 * cancelAtPeriodEnd, metadata (replaced; null clears). A canceled subscription is 409 conflict.
 */
export function updateSubscription(ctx: Context, id: string, input: UpdateSubscriptionInput) {
  const auth = authorize(ctx, 'svc:subscription:write');
  refuseMeteredChange(input);
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
    if (!billsInArrears(price)) {
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
