/**
 * POST /v1/callbacks/<provider> (spec Payment flow). A callback only says "ask me": it is verified the
 * provider's way over the received bytes, matched against every attempt of every session (an old
 * VA may be the one paid), deduplicated on the provider's event id, and the money moves only after
 * the provider confirms it (fetchStatus; a capture only after the session is locked and checked,
 * claimCapture; refunds through confirmRefund where the provider has one). No provider call is made
 * inside a transaction. Everything the outcome changes commits in one transaction: the provider
 * event row, the attempt and session, and on success the payment, receipt, ledger and events (or
 * the unapplied posting, attempts.ts). Repeated and late callbacks are answered 200.
 */
import { db, inTenant } from '../../core/db/client.ts';
import { scopeOf, tenantTx } from '../../core/db/sql.ts';
import { settleCustomerSetups, settleSetupByRef, waitingAttempt } from '../setup-sessions/settle.ts';
import { providerTokenHash } from '../payment-methods/service.ts';
import { applyTokenRevocation } from '../payment-methods/provider-revocation.ts';
import { recordProviderEvent } from '../adapters/provider-events.ts';
import { sha256Hex } from '../../core/crypto.ts';
import { clock } from '../../core/clock.ts';
import { logger } from '../../core/logger.ts';
import { DomainError } from '../../core/errors.ts';
import { isId, prefixes } from '../../core/ids.ts';
import {
  isCallbackVerificationError,
  MERCHANT_CUSTOMER_ID_LENGTH,
  type CallbackEvent,
  type CallbackRequest,
  type ChargeEvent,
  type ChargeState,
} from '../../providers/index.ts';
import type { CheckoutAttempt } from '../../generated/prisma/client.ts';
import { recordUnapplied, voidAttempts, type Superseded } from './attempts.ts';
import { adapterRows, credentialSetOf, isOnline, providerFor, type OnlineKind } from '../adapters/providers.ts';
import { completeSession } from './complete.ts';
import { lockSession } from './service.ts';
import { canMove, nextState, statusesWhere } from '../../core/state-machine.ts';
import {
  checkoutAttemptMachine as attempts,
  checkoutSessionMachine as sessions,
  isTerminal,
  type AttemptStatus,
  type SessionStatus,
} from './states.ts';
import { applyRefundCallback } from '../refunds/settle.ts';
import { invoiceMachine, type InvoiceStatus } from '../invoices/states.ts';
import { refundLatePayment, submitLateRefund, type LateRefund } from './late-invoice-payment.ts';
import type { RowScope } from '../../core/resource.ts';
import { applyOffSessionCallback } from '../collection/waiting.ts';
import { chargeStatus, refundStatus, tokenStatus } from '../../providers/types.ts';

type Tenant = RowScope;

/**
 * The shortest reference a callback is routed by. Routing is by exact keys only (a reference we sent,
 * a token id, a hash), and an empty or short one is refused before any lookup: it could name many rows
 * (every attempt whose reference is empty), and each tenant found costs a verification.
 */
const MIN_REF_LENGTH = 6;
const exactRef = (v: unknown): string | null =>
  typeof v === 'string' && v.length >= MIN_REF_LENGTH && v.length <= 255 ? v : null;

/** A body field that names one of our payments (`pay_`), else null: routing only, the adapter verifies. */
const ourPaymentId = (v: unknown) => (isId('payment', v) ? v : null);

/** The customer a provider_c vault event names, exactly as we send it (our id cut to 22), else null. */
const ourCustomerRef = (v: unknown): string | null =>
  typeof v === 'string' && v.length === MERCHANT_CUSTOMER_ID_LENGTH && v.startsWith(`${prefixes.customer}_`) ? v : null;

/** Which workspace and mode a callback claims to be for; verification then proves it. */
async function candidates(kind: OnlineKind, req: CallbackRequest): Promise<Tenant[]> {
  const sys = db().system;
  let body: Record<string, any>;
  try {
    body = JSON.parse(Buffer.from(req.rawBody).toString('utf8'));
  } catch {
    body = {};
  }
  if (kind === 'provider_a') {
    const token = req.headers['x-callback-token'];
    if (typeof token !== 'string' || !token) return [];
    // Every workspace connected with this token, the one holding the payment the body names (a saved method's
    // charge: our `pay_` id in `reference_id`) first: a provider account connected to many workspaces then
    // costs one workspace's lookups per callback, not each one's in turn. Ordering only: the adapter verifies.
    const { rows } = await sys.query<Tenant>(
      `SELECT a."workspaceId", a.mode FROM adapters a WHERE a.kind = 'provider_a' AND a."callbackTokenHash" = $1
       ORDER BY EXISTS (SELECT 1 FROM payments p WHERE p.id = $2 AND p."workspaceId" = a."workspaceId"
         AND p.mode = a.mode AND p.adapter = a.kind) DESC`,
      [sha256Hex(token), ourPaymentId(body?.data?.reference_id)],
    );
    return rows;
  }
  // Token callbacks (docs/providers.md, Saved methods): a provider_b pay-account notification names the
  // GoPay account (`account_id`, no `order_id`); a provider_c vault event names the payment token.
  if (kind === 'provider_b' && body?.order_id === undefined && body?.account_id !== undefined) {
    const account = exactRef(body.account_id);
    return account ? tokenCandidates(kind, account, null) : [];
  }
  if (kind === 'provider_c' && String(body?.event_type ?? '').startsWith('VAULT.PAYMENT-TOKEN.')) {
    const id = exactRef(body?.resource?.id);
    if (!id) return [];
    // The provider_c token is the payment token id itself, so its hash finds an already-saved method.
    return tokenCandidates(kind, id, ourCustomerRef(body.resource.customer?.merchant_customer_id));
  }
  const ref = exactRef(
    kind === 'provider_b'
      ? body?.order_id
      : (body?.resource?.supplementary_data?.related_ids?.order_id ?? body?.resource?.id),
  );
  // Our `pay_` id where the provider echoes it (Midtrans `custom_field1`, PayPal `custom_id`): an
  // off-session charge whose answer was lost, or whose callback outran the answer, has no stored
  // provider reference yet (docs/providers.md, Saved methods). Routing only: the adapter verifies.
  const ours = ourPaymentId(
    kind === 'provider_b'
      ? body?.custom_field1
      : (body?.resource?.custom_id ?? body?.resource?.purchase_units?.[0]?.custom_id),
  );
  if (!ref && !ours) return [];
  // Every attempt, not only the session's current one: an old VA or order may be the one paid; and
  // off-session charges, by the provider's reference they answered with, or by our id.
  const { rows } = await sys.query<Tenant>(
    `SELECT "workspaceId", mode FROM checkout_attempts WHERE adapter = $1 AND "providerReference" = $2
     UNION SELECT "workspaceId", mode FROM payments WHERE adapter = $1 AND "providerReference" = $2
     UNION SELECT "workspaceId", mode FROM payments WHERE adapter = $1 AND id = $3`,
    [kind, ref, ours],
  );
  return rows;
}

/**
 * The tenants a token callback may be for, each by an exact key: the setup attempt whose provider reference
 * it names (or that reference's hash, all a completed attempt keeps), a saved method whose token hash it
 * gives (revocation of a method already saved), and, for a token whose setup reference is unknown
 * (provider_c: the exchange's answer was lost), the open setup attempts of the customer it names, exactly
 * as we sent it. Routing only: the adapter verifies, the provider is asked.
 */
async function tokenCandidates(kind: OnlineKind, ref: string, customerRef: string | null): Promise<Tenant[]> {
  const hash = providerTokenHash(kind, ref);
  const { rows } = await db().system.query<Tenant>(
    `SELECT "workspaceId", mode FROM setup_attempts WHERE adapter = $1 AND "providerRef" IN ($2, $3)
     UNION SELECT "workspaceId", mode FROM payment_methods WHERE adapter = $1 AND "providerTokenHash" = $3
     UNION SELECT a."workspaceId", a.mode FROM setup_attempts a
       JOIN setup_sessions s ON s."workspaceId" = a."workspaceId" AND s.mode = a.mode AND s.id = a."setupSessionId"
       WHERE $4::text IS NOT NULL AND a.adapter = $1 AND ${waitingAttempt} AND a."providerRef" IS NOT NULL
         AND left(s."customerId", ${MERCHANT_CUSTOMER_ID_LENGTH}) = $4::text`,
    [kind, ref, hash, customerRef],
  );
  return rows;
}

const unauthenticated = () => new DomainError('invalid_signature', 'Callback verification failed');

/** What a callback did, beyond a charge's outcome (answered to the provider and logged; no status of ours). */
type CallbackOutcome = 'applied' | 'ignored' | 'not_captured';

export async function handleCallback(
  kind: string,
  req: CallbackRequest,
): Promise<{ outcome: CallbackOutcome | (string & {}) }> {
  if (!isOnline(kind)) throw new DomainError('not_found', `No callbacks for ${kind}`);
  let verified = false;
  // Verified once per credential set: workspaces sharing one provider account share the verification call.
  const verifications = new Map<string, Promise<CallbackEvent>>();
  // One provider account may be connected to several workspaces (one token): try each until the session is found.
  for (const tenant of await candidates(kind, req)) {
    const scope = { ...tenant, modes: [tenant.mode] };
    const [adapter] = await tenantTx(scopeOf(tenant), (sql) => adapterRows(sql, tenant, [kind]));
    if (!adapter) continue;
    const provider = providerFor(adapter);
    const credentials = credentialSetOf(adapter);
    if (!verifications.has(credentials)) verifications.set(credentials, provider.verifyCallback(req));
    let event: CallbackEvent;
    try {
      event = await verifications.get(credentials)!;
    } catch (e) {
      if (isCallbackVerificationError(e)) continue;
      throw e;
    }
    verified = true;
    if (event.type === 'refund') {
      // The provider's word, not the callback's, where it has a refund status API (provider_b).
      const confirmed = provider.confirmRefund ? await provider.confirmRefund(event) : event;
      if (confirmed.status === refundStatus.pending && event.status !== refundStatus.pending)
        logger.warn(
          { provider: kind, refund: event.providerRefundId },
          'refund callback not confirmed by the provider; not applied',
        );
      const applied = await applyRefundCallback(scope, kind, confirmed);
      if (applied) return applied;
      continue;
    }
    // A saved method's token expired or revoked at the provider: the method moves (no charge of it after).
    if (event.type === 'token') {
      const moved = await applyTokenRevocation(tenant, kind, provider, event);
      if (moved) return moved;
    }
    // A saved token of a setup session became active or failed: the provider is asked (docs/guides/setup-sessions.md).
    // Not this tenant's setup: the next workspace sharing the provider account may own it.
    if (event.type === 'token' && (await settleSetupByRef(kind, event.tokenRef, tenant))) return { outcome: 'applied' };
    // A payment token that names no setup (provider_c, an exchange whose answer was lost): the customer's
    // open setups are asked, and the one the provider vaulted completes by the same exchange key.
    if (
      event.type === 'token' &&
      event.status === tokenStatus.active &&
      event.customerRef &&
      (await settleCustomerSetups(kind, event.customerRef, tenant))
    )
      return { outcome: 'applied' };
    if (event.type === 'token') continue;

    if (event.type !== 'charge') return { outcome: 'ignored' };
    // An off-session charge of a saved method (docs/guides/payment-methods.md, Off-session charges).
    const offSession = await applyOffSessionCallback(tenant, provider, kind, event);
    if (offSession) return offSession;
    const attempt = await inTenant(scope, (tx) =>
      tx.checkoutAttempt.findFirst({ where: { ...tenant, adapter: kind, providerReference: event.providerRef } }),
    );
    if (!attempt) continue;
    // The provider's word, not the callback's, before money moves.
    let state: ChargeState | ChargeEvent =
      event.status === chargeStatus.paid || event.status === chargeStatus.approved
        ? await provider.fetchStatus(event)
        : event;
    if (state.status === chargeStatus.approved && provider.capture) {
      // Lock and check before any capture: only the current attempt of a live session is captured.
      if (!(await claimCapture(tenant, attempt))) return { outcome: 'not_captured' };
      state = await provider.capture(event, { idempotencyKey: `${attempt.id}:capture` });
    }
    return applyCharge(tenant, kind, event, attempt, state);
  }
  if (verified) return { outcome: 'ignored' }; // authentic, but about nothing we track (e.g. made elsewhere)
  throw unauthenticated();
}

/**
 * Claims an approved attempt for capture (provider_c), committed before the capture call: the
 * session must still be payable and the attempt its current `open` one (or already claimed, a
 * repeated callback). Cancel refuses a session with an attempt being captured (service.ts).
 */
export async function claimCapture(tenant: Tenant, attempt: CheckoutAttempt): Promise<boolean> {
  return inTenant({ ...tenant, modes: [tenant.mode] }, async (tx) => {
    const s = await lockSession(tx, tenant, attempt.checkoutSessionId);
    if (!s || isTerminal(s.status) || s.expiresAt <= clock.now() || s.attemptCount !== attempt.number) return false;
    const claimed = await tx.checkoutAttempt.updateMany({
      where: { id: attempt.id, status: { in: statusesWhere(attempts, 'claim_capture') } },
      data: { status: attempts.moves.claim_capture.to, updatedAt: clock.now() },
    });
    return claimed.count === 1;
  });
}

/**
 * The confirmed state of one attempt, applied in one transaction: the provider event row (dedupe),
 * then, under the session's lock, completion (payment, receipt, ledger, events), an unapplied
 * payment when the session can no longer take it, or the failure. Attempts the completion
 * superseded are voided at their providers after the commit.
 */
export async function applyCharge(
  tenant: Tenant,
  kind: string,
  event: ChargeEvent,
  attempt: CheckoutAttempt,
  state: ChargeState | ChargeEvent,
): Promise<{ outcome: string }> {
  const scope = { ...tenant, modes: [tenant.mode] };
  /** What the callback did to the attempt (answered to the provider and logged; no status of ours). */
  type Applied = {
    outcome: 'duplicate' | 'amount_mismatch' | 'refunded' | 'unapplied' | 'completed' | 'failed' | 'late' | 'pending';
    superseded?: Superseded[];
    late?: LateRefund;
  };
  const result = await inTenant(scope, async (tx): Promise<Applied> => {
    const now = clock.now();
    const fresh = await recordProviderEvent(tx, tenant, {
      provider: kind,
      providerEventId: event.providerEventId,
      status: state.status,
      type: 'charge',
      objectId: attempt.checkoutSessionId,
      payload: event.raw,
    });
    if (!fresh) return { outcome: 'duplicate' };
    const s = await lockSession(tx, tenant, attempt.checkoutSessionId);
    const a = await tx.checkoutAttempt.findUniqueOrThrow({ where: { id: attempt.id } });
    if (!s || !canMove(attempts, a.status as AttemptStatus, 'pay')) return { outcome: 'duplicate' };
    if (state.status === chargeStatus.paid) {
      if (state.amount !== Number(a.amount) || state.currency !== a.currency) {
        logger.error(
          { session: s.id, attempt: a.id, provider: kind, amount: state.amount, currency: state.currency },
          'provider reports a different amount; not completing',
        );
        return { outcome: 'amount_mismatch' };
      }
      // The invoice it pays was paid another way or voided meanwhile (locked with the session): refunded.
      const invoice = s.invoiceId
        ? await tx.invoice.findFirst({ where: { ...tenant, id: s.invoiceId }, select: { status: true } })
        : null;
      if (invoice && !canMove(invoiceMachine, invoice.status as InvoiceStatus, 'pay')) {
        const late = await refundLatePayment(tx, tenant, s, a, state, invoice.status);
        return { outcome: 'refunded', late };
      }
      if (isTerminal(s.status)) {
        // Paid on an attempt after another was paid, or after the session ended: owed back, recorded.
        await recordUnapplied(tx, tenant, a, state, s.status);
        return { outcome: 'unapplied' };
      }
      const done = await completeSession(tx, tenant, s, {
        trigger: 'provider_paid',
        adapter: kind,
        method: a.method,
        providerReference: a.providerReference,
        source: `callback:${kind}`,
        attemptNumber: a.number,
        providerPaymentId: state.providerPaymentId ?? null,
        // A reusable token the provider's answer carried (a charge made with the customer's consent).
        saved: 'savedMethod' in state && state.savedMethod ? { method: state.savedMethod } : null,
      });
      return { outcome: 'completed', superseded: done.superseded };
    }
    if (state.status === chargeStatus.failed || state.status === chargeStatus.expired) {
      await tx.checkoutAttempt.updateMany({
        where: { id: a.id, status: { in: statusesWhere(attempts, 'provider_failed') } },
        data: { status: attempts.moves.provider_failed.to, updatedAt: now },
      });
      if (canMove(sessions, s.status as SessionStatus, 'provider_failed') && s.attemptCount === a.number) {
        await tx.checkoutSession.update({
          where: { id: s.id },
          data: {
            status: nextState(sessions, s.status as SessionStatus, 'provider_failed').to,
            failureCode: `provider_${state.status}`,
            updatedAt: now,
          },
        });
        return { outcome: 'failed' };
      }
      return { outcome: 'late' };
    }
    if (canMove(attempts, a.status as AttemptStatus, 'provider_pending'))
      await tx.checkoutAttempt.update({
        where: { id: a.id },
        data: { status: nextState(attempts, a.status as AttemptStatus, 'provider_pending').to, updatedAt: now },
      });
    return { outcome: isTerminal(s.status) ? 'late' : 'pending' };
  });
  if (result.superseded?.length) await voidAttempts(tenant, result.superseded);
  if (result.late) await submitLateRefund(result.late);
  return { outcome: result.outcome };
}
