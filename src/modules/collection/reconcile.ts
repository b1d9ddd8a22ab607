/**
 * The reconcile step of an off-session charge (docs/billing.md, Collection): the provider's answer
 * recorded on its payment, under the invoice lock then the payment's (docs/decisions.md lock order),
 * and what follows from it: the invoice settled, its failure or its wait recorded (answers.ts).
 */
import { clock } from '../../core/clock.ts';
import { scopedRows, sql as q, updateRows, type Sql } from '../../core/db/sql.ts';
import { eventRow, eventsCte, insertEvents } from '../../core/outbox.ts';
import { canMove, nextState } from '../../core/state-machine.ts';
import { toWire } from '../../core/wire.ts';
import type { Payment } from '../../generated/prisma/client.ts';
import type { InvoiceRow } from '../invoices/fields.ts';
import { lockInvoices, settleInvoices } from '../invoices/issue.ts';
import { invoiceMachine, invoicePaid, type InvoiceStatus } from '../invoices/states.ts';
import { paymentFields } from '../payments/fields.ts';
import {
  paymentInFlight,
  paymentMachine,
  paymentPending,
  paymentRequiresAction,
  type PaymentStatus,
} from '../payments/states.ts';
import { insertPayments } from '../payments/write.ts';
import { savedMethods } from '../payment-methods/sandbox.ts';
import { isSavedMethodId, moveMethod } from '../payment-methods/service.ts';
import { paymentMethodMachine, type PaymentMethodStatus } from '../payment-methods/states.ts';
import { isOnline } from '../adapters/providers.ts';
import { ACTION_WINDOW_MS, authenticateUrl, recordActionRequired, recordFailure, refundLateCharge } from './answers.ts';
import {
  leaseFrom,
  PAYMENT_LEASE_MS,
  pendingStatus,
  type ChargeResult,
  type CollectOptions,
  type CollectOutcome,
  type Scope,
} from './charge.ts';
import { wakePendingSweepAt } from './pending-wake.ts';

/** An answer to reconcile: the invoice (locked), its payment and the provider's answer. */
export interface Item {
  inv: InvoiceRow;
  payment: Payment;
  result: ChargeResult;
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
export async function reconcileCharges(
  sql: Sql,
  scope: Scope,
  items: Item[],
  at: Date,
  o: CollectOptions,
  written: boolean,
): Promise<CollectOutcome[]> {
  const opts = { accountId: scope.accountId, requestId: o.requestId, source: o.source ?? 'collection', at };
  const now = clock.now();
  const decided = items.map((item) => decide(item, at, now, written));
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
  // A charge answered `expired_card` or `payment_method_revoked` moves its saved method (expired,
  // revoked) in this transaction, which clears it as a default and from subscriptions.
  for (const { payment, result } of items) {
    if (result.ok !== false || !result.methodMove || !isSavedMethodId(payment.paymentMethodId)) continue;
    const pm = (await savedMethods(sql, scope, [payment.paymentMethodId])).get(payment.paymentMethodId);
    if (pm && canMove(paymentMethodMachine, pm.status as PaymentMethodStatus, result.methodMove))
      await moveMethod(sql, scope, pm.id, result.methodMove, opts);
  }
  return items.map((i) => out.get(i.inv.id)!);
}

/**
 * What one answer does (docs/decisions.md, Off-session outcomes): the payment's move and its row, the
 * failure (a provider's money for an invoice paid meanwhile is `late`: recorded and refunded), or a
 * wait (`later`: still pending with a new lease, or waiting for the customer).
 */
function decide(item: Item, at: Date, now: Date, written: boolean) {
  const { inv, payment, result } = item;
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
    ...(result.ok === false && result.providerCode ? { metadata: { ...meta, providerCode: result.providerCode } } : {}),
    // Not the invoice's payment (one per paid invoice): the invoice is named in its metadata.
    ...(late
      ? { invoiceId: null, metadata: { ...meta, invoiceId: inv.id, refundedBecause: `invoice_${inv.status}` } }
      : {}),
    updatedAt: at,
  };
  return { inv, failure, late, later, move, outcome, row: { ...payment, ...outcome } as Payment };
}
