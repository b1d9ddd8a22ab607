/**
 * Off-session charges waiting for an outcome (docs/guides/payment-methods.md, Requires action;
 * docs/decisions.md, Off-session outcomes): `requires_action` (the customer
 * authenticates, fails, chooses another way to pay, or lets it expire) and `pending` (the sandbox's
 * `async` delay, a provider answering later). Every outcome runs through collect.ts `reconcile` (the
 * one home of a charge's answer) and, when it failed, the dunning step (dunning.ts `afterAttempt`)
 * in the same transaction.
 */
import { clock } from '../../core/clock.ts';
import { db, inTenant, type Mode, type Tx } from '../../core/db/client.ts';
import { prismaSql, scopedRow, scopeOf, sql as q, tenantTx, type Sql } from '../../core/db/sql.ts';
import { DomainError, errorsFor } from '../../core/errors.ts';
import { Sweep } from '../../core/sweep.ts';
import type { RowScope } from '../../core/resource.ts';
import type { Payment } from '../../generated/prisma/client.ts';
import { paymentFailed, paymentInFlight, paymentPending, paymentRequiresAction } from '../payments/states.ts';
import { sqlStatus } from '../../core/state-machine.ts';
import { failedChargeDunned } from './hooks.ts';
import { savedMethods } from '../payment-methods/sandbox.ts';
import { isSavedMethodId } from '../payment-methods/service.ts';
import { clockTimeFor } from '../../core/business-time.ts';
import { chargeStoredMethod, payersOf, type ChargeResult, type CollectOutcome } from './charge.ts';
import { reconcile } from './reconcile.ts';
import type { ChargeEvent, Provider } from '../../providers/types.ts';
import { answerOf } from './offsession.ts';
import { registerPendingSweep } from './pending-wake.ts';
import { recordProviderEvent } from '../adapters/provider-events.ts';
import { afterAttempt, type Tenant } from './dunning.ts';

const err = errorsFor('payment');

/** Why a waiting action failed (docs/guides/payment-methods.md, Requires action): the customer declined, it expired, or another way to pay superseded it. */
export type ActionFailure = 'declined' | 'expired' | 'superseded';

const failureOf = (reason: ActionFailure): ChargeResult => ({
  ok: false,
  failureCode: 'authentication_required',
  failureMessage:
    reason === 'expired'
      ? 'The customer did not authenticate the payment in time.'
      : reason === 'superseded'
        ? 'The customer chose another way to pay.'
        : 'The customer did not authenticate the payment.',
});

/** The invoice's business time (its test clock's, or now). */
async function businessTimeOf(sql: Sql, scope: RowScope, invoiceId: string | null): Promise<Date> {
  if (!invoiceId) return clock.now();
  const [inv] = await sql.query<{ testClockId: string | null }>(
    q`SELECT "testClockId" FROM invoices WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
      AND id = ${invoiceId}`,
  );
  return clockTimeFor(sql, { ...scope, testClockId: inv?.testClockId ?? null });
}

/**
 * The outcome of a waiting charge, in one transaction: reconcile (paid, failed, waiting), then for a
 * failure of a renewal's invoice the dunning step (an incomplete subscription's first invoice keeps
 * its incomplete expiry instead: docs/billing.md, First charge).
 */
export async function settleWaiting(
  sql: Sql,
  t: Tenant,
  paymentId: string,
  result: ChargeResult,
  o: { at?: Date; source: string; requestId?: string; tx?: Tx },
): Promise<CollectOutcome> {
  const payment = await scopedRow<Payment>(sql, 'payments', t, paymentId);
  const at = o.at ?? (await businessTimeOf(sql, t, payment?.invoiceId ?? null));
  const outcome = await reconcile(sql, t, paymentId, result, at, {
    source: o.source,
    requestId: o.requestId,
    tx: o.tx,
  });
  const subscriptionId = outcome.outcome === paymentFailed ? outcome.invoice?.subscriptionId : null;
  if (subscriptionId && (await failedChargeDunned.run(sql, t, subscriptionId)).every(Boolean))
    await afterAttempt(sql, t, outcome.invoice!.id, outcome, at);
  return outcome;
}

/**
 * `POST /v1/payments/:id/simulate` and the sandbox's authenticate page (test mode only): the
 * outcome of a waiting off-session charge as the customer or the provider would give it. 409
 * `conflict` when the payment is not waiting or not an off-session charge.
 */
export async function simulateWaiting(
  t: Tenant,
  paymentId: string,
  outcome: string,
  o: { source: string; requestId?: string },
): Promise<Payment> {
  if (t.mode !== 'test')
    throw new DomainError('forbidden_in_live_mode', 'Payments are simulated in test mode only', {
      resource: 'payment',
    });
  if (outcome !== 'success' && outcome !== 'failure')
    throw err.validation('outcome', 'outcome must be success or failure');
  return tenantTx(scopeOf(t), async (sql) => {
    const payment = await scopedRow<Payment>(sql, 'payments', t, paymentId);
    if (!payment) throw err.notFound('payment');
    if (!payment.paymentMethodId || !payment.invoiceId)
      throw err.conflict('The payment is not an off-session charge; it cannot be simulated');
    if (!(paymentInFlight as string[]).includes(payment.status))
      throw err.conflict(`The payment is ${payment.status}; only pending or requires_action payments can be simulated`);
    const result: ChargeResult =
      outcome === 'success'
        ? { ok: true, providerReference: payment.providerReference ?? `ch_sbx_${payment.id}` }
        : payment.status === paymentRequiresAction
          ? failureOf('declined')
          : {
              ok: false,
              failureCode: payment.method === 'card' ? 'card_declined' : 'payment_declined',
              failureMessage: 'The payment was declined (simulated).',
            };
    const done = await settleWaiting(sql, t, paymentId, result, o);
    if (done.outcome === 'skipped') throw err.conflict('The payment was settled meanwhile');
    return (await scopedRow<Payment>(sql, 'payments', t, paymentId))!;
  });
}

/**
 * The other way to pay (`doc.payAnotherWay`) on the hosted invoice page: the invoice's `requires_action` charge fails
 * (`action_failed`, superseded) so the customer can pay on the page; its failure is a failed attempt
 * as any other. Returns whether one was waiting. The sandbox has nothing to void; a provider's late
 * success is refunded as money for an invoice already paid (docs/decisions.md).
 */
export async function supersedeAction(t: Tenant, invoiceId: string): Promise<boolean> {
  return tenantTx(scopeOf(t), async (sql) => {
    const [p] = await sql.query<{ id: string }>(
      q`SELECT id FROM payments WHERE "workspaceId" = ${t.workspaceId} AND mode = ${t.mode}
        AND "invoiceId" = ${invoiceId} AND status = ${sqlStatus(paymentRequiresAction)}`,
    );
    if (!p) return false;
    const out = await settleWaiting(sql, t, p.id, failureOf('superseded'), { source: 'hosted_invoice' });
    return out.outcome === paymentFailed;
  });
}

/** Waiting rows of every tenant, the per-tenant share first (round robin: one tenant's burst does not starve the others). */
async function claimRows(statement: string, values: unknown[]) {
  const { rows } = await db().system.query<{ id: string; workspaceId: string; mode: Mode; accountId: string }>(
    statement,
    values,
  );
  return rows;
}

/** Per tenant and round of a sweep pass: a workspace with many waiting charges takes its turn with the others. */
const PER_TENANT = 50;

/**
 * Expiry of `requires_action` charges (billing-tick on real time; the test clock's due kind
 * `action_expiry` on clock time): each one past `nextAction.expiresAt` fails (`action_failed`,
 * `authentication_required`) and runs the failure path. Each row alone (src/core/sweep.ts). Returns
 * how many expired.
 */
export async function expireActions(
  limit = 500,
  o: { scope: RowScope; testClockId: string; at: Date } | null = null,
): Promise<number> {
  const now = o?.at ?? clock.now();
  const rows = await claimRows(
    `SELECT id, "workspaceId", mode, "accountId" FROM (
       SELECT p.id, p."workspaceId", p.mode, w."accountId", p."nextAction"->>'expiresAt' AS "expiresAt",
         row_number() OVER (PARTITION BY p."workspaceId", p.mode ORDER BY p."nextAction"->>'expiresAt') AS turn
       FROM payments p JOIN invoices i ON i."workspaceId" = p."workspaceId" AND i.mode = p.mode AND i.id = p."invoiceId"
       JOIN workspaces w ON w.id = p."workspaceId"
       WHERE p.status = ${sqlStatus(paymentRequiresAction).text} AND (p."nextAction"->>'expiresAt') <= $1
         AND i."testClockId" IS NOT DISTINCT FROM $3::text
         AND ($4::text IS NULL OR (p."workspaceId" = $4 AND p.mode = $5))) due
     WHERE turn <= $6 ORDER BY turn, "expiresAt" LIMIT $2`,
    [now.toISOString(), limit, o?.testClockId ?? null, o?.scope.workspaceId ?? null, o?.scope.mode ?? null, PER_TENANT],
  );
  const sweep = await Sweep.one('payment_action_expiry', o?.scope);
  return sweep.rows(rows, (r) =>
    tenantTx(scopeOf(r), async (sql) => {
      const p = await scopedRow<Payment>(sql, 'payments', r, r.id);
      const expiresAt = (p?.nextAction as { expiresAt?: string } | null)?.expiresAt;
      if (!p || p.status !== paymentRequiresAction || !expiresAt || new Date(expiresAt) > now) return 0;
      const out = await settleWaiting(sql, r, r.id, failureOf('expired'), { at: now, source: 'sweep' });
      return out.outcome === paymentFailed ? 1 : 0;
    }),
  );
}

/** The earliest action expiry <= `upTo` of a test clock's waiting charges (its walk's next instant), or null. */
export async function nextActionExpiry(
  client: { query: (text: string, values: unknown[]) => Promise<{ rows: { at: string | null }[] }> },
  scope: RowScope,
  testClockId: string,
  upTo: Date,
): Promise<Date | null> {
  const { rows } = await client.query(
    `SELECT min(p."nextAction"->>'expiresAt') AS at FROM payments p
       JOIN invoices i ON i."workspaceId" = p."workspaceId" AND i.mode = p.mode AND i.id = p."invoiceId"
     WHERE p."workspaceId" = $1 AND p.mode = $2 AND i."testClockId" = $3 AND p.status = ${sqlStatus(paymentRequiresAction).text}
       AND (p."nextAction"->>'expiresAt') <= $4
       AND NOT EXISTS (SELECT 1 FROM sweep_quarantine sq WHERE sq."workspaceId" = p."workspaceId" AND sq.mode = p.mode
         AND sq.sweep = 'payment_action_expiry' AND sq."rowId" = p.id AND sq."retryAt" > $5)`,
    [scope.workspaceId, scope.mode, testClockId, upTo.toISOString(), clock.now()],
  );
  return rows[0]?.at ? new Date(rows[0].at) : null;
}

/**
 * The pending sweep of off-session charges (jobs/pending-sweep.ts): each `pending` charge whose lease
 * passed (`leaseUntil`, real time) is asked again: the sandbox's `async` answer, or the provider's
 * status (`fetchOffSession`, re-sent with the same idempotency key only when unknown), then reconciled
 * (waiting.ts `settleWaiting`). Still pending: a new lease. Each row alone (src/core/sweep.ts), a
 * share per tenant per pass. Returns how many it asked.
 */
export async function sweepPendingCharges(limit = 500, now = clock.now()): Promise<number> {
  const rows = await claimRows(
    `SELECT id, "workspaceId", mode, "accountId" FROM (
       SELECT p.id, p."workspaceId", p.mode, w."accountId", p."leaseUntil",
         row_number() OVER (PARTITION BY p."workspaceId", p.mode ORDER BY p."leaseUntil") AS turn
       FROM payments p JOIN workspaces w ON w.id = p."workspaceId"
       WHERE p.status = ${sqlStatus(paymentPending).text} AND p."leaseUntil" <= $1 AND p."paymentMethodId" IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM sweep_quarantine sq WHERE sq."workspaceId" = p."workspaceId" AND sq.mode = p.mode
           AND sq.sweep = 'offsession_pending' AND sq."rowId" = p.id AND sq."retryAt" > $1)) due
     WHERE turn <= $3 ORDER BY turn, "leaseUntil" LIMIT $2`,
    [now, limit, PER_TENANT],
  );
  const sweep = await Sweep.one('offsession_pending');
  return sweep.rows(rows, async (r) => {
    const t: Tenant = { workspaceId: r.workspaceId, mode: r.mode, accountId: r.accountId };
    const read = await tenantTx(scopeOf(t), async (sql) => {
      const p = await scopedRow<Payment>(sql, 'payments', t, r.id);
      if (!p || p.status !== paymentPending || !p.paymentMethodId || !p.leaseUntil || p.leaseUntil > now) return null;
      const saved = isSavedMethodId(p.paymentMethodId)
        ? ((await savedMethods(sql, t, [p.paymentMethodId])).get(p.paymentMethodId) ?? null)
        : null;
      return { p, saved, payer: p.customerId ? (await payersOf(sql, t, [p.customerId])).get(p.customerId)! : null };
    });
    if (!read) return 0;
    // The call happens with no transaction open (offsession.ts); a detached method's charge already
    // carries its token and is asked about all the same (its outcome is recorded).
    const result = await chargeStoredMethod(read.p.paymentMethodId!, read.p, read.saved, {
      scope: t,
      payer: read.payer,
      resume: true,
    });
    await inTenant({ workspaceId: t.workspaceId, modes: [t.mode] }, (tx) =>
      settleWaiting(prismaSql(tx), t, r.id, result, { source: 'sweep', tx }),
    );
    return 1;
  });
}

/** What an off-session callback did (answered to the provider and logged; no status of ours). */
type OffSessionOutcome = 'duplicate' | 'deferred' | 'ignored' | (string & {});

/**
 * A verified provider callback about an off-session charge (checkout-sessions/callbacks.ts routes
 * it here when it names one of our payments: its `pay_` reference, or the provider's reference we
 * stored). The callback only says when to ask: the provider's status (`fetchOffSession`) is
 * reconciled, in one transaction with the dunning step of a failure. A repeated or late callback
 * finds the payment no longer waiting and changes nothing. Null when it names no payment here.
 */
export async function applyOffSessionCallback(
  t: RowScope,
  provider: Provider,
  kind: string,
  event: ChargeEvent,
): Promise<{ outcome: OffSessionOutcome } | null> {
  // Two index lookups (by our id, by the provider's reference), never a scan of the tenant's payments:
  // a burst's callbacks arrive hundreds a second.
  const [p] = await tenantTx(scopeOf(t), (sql) =>
    sql.query<Payment>(
      q`(SELECT * FROM payments WHERE "workspaceId" = ${t.workspaceId} AND mode = ${t.mode} AND id = ${event.reference ?? ''}
          AND adapter = ${kind} AND "paymentMethodId" IS NOT NULL)
        UNION ALL
        (SELECT * FROM payments WHERE adapter = ${kind} AND "providerReference" = ${event.providerRef ?? ''}
          AND "workspaceId" = ${t.workspaceId} AND mode = ${t.mode} AND "paymentMethodId" IS NOT NULL)
        LIMIT 1`,
    ),
  );
  if (!p) return null;
  if (!(paymentInFlight as string[]).includes(p.status)) return { outcome: 'duplicate' };
  // Its charge's own call is still open (no answer recorded, the lease of the write running): that
  // call reconciles it, with its batch (docs/decisions.md, Off-session outcomes); settling it here
  // too would only make the two queue on the invoice and the ledger. A crashed caller's: the sweep.
  if (p.status === paymentPending && !p.providerReference && p.leaseUntil && p.leaseUntil > clock.now())
    return { outcome: 'deferred' };
  if (!provider.fetchOffSession) return { outcome: 'ignored' };
  const state = await provider.fetchOffSession({
    providerRef: p.providerReference ?? event.providerRef ?? null,
    reference: p.id,
    idempotencyKey: p.id,
  });
  if (!state) return { outcome: 'ignored' };
  const [ws] = (
    await db().system.query<{ accountId: string }>('SELECT "accountId" FROM workspaces WHERE id = $1', [t.workspaceId])
  ).rows;
  const tenant: Tenant = { workspaceId: t.workspaceId, mode: t.mode, accountId: ws.accountId };
  const out = await inTenant({ workspaceId: t.workspaceId, modes: [t.mode] }, async (tx) => {
    // Recorded with the state it was confirmed at, in the settling transaction: a callback sent again
    // (or by two deliveries at once) about the same state is answered `duplicate` and changes nothing.
    const fresh = await recordProviderEvent(tx, tenant, {
      provider: kind,
      providerEventId: event.providerEventId,
      status: state.status,
      type: 'charge',
      objectId: p.id,
      payload: event.raw,
    });
    if (!fresh) return null;
    return settleWaiting(prismaSql(tx), tenant, p.id, answerOf(state), { source: `callback:${kind}`, tx });
  });
  return { outcome: !out || out.outcome === 'skipped' ? 'duplicate' : out.outcome };
}

// The process timer of the sandbox's async delay runs this sweep (pending-wake.ts).
registerPendingSweep(() => sweepPendingCharges());
