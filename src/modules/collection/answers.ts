/**
 * What a charge's answer records beyond its payment, in the reconcile's transaction: a wait for the
 * customer (`requires_action`), a failure (the invoice past due, the subscription's move by its module:
 * hooks.ts), a provider's money for an invoice no longer payable (refunded), a method the provider
 * reports expired or revoked.
 */
import { sha256Hex } from '../../core/crypto.ts';
import { sql as q, type Sql } from '../../core/db/sql.ts';
import type { Tx } from '../../core/db/client.ts';
import { hostedLink } from '../../core/hosted-link.ts';
import { postLedger } from '../../core/ledger.ts';
import { logger } from '../../core/logger.ts';
import { eventRow, insertEvents } from '../../core/outbox.ts';
import { canMove } from '../../core/state-machine.ts';
import type { Payment } from '../../generated/prisma/client.ts';
import type { InvoiceRow } from '../invoices/fields.ts';
import { invoiceSnapshot, moveInvoice } from '../invoices/issue.ts';
import { invoiceMachine, type InvoiceStatus } from '../invoices/states.ts';
import { paymentFailed } from '../payments/states.ts';
import { reserveRefund } from '../refunds/service.ts';
import { settlementCode } from '../refunds/settle.ts';
import type { CollectOutcome, Scope } from './charge.ts';
import { chargeFailed } from './hooks.ts';

/** How long the customer has to authenticate when the provider names no expiry (docs/guides/payment-methods.md, Requires action). */
export const ACTION_WINDOW_MS = 24 * 3_600_000;

/** The sandbox's authenticate page of an invoice (`/i/<token>/authenticate`, test mode only). */
export const authenticateUrl = (inv: Pick<InvoiceRow, 'id' | 'hostedSecret'>) =>
  `${hostedLink('i', inv.id, inv.hostedSecret)}/authenticate`;

/**
 * A charge answered `requires_action` (its payment already moved, with `nextAction`), in the same
 * transaction (docs/guides/payment-methods.md, Requires action): the invoice stays open, its
 * `dueAt` moves to the action's expiry when later, no retry is scheduled while the customer can act
 * (`nextAttemptAt` null), the subscription is not moved, and `svc.invoice.payment_action_required.v1`
 * carries `{paymentId, failureCode: "authentication_required", nextActionExpiresAt}` in
 * data.metadata; the outbox relay writes its `billing-email` job (kind `action_required`).
 */
export async function recordActionRequired(
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
export async function refundLateCharge(
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
 * A failed charge (its payment already failed): `svc.invoice.payment_failed.v1` with
 * `{failureCode, failureMessage}` in data.metadata (docs/billing.md, Invoice events), the invoice and its subscription
 * past_due (a renewal's; an incomplete subscription's first invoice stays open: its pay link).
 */
export async function recordFailure(
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
  // The subscription's module says whether the invoice goes past due: an incomplete subscription's
  // first invoice stays open (its pay link) until it expires; a renewal's becomes past_due at once (it
  // is due on issue: docs/billing.md, Due dates).
  const [sub] = inv.subscriptionId ? await chargeFailed.run(sql, scope, inv.subscriptionId) : [];
  let invoice = inv;
  if (sub?.pastDue && canMove(invoiceMachine, inv.status as InvoiceStatus, 'mark_past_due'))
    invoice = await moveInvoice(sql, scope, inv, 'mark_past_due', { pastDueAt: at, updatedAt: at }, opts);
  await insertEvents(sql, [failedEvent(invoice)]);
  await sub?.after(opts);
  return { outcome: paymentFailed, invoice, paymentId: payment.id, failureCode, failureMessage };
}
