// Settling invoices (paid: payment, receipt, ledger, events) in a caller's transaction, on either SQL
// path: one batch, a single call is a batch of one.
import { sql as q, sqlOf, type AnyTx } from '../../core/db/sql.ts';
import { clock } from '../../core/clock.ts';
import { nextState } from '../../core/state-machine.ts';
import type { RowScope } from '../../core/resource.ts';
import type { Payment } from '../../generated/prisma/client.ts';
import { newId } from '../../core/ids.ts';
import { insertLedger, postLedgers, type LedgerLeg } from '../../core/ledger.ts';
import { issueReceiptsCte, prepareInvoiceReceipt, receiptContexts } from '../receipts/issue.ts';
import { bookkeepingPay, paymentMachine } from '../payments/states.ts';
import { writePayments } from '../payments/write.ts';
import type { InvoiceRow } from './fields.ts';
import { invoiceMachine, type InvoiceStatus } from './states.ts';
import { invoicesPaid } from './hooks.ts';
import { moveInvoices, type MoveOptions } from './moves.ts';

export interface SettleOptions extends MoveOptions {
  /**
   * The payment that paid the invoice, already written by the caller in this transaction (the hosted
   * invoice page's checkout completion): the receipt names it and the ledger debits its
   * `settlement:<adapter>`. Omitted: a bookkeeping pay (POST /v1/invoices/:id/pay), for which a
   * payment row is written here and the ledger debits `cash:offline`, never a `settlement:*` code.
   */
  payment?: { id: string; adapter: string | null; method: string | null; capturedAt: Date | null } | null;
  /** Ledger txId; default `inv:<id>` (a checkout completion passes its session id). */
  txId?: string;
  /** Internal: a zero total paid at finalization (no payment, receipt or ledger entry). */
  zeroTotal?: boolean;
}

/**
 * Marks a locked open, past_due or uncollectible invoice paid in the caller's transaction (spec
 * Invoice: `amountPaid` = total, `amountDue` 0, `paidAt` set, ledger credit posted, paid event,
 * receipt auto-issued): the payment (unless the caller wrote one), exactly one receipt
 * (`sourceType: invoice`, the receipts module's issuing code), the balanced ledger posting and
 * `svc.invoice.paid.v1` commit together. Refuses (409 conflict, from the state table) any other
 * status, so a second payer of one invoice loses.
 *
 * How to call it (the hosted invoice page, checkout completion):
 *   const inv = await lockInvoice(tx, { ...scope, accountId }, invoiceId);   // row lock first
 *   const { invoice, receiptNumber } = await settleInvoice(tx, scope, inv!, {
 *     accountId, requestId, source: 'hosted', payment: { id, adapter, method, capturedAt }, txId: session.id });
 * With `payment` the ledger posts D `settlement:<adapter>` / C `revenue:invoices` (plus D `revenue:invoices`
 * / C `tax:ppn` for the tax), so the caller must not post the session's own payment legs or issue a
 * session receipt. Works on both SQL paths; statements may follow it in the transaction.
 */
export async function settleInvoice(tx: AnyTx, scope: RowScope, inv: InvoiceRow, how: SettleOptions): Promise<Settled> {
  const [out] = await settleInvoices(tx, scope, [{ inv, payment: how.payment, txId: how.txId }], how);
  return out;
}

export interface Settled {
  invoice: InvoiceRow;
  paymentId: string | null;
  receiptNumber: string | null;
}

/** One invoice of a settled batch: its payment and ledger txId as `SettleOptions` has them for one. */
export interface SettleItem {
  inv: InvoiceRow;
  payment?: SettleOptions['payment'];
  txId?: string;
}

/**
 * `settleInvoice` for a batch of locked invoices of one scope (a renewal burst's charges), the same
 * rules in a fixed number of statements whatever the batch size: the subscriptions locked first
 * (before the receipt counter, which a renewal batch takes while holding its subscriptions), the
 * offline payments, the receipt contexts, the ledger entries with the receipts (one receipt counter
 * bump of n), the invoices moved to paid with their events, then the subscriptions activated.
 * Returns the items' outcomes in the order given.
 */
export async function settleInvoices(
  tx: AnyTx,
  scope: RowScope,
  items: SettleItem[],
  how: Omit<SettleOptions, 'payment' | 'txId'>,
): Promise<Settled[]> {
  if (!items.length) return [];
  for (const { inv } of items) nextState(invoiceMachine, inv.status as InvoiceStatus, 'pay');
  const sql = sqlOf(tx);
  const now = how.at ?? clock.now();
  // The one place a paid invoice activates its subscription (incomplete or past_due -> active), locked first.
  const paid = await invoicesPaid.run(
    tx,
    scope,
    items.flatMap((i) => (i.inv.subscriptionId ? [i.inv.subscriptionId] : [])),
  );
  // A zero total is paid without payment, receipt or ledger entry.
  const paying = items.filter((i) => !how.zeroTotal && i.inv.amountDue !== 0n);
  // Paid by credit (balance, pre-payment notes) with nothing to charge: only its tax still posts.
  const taxOnly = items.filter((i) => !paying.includes(i)).flatMap(({ inv }) => creditPaidTax(inv, now));
  const payments = new Map<string, NonNullable<SettleOptions['payment']>>();
  const offline: Payment[] = [];
  for (const { inv, payment } of paying) {
    const p = payment ?? invoicePayments(scope, [{ inv, ...OFFLINE }], now)[0];
    if (!payment) offline.push(p as Payment);
    payments.set(inv.id, p);
  }
  await postLedgers(sql, scope, taxOnly);
  await writePayments(sql, offline);
  const numbers = new Map<string, string>();
  if (paying.length) {
    const contexts = await receiptContexts(
      sql,
      scope,
      paying.map((i) => i.inv.customerId),
    );
    const receipts = paying.map(({ inv }) =>
      prepareInvoiceReceipt(scope, contexts.get(inv.customerId)!, inv, payments.get(inv.id)!, now),
    );
    const ledger = paying.map(({ inv, payment, txId }) => invoicePosting(inv, payment, txId, now));
    const issued = await sql.query<{ sourceId: string; number: string }>(
      q`WITH new_entries AS (${insertLedger(scope, ledger, { returning: q`1` })}),
        written AS (SELECT count(*) FROM new_entries),
        ${issueReceiptsCte(receipts, 'written')}
        SELECT "sourceId", number FROM issued_receipt`,
    );
    for (const r of issued) numbers.set(r.sourceId, r.number);
  }
  // A paid invoice has no further collection attempt (dunning: subscriptions/dunning.ts).
  const invoices = await moveInvoices(
    tx,
    scope,
    items.map(({ inv }) => ({
      inv,
      // collectionAttempts as the caller has it: a charge made in the caller's transaction counted its attempt.
      data: {
        // What is paid: the total less balance and pre-payment credit notes (docs/credit-notes.md).
        amountPaid: inv.amountDue,
        amountDue: 0n,
        paidAt: now,
        updatedAt: now,
        nextAttemptAt: null,
        collectionAttempts: inv.collectionAttempts,
      },
    })),
    'pay',
    how,
  );
  for (const then of paid) await then({ ...how, at: now });
  return invoices.map((invoice) => ({
    invoice,
    paymentId: payments.get(invoice.id)?.id ?? null,
    receiptNumber: numbers.get(invoice.id) ?? null,
  }));
}

/**
 * The ledger posting of a paid invoice: D `settlement:<adapter>` (a payment through an adapter) or
 * `cash:offline` (a bookkeeping pay) / C `revenue:invoices`, plus D `revenue:invoices` / C `tax:ppn`.
 */
function invoicePosting(inv: InvoiceRow, payment: SettleOptions['payment'], txId: string | undefined, now: Date) {
  const revenue = 'revenue:invoices';
  // The money paid (amountDue) and the tax its pre-payment credit notes did not reverse (docs/credit-notes.md, Ledger).
  const paid = inv.amountDue;
  const tax = inv.tax - inv.prePaymentCreditedTax;
  const legs: LedgerLeg[] = [
    {
      code: payment ? `settlement:${payment.adapter ?? 'manual'}` : OFFLINE_CASH,
      direction: 'debit',
      amount: paid,
      memo: `invoice ${inv.number ?? inv.id}`,
    },
    { code: revenue, direction: 'credit', amount: paid },
  ];
  if (tax > 0n && tax <= inv.total)
    legs.push(
      { code: revenue, direction: 'debit', amount: tax, memo: 'tax on the invoice' },
      { code: 'tax:ppn', direction: 'credit', amount: tax },
    );
  return {
    txId: txId ?? `inv:${inv.id}`,
    currency: inv.currency,
    sourceType: 'invoice' as const,
    sourceId: inv.id,
    postedAt: now,
    legs,
  };
}

/**
 * An invoice paid entirely by customer credit: its revenue was credited when the balance was
 * applied, so only the tax it still carries posts (D `revenue:invoices` / C `tax:ppn`).
 */
function creditPaidTax(inv: InvoiceRow, now: Date) {
  const tax = inv.tax - inv.prePaymentCreditedTax;
  if (inv.balanceApplied === 0n || tax <= 0n) return [];
  return [
    {
      txId: `inv:${inv.id}`,
      currency: inv.currency,
      sourceType: 'invoice' as const,
      sourceId: inv.id,
      postedAt: now,
      legs: [
        { code: 'revenue:invoices', direction: 'debit' as const, amount: tax, memo: 'tax on the invoice' },
        { code: 'tax:ppn', direction: 'credit' as const, amount: tax },
      ],
    },
  ];
}

/** docs/ledger.md: money paid straight to the merchant; not a `settlement:*` code, so never payout-eligible. */
export const OFFLINE_CASH = 'cash:offline';

/** A bookkeeping pay records money that never passed an adapter. */
const OFFLINE = { trigger: 'capture', ...bookkeepingPay } as const;

/** How an invoice is paid: captured at once (a bookkeeping pay) or charged (`pending` until the provider answers). */
export interface InvoicePaying {
  inv: InvoiceRow;
  trigger: 'capture' | 'charge';
  method: string;
  adapter: string | null;
  metadata?: Record<string, string> | null;
  /** The saved method (or fixed test token) an off-session charge uses. */
  paymentMethodId?: string | null;
}

/**
 * spec Payment: the payment rows of invoices, for their amount due, the one shape of an invoice's
 * payment (bookkeeping pays here, stored-method charges in subscriptions/collect.ts). In the order given.
 */
export function invoicePayments(scope: RowScope, items: InvoicePaying[], at: Date): Payment[] {
  return items.map(({ inv, trigger, method, adapter, metadata, paymentMethodId }) => {
    const status = nextState(paymentMachine, null, trigger).to;
    return {
      id: newId('payment'),
      workspaceId: scope.workspaceId,
      mode: scope.mode,
      status,
      amount: inv.amountDue,
      amountRefunded: 0n,
      currency: inv.currency,
      method,
      paymentMethodId: paymentMethodId ?? null,
      adapter,
      customerId: inv.customerId,
      checkoutSessionId: null,
      invoiceId: inv.id,
      providerReference: null,
      fee: null,
      failureCode: null,
      failureMessage: null,
      nextAction: null,
      leaseUntil: null,
      metadata: metadata ?? null,
      capturedAt: trigger === 'capture' ? at : null,
      createdAt: at,
      updatedAt: at,
    };
  });
}
