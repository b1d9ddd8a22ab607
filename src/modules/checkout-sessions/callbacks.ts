/**
 * POST /v1/callbacks/<provider> (DECISIONS §4). A callback only says "ask me": it is verified the
 * provider's way over the received bytes, deduplicated on the provider's event id, and the money
 * moves only after the provider confirms the charge (settleCharge). Everything for one callback
 * commits in one transaction: the provider event row, the session change, and on success the
 * payment, receipt, ledger and events. Repeated and late callbacks are answered 200 and change nothing.
 */
import { db, inTenant, type Mode } from '../../core/db/client.ts';
import { sha256Hex } from '../../core/crypto.ts';
import { newId } from '../../core/ids.ts';
import { clock } from '../../core/clock.ts';
import { logger } from '../../core/logger.ts';
import { DomainError } from '../../core/errors.ts';
import { isCallbackVerificationError, settleCharge, type CallbackRequest } from '../../providers/index.ts';
import { isOnline, providerFor, type OnlineKind } from '../adapters/providers.ts';
import { completeSession } from './complete.ts';
import { lockSession } from './service.ts';
import { isTerminal, transition, type SessionStatus } from './states.ts';
import { applyRefundCallback } from '../refunds/settle.ts';

type Tenant = { workspaceId: string; mode: Mode };

/** Which workspace and mode a callback claims to be for; verification then proves it. */
async function candidates(kind: OnlineKind, req: CallbackRequest): Promise<Tenant[]> {
  const sys = db().system;
  if (kind === 'provider_a') {
    const token = req.headers['x-callback-token'];
    if (typeof token !== 'string' || !token) return [];
    const { rows } = await sys.query<Tenant>(`SELECT "workspaceId", mode FROM adapters WHERE kind = 'provider_a' AND "callbackTokenHash" = $1`, [sha256Hex(token)]);
    return rows;
  }
  let body: Record<string, any>;
  try {
    body = JSON.parse(Buffer.from(req.rawBody).toString('utf8'));
  } catch {
    return [];
  }
  const ref = kind === 'provider_b' ? body?.order_id : (body?.resource?.supplementary_data?.related_ids?.order_id ?? body?.resource?.id);
  if (typeof ref !== 'string') return [];
  const { rows } = await sys.query<Tenant>(`SELECT DISTINCT "workspaceId", mode FROM checkout_sessions WHERE adapter = $1 AND "providerReference" = $2`, [kind, ref]);
  return rows;
}

const unauthenticated = () => new DomainError('invalid_signature', 'Callback verification failed');

export async function handleCallback(kind: string, req: CallbackRequest): Promise<{ outcome: string }> {
  if (!isOnline(kind)) throw new DomainError('not_found', `No callbacks for ${kind}`);
  let verified = false;
  // One provider account may be connected to several workspaces (one token): try each until the session is found.
  for (const tenant of await candidates(kind, req)) {
    const scope = { ...tenant, modes: [tenant.mode] };
    const adapter = await inTenant(scope, (tx) => tx.adapter.findUnique({ where: { workspaceId_mode_kind: { ...tenant, kind } } }));
    if (!adapter) continue;
    const provider = providerFor(adapter);
    let event;
    try {
      event = await provider.verifyCallback(req);
    } catch (e) {
      if (isCallbackVerificationError(e)) continue;
      throw e;
    }
    verified = true;
    if (event.type === 'refund') {
      // The provider's word, not the callback's, where it has a refund status API (provider_b).
      const confirmed = provider.confirmRefund ? await provider.confirmRefund(event) : event;
      if (confirmed.status === 'pending' && event.status !== 'pending') logger.warn({ provider: kind, refund: event.providerRefundId }, 'refund callback not confirmed by the provider; not applied');
      const applied = await applyRefundCallback(scope, kind, confirmed);
      if (applied) return applied;
      continue;
    }
    if (event.type !== 'charge') return { outcome: 'ignored' };
    const session = await inTenant(scope, (tx) => tx.checkoutSession.findFirst({ where: { ...tenant, adapter: kind, providerReference: event.providerRef } }));
    if (!session) continue;
    // The provider's word, not the callback's: confirm (and capture where needed) before money moves.
    const state = event.status === 'paid' || event.status === 'approved' ? await settleCharge(provider, event, { idempotencyKey: `${session.id}:capture` }) : event;
    return inTenant(scope, async (tx) => {
      const now = clock.now();
      const fresh = await tx.providerEvent.createMany({
        data: [{ id: newId('providerEvent'), ...tenant, provider: kind, providerEventId: `${event.providerEventId}:${state.status}`, type: 'charge', objectId: session.id, outcome: 'applied', payload: event.raw as object, receivedAt: now, processedAt: now }],
        skipDuplicates: true,
      });
      if (fresh.count === 0) return { outcome: 'duplicate' };
      const s = await lockSession(tx, tenant, session.id);
      if (!s || s.status === 'completed') return { outcome: 'duplicate' };
      if (isTerminal(s.status as SessionStatus)) {
        // Paid after expiry or cancel: nothing moves here; support refunds it at the provider.
        logger.warn({ session: s.id, status: s.status, provider: kind, providerStatus: state.status }, 'callback for a session that has ended');
        return { outcome: 'late' };
      }
      if (state.status === 'paid') {
        if (state.amount !== Number(s.amount) || state.currency !== s.currency) {
          logger.error({ session: s.id, provider: kind, amount: state.amount, currency: state.currency }, 'provider reports a different amount; not completing');
          return { outcome: 'amount_mismatch' };
        }
        await completeSession(tx, tenant, s, { trigger: 'provider_paid', adapter: kind, method: s.attemptMethod, providerReference: s.providerReference, source: `callback:${kind}` });
        return { outcome: 'completed' };
      }
      if ((state.status === 'failed' || state.status === 'expired') && s.status === 'pending') {
        await tx.checkoutSession.update({ where: { id: s.id }, data: { status: transition('pending', 'provider_failed'), failureCode: `provider_${state.status}`, updatedAt: now } });
        return { outcome: 'failed' };
      }
      return { outcome: 'pending' };
    });
  }
  if (verified) return { outcome: 'ignored' }; // authentic, but about nothing we track (e.g. made elsewhere)
  throw unauthenticated();
}
