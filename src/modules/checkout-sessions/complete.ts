import type { Mode, Tx } from '../../core/db/client.ts';
import { clock } from '../../core/clock.ts';
import { newId } from '../../core/ids.ts';
import { emit } from '../../core/outbox.ts';
import { postLedger } from '../../core/ledger.ts';
import { toWire } from '../../graphql/fields.ts';
import { issueReceipt, prepareSessionReceipt } from '../receipts/issue.ts';
import { paymentFields } from '../payments/fields.ts';
import { checkoutSessionFields } from './fields.ts';
import { transition, type SessionStatus } from './states.ts';
import type { CheckoutSession } from '../../generated/prisma/client.ts';

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
}

/**
 * Completes a locked session in the caller's transaction: the payment, its receipt, the balanced
 * ledger postings and both events commit together or not at all. A session already completed is
 * returned unchanged, so duplicate or late confirmations are harmless.
 */
export async function completeSession(tx: Tx, scope: { workspaceId: string; mode: Mode }, s: CheckoutSession, how: Settlement): Promise<CheckoutSession> {
  if (s.status === 'completed') return s;
  const status = transition(s.status as SessionStatus, how.trigger);
  const now = clock.now();
  const workspace = await tx.workspace.findUniqueOrThrow({ where: { id: scope.workspaceId } });
  const payment = await tx.payment.create({
    data: {
      id: newId('payment'),
      workspaceId: scope.workspaceId,
      mode: scope.mode,
      status: 'succeeded',
      amount: s.amount,
      currency: s.currency,
      method: how.method,
      adapter: how.adapter,
      customerId: s.customerId,
      checkoutSessionId: s.id,
      providerReference: how.providerReference,
      fee: how.fee ? BigInt(how.fee) : null,
      metadata: s.metadata ?? undefined,
      capturedAt: now,
      createdAt: now,
      updatedAt: now,
    },
  });
  const receipt = await prepareSessionReceipt(tx, scope, workspace, s, payment, now);
  // Chart of accounts: docs/decisions.md (Checkout sessions). Gross is held at the adapter until paid out; the merchant's
  // `payments` balance carries it, less the provider's fee and the tax owed.
  const settlement = `settlement:${how.adapter}`;
  const legs = [
    { code: settlement, direction: 'debit' as const, amount: s.amount, memo: `payment ${payment.id}` },
    { code: 'payments', direction: 'credit' as const, amount: s.amount },
  ];
  if (how.fee) legs.push({ code: `gateway:${how.adapter}`, direction: 'debit', amount: BigInt(how.fee), memo: 'provider fee' }, { code: settlement, direction: 'credit', amount: BigInt(how.fee) });
  if (receipt.taxAmount > 0n) legs.push({ code: 'payments', direction: 'debit', amount: receipt.taxAmount, memo: 'tax included in the price' }, { code: 'tax:ppn', direction: 'credit', amount: receipt.taxAmount });
  await postLedger(tx, scope, { txId: s.id, currency: s.currency, sourceType: 'checkout_session', sourceId: s.id, postedAt: now, legs });
  const completed = await tx.checkoutSession.update({ where: { id: s.id }, data: { status, completedAt: now, paymentId: payment.id, updatedAt: now } });
  const opts = { requestId: how.requestId, source: how.source };
  await emit(tx, scope, 'svc.checkout_session.completed.v1', toWire({ ...completed, accountId: workspace.accountId }, checkoutSessionFields), opts);
  await emit(tx, scope, 'payment.succeeded', toWire(payment, paymentFields), opts);
  await issueReceipt(tx, scope, receipt);
  return completed;
}
