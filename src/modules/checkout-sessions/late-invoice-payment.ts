/**
 * Money a provider captured for an invoice that was already paid another way (or voided) while
 * the customer was paying its checkout session: the race of dunning (paid by a dunning retry or
 * POST /pay, then the session's QRIS payment lands). The callback is accepted (2xx, the provider
 * stops retrying), the payment is recorded and refunded in full through the refund path (two
 * phases: the refund row `pending` here, the provider called after the commit). See
 * docs/decisions.md, Money for an invoice already paid.
 */
import { sha256Hex } from '../../core/crypto.ts';
import { clock } from '../../core/clock.ts';
import type { Tx } from '../../core/db/client.ts';
import { sql as q } from '../../core/db/sql.ts';
import { postLedger } from '../../core/ledger.ts';
import { logger } from '../../core/logger.ts';
import { emit } from '../../core/outbox.ts';
import { newId } from '../../core/ids.ts';
import type { RowScope } from '../../core/resource.ts';
import { nextState } from '../../core/state-machine.ts';
import { toWire } from '../../core/wire.ts';
import type { Adapter, CheckoutAttempt, CheckoutSession, Payment, Refund } from '../../generated/prisma/client.ts';
import { paymentFields } from '../payments/fields.ts';
import { paymentMachine } from '../payments/states.ts';
import { writePayments } from '../payments/write.ts';
import { reserveRefund } from '../refunds/service.ts';
import { settlementCode, type SettleOptions } from '../refunds/settle.ts';
import { recordAnswer, submitRefund } from '../refunds/submit.ts';
import { markPaidUnapplied } from './attempts.ts';
import { refundStatus } from '../../providers/types.ts';

export interface LateRefund {
  scope: RowScope;
  refund: Refund;
  payment: Payment;
  adapter: Adapter | null;
  opts: SettleOptions;
}

/**
 * In the callback's transaction (the invoice and session locked): the attempt `paid_unapplied`,
 * the payment (captured, linked to the session; the invoice named in its metadata), its ledger posting (D the
 * adapter's settlement account, C `payments`, as any captured payment), `payment.succeeded`, and a
 * full refund reserved (`refund.created`; reason `duplicate`). No receipt: nothing was sold.
 */
export async function refundLatePayment(
  tx: Tx,
  scope: RowScope,
  s: CheckoutSession,
  a: CheckoutAttempt,
  paid: { amount: number; currency: string; providerPaymentId?: string | null },
  invoiceStatus: string,
): Promise<LateRefund> {
  const now = clock.now();
  const source = `callback:${a.adapter}`;
  const ws = await tx.workspace.findUniqueOrThrow({ where: { id: scope.workspaceId }, select: { accountId: true } });
  const opts: SettleOptions = { accountId: ws.accountId, source };
  await markPaidUnapplied(tx, a, paid, now);
  const [payment] = await writePayments<Payment>(
    tx,
    [
      {
        id: newId('payment'),
        workspaceId: scope.workspaceId,
        mode: scope.mode,
        status: nextState(paymentMachine, null, 'capture').to,
        amount: BigInt(paid.amount),
        amountRefunded: 0n,
        currency: paid.currency,
        method: a.method,
        adapter: a.adapter,
        customerId: s.customerId,
        checkoutSessionId: s.id,
        // Not the invoice's payment (spec Payment: one per paid invoice); the invoice is named in metadata.
        invoiceId: null,
        providerReference: a.providerReference,
        metadata: { invoiceId: s.invoiceId ?? '', refundedBecause: `invoice_${invoiceStatus}` },
        capturedAt: now,
        createdAt: now,
        updatedAt: now,
      },
    ],
    { returning: q`*` },
  );
  await postLedger(tx, scope, {
    txId: payment.id,
    currency: payment.currency,
    sourceType: 'checkout_session',
    sourceId: s.id,
    postedAt: now,
    legs: [
      {
        code: settlementCode(a.adapter),
        direction: 'debit',
        amount: payment.amount,
        memo: `paid on ${a.id} after invoice ${s.invoiceId} was ${invoiceStatus}; refunded`,
      },
      { code: 'payments', direction: 'credit', amount: payment.amount },
    ],
  });
  for (const t of nextState(paymentMachine, null, 'capture').events)
    await emit(tx, scope, t, toWire(payment, paymentFields), { source });
  const { refund, adapter } = await reserveRefund(
    tx,
    scope,
    payment,
    {
      amount: payment.amount,
      reason: 'duplicate',
      metadata: { invoiceId: s.invoiceId ?? '', automatic: 'invoice_already_settled' },
      // Stable for this attempt: a retried provider call is deduplicated by the provider.
      providerKey: `rf-${sha256Hex(`${scope.workspaceId}:${scope.mode}:late:${a.id}`).slice(0, 40)}`,
    },
    opts,
  );
  logger.warn(
    { attempt: a.id, session: s.id, invoice: s.invoiceId, invoiceStatus, payment: payment.id, refund: refund.id },
    'payment for an invoice no longer payable: recorded and refunded',
  );
  return { scope, refund, payment, adapter, opts };
}

/**
 * Phases 2 and 3, after the commit: the provider is asked to refund. An unknown outcome stays
 * `pending` for the refund sweep; a definite refusal marks the refund failed (logged: the money
 * must then be returned by hand).
 */
export async function submitLateRefund(r: LateRefund): Promise<Refund> {
  if (!r.adapter) return r.refund;
  return submitRefund(r.scope, r.refund, r.payment, r.adapter, r.opts, (e) => {
    logger.error({ refund: r.refund.id, reason: e.message }, 'automatic refund refused by the provider');
    return recordAnswer(
      r.scope,
      r.refund,
      { status: refundStatus.failed, providerRefundId: null },
      { ...r.opts, failureCode: 'provider_rejected', failureMessage: e.message.slice(0, 500) },
    );
  });
}
