/**
 * A setup session's completion and an attempt's failure (docs/guides/setup-sessions.md, Completion).
 * Completion is one transaction: the method is inserted with its token sealed and attached
 * (`payment_method.attached`, consent `{source, sourceId, at}`; the customer's first method or
 * `setDefault` becomes the default), the session's subscription takes it as its `paymentMethod`
 * (`subscription.updated`), and `svc.setup_session.completed.v1` is emitted. A token that became
 * active after its session ended is not attached: the caller detaches it at the provider after the
 * commit (as checkout's `paid_unapplied` money is given back).
 */
import { clock } from '../../core/clock.ts';
import { inTenant, type Mode } from '../../core/db/client.ts';
import { scopedRow } from '../../core/db/sql.ts';
import { DomainError } from '../../core/errors.ts';
import { logger } from '../../core/logger.ts';
import { emit } from '../../core/outbox.ts';
import { scoped, type RowScope } from '../../core/resource.ts';
import { canMove, nextState, statusesWhere } from '../../core/state-machine.ts';
import { toWire } from '../../core/wire.ts';
import { Prisma, type SetupAttempt, type SetupSession, type Subscription } from '../../generated/prisma/client.ts';
import type { SavedMethodDisplay } from '../../providers/types.ts';
import { attach, cardExpiry, checkSavedMethod, insertMethod, providerTokenHash } from '../payment-methods/service.ts';
import { lockCustomer } from '../customers/rows.ts';
import type { PaymentMethodType } from '../payment-methods/states.ts';
import { lockSubscriptions, moveSubscription } from '../subscriptions/moves.ts';
import { subscriptionLive } from '../subscriptions/states.ts';
import { clockTimeFor } from '../../core/business-time.ts';
import { setupSessionFields } from './fields.ts';
import { lockSetupSession, supersedeAttempts } from './service.ts';
import {
  setupAttemptMachine as attempts,
  setupSessionMachine as sessions,
  type SetupAttemptStatus,
  type SetupSessionStatus,
} from './states.ts';

type Scope = RowScope & { modes: readonly Mode[] };

/** What the provider (or the sandbox) confirmed: the reusable token, held in memory only. */
/** Display fields (the provider's expiry as ISO text, or a Date). */
export type Display = Omit<SavedMethodDisplay, 'expiresAt'> & { expiresAt?: string | Date | null };

export interface SavedToken {
  token: string;
  /** Display fields; built at the save's business time (the customer's clock). */
  display: (at: Date) => Display;
}

export interface Completion {
  session: SetupSession;
  /** False when the session had already ended: the token must be detached at the provider. */
  applied: boolean;
}

/** A session past its expiry is expired to the customer even before the sweep records it. */
export const effectiveStatus = (s: SetupSession): SetupSessionStatus =>
  canMove(sessions, s.status as SetupSessionStatus, 'expire') && s.expiresAt <= clock.now()
    ? nextState(sessions, s.status as SetupSessionStatus, 'expire').to
    : (s.status as SetupSessionStatus);

/** The method's expiry: the provider's, else a card's end of its expiry month, else none. */
function expiryOf(d: Display): Date | null {
  if (d.expiresAt) return new Date(d.expiresAt);
  if (d.card) return cardExpiry(d.card.expMonth, d.card.expYear);
  return null;
}

const accountIdOf = async (tx: Parameters<Parameters<typeof inTenant>[1]>[0], workspaceId: string) =>
  (await tx.workspace.findUniqueOrThrow({ where: { id: workspaceId }, select: { accountId: true } })).accountId;

/**
 * Completes session `sessionId` with the token attempt `attemptId` obtained (one transaction). A
 * repeated completion of the same attempt answers the session unchanged.
 */
export async function completeSetup(
  scope: Scope,
  sessionId: string,
  attemptId: string,
  saved: SavedToken,
  o: { source: string; requestId?: string },
): Promise<Completion> {
  return inTenant(scope, async (tx) => {
    const s = await lockSetupSession(tx, scope, sessionId);
    const a = await scopedRow<SetupAttempt>(tx, 'setup_attempts', scope, attemptId, { lock: true });
    if (!s || !a || a.setupSessionId !== s.id) throw new Error(`setup attempt ${attemptId} of ${sessionId} not found`);
    const now = clock.now();
    if (a.status === attempts.moves.complete.to) return { session: s, applied: true };
    if (a.status === attempts.moves.complete_unapplied.to) return { session: s, applied: true };
    const status = effectiveStatus(s);
    if (!canMove(sessions, status, 'complete')) {
      // The session ended (completed by another attempt, canceled, expired): the token is not kept.
      await tx.setupAttempt.update({
        where: { workspaceId_mode_id: { ...scoped(scope), id: a.id } },
        data: {
          status: nextState(attempts, a.status as SetupAttemptStatus, 'complete_unapplied').to,
          ...withoutReference(a),
          updatedAt: now,
        },
      });
      logger.warn({ setupSession: s.id, attempt: a.id, status }, 'token saved after its setup session ended: detached');
      return { session: s, applied: false };
    }
    const move = nextState(sessions, status, 'complete');
    const accountId = await accountIdOf(tx, scope.workspaceId);
    // Lock order (docs/guides/setup-sessions.md): session, customer, subscription, then the new method.
    const customer = await lockCustomer(tx, scope, s.customerId);
    const [sub] = s.subscriptionId ? await lockSubscriptions(tx, scope, [s.subscriptionId]) : [];
    const at = await clockTimeFor(tx, { ...scoped(scope), testClockId: customer.testClockId });
    const display = saved.display(at);
    const opts = { accountId, requestId: o.requestId, source: o.source, at };
    const method = await insertMethod(tx, scope, customer, {
      type: a.type as PaymentMethodType,
      adapter: a.adapter,
      display: { ...display, expiresAt: expiryOf(display) },
      consent: { source: s.consentSource, sourceId: s.id },
      metadata: null,
      token: saved.token,
      at,
    });
    await attach(tx, scope, customer, method, s.setDefault, opts);
    if (sub) await assignToSubscription(tx, scope, sub, method.id, s.currency, opts);
    await tx.setupAttempt.update({
      where: { workspaceId_mode_id: { ...scoped(scope), id: a.id } },
      data: {
        status: nextState(attempts, a.status as SetupAttemptStatus, 'complete').to,
        ...withoutReference(a),
        updatedAt: now,
      },
    });
    await supersedeAttempts(tx, scope, s.id, now, a.id);
    const row = await tx.setupSession.update({
      where: { workspaceId_mode_id: { ...scoped(scope), id: s.id } },
      data: {
        status: move.to,
        paymentMethodId: method.id,
        adapter: a.adapter,
        lastError: Prisma.DbNull,
        completedAt: now,
        updatedAt: now,
      },
    });
    for (const type of move.events)
      await emit(tx, scope, type, toWire({ ...row, accountId }, setupSessionFields), {
        requestId: o.requestId,
        source: o.source,
      });
    return { session: row, applied: true };
  });
}

/**
 * What an attempt that saved a token keeps of its provider reference: the hash (`providerTokenHash`, by
 * which token callbacks are routed; a provider_a reference is the charge token itself), and of its
 * instructions only their kind (the redirect URL may carry the reference). docs/security.md, Saved-method
 * tokens stay where they belong.
 */
export function withoutReference(a: Pick<SetupAttempt, 'adapter' | 'providerRef' | 'instructions'>) {
  const kind = (a.instructions as { kind?: unknown } | null)?.kind;
  return {
    providerRef: a.providerRef === null ? null : providerTokenHash(a.adapter, a.providerRef),
    instructions: typeof kind === 'string' ? { kind } : Prisma.DbNull,
  };
}

/**
 * The session's subscription takes the new method (the subscription's own rule decides whether it
 * may: subscriptions/service.ts via checkSavedMethod); a subscription that ended meanwhile keeps what
 * it had, and the method stays saved for the customer.
 */
async function assignToSubscription(
  tx: Parameters<Parameters<typeof inTenant>[1]>[0],
  scope: RowScope,
  sub: Subscription,
  methodId: string,
  currency: string,
  o: { requestId?: string; source: string; at: Date },
) {
  if (!(subscriptionLive as readonly string[]).includes(sub.status)) return;
  try {
    await checkSavedMethod(tx, scope, sub.customerId, sub.currency ?? currency, methodId);
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    logger.warn({ subscription: sub.id, method: methodId, reason: e.message }, 'saved method not assigned');
    return;
  }
  await moveSubscription(tx, scope, sub, null, { paymentMethod: methodId } as Partial<Subscription>, o);
}

/**
 * An attempt that failed (declined, wrong OTP, the provider refused or never answered): the attempt is
 * `failed` and the session, if still pending on it, open again with `lastError`; no event.
 */
export async function failSetup(
  scope: Scope,
  a: Pick<SetupAttempt, 'id' | 'setupSessionId' | 'number'>,
  lastError: { code: string; message: string },
): Promise<boolean> {
  const now = clock.now();
  return inTenant(scope, async (tx) => {
    const changed = await tx.setupAttempt.updateMany({
      where: { ...scoped(scope), id: a.id, status: { in: [...statusesWhereFail] } },
      data: { status: attempts.moves.fail.to, failureCode: lastError.code, updatedAt: now },
    });
    if (!changed.count) return false;
    await tx.setupSession.updateMany({
      where: {
        ...scoped(scope),
        id: a.setupSessionId,
        status: { in: [...statusesWhereFailed] },
        attemptCount: a.number,
      },
      data: { status: sessions.moves.attempt_failed.to, lastError, updatedAt: now },
    });
    return true;
  });
}

const statusesWhereFail = statusesWhere(attempts, 'fail');
const statusesWhereFailed = statusesWhere(sessions, 'attempt_failed');
