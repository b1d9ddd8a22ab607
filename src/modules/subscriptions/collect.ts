/**
 * Collection: charge a subscription's open invoice from its stored payment method (docs/billing.md, Collection),
 * "write pending, call, reconcile" so no provider call runs inside a database transaction:
 *   1. pending: lock the invoice, check it is collectible, write a `pending` payment, count the attempt;
 *   2. call: the charge (test mode: `pm_test_success` succeeds, `pm_test_decline` fails; a fake
 *      provider step with the shape of a real one);
 *   3. reconcile: success -> payment succeeded + `settleInvoice` (receipt, ledger, paid event, and the
 *      subscription's incomplete/past_due -> active there); failure -> payment failed,
 *      `svc.invoice.payment_failed.v1` with `{failureCode, failureMessage}` in data.metadata (settled
 *      point 4), invoice past_due, subscription past_due.
 * Saved sandbox methods (`pm_` of the managed adapter in test mode) are answered in process like the
 * fixed tokens (payment-methods/sandbox.ts); provider-held methods (live, or a merchant adapter in test
 * mode) are charged at their adapter after the commit (offsession.ts). An answer may also be
 * `requires_action` (the customer must authenticate: the invoice stays open, its due date moves to the
 * action's expiry, no retry runs, `svc.invoice.payment_action_required.v1`) or `pending` (settled by
 * the sandbox's delay, a callback or the pending sweep: waiting.ts). Time is the caller's business
 * time `at` (test clocks: time is per customer).
 */
import { chargesInFlight } from '../payments/in-flight.ts';
import { scopedRows, scopeOf, sql as q, tenantTx, updateRows, type Sql } from '../../core/db/sql.ts';
import { clock } from '../../core/clock.ts';
import { hostedLink } from '../../core/hosted-link.ts';
import { eventRow, eventsCte, insertEvents } from '../../core/outbox.ts';
import { toWire } from '../../core/wire.ts';
import { canMove, nextState } from '../../core/state-machine.ts';
import type { RowScope } from '../../core/resource.ts';
import type { Payment, PaymentMethod, Subscription } from '../../generated/prisma/client.ts';
import { paymentFields } from '../payments/fields.ts';
import { insertPayments, writePayments } from '../payments/write.ts';
import {
  paymentFailed,
  paymentInFlight,
  paymentMachine,
  paymentPending,
  paymentRequiresAction,
  type PaymentStatus,
} from '../payments/states.ts';
import type { InvoiceRow } from '../invoices/fields.ts';
import {
  invoicePayments,
  invoiceSnapshot,
  lockInvoice,
  lockInvoices,
  moveInvoice,
  settleInvoices,
} from '../invoices/issue.ts';
import { invoiceIssuedUnpaid, invoiceMachine, invoicePaid, type InvoiceStatus } from '../invoices/states.ts';
import { lockSubscription, moveSubscription } from './moves.ts';
import { subscriptionMachine, type SubscriptionStatus } from './states.ts';
import { clockTimeFor } from '../../core/business-time.ts';
import {
  answeredInProcess,
  sandboxAsyncOutcome,
  sandboxCharge,
  savedMethods,
  type SandboxAnswer,
} from '../payment-methods/sandbox.ts';
import { chargeAtProvider } from './offsession.ts';
import { wakePendingSweepAt } from './pending-wake.ts';
import type { Provider } from '../../providers/types.ts';
import { prismaSql } from '../../core/db/sql.ts';
import { inTenant, type Tx } from '../../core/db/client.ts';
import { sha256Hex } from '../../core/crypto.ts';
import { postLedger } from '../../core/ledger.ts';
import { logger } from '../../core/logger.ts';
import { isOnline } from '../adapters/providers.ts';
import { reserveRefund } from '../refunds/service.ts';
import { settlementCode } from '../refunds/settle.ts';
import { isSavedMethodId, moveMethod } from '../payment-methods/service.ts';
import { methodsThatPay } from '../payment-methods/resolve.ts';
import { paymentMethodMachine, type PaymentMethodStatus } from '../payment-methods/states.ts';

/** The stored test methods (DECISIONS §3 Payment method: "always succeed and always fail"). */
export const testPaymentMethods = ['pm_test_success', 'pm_test_decline'] as const;
export type TestPaymentMethod = (typeof testPaymentMethods)[number];
/** The adapter a stored test-method charge settles through (ledger `settlement:<adapter>`). */
export const STORED_METHOD_ADAPTER = 'test_stored_method';

export type ChargeResult = SandboxAnswer;

/** What a charge uses: the subscription's `paymentMethod` value and, for a saved method, its row. */
export interface Charger {
  value: string;
  saved: PaymentMethod | null;
}

/** How long a pending off-session charge is left to its provider before the pending sweep asks again. */
export const PAYMENT_LEASE_MS = 5 * 60_000;

/** Who is charged: the provider step needs the customer's contact fields. */
export interface Payer {
  id: string;
  name?: string | null;
  email?: string | null;
  phone?: string | null;
}

/**
 * The provider step: the only place a stored method is charged. Fixed tokens and sandbox methods are
 * answered in process; a provider-held method is charged at its adapter (no transaction may be open:
 * offsession.ts). `resume`: the charge may already have been sent (the pending sweep): a sandbox
 * `async` charge answers by its lease, a provider is asked for the status first.
 */
export async function chargeStoredMethod(
  method: string,
  payment: Pick<Payment, 'id' | 'amount' | 'leaseUntil'> & Partial<Payment>,
  saved: PaymentMethod | null = null,
  o: { scope?: RowScope; payer?: Payer | null; resume?: boolean; providers?: Map<string, Provider> } = {},
): Promise<ChargeResult> {
  const { amount, id: paymentId } = payment;
  if (saved) {
    if (answeredInProcess(saved)) {
      const answer = sandboxCharge(saved, amount, paymentId, { started: o.resume });
      // Asked again about a charge it answered `async`: settled once its delay (the lease) passed.
      return o.resume && answer.ok === null && answer.waiting === paymentPending
        ? sandboxAsyncOutcome(payment, clock.now())
        : answer;
    }
    if (o.scope && o.payer)
      return chargeAtProvider(o.scope, payment as Payment, saved, o.payer, {
        resume: o.resume,
        providers: o.providers,
      });
    return { ok: false, failureCode: 'payment_method_unusable', failureMessage: `Cannot charge ${saved.id} here` };
  }
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
  | { outcome: typeof invoicePaid; invoice: InvoiceRow; paymentId: string }
  /** Waiting: the customer must authenticate (`requires_action`) or the provider answers later (`pending`). */
  | { outcome: typeof paymentRequiresAction | typeof paymentPending; invoice: InvoiceRow; paymentId: string }
  | {
      outcome: typeof paymentFailed;
      invoice: InvoiceRow;
      paymentId: string;
      failureCode: string;
      failureMessage: string;
    }
  /** Nothing charged: not collectible, no stored method, live mode, or a charge already in flight. */
  | { outcome: 'skipped'; invoice: InvoiceRow | null; reason: string };

export interface CollectOptions {
  requestId?: string;
  source?: string;
  /** The Prisma transaction `sql` runs in, when it is one (needed to refund a provider's late money). */
  tx?: Tx;
}

type Scope = RowScope & { accountId: string };

/**
 * Charges the open (or past_due) invoice `invoiceId` of a subscription from its stored method: a step
 * of its own after the caller's commit, at `o.at` (a clock's walk) or the invoice's business time.
 */
export async function collectInvoice(scope: Scope, invoiceId: string, o: CollectOptions & { at?: Date } = {}) {
  const pending = await tenantTx(scopeOf(scope), (sql) => writePending(sql, scope, invoiceId, o.at));
  if (pending.outcome !== 'write') return pending;
  const result = await chargeStoredMethod(pending.charger.value, pending.payment, pending.charger.saved, {
    scope,
    payer: pending.payer,
  });
  return reconcileInTx(scope, pending.payment.id, result, pending.at, o);
}

/**
 * `reconcile` in its own tenant transaction, a Prisma one: a provider's money for an invoice no
 * longer payable reserves its refund there (`refundLateCharge`).
 */
export const reconcileInTx = (scope: Scope, paymentId: string, result: ChargeResult, at: Date, o: CollectOptions) =>
  inTenant({ workspaceId: scope.workspaceId, modes: [scope.mode] }, (tx) =>
    reconcile(prismaSql(tx), scope, paymentId, result, at, { ...o, tx }),
  );

/**
 * Whether a stored method is charged in process: the test methods have no provider behind them
 * (`chargeStoredMethod` answers at once), so a batch may be charged and settled inside one
 * transaction (`chargeLocked`); any other method keeps "write pending, call, reconcile".
 */
export const chargesInProcess = (c: Charger) =>
  c.saved ? answeredInProcess(c.saved) : (testPaymentMethods as readonly string[]).includes(c.value);

/** The chargers of subscriptions' `paymentMethod` values (saved methods read in one statement). */
async function chargersOf(sql: Sql, scope: Scope, subs: (Subscription | undefined)[]) {
  const paying = await methodsThatPay(
    sql,
    scope,
    subs.filter((s) => s !== undefined),
  );
  const saved = await savedMethods(sql, scope, [...paying.values()]);
  return (sub: Subscription | undefined): Charger | null => {
    const value = sub ? (paying.get(sub.id) ?? null) : null;
    if (value === null) return null;
    if (!isSavedMethodId(value)) return { value, saved: null };
    const row = saved.get(value);
    return row ? { value, saved: row } : null;
  };
}

/** Why an invoice is not charged (before its subscription is read), or null. */
function notCollectible(scope: Scope, inv: InvoiceRow | null): string | null {
  if (!inv || !(invoiceIssuedUnpaid as readonly string[]).includes(inv.status)) return 'not_collectible';
  if (!inv.subscriptionId) return 'not_a_subscription_invoice';
  return null;
}

const pendingStatus = nextState(paymentMachine, null, 'charge').to;

/** The `pending` payment of a charge of `inv` from `c`, before the provider is asked. */
const pendingPayment = (scope: Scope, inv: InvoiceRow, subscriptionId: string, c: Charger, at: Date): Payment =>
  invoicePayments(
    scope,
    [
      {
        inv,
        trigger: 'charge',
        method: c.saved ? c.saved.type : c.value,
        adapter: c.saved ? c.saved.adapter : STORED_METHOD_ADAPTER,
        paymentMethodId: c.value,
        metadata: { subscriptionId },
      },
    ],
    at,
  )[0];

/**
 * The pending payments written and their attempts counted (two-phase: before the provider is called),
 * with `nextAttemptAt` moved to `attemptLease` when given (a batch's claim: attempted again only after
 * it, by then a crashed worker's charge). The partial unique index `payments_in_flight_key` makes a
 * second charge in flight for an invoice impossible whatever the reads saw: such a payment is not
 * written. Returns the ids of those written.
 */
async function insertPending(sql: Sql, scope: Scope, payments: Payment[], at: Date, attemptLease?: Date) {
  if (!payments.length) return new Set<string>();
  const written = await writePayments<{ id: string; invoiceId: string }>(sql, payments, {
    skipInFlight: true,
    returning: q`id, "invoiceId"`,
  });
  if (written.length)
    await sql.query(
      q`UPDATE invoices SET "collectionAttempts" = "collectionAttempts" + 1, "updatedAt" = ${at}::timestamptz
        ${attemptLease ? q`, "nextAttemptAt" = ${attemptLease}::timestamptz` : q.empty}
        WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
        AND id = ANY (${written.map((w) => w.invoiceId)}::text[])`,
    );
  return new Set(written.map((w) => w.id));
}

/** The contact fields a provider is sent for customers, by id (one statement). */
export async function payersOf(sql: Sql, scope: RowScope, customerIds: string[]): Promise<Map<string, Payer>> {
  const rows = customerIds.length
    ? await sql.query<Payer>(
        q`SELECT id, name, email, phone FROM customers WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
          AND id = ANY (${[...new Set(customerIds)]}::text[])`,
      )
    : [];
  const known = new Map(rows.map((r) => [r.id, r]));
  return new Map(customerIds.map((id) => [id, known.get(id) ?? { id }]));
}

/** The invoices (of those given) with a charge in flight: a `pending` or `requires_action` payment. */
const inFlight = async (sql: Sql, scope: Scope, invoiceIds: string[]) =>
  new Set((await chargesInFlight(sql, scope, invoiceIds)).map((r) => r.invoiceId));

async function writePending(
  sql: Sql,
  scope: Scope,
  invoiceId: string,
  given: Date | undefined,
): Promise<CollectOutcome | { outcome: 'write'; payment: Payment; charger: Charger; payer: Payer; at: Date }> {
  const inv = await lockInvoice(sql, scope, invoiceId);
  const skip = (reason: string): CollectOutcome => ({ outcome: 'skipped', invoice: inv, reason });
  const refused = notCollectible(scope, inv);
  if (refused || !inv) return skip(refused ?? 'not_collectible');
  // The charge happens at the invoice's business time now (its clock's, or the real one), unless a
  // clock's walk names the instant it is processing.
  const at = given ?? (await clockTimeFor(sql, { ...scope, testClockId: inv.testClockId }));
  const sub = await lockSubscription(sql, scope, inv.subscriptionId!);
  const charger = sub ? (await chargersOf(sql, scope, [sub]))(sub) : null;
  if (!sub || !charger) return skip('no_payment_method');
  if ((await inFlight(sql, scope, [inv.id])).size) return skip('charge_in_flight');
  const payment = { ...pendingPayment(scope, inv, sub.id, charger, at), leaseUntil: leaseFrom(clock.now()) };
  if (!(await insertPending(sql, scope, [payment], at)).size) return skip('charge_in_flight');
  const payer = (await payersOf(sql, scope, [inv.customerId])).get(inv.customerId)!;
  return { outcome: 'write', payment, charger, payer, at };
}

/** A provider-held method's charge a batch wrote `pending`, sent after the batch's commit (remote-charges.ts). */
export interface PendingCharge {
  payment: Payment;
  charger: Charger;
  payer: Payer;
}

/**
 * Charges locked invoices from their subscriptions' methods in the caller's transaction (a renewal
 * batch, a batch of due attempts), with the same checks as `writePending`:
 * - a method charged in process: charged, then `reconcileCharges` writes the payments with their
 *   outcomes, so a crash rolls the whole batch back and nothing is left pending;
 * - a provider-held method: its payment written `pending` (`remote`), the attempt counted and
 *   `nextAttemptAt` moved to `attemptLease`; the caller sends them after its commit
 *   (remote-charges.ts), so no provider is called inside the transaction;
 * - a charge already in flight: left untouched (`twoPhase`) for `resumePendingCharge`.
 * `subs`: the invoices' subscriptions, locked by the caller; `fresh`: the invoices were created in
 * this transaction (no charge can be in flight). Returns each charged or skipped invoice's outcome.
 */
export async function chargeLocked(
  sql: Sql,
  scope: Scope,
  invoices: InvoiceRow[],
  subs: Map<string, Subscription>,
  at: Date,
  o: CollectOptions & { fresh?: boolean; attemptLease: Date },
): Promise<{ outcomes: CollectOutcome[]; twoPhase: string[]; remote: PendingCharge[] }> {
  const outcomes: CollectOutcome[] = [];
  const twoPhase: string[] = [];
  const charge: { inv: InvoiceRow; payment: Payment; charger: Charger }[] = [];
  const remote: { inv: InvoiceRow; payment: Payment; charger: Charger }[] = [];
  const chargerOf = await chargersOf(
    sql,
    scope,
    invoices.map((i) => (i.subscriptionId ? subs.get(i.subscriptionId) : undefined)),
  );
  const flying =
    invoices.length && !o.fresh
      ? await inFlight(
          sql,
          scope,
          invoices.map((i) => i.id),
        )
      : new Set<string>();
  const lease = leaseFrom(clock.now());
  for (const inv of invoices) {
    const sub = inv.subscriptionId ? subs.get(inv.subscriptionId) : undefined;
    const charger = chargerOf(sub);
    const refused = notCollectible(scope, inv) ?? (charger ? null : 'no_payment_method');
    if (refused || !charger)
      outcomes.push({ outcome: 'skipped', invoice: inv, reason: refused ?? 'no_payment_method' });
    else if (flying.has(inv.id)) twoPhase.push(inv.id);
    else if (!chargesInProcess(charger))
      remote.push({
        inv,
        charger,
        payment: { ...pendingPayment(scope, inv, sub!.id, charger, at), leaseUntil: lease },
      });
    else charge.push({ inv, charger, payment: pendingPayment(scope, inv, sub!.id, charger, at) });
  }
  const written = await insertPending(
    sql,
    scope,
    remote.map((r) => r.payment),
    at,
    o.attemptLease,
  );
  // Not written: a charge of the invoice got in flight meanwhile (the partial unique index).
  twoPhase.push(...remote.filter((r) => !written.has(r.payment.id)).map((r) => r.inv.id));
  const sent = remote.filter((r) => written.has(r.payment.id));
  const payers = await payersOf(
    sql,
    scope,
    sent.map((r) => r.inv.customerId),
  );
  const pending = sent.map(({ inv, payment, charger }) => ({ payment, charger, payer: payers.get(inv.customerId)! }));
  if (!charge.length) return { outcomes, twoPhase, remote: pending };
  const items = await Promise.all(
    charge.map(async ({ inv, payment, charger }) => ({
      // This attempt counted (written by the move that settles or fails the invoice).
      inv: { ...inv, collectionAttempts: inv.collectionAttempts + 1, updatedAt: at },
      payment,
      result: await chargeStoredMethod(charger.value, payment, charger.saved),
    })),
  );
  outcomes.push(...(await reconcileCharges(sql, scope, items, at, o, false)));
  return { outcomes, twoPhase, remote: pending };
}

/**
 * The answer to a charge written before the call (or to one waiting: `pending` or `requires_action`),
 * under the invoice lock then the payment's (docs/decisions.md lock order). A payment no longer
 * waiting was reconciled by someone else: nothing happens.
 */
export async function reconcile(
  sql: Sql,
  scope: Scope,
  paymentId: string,
  result: ChargeResult,
  at: Date,
  o: CollectOptions,
): Promise<CollectOutcome> {
  return (await reconcileMany(sql, scope, [{ paymentId, result }], at, o))[0];
}

/**
 * `reconcile` of several answers in one transaction (a batch's charges: remote-charges.ts): the
 * invoices locked in id order, then the payments, and the answers of those still waiting reconciled
 * together (one settlement for all the paid ones). In the order given.
 */
export async function reconcileMany(
  sql: Sql,
  scope: Scope,
  answers: { paymentId: string; result: ChargeResult }[],
  at: Date,
  o: CollectOptions,
): Promise<CollectOutcome[]> {
  const waiting = (p: Payment) => (paymentInFlight as string[]).includes(p.status) && !!p.invoiceId;
  // One reconciled meanwhile (a callback, the sweep) is not waited for under its invoice's lock.
  const seen = (
    await scopedRows<Payment>(
      sql,
      'payments',
      scope,
      answers.map((a) => a.paymentId),
    )
  ).filter(waiting);
  const invoices = new Map(
    (
      await lockInvoices(
        sql,
        scope,
        seen.map((p) => p.invoiceId!),
      )
    ).map((i) => [i.id, i] as const),
  );
  const locked = await scopedRows<Payment>(
    sql,
    'payments',
    scope,
    seen.map((p) => p.id),
    { lock: true },
  );
  const resultOf = new Map(answers.map((a) => [a.paymentId, a.result]));
  const items = locked
    .filter((p) => waiting(p) && invoices.has(p.invoiceId!))
    .map((payment) => ({ inv: invoices.get(payment.invoiceId!)!, payment, result: resultOf.get(payment.id)! }));
  const done = items.length ? await reconcileCharges(sql, scope, items, at, o, true) : [];
  const byPayment = new Map(items.map((it, i) => [it.payment.id, done[i]]));
  const invoiceOf = new Map(seen.map((p) => [p.id, invoices.get(p.invoiceId!) ?? null]));
  return answers.map(
    (a) =>
      byPayment.get(a.paymentId) ?? {
        outcome: 'skipped',
        invoice: invoiceOf.get(a.paymentId) ?? null,
        reason: 'already_reconciled',
      },
  );
}

/** A pending charge's lease from `now` (real time): the pending sweep asks again once it passed. */
export const leaseFrom = (now: Date, ms = PAYMENT_LEASE_MS) => new Date(now.getTime() + ms);

/** How long the customer has to authenticate when the provider names no expiry (docs/guides/payment-methods.md, Requires action). */
export const ACTION_WINDOW_MS = 24 * 3_600_000;

/** The sandbox's authenticate page of an invoice (`/i/<token>/authenticate`, test mode only). */
export const authenticateUrl = (inv: Pick<InvoiceRow, 'id' | 'hostedSecret'>) =>
  `${hostedLink('i', inv.id, inv.hostedSecret)}/authenticate`;

/**
 * The providers' answers to charges of locked invoices, in the caller's transaction: each payment
 * succeeded, failed or waiting with its event, then `settleInvoices` for the successes (receipts,
 * ledger, paid events, subscriptions activated, one set of statements for all), `recordFailure` for
 * each failure (rare in a burst) and `recordActionRequired` for each charge the customer must
 * authenticate. A `pending` answer leaves the payment pending with a new lease (no event).
 * `written`: the payments were written `pending` before the call (two-phase), or are waiting
 * (`requires_action`), and are updated; else (charged in process) they are inserted here with their
 * outcome and events in one statement, and each invoice's counted attempt (`inv.collectionAttempts`)
 * is written by the move that settles or fails it.
 */
async function reconcileCharges(
  sql: Sql,
  scope: Scope,
  items: { inv: InvoiceRow; payment: Payment; result: ChargeResult }[],
  at: Date,
  o: CollectOptions,
  written: boolean,
): Promise<CollectOutcome[]> {
  const opts = { accountId: scope.accountId, requestId: o.requestId, source: o.source ?? 'collection', at };
  const now = clock.now();
  const decided = items.map(({ inv, payment, result }) => {
    const from = (written ? payment.status : pendingStatus) as PaymentStatus;
    const waiting = from === paymentRequiresAction;
    // Paid elsewhere (hosted page) while the charge ran: the sandbox took nothing; a provider's money
    // is recorded and refunded (docs/decisions.md, Money for an invoice already paid).
    const failure =
      result.ok === true
        ? canMove(invoiceMachine, inv.status as InvoiceStatus, 'pay')
          ? null
          : { failureCode: 'invoice_not_payable', failureMessage: `The invoice is ${inv.status}` }
        : result.ok === false
          ? { failureCode: result.failureCode, failureMessage: result.failureMessage }
          : null;
    const later = result.ok === null ? result.waiting : null;
    // A provider took the money but the invoice was paid (or closed) meanwhile: recorded and refunded.
    const late = !!failure && result.ok === true && written && isOnline(payment.adapter ?? '');
    if (later === paymentPending || (later === paymentRequiresAction && waiting)) {
      // No outcome yet: still pending (a new lease), or still waiting for the customer.
      const retryIn = result.ok === null ? result.retryInMs : undefined;
      const leaseUntil = later === paymentPending ? leaseFrom(now, retryIn ?? PAYMENT_LEASE_MS) : null;
      // The sandbox's `async` delay: settled when it passes, not at the minute sweep (pending-wake.ts).
      if (leaseUntil && retryIn !== undefined) wakePendingSweepAt(leaseUntil);
      const outcome = {
        id: payment.id,
        ...(result.ok === null && result.providerReference ? { providerReference: result.providerReference } : {}),
        leaseUntil,
        updatedAt: at,
      };
      return {
        inv,
        failure: null,
        late: false,
        later,
        move: null,
        outcome,
        row: { ...payment, status: from, ...outcome } as Payment,
      };
    }
    const failed = !!failure && !late;
    const trigger =
      later === paymentRequiresAction
        ? 'charge_requires_action'
        : waiting
          ? failed
            ? 'action_failed'
            : 'action_succeeded'
          : failed
            ? 'charge_failed'
            : 'charge_succeeded';
    const move = nextState(paymentMachine, from, trigger);
    const nextAction =
      later === paymentRequiresAction && result.ok === null
        ? {
            type: 'redirect',
            url: result.nextAction?.url ?? authenticateUrl(inv),
            expiresAt: (result.nextAction?.expiresAt ?? new Date(at.getTime() + ACTION_WINDOW_MS)).toISOString(),
          }
        : null;
    const reference =
      result.ok === true ? result.providerReference : result.ok === null ? (result.providerReference ?? null) : null;
    const meta = (payment.metadata as Record<string, string> | null) ?? {};
    const outcome = {
      id: payment.id,
      status: move.to,
      providerReference: reference ?? payment.providerReference ?? null,
      capturedAt: failed || later ? null : at,
      failureCode: failed ? failure.failureCode : null,
      failureMessage: failed ? failure.failureMessage : null,
      nextAction,
      leaseUntil: null,
      ...(result.ok === false && result.providerCode
        ? { metadata: { ...meta, providerCode: result.providerCode } }
        : {}),
      // Not the invoice's payment (one per paid invoice): the invoice is named in its metadata.
      ...(late
        ? { invoiceId: null, metadata: { ...meta, invoiceId: inv.id, refundedBecause: `invoice_${inv.status}` } }
        : {}),
      updatedAt: at,
    };
    return { inv, failure, late, later, move, outcome, row: { ...payment, ...outcome } as Payment };
  });
  if (written) {
    const rows = await updateRows<Payment>(
      sql,
      'payments',
      scope,
      decided.map((d) => d.outcome as Partial<Payment> & { id: string }),
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const d of decided) d.row = byId.get(d.row.id) ?? d.row;
  }
  const events = decided.flatMap((d) =>
    (d.move?.events ?? []).map((t) => eventRow(scope, t, toWire(d.row, paymentFields), { ...opts, occurredAt: at })),
  );
  if (written) await insertEvents(sql, events);
  else
    await sql.query(
      q`WITH new_payments AS (${insertPayments(
        decided.map((d) => d.row),
        { returning: q`1` },
      )}), ${eventsCte(events)} SELECT count(*) FROM inserted_events`,
    );
  const out = new Map<string, CollectOutcome>();
  const paid = decided.filter((d) => !d.failure && !d.later);
  const settled = await settleInvoices(
    sql,
    scope,
    paid.map((d) => ({
      inv: d.inv,
      payment: { id: d.row.id, adapter: d.row.adapter, method: d.row.method, capturedAt: at },
      txId: d.row.id,
    })),
    opts,
  );
  for (const [i, s] of settled.entries())
    out.set(s.invoice.id, { outcome: invoicePaid, invoice: s.invoice, paymentId: paid[i].row.id });
  const failed = decided.filter((d) => d.failure);
  // Charged in process: the attempt is counted here for those no settle wrote (failed or waiting).
  const counted = decided.filter((d) => d.failure || d.later);
  if (!written && counted.length)
    await sql.query(
      q`UPDATE invoices SET "collectionAttempts" = "collectionAttempts" + 1, "updatedAt" = ${at}::timestamptz
        WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
        AND id = ANY (${counted.map((d) => d.inv.id)}::text[])`,
    );
  for (const d of failed) {
    if (d.late) await refundLateCharge(scope, d.row, d.inv, { ...opts, tx: o.tx });
    out.set(d.inv.id, await recordFailure(sql, scope, d.inv, d.row, d.failure!, opts));
  }
  for (const d of decided.filter((x) => x.later)) {
    const invoice = d.move ? await recordActionRequired(sql, scope, d.inv, d.row, opts) : d.inv;
    out.set(d.inv.id, { outcome: d.later!, invoice, paymentId: d.row.id });
  }
  await moveAnsweredMethods(sql, scope, items, opts);
  return items.map((i) => out.get(i.inv.id)!);
}

/**
 * A charge answered `requires_action` (its payment already moved, with `nextAction`), in the same
 * transaction (docs/guides/payment-methods.md, Requires action): the invoice stays open, its
 * `dueAt` moves to the action's expiry when later, no retry is scheduled while the customer can act
 * (`nextAttemptAt` null), the subscription is not moved, and `svc.invoice.payment_action_required.v1`
 * carries `{paymentId, failureCode: "authentication_required", nextActionExpiresAt}` in
 * data.metadata; the outbox relay writes its `billing-email` job (kind `action_required`).
 */
async function recordActionRequired(
  sql: Sql,
  scope: Scope,
  inv: InvoiceRow,
  payment: Payment,
  opts: { accountId: string; requestId?: string; source: string; at: Date },
): Promise<InvoiceRow> {
  const expiresAt = new Date((payment.nextAction as { expiresAt: string }).expiresAt);
  const dueAt = inv.dueAt && inv.dueAt > expiresAt ? inv.dueAt : expiresAt;
  await sql.query(
    q`UPDATE invoices SET "dueAt" = ${dueAt}::timestamptz, "nextAttemptAt" = NULL, "updatedAt" = ${opts.at}::timestamptz
      WHERE id = ${inv.id} AND "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}`,
  );
  const invoice: InvoiceRow = { ...inv, dueAt, nextAttemptAt: null, updatedAt: opts.at };
  const e = eventRow(scope, 'svc.invoice.payment_action_required.v1', invoiceSnapshot(invoice), {
    ...opts,
    occurredAt: opts.at,
  });
  await insertEvents(sql, [
    {
      ...e,
      data: {
        ...e.data,
        metadata: {
          paymentId: payment.id,
          failureCode: 'authentication_required',
          nextActionExpiresAt: expiresAt.toISOString(),
        },
      },
    },
  ]);
  return invoice;
}

/**
 * A provider's money for an invoice that was paid another way (or closed) while the charge ran
 * (docs/decisions.md, Money for an invoice already paid): the payment (already `succeeded`, its
 * `invoiceId` cleared, the invoice named in its metadata) posts as captured money (D the adapter's
 * settlement account, C `payments`), and a full refund is reserved (reason `duplicate`), which the
 * refund sweep submits to the provider after the commit. No receipt, and the invoice is untouched.
 */
async function refundLateCharge(
  scope: Scope,
  payment: Payment,
  inv: InvoiceRow,
  opts: { accountId: string; requestId?: string; source: string; at: Date; tx?: Tx },
) {
  if (!opts.tx) throw new Error(`refundLateCharge(${payment.id}): needs the Prisma transaction (reconcileInTx)`);
  await postLedger(opts.tx, scope, {
    txId: payment.id,
    currency: payment.currency,
    sourceType: 'invoice',
    sourceId: inv.id,
    postedAt: opts.at,
    legs: [
      {
        code: settlementCode(payment.adapter),
        direction: 'debit',
        amount: payment.amount,
        memo: `off-session charge ${payment.id} after invoice ${inv.id} was ${inv.status}; refunded`,
      },
      { code: 'payments', direction: 'credit', amount: payment.amount },
    ],
  });
  const { refund } = await reserveRefund(
    opts.tx,
    scope,
    payment,
    {
      amount: payment.amount,
      reason: 'duplicate',
      metadata: { invoiceId: inv.id, automatic: 'invoice_already_settled' },
      // Stable for this payment: a retried provider call is deduplicated by the provider.
      providerKey: `rf-${sha256Hex(`${scope.workspaceId}:${scope.mode}:late:${payment.id}`).slice(0, 40)}`,
    },
    { accountId: opts.accountId, requestId: opts.requestId, source: opts.source },
  );
  logger.warn(
    { payment: payment.id, invoice: inv.id, invoiceStatus: inv.status, refund: refund.id },
    'off-session charge for an invoice no longer payable: recorded and refunded',
  );
}

/**
 * A charge answered `expired_card` or `payment_method_revoked` moves its saved method (expired, revoked)
 * in the same transaction, which clears it as a default and from subscriptions (payment-methods/service.ts).
 */
async function moveAnsweredMethods(
  sql: Sql,
  scope: Scope,
  items: { payment: Payment; result: ChargeResult }[],
  opts: { accountId: string; requestId?: string; source: string; at: Date },
) {
  for (const { payment, result } of items) {
    if (result.ok !== false || !result.methodMove || !isSavedMethodId(payment.paymentMethodId)) continue;
    const [pm] = await savedMethods(sql, scope, [payment.paymentMethodId]).then((m) => [...m.values()]);
    if (pm && canMove(paymentMethodMachine, pm.status as PaymentMethodStatus, result.methodMove))
      await moveMethod(sql, scope, pm.id, result.methodMove, opts);
  }
}

/**
 * A failed charge (its payment already failed): `svc.invoice.payment_failed.v1` with
 * `{failureCode, failureMessage}` in data.metadata (docs/billing.md, Invoice events), the invoice and its subscription
 * past_due (a renewal's; an incomplete subscription's first invoice stays open: its pay link).
 */
async function recordFailure(
  sql: Sql,
  scope: Scope,
  inv: InvoiceRow,
  payment: Payment,
  failure: { failureCode: string; failureMessage: string },
  opts: { accountId: string; requestId?: string; source: string; at: Date },
): Promise<CollectOutcome> {
  const { failureCode, failureMessage } = failure;
  const at = opts.at;
  if (failureCode === 'invoice_not_payable')
    return { outcome: paymentFailed, invoice: inv, paymentId: payment.id, failureCode, failureMessage };
  const failedEvent = (invoice: InvoiceRow) => {
    const e = eventRow(scope, 'svc.invoice.payment_failed.v1', invoiceSnapshot(invoice), { ...opts, occurredAt: at });
    return { ...e, data: { ...e.data, metadata: { failureCode, failureMessage } } };
  };
  const sub = inv.subscriptionId ? await lockSubscription(sql, scope, inv.subscriptionId) : null;
  const failable = !!sub && canMove(subscriptionMachine, sub.status as SubscriptionStatus, 'payment_failed');
  // An incomplete subscription's first invoice stays open (its pay link) until it expires; a renewal's
  // becomes past_due at once (it is due on issue: docs/billing.md, Due dates).
  let invoice = inv;
  if (failable && canMove(invoiceMachine, inv.status as InvoiceStatus, 'mark_past_due'))
    invoice = await moveInvoice(sql, scope, inv, 'mark_past_due', { pastDueAt: at, updatedAt: at }, opts);
  await insertEvents(sql, [failedEvent(invoice)]);
  if (sub && failable) await moveSubscription(sql, scope, sub, 'payment_failed', {}, opts);
  return { outcome: paymentFailed, invoice, paymentId: payment.id, failureCode, failureMessage };
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
  const [p] = await tenantTx(scopeOf(scope), (sql) =>
    sql.last<Payment>(
      q`SELECT * FROM payments WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
        AND "invoiceId" = ${invoiceId} AND status = ${pendingStatus} AND "createdAt" <= ${olderThan}::timestamptz
        ORDER BY "createdAt" LIMIT 1`,
    ),
  );
  if (!p?.method) return { outcome: 'skipped', invoice: null, reason: 'charge_in_flight' };
  const value = p.paymentMethodId ?? p.method;
  const { saved, payer } = await tenantTx(scopeOf(scope), async (sql) => ({
    saved: isSavedMethodId(value) ? ((await savedMethods(sql, scope, [value])).get(value) ?? null) : null,
    payer: p.customerId ? (await payersOf(sql, scope, [p.customerId])).get(p.customerId)! : null,
  }));
  const result = await chargeStoredMethod(value, p, saved, { scope, payer, resume: true });
  return reconcileInTx(scope, p.id, result, at, o);
}
