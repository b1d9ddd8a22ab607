import { sql as q, sqlOf, type AnyTx } from '../../core/db/sql.ts';
import { clock } from '../../core/clock.ts';
import { newId } from '../../core/ids.ts';
import { eventRow, eventsCte } from '../../core/outbox.ts';
import { insertLedger, type LedgerLeg, type LedgerPosting } from '../../core/ledger.ts';
import { toWire } from '../../core/wire.ts';
import { issueReceiptCte, prepareSessionReceipt, receiptContext, type ReceiptContext } from '../receipts/issue.ts';
import { paymentFields } from '../payments/fields.ts';
import { paymentMachine } from '../payments/states.ts';
import { insertPayments } from '../payments/write.ts';
import { checkoutSessionFields } from './fields.ts';
import { nextState, sqlIn, sqlStatus, statusesWhere } from '../../core/state-machine.ts';
import { checkoutAttemptMachine, checkoutSessionMachine, sessionCompleted, type SessionStatus } from './states.ts';
import type { CheckoutSession, Payment } from '../../generated/prisma/client.ts';
import type { Superseded } from './attempts.ts';
import type { RowScope } from '../../core/resource.ts';
import { lockInvoice, settleInvoice } from '../invoices/issue.ts';
import { canMove } from '../../core/state-machine.ts';
import { invoiceMachine, type InvoiceStatus } from '../invoices/states.ts';
import { errorsFor } from '../../core/errors.ts';
import type { SavedMethod } from '../../providers/types.ts';
import { keepPaymentMethod } from './save.ts';

/** The attempts a completion supersedes (the table's list, rendered once into the statement). */
const supersedable = sqlIn(q`status`, statusesWhere(checkoutAttemptMachine, 'supersede'));
/** Where the paying attempt and the other live ones go (the table's `pay` and `supersede`). */
const paid = sqlStatus(checkoutAttemptMachine.moves.pay.to);
const superseded = sqlStatus(checkoutAttemptMachine.moves.supersede.to);

export interface Settlement {
  trigger: 'confirm' | 'provider_paid';
  /** The session's adapter name (`provider_a_platform` for managed). */
  adapter: string;
  method: string | null;
  providerReference: string | null;
  /** Provider fee in minor units, when the provider reports one. */
  fee?: number | null;
  requestId?: string;
  source?: string;
  /** The attempt that paid (its `number`); the session's current one when omitted. */
  attemptNumber?: number;
  /** The provider's payment id for that attempt, when known. */
  providerPaymentId?: string | null;
  /**
   * The reusable token the provider's status answer carried (save.ts): kept as a `pm_` when the
   * session saves and the customer consented; `consented` overrides the attempt's flag (the sandbox).
   */
  saved?: { method: SavedMethod; consented?: boolean } | null;
}

/**
 * Completes a locked session in the caller's transaction: the payment, its receipt, the balanced
 * ledger postings and both events commit together or not at all. A session already completed is
 * returned unchanged, so duplicate or late confirmations are harmless.
 *
 * Two statements: one read (workspace, template, customer; skipped when the caller read `known`
 * with its lock, receiptContextSql) and one write whose WITH list inserts
 * the payment, the ledger entries and the events, updates the session and numbers the receipt.
 * Every row is built here and passed as JSON typed by its table, so the rules stay in TypeScript
 * and the transaction costs two round trips instead of eighteen. Nothing may follow it in the
 * caller's transaction.
 */
export async function completeSession(
  tx: AnyTx,
  scope: RowScope,
  s: CheckoutSession,
  how: Settlement,
  known?: ReceiptContext,
): Promise<CheckoutSession & { superseded?: Superseded[] }> {
  if (s.status === sessionCompleted) return s;
  const sql = sqlOf(tx);
  const move = nextState(checkoutSessionMachine, s.status as SessionStatus, how.trigger);
  const status = move.to;
  const now = clock.now();
  const context = known ?? (await receiptContext(sql, scope, s.templateId, s.customerId));
  // A session that pays an invoice (the hosted invoice page): the invoice is locked first and must
  // still be payable, or the completion is refused (409) and nothing is written (one payment per
  // invoice, whoever comes second loses). Its receipt and revenue postings are the invoice's
  // (settleInvoice, below), so no session receipt is issued (docs/billing.md, Receipts).
  const invoice = s.invoiceId
    ? await lockInvoice(tx, { ...scope, accountId: context.workspace.accountId }, s.invoiceId)
    : null;
  if (s.invoiceId && (!invoice || !canMove(invoiceMachine, invoice.status as InvoiceStatus, 'pay')))
    throw errorsFor('invoice').conflict(`The invoice is ${invoice?.status ?? 'gone'}; it cannot be paid again`);
  const paymentId = newId('payment');
  // A method saved by this payment (consent at checkout): sealed and attached before the one write below.
  const kept = how.saved
    ? await keepPaymentMethod(tx, scope, s, {
        saved: how.saved.method,
        adapter: how.adapter,
        consented: how.saved.consented,
        attemptNumber: how.attemptNumber ?? s.attemptCount,
        requestId: how.requestId,
        source: how.source,
        accountId: context.workspace.accountId,
      })
    : null;
  const payment = paymentOf(scope, s, how, paymentId, kept?.id ?? null, now);
  const receipt = invoice ? null : prepareSessionReceipt(scope, context, s, payment, now);
  const ledger = ledgerOf(s, how, payment, receipt?.taxAmount ?? 0n, invoice !== null, now);
  const completed: CheckoutSession = {
    ...s,
    status,
    completedAt: now,
    paymentId: payment.id,
    savedPaymentMethodId: kept?.id ?? s.savedPaymentMethodId,
    updatedAt: now,
  };
  const opts = { requestId: how.requestId, source: how.source };
  // The move's events: the session's own, then the payment's (its capture move), each with its object.
  const paymentEvents = nextState(paymentMachine, null, 'capture').events;
  const sessionWire = toWire({ ...completed, accountId: context.workspace.accountId }, checkoutSessionFields);
  const events = [
    ...move.events.filter((t) => !paymentEvents.includes(t)).map((t) => eventRow(scope, t, sessionWire, opts)),
    ...paymentEvents.map((t) => eventRow(scope, t, toWire(payment, paymentFields), opts)),
  ];
  const ws = scope.workspaceId;
  const paying = how.attemptNumber ?? s.attemptCount;
  // The caller's transaction ends here (on `pg` the write travels with COMMIT, Sql.last), unless the
  // invoice is settled after it.
  const [row] = await sql[invoice ? 'query' : 'last']<{ superseded: Superseded[] }>(
    q`WITH
  new_payment AS (${insertPayments([payment], { returning: q`1` })}),
  new_entries AS (${ledger.length ? insertLedger(scope, ledger, { returning: q`1` }) : q`SELECT 1 WHERE false`}),
  completed_session AS (
    UPDATE checkout_sessions SET status = ${status}, "completedAt" = ${now}::timestamptz, "paymentId" = ${payment.id},
      "savedPaymentMethodId" = ${completed.savedPaymentMethodId}, "updatedAt" = ${now}::timestamptz
    WHERE id = ${s.id} AND "workspaceId" = ${ws} AND mode = ${scope.mode} RETURNING 1),
  -- The paying attempt is paid; any other still live is superseded (voided by the caller after COMMIT).
  attempts AS (
    UPDATE checkout_attempts SET status = CASE WHEN number = ${paying} THEN ${paid} ELSE ${superseded} END,
      "paidAt" = CASE WHEN number = ${paying} THEN ${now}::timestamptz END,
      "providerPaymentId" = CASE WHEN number = ${paying} THEN ${how.providerPaymentId ?? null}::text END,
      "updatedAt" = ${now}::timestamptz
    WHERE "workspaceId" = ${ws} AND mode = ${scope.mode} AND "checkoutSessionId" = ${s.id}
      AND (number = ${paying} OR ${supersedable})
    RETURNING id, adapter, "providerReference", status),
  ${eventsCte(events)},
  -- Reading every write first makes PostgreSQL run them before the receipt counter is locked.
  written AS (SELECT FROM (SELECT count(*) FROM new_payment) p, (SELECT count(*) FROM new_entries) e,
    (SELECT count(*) FROM completed_session) s, (SELECT count(*) FROM inserted_events) v,
    (SELECT count(*) FROM attempts) a),
  ${receipt ? issueReceiptCte(receipt, 'written') : q`issued_receipt AS (SELECT NULL AS number FROM written)`}
SELECT number, (SELECT coalesce(jsonb_agg(
    jsonb_build_object('id', id, 'adapter', adapter, 'providerReference', "providerReference")), '[]'::jsonb)
  FROM attempts WHERE status = ${superseded}) AS superseded FROM issued_receipt`,
  );
  if (invoice)
    await settleInvoice(tx, scope, invoice, {
      accountId: context.workspace.accountId,
      requestId: how.requestId,
      source: how.source ?? 'hosted',
      payment,
      txId: s.id,
    });
  return Object.assign(completed, { superseded: (row?.superseded ?? []) as Superseded[] });
}

/** The captured payment a completion inserts (the session's amount, currency and customer). */
function paymentOf(
  scope: RowScope,
  s: CheckoutSession,
  how: Settlement,
  paymentId: string,
  paymentMethodId: string | null,
  now: Date,
): Payment {
  return {
    id: paymentId,
    workspaceId: scope.workspaceId,
    mode: scope.mode,
    status: nextState(paymentMachine, null, 'capture').to,
    amount: s.amount,
    amountRefunded: 0n,
    currency: s.currency,
    method: how.method,
    paymentMethodId,
    adapter: how.adapter,
    customerId: s.customerId,
    checkoutSessionId: s.id,
    invoiceId: s.invoiceId,
    providerReference: how.providerReference,
    fee: how.fee ? BigInt(how.fee) : null,
    failureCode: null,
    failureMessage: null,
    nextAction: null,
    leaseUntil: null,
    metadata: s.metadata,
    capturedAt: now,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * The completion's ledger posting: the gross held at the adapter, less its fee and the tax owed. A session
 * that pays an invoice posts only the fee here (settleInvoice posts the rest).
 */
function ledgerOf(
  s: CheckoutSession,
  how: Settlement,
  payment: Payment,
  taxAmount: bigint,
  forInvoice: boolean,
  now: Date,
): LedgerPosting[] {
  // Chart of accounts: docs/decisions.md (Checkout sessions). Gross is held at the adapter until paid out; the
  // merchant's `payments` balance carries it, less the provider's fee and the tax owed.
  const settlement = `settlement:${how.adapter}`;
  const legs: LedgerLeg[] = forInvoice
    ? [] // settleInvoice posts the gross (settlement:<adapter> / revenue) and the tax
    : [
        { code: settlement, direction: 'debit', amount: s.amount, memo: `payment ${payment.id}` },
        { code: 'payments', direction: 'credit', amount: s.amount },
      ];
  if (how.fee)
    legs.push(
      { code: `gateway:${how.adapter}`, direction: 'debit', amount: BigInt(how.fee), memo: 'provider fee' },
      { code: settlement, direction: 'credit', amount: BigInt(how.fee) },
    );
  if (taxAmount > 0n)
    legs.push(
      { code: 'payments', direction: 'debit', amount: taxAmount, memo: 'tax included in the price' },
      { code: 'tax:ppn', direction: 'credit', amount: taxAmount },
    );
  return !legs.length
    ? []
    : [{ txId: s.id, currency: s.currency, sourceType: 'checkout_session', sourceId: s.id, postedAt: now, legs }];
}
