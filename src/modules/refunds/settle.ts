/**
 * What happens when a refund settles, in the caller's transaction: the refund row, its ledger
 * posting, the payment's `amountRefunded` and status, and the events commit together. Callers hold
 * the payment's row lock (`lockPayment`) first, so refunds of one payment apply one at a time.
 */
import type { Mode, Tx } from '../../core/db/client.ts';
import { inTenant } from '../../core/db/client.ts';
import { clock } from '../../core/clock.ts';
import { eventRow, insertEvents, type EmitOptions } from '../../core/outbox.ts';
import { postLedger } from '../../core/ledger.ts';
import { toWire } from '../../core/wire.ts';
import { paymentFields } from '../payments/fields.ts';
import { refundFields } from './fields.ts';
import { canMove, nextState, outcomeTrigger } from '../../core/state-machine.ts';
import {
  awaitingProvider,
  createTrigger,
  refundMachine,
  refundStatusOf,
  type RefundStatus,
  type RefundTrigger,
} from './states.ts';
import { refundStatus } from '../../providers/types.ts';
import { paymentMachine, type PaymentStatus } from '../payments/states.ts';
import type { Payment, Refund } from '../../generated/prisma/client.ts';
import type { RefundEvent } from '../../providers/index.ts';
import type { ProviderAnswer } from './provider.ts';
import type { RowScope } from '../../core/resource.ts';

type Scope = RowScope;
export interface SettleOptions {
  accountId: string;
  requestId?: string;
  source?: string;
  failureCode?: string;
  failureMessage?: string;
}

/** The payment row, locked for the rest of the transaction: every refund change starts here. */
export async function lockPayment(tx: Tx, scope: Scope, id: string): Promise<Payment | null> {
  const found = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM payments
    WHERE id = ${id} AND "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode} FOR UPDATE`;
  if (!found.length) return null;
  return tx.payment.findUnique({ where: { id } });
}

/** The settlement account a payment's money sits in (docs/ledger.md). */
export const settlementCode = (adapter: string | null) => `settlement:${adapter ?? 'manual'}`;

/** An event of a refund's settling, written with the others of its step in one statement (`announce`). */
interface Announcement {
  type: string;
  object: Record<string, unknown>;
  options: EmitOptions;
}

const announce = (tx: Tx, scope: Scope, events: Announcement[]) =>
  insertEvents(
    tx,
    events.map((e) => eventRow(scope, e.type, e.object, e.options)),
  );

/**
 * A succeeded refund's effects: the posting (debit `refunds`, credit the payment's settlement
 * account; txId = the refund id), the payment's refunded total and status; its event is returned
 * for the caller to write with the refund's own.
 */
async function refundSucceeded(
  tx: Tx,
  scope: Scope,
  refund: Refund,
  payment: Payment,
  opts: SettleOptions,
): Promise<Announcement> {
  const now = clock.now();
  await postLedger(tx, scope, {
    txId: refund.id,
    currency: refund.currency,
    sourceType: 'refund',
    sourceId: refund.id,
    postedAt: now,
    legs: [
      // A credit note's refund pays back what the note made owed (`refund_due`, docs/credit-notes.md, Ledger).
      {
        code: refund.creditNoteId ? 'refund_due' : 'refunds',
        direction: 'debit',
        amount: refund.amount,
        memo: `refund of ${payment.id}`,
      },
      { code: settlementCode(payment.adapter), direction: 'credit', amount: refund.amount },
    ],
  });
  const amountRefunded = payment.amountRefunded + refund.amount;
  const next = nextState(
    paymentMachine,
    payment.status as PaymentStatus,
    amountRefunded === payment.amount ? 'refund_full' : 'refund_partial',
  );
  const updated = await tx.payment.update({
    where: { id: payment.id },
    data: { amountRefunded, status: next.to, updatedAt: now },
  });
  return {
    type: next.events[0],
    object: toWire(updated, paymentFields),
    options: {
      requestId: opts.requestId,
      source: opts.source,
      previousAttributes: { status: payment.status, amountRefunded: Number(payment.amountRefunded) },
    },
  };
}

/**
 * A refund becomes known to the world: `refund.created`, and at once `refund.succeeded` with its
 * posting when the answer was a success, or `refund.failed` after it when it was a rejection.
 * `refund` is the row as written (status `succeeded` already for a success); `created`, the events
 * of its creation move (a success was created succeeded: created, then succeeded). Payment locked.
 */
export async function announceRefund(
  tx: Tx,
  scope: Scope,
  refund: Refund,
  payment: Payment,
  answer: ProviderAnswer['status'],
  created: readonly string[],
  opts: SettleOptions,
): Promise<Refund> {
  let settled = refund;
  const then: Announcement[] = [];
  if (answer === refundStatus.succeeded) {
    then.push(await refundSucceeded(tx, scope, refund, payment, opts));
    await syncCreditNote(tx, refund);
  } else if (answer === refundStatus.failed) {
    const moved = await moveRefund(tx, scope, refund, payment, 'provider_failed', opts);
    settled = moved.refund;
    then.push(...moved.events);
  }
  // The creation's events first (the row as created), then what settled it.
  const wire = toWire({ ...refund, accountId: opts.accountId }, refundFields);
  const events: Announcement[] = created.map((type) => ({
    type,
    object: wire,
    options: { requestId: opts.requestId, source: opts.source },
  }));
  events.push(...then);
  await announce(tx, scope, events);
  return settled;
}

/**
 * Phase 3 of a provider refund (and the sweep's, and a callback's that came first): the provider's
 * answer is recorded once, on a row still `pending` and not yet submitted (compare-and-set under
 * the payment's lock, which the caller holds). Anything else returns the row unchanged.
 */
export async function recordSubmission(
  tx: Tx,
  scope: Scope,
  refundId: string,
  payment: Payment,
  answer: ProviderAnswer,
  opts: SettleOptions,
): Promise<Refund> {
  const refund = await tx.refund.findUniqueOrThrow({ where: { id: refundId } });
  const trigger = outcomeTrigger(refundMachine, 'refund', answer.status);
  if (refund.submittedAt || !canMove(refundMachine, refund.status as RefundStatus, trigger)) return refund;
  const now = clock.now();
  // A success settles here; a rejection is applied by announceRefund after `refund.created`.
  const settled =
    answer.status === refundStatus.succeeded
      ? { status: nextState(refundMachine, refund.status as RefundStatus, trigger).to, settledAt: now }
      : {};
  const updated = await tx.refund.update({
    where: { id: refund.id },
    data: { submittedAt: now, providerRefundId: answer.providerRefundId, updatedAt: now, ...settled },
  });
  const created = nextState(refundMachine, null, createTrigger(answer.status)).events;
  return announceRefund(tx, scope, updated, payment, answer.status, created, opts);
}

/** A pending refund moves on (provider answer, callback, or test-mode simulate). The payment must be locked. */
export async function applyRefundOutcome(
  tx: Tx,
  scope: Scope,
  refund: Refund,
  payment: Payment,
  trigger: RefundTrigger,
  opts: SettleOptions,
): Promise<Refund> {
  const moved = await moveRefund(tx, scope, refund, payment, trigger, opts);
  await announce(tx, scope, moved.events);
  return moved.refund;
}

/** The move of a pending refund and its effects; its events (the refund's, then the payment's) are returned, not written. */
async function moveRefund(
  tx: Tx,
  scope: Scope,
  refund: Refund,
  payment: Payment,
  trigger: RefundTrigger,
  opts: SettleOptions,
): Promise<{ refund: Refund; events: Announcement[] }> {
  const t = nextState(refundMachine, refund.status as RefundStatus, trigger);
  const now = clock.now();
  const updated = await tx.refund.update({
    where: { id: refund.id },
    data: {
      status: t.to,
      updatedAt: now,
      settledAt: now,
      ...(t.to === refundMachine.moves.provider_failed.to
        ? {
            failureCode: opts.failureCode ?? 'provider_rejected',
            failureMessage: opts.failureMessage ?? 'The provider rejected the refund',
          }
        : {}),
    },
  });
  const paid =
    t.to === refundMachine.moves.provider_succeeded.to
      ? [await refundSucceeded(tx, scope, updated, payment, opts)]
      : [];
  await syncCreditNote(tx, updated);
  // The refund's events, then the payment's.
  const wire = toWire({ ...updated, accountId: opts.accountId }, refundFields);
  const events: Announcement[] = t.events.map((type) => ({
    type,
    object: wire,
    options: { requestId: opts.requestId, source: opts.source, previousAttributes: { status: refund.status } },
  }));
  return { refund: updated, events: [...events, ...paid] };
}

/** A credit note's `refundStatus` follows its refund (a canceled refund shows as failed). */
async function syncCreditNote(tx: Tx, refund: Refund) {
  if (!refund.creditNoteId) return;
  const refundStatus = refundStatusOf(refund.status);
  await tx.creditNote.updateMany({
    where: { workspaceId: refund.workspaceId, mode: refund.mode, id: refund.creditNoteId },
    data: { refundStatus },
  });
}

/**
 * A verified provider callback about a refund (checkout-sessions/callbacks.ts routes it here).
 * Null when the refund is not this tenant's. Repeated and stale callbacks change nothing.
 */
export async function applyRefundCallback(
  scope: Scope & { modes: Mode[] },
  kind: string,
  event: RefundEvent,
): Promise<{ outcome: string } | null> {
  return inTenant(scope, async (tx) => {
    const tenantRow = { workspaceId: scope.workspaceId, mode: scope.mode, adapter: kind };
    // A callback may overtake the creating request's phase 3: then only our key (echoed by the
    // provider as its reference) names the refund, whose provider id is not recorded yet.
    const keys = [event.providerRefundId, ...(event.reference ? [event.reference] : [])];
    const found = await tx.refund.findFirst({
      where: {
        OR: [
          { ...tenantRow, providerRefundId: event.providerRefundId },
          { ...tenantRow, providerKey: { in: keys } },
        ],
      },
    });
    if (!found) return null;
    // Nothing confirmed: a pending (or unconfirmed) callback changes nothing, not even submission.
    if (event.status === refundStatus.pending) return { outcome: refundStatus.pending };
    const payment = await lockPayment(tx, scope, found.paymentId);
    const ws = await tx.workspace.findUniqueOrThrow({ where: { id: scope.workspaceId }, select: { accountId: true } });
    const opts = {
      accountId: ws.accountId,
      source: `callback:${kind}`,
      failureCode: 'provider_rejected',
      failureMessage: `${kind} rejected the refund`,
    };
    const refund = await recordSubmission(
      tx,
      scope,
      found.id,
      payment!,
      { status: refundStatus.pending, providerRefundId: event.providerRefundId },
      opts,
    );
    if (!awaitingProvider.includes(refund.status as RefundStatus)) return { outcome: 'duplicate' };
    await applyRefundOutcome(tx, scope, refund, payment!, outcomeTrigger(refundMachine, 'refund', event.status), opts);
    return { outcome: `refund_${event.status}` };
  });
}
