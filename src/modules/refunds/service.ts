import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant } from '../../core/db/client.ts';
import { DomainError, errorsFor } from '../../core/errors.ts';
import { isId, newId } from '../../core/ids.ts';
import { sha256Hex } from '../../core/crypto.ts';
import { clock } from '../../core/clock.ts';
import { keysetList } from '../../core/pagination.ts';
import { findScoped, scoped, type RowScope } from '../../core/resource.ts';
import { validateMetadata } from '../../core/validation.ts';
import type { RefundRow } from './fields.ts';
import { localAnswer, requireAdapter } from './provider.ts';
import { announceRefund, applyRefundOutcome, lockPayment } from './settle.ts';
import { submitRefund } from './submit.ts';
import type { Tx } from '../../core/db/client.ts';
import type { Adapter, Payment, Refund } from '../../generated/prisma/client.ts';
import { nextState, outcomeTrigger } from '../../core/state-machine.ts';
import { createTrigger, refundMachine, refundReasons, reserving } from './states.ts';
import { isBookkeepingPay, paymentFailed } from '../payments/states.ts';
import type { CreateRefundInput, ListRefundsArgs } from './schema.ts';
import { refundList } from './list.ts';
import { refundStatus } from '../../providers/types.ts';

const err = errorsFor('refund');

function validateCreate(input: CreateRefundInput) {
  if (typeof input.chargeId !== 'string' || !isId('payment', input.chargeId))
    throw err.validation('chargeId', 'chargeId must be a pay_ payment id');
  if (input.amount != null && (!Number.isSafeInteger(input.amount) || input.amount <= 0))
    throw err.validation('amount', 'amount must be a positive integer in the smallest currency unit');
  const reason = input.reason ?? 'requested_by_customer';
  if (!(refundReasons as readonly string[]).includes(reason))
    throw err.validation('reason', `reason must be one of ${refundReasons.join(', ')}`);
  const metadata = input.metadata == null ? null : validateMetadata(input.metadata, 'metadata', 'refund');
  return { chargeId: input.chargeId, reason, metadata };
}

/**
 * spec Refunds create, in two phases (no provider call inside a transaction).
 *
 * 1. One transaction locks the payment, checks `remaining = captured - (pending + succeeded)` and
 *    writes the refund `pending`: its amount is reserved from then on, so concurrent refunds of one
 *    payment can never exceed the captured amount. A refund that needs no provider (manual, the
 *    test-mode sandbox) is settled in this same transaction and nothing else happens.
 * 2. The provider is called with no transaction open and no pool connection held.
 * 3. A short transaction records the answer on the row, compare-and-set (still `pending`, not yet
 *    submitted), with its events and ledger posting (settle.ts recordSubmission).
 *
 * A definite refusal (4xx, unsupported) removes the unsubmitted row: nothing was announced, and
 * the answer is 502 PROVIDER_ERROR as before. An unknown outcome (timeout, network, 5xx) keeps the
 * reservation and answers the refund `pending`; the refund sweep (sweep.ts) settles it. A retry
 * with the same Idempotency-Key finds the row by its provider key and calls the provider again
 * with that key (which the provider deduplicates).
 */
export async function createRefund(ctx: Context, input: CreateRefundInput): Promise<RefundRow> {
  const auth = authorize(ctx, 'svc:refund:write');
  const v = validateCreate(input);
  const scope = tenant(auth);
  const opts = { accountId: auth.accountId, requestId: ctx.requestId };
  // Stable across retries with the same Idempotency-Key: the provider deduplicates a retried call.
  const providerKey = `rf-${sha256Hex(`${scope.workspaceId}:${scope.mode}:${ctx.idempotencyKey}`).slice(0, 40)}`;
  const first = await inTenant(scope, async (tx) => {
    const payment = await lockPayment(tx, scope, v.chargeId);
    if (!payment) throw err.notFound('payment');
    const earlier = await tx.refund.findFirst({
      where: { workspaceId: scope.workspaceId, mode: scope.mode, providerKey },
    });
    if (earlier) {
      if (earlier.paymentId !== payment.id)
        throw err.conflict('This Idempotency-Key was used for a refund of another payment');
      return {
        refund: earlier,
        payment,
        adapter: earlier.submittedAt ? null : requireAdapter(await adapterOf(tx, scope, payment), payment.adapter!),
      };
    }
    const { amount: remaining, nothing } = await refundable(tx, scope, payment);
    if (nothing) throw err.of('amount_exceeds_remaining', nothing.message, nothing.field);
    const amount = input.amount == null ? remaining : BigInt(input.amount);
    if (amount > remaining)
      throw err.of(
        'amount_exceeds_remaining',
        `amount ${amount} exceeds the remaining refundable amount ${remaining}`,
        'amount',
      );
    const reserved = await reserveRefund(
      tx,
      scope,
      payment,
      { amount, reason: v.reason, metadata: v.metadata, providerKey },
      opts,
    );
    return { ...reserved, payment };
  });
  if (!first.adapter) return { ...first.refund, accountId: auth.accountId };
  const refund = await submitRefund(scope, first.refund, first.payment, first.adapter, opts);
  return { ...refund, accountId: auth.accountId };
}

/** What a payment can still refund, and why that is nothing when it is (the 422's message and field). */
export interface Refundable {
  amount: bigint;
  nothing: { message: string; field: 'chargeId' | 'amount' } | null;
}

/**
 * What a payment (locked by the caller) can still refund through the platform: spec Refunds
 * `captured − (pending + succeeded refunds)`. A charge that failed captured nothing; a bookkeeping
 * pay (POST /v1/invoices/:id/pay) refunds nothing either, its money never passed through a provider
 * (docs/credit-notes.md, Outcomes: a credit note's `outOfBandAmount` records money given back by
 * hand). The one rule of POST /v1/refunds and of a credit note's refund part, issued or previewed.
 */
export async function refundable(tx: Tx, scope: RowScope, payment: Payment): Promise<Refundable> {
  if (payment.status === paymentFailed)
    return {
      amount: 0n,
      nothing: { message: 'The payment was not captured; nothing can be refunded', field: 'chargeId' },
    };
  if (isBookkeepingPay(payment))
    return {
      amount: 0n,
      nothing: {
        message:
          'The payment was recorded as paid outside the platform (POST /v1/invoices/:id/pay); no provider holds its ' +
          "money, so nothing can be refunded through one. Record money returned by hand as a credit note's outOfBandAmount",
        field: 'chargeId',
      },
    };
  const held = await tx.refund.aggregate({
    where: { ...scoped(scope), paymentId: payment.id, status: { in: [...reserving] } },
    _sum: { amount: true },
  });
  const amount = payment.amount - (held._sum.amount ?? 0n);
  if (amount <= 0n)
    return {
      amount: 0n,
      nothing: { message: 'The payment is fully refunded; nothing is left to refund', field: 'amount' },
    };
  return { amount, nothing: null };
}

/**
 * Phase 1 in the caller's transaction, which holds the payment's lock and has checked the amount
 * against what remains: the refund row, `pending` (its amount reserved), or settled at once when
 * no provider is involved (`adapter` null then). The caller runs phases 2 and 3 (submitRefund)
 * after its commit. Shared by POST /v1/refunds and the automatic refund of money that arrived for
 * an invoice already paid (checkout-sessions/callbacks.ts).
 */
export async function reserveRefund(
  tx: Tx,
  scope: RowScope,
  payment: Payment,
  r: {
    amount: bigint;
    reason: string;
    metadata: Record<string, string> | null;
    providerKey: string;
    /** The credit note whose refund part this is (docs/credit-notes.md, Outcomes). */
    creditNoteId?: string;
  },
  opts: { accountId: string; requestId?: string; source?: string },
): Promise<{ refund: Refund; adapter: Adapter | null }> {
  const local = localAnswer(scope, payment);
  const adapter = local ? null : requireAdapter(await adapterOf(tx, scope, payment), payment.adapter!);
  const now = clock.now();
  // A same-call success is created succeeded (spec); everything else starts pending.
  const creation = nextState(refundMachine, null, createTrigger(local?.status ?? refundStatus.pending));
  const created = await tx.refund.create({
    data: {
      id: newId('refund'),
      workspaceId: scope.workspaceId,
      mode: scope.mode,
      paymentId: payment.id,
      invoiceId: payment.invoiceId,
      creditNoteId: r.creditNoteId ?? null,
      amount: r.amount,
      currency: payment.currency,
      reason: r.reason,
      status: creation.to,
      metadata: r.metadata ?? undefined,
      adapter: payment.adapter,
      providerKey: r.providerKey,
      providerRefundId: null,
      submittedAt: local ? now : null,
      settledAt: local?.status === refundStatus.succeeded ? now : null,
      createdAt: now,
      updatedAt: now,
    },
  });
  if (local)
    return {
      refund: await announceRefund(tx, scope, created, payment, local.status, creation.events, opts),
      adapter: null,
    };
  return { refund: created, adapter };
}

const adapterOf = (tx: Tx, scope: RowScope, payment: Payment) =>
  tx.adapter.findUnique({ where: { workspaceId_mode_kind: { ...scoped(scope), kind: payment.adapter ?? 'manual' } } });

export async function getRefund(ctx: Context, id: string): Promise<RefundRow> {
  const auth = authorize(ctx, 'svc:refund:read');
  const row = await inTenant(tenant(auth), (tx) => findScoped(tx.refund, auth, id, () => err.notFound('refund')));
  return { ...row, accountId: auth.accountId };
}

export async function listRefunds(ctx: Context, args: ListRefundsArgs) {
  const auth = authorize(ctx, 'svc:refund:read');
  refundList.check(args);
  const filters = refundList.values(args);
  return keysetList(
    { args, workspaceId: auth.workspaceId, filters, limit: refundList.limit, column: refundList.position },
    (ks) =>
      inTenant(tenant(auth), (tx) =>
        tx.refund.findMany({
          where: { ...scoped(auth), AND: [...refundList.prisma(args), ks.where] },
          orderBy: ks.orderBy,
          take: ks.take,
        }),
      ).then((rows) => rows.map((r) => ({ ...r, accountId: auth.accountId }))),
  );
}

/** spec Payment flow: settles a pending test-mode refund as a provider would. */
export async function simulateRefund(ctx: Context, id: string, outcome: string): Promise<RefundRow> {
  const auth = authorize(ctx, 'svc:refund:write');
  if (auth.mode !== 'test')
    throw new DomainError('forbidden_in_live_mode', 'Refunds are simulated in test mode only', { resource: 'refund' });
  if (outcome !== 'success' && outcome !== 'failure')
    throw err.validation('outcome', 'outcome must be success or failure');
  const scope = tenant(auth);
  const row = await inTenant(scope, async (tx) => {
    const found = await tx.refund.findFirst({
      where: { id, workspaceId: scope.workspaceId, mode: scope.mode },
      select: { paymentId: true },
    });
    if (!found) throw err.notFound('refund');
    const payment = await lockPayment(tx, scope, found.paymentId);
    const refund = await tx.refund.findUniqueOrThrow({ where: { id } });
    return applyRefundOutcome(
      tx,
      scope,
      refund,
      payment!,
      outcomeTrigger(refundMachine, 'refund', outcome === 'success' ? refundStatus.succeeded : refundStatus.failed),
      {
        accountId: auth.accountId,
        requestId: ctx.requestId,
        source: 'simulate',
        failureCode: 'simulated_failure',
        failureMessage: 'The refund failed (simulated)',
      },
    );
  });
  return { ...row, accountId: auth.accountId };
}
