/**
 * Collection: charge a subscription's open invoice from its stored payment method (BILLING §3.4),
 * "write pending, call, reconcile" so no provider call runs inside a database transaction:
 *   1. pending: lock the invoice, check it is collectible, write a `pending` payment, count the attempt;
 *   2. call: the charge (test mode: `pm_test_success` succeeds, `pm_test_decline` fails; a fake
 *      provider step with the shape of a real one);
 *   3. reconcile: success -> payment succeeded + `settleInvoice` (receipt, ledger, paid event, and the
 *      subscription's incomplete/past_due -> active there); failure -> payment failed,
 *      `svc.invoice.payment_failed.v1` with `{failureCode, failureMessage}` in data.metadata (settled
 *      point 4), invoice past_due, subscription past_due.
 * Live mode has no off-session charge in the provider interface (src/providers/types.ts): live invoices
 * are collected on the hosted invoice page (docs/decisions.md, Subscriptions). Time is the caller's
 * business time `at` (test clocks: time is per customer).
 */
import { insertRows, scopeOf, sql as q, tenantTx, updateRow, type Sql } from '../../core/db/sql.ts';
import { eventRow } from '../../core/outbox.ts';
import { newId } from '../../core/ids.ts';
import { toWire } from '../../core/wire.ts';
import { canMove, nextState } from '../../core/state-machine.ts';
import type { RowScope } from '../../core/resource.ts';
import type { Payment } from '../../generated/prisma/client.ts';
import { paymentFields } from '../payments/fields.ts';
import { paymentMachine } from '../payments/states.ts';
import type { InvoiceRow } from '../invoices/fields.ts';
import { invoiceSnapshot, lockInvoice, moveInvoice, settleInvoice } from '../invoices/issue.ts';
import { invoiceIssuedUnpaid, invoiceMachine, type InvoiceStatus } from '../invoices/states.ts';
import { insertEvents, lockSubscription, moveSubscription } from './moves.ts';
import { subscriptionMachine, type SubscriptionStatus } from './states.ts';

/** The stored test methods (DECISIONS §3 Payment method: "always succeed and always fail"). */
export const testPaymentMethods = ['pm_test_success', 'pm_test_decline'] as const;
export type TestPaymentMethod = (typeof testPaymentMethods)[number];
/** The adapter a stored test-method charge settles through (ledger `settlement:<adapter>`). */
export const STORED_METHOD_ADAPTER = 'test_stored_method';

export type ChargeResult =
  | { ok: true; providerReference: string }
  | { ok: false; failureCode: string; failureMessage: string };

/** The provider step (fake in test mode): the only place a stored method is charged. */
export async function chargeStoredMethod(method: string, amount: bigint, paymentId: string): Promise<ChargeResult> {
  if (method === 'pm_test_success') return { ok: true, providerReference: `ch_test_${paymentId}` };
  if (method === 'pm_test_decline')
    return { ok: false, failureCode: 'card_declined', failureMessage: 'Your card was declined.' };
  return {
    ok: false,
    failureCode: 'unsupported_payment_method',
    failureMessage: `Cannot charge ${method} (${amount})`,
  };
}

export type CollectOutcome =
  | { outcome: 'paid'; invoice: InvoiceRow; paymentId: string }
  | { outcome: 'failed'; invoice: InvoiceRow; paymentId: string; failureCode: string; failureMessage: string }
  /** Nothing charged: not collectible, no stored method, live mode, or a charge already in flight. */
  | { outcome: 'skipped'; invoice: InvoiceRow | null; reason: string };

export interface CollectOptions {
  requestId?: string;
  source?: string;
}

type Scope = RowScope & { accountId: string };

/** Charges the open (or past_due) invoice `invoiceId` of a subscription from its stored method, at `at`. */
export async function collectInvoice(scope: Scope, invoiceId: string, at: Date, o: CollectOptions = {}) {
  const pending = await tenantTx(scopeOf(scope), (sql) => writePending(sql, scope, invoiceId, at));
  if (pending.outcome !== 'pending') return pending;
  const result = await chargeStoredMethod(pending.method, pending.payment.amount, pending.payment.id);
  return tenantTx(scopeOf(scope), (sql) => reconcile(sql, scope, invoiceId, pending.payment.id, result, at, o));
}

async function writePending(
  sql: Sql,
  scope: Scope,
  invoiceId: string,
  at: Date,
): Promise<CollectOutcome | { outcome: 'pending'; payment: Payment; method: string }> {
  const inv = await lockInvoice(sql, scope, invoiceId);
  const skip = (reason: string): CollectOutcome => ({ outcome: 'skipped', invoice: inv, reason });
  if (!inv || !(invoiceIssuedUnpaid as readonly string[]).includes(inv.status)) return skip('not_collectible');
  if (!inv.subscriptionId) return skip('not_a_subscription_invoice');
  if (scope.mode === 'live') return skip('live_off_session_unsupported');
  const sub = await lockSubscription(sql, scope, inv.subscriptionId);
  if (!sub?.paymentMethod) return skip('no_payment_method');
  const [inFlight] = await sql.query<{ id: string }>(
    q`SELECT id FROM payments WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
      AND "invoiceId" = ${inv.id} AND status = ${nextState(paymentMachine, null, 'charge').to} LIMIT 1`,
  );
  if (inFlight) return skip('charge_in_flight');
  const payment: Payment = {
    id: newId('payment'),
    workspaceId: scope.workspaceId,
    mode: scope.mode,
    status: nextState(paymentMachine, null, 'charge').to,
    amount: inv.amountDue,
    amountRefunded: 0n,
    currency: inv.currency,
    method: sub.paymentMethod,
    adapter: STORED_METHOD_ADAPTER,
    customerId: inv.customerId,
    checkoutSessionId: null,
    invoiceId: inv.id,
    providerReference: null,
    fee: null,
    failureCode: null,
    failureMessage: null,
    metadata: { subscriptionId: sub.id },
    capturedAt: null,
    createdAt: at,
    updatedAt: at,
  };
  await sql.query(q`${insertRows('payments', [payment])}`);
  await sql.query(
    q`UPDATE invoices SET "collectionAttempts" = "collectionAttempts" + 1, "updatedAt" = ${at}::timestamptz
      WHERE id = ${inv.id} AND "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}`,
  );
  return { outcome: 'pending', payment, method: sub.paymentMethod };
}

async function reconcile(
  sql: Sql,
  scope: Scope,
  invoiceId: string,
  paymentId: string,
  result: ChargeResult,
  at: Date,
  o: CollectOptions,
): Promise<CollectOutcome> {
  const inv = await lockInvoice(sql, scope, invoiceId);
  const [payment] = await sql.query<Payment>(
    q`SELECT * FROM payments WHERE id = ${paymentId} AND "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
      FOR UPDATE`,
  );
  if (!inv || !payment || payment.status !== nextState(paymentMachine, null, 'charge').to)
    return { outcome: 'skipped', invoice: inv, reason: 'already_reconciled' };
  const opts = { accountId: scope.accountId, requestId: o.requestId, source: o.source ?? 'collection', at };
  // Paid elsewhere (hosted page) while the charge ran: the fake charge took nothing; a real provider
  // would refund it here.
  const failure = result.ok
    ? canMove(invoiceMachine, inv.status as InvoiceStatus, 'pay')
      ? null
      : { failureCode: 'invoice_not_payable', failureMessage: `The invoice is ${inv.status}` }
    : result;
  if (!failure && result.ok) {
    const next = nextState(paymentMachine, 'pending', 'charge_succeeded');
    const row = await updateRow<Payment>(
      sql,
      'payments',
      { id: payment.id, workspaceId: scope.workspaceId, mode: scope.mode },
      { status: next.to, providerReference: result.providerReference, capturedAt: at, updatedAt: at },
    );
    await insertEvents(
      sql,
      next.events.map((t) => eventRow(scope, t, toWire(row, paymentFields), { ...opts, occurredAt: at })),
    );
    const settled = await settleInvoice(sql, scope, inv, {
      ...opts,
      payment: { id: row.id, adapter: row.adapter, method: row.method, capturedAt: at },
      txId: row.id,
    });
    return { outcome: 'paid', invoice: settled.invoice, paymentId: row.id };
  }
  const { failureCode, failureMessage } = failure ?? { failureCode: 'unknown', failureMessage: 'unknown' };
  const next = nextState(paymentMachine, 'pending', 'charge_failed');
  const row = await updateRow<Payment>(
    sql,
    'payments',
    { id: payment.id, workspaceId: scope.workspaceId, mode: scope.mode },
    { status: next.to, failureCode, failureMessage, updatedAt: at },
  );
  const events = next.events.map((t) => eventRow(scope, t, toWire(row, paymentFields), { ...opts, occurredAt: at }));
  if (failureCode === 'invoice_not_payable') {
    await insertEvents(sql, events);
    return { outcome: 'failed', invoice: inv, paymentId: row.id, failureCode, failureMessage };
  }
  const failedEvent = (invoice: InvoiceRow) => {
    const e = eventRow(scope, 'svc.invoice.payment_failed.v1', invoiceSnapshot(invoice), { ...opts, occurredAt: at });
    return { ...e, data: { ...e.data, metadata: { failureCode, failureMessage } } };
  };
  const sub = inv.subscriptionId ? await lockSubscription(sql, scope, inv.subscriptionId) : null;
  const failable = !!sub && canMove(subscriptionMachine, sub.status as SubscriptionStatus, 'payment_failed');
  // An incomplete subscription's first invoice stays open (its pay link) until it expires; a renewal's
  // becomes past_due at once (it is due on issue: BILLING §3.4).
  let invoice = inv;
  if (failable && canMove(invoiceMachine, inv.status as InvoiceStatus, 'mark_past_due'))
    invoice = await moveInvoice(sql, scope, inv, 'mark_past_due', { pastDueAt: at, updatedAt: at }, opts);
  await insertEvents(sql, [...events, failedEvent(invoice)]);
  if (sub && failable) await moveSubscription(sql, scope, sub, 'payment_failed', {}, opts);
  return { outcome: 'failed', invoice, paymentId: row.id, failureCode, failureMessage };
}

/**
 * A charge a crashed worker left `pending` (written, maybe sent, never reconciled): once its
 * attempt lease has expired (`olderThan`), ask the provider again for the same payment (idempotent by
 * the payment id, as a real provider's idempotency key would be) and reconcile it. Reconcile re-checks
 * the payment under its lock, so two resumers settle it once. Called by the dunning step
 * (subscriptions/dunning.ts) when collection answers `charge_in_flight`.
 */
export async function resumePendingCharge(
  scope: Scope,
  invoiceId: string,
  at: Date,
  olderThan: Date,
  o: CollectOptions = {},
): Promise<CollectOutcome> {
  const pendingStatus = nextState(paymentMachine, null, 'charge').to;
  const [p] = await tenantTx(scopeOf(scope), (sql) =>
    sql.last<Payment>(
      q`SELECT * FROM payments WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
        AND "invoiceId" = ${invoiceId} AND status = ${pendingStatus} AND "createdAt" <= ${olderThan}::timestamptz
        ORDER BY "createdAt" LIMIT 1`,
    ),
  );
  if (!p?.method) return { outcome: 'skipped', invoice: null, reason: 'charge_in_flight' };
  const result = await chargeStoredMethod(p.method, p.amount, p.id);
  return tenantTx(scopeOf(scope), (sql) => reconcile(sql, scope, invoiceId, p.id, result, at, o));
}
