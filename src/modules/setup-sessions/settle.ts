// The provider's word on a setup attempt (`fetchSetup`, or `confirmSetup`'s answer), asked when the
// customer returns, a callback arrives or the sweep finds an attempt waiting; the session moves on it.
import { db, inTenant, type Mode } from '../../core/db/client.ts';
import { scopedRow } from '../../core/db/sql.ts';
import { clock } from '../../core/clock.ts';
import { errorsFor } from '../../core/errors.ts';
import { logger } from '../../core/logger.ts';
import type { RowScope } from '../../core/resource.ts';
import { scoped } from '../../core/resource.ts';
import { canMove, nextState, sqlIn, statusesWhere } from '../../core/state-machine.ts';
import { sql as sqlText } from '../../core/db/sql-template.ts';
import type { SetupAttempt } from '../../generated/prisma/client.ts';
import { isProviderError, MERCHANT_CUSTOMER_ID_LENGTH } from '../../providers/index.ts';
import { setupStatus, type SetupState } from '../../providers/types.ts';
import { providerFor } from '../adapters/providers.ts';
import { SANDBOX_ADAPTER } from '../payment-methods/service.ts';
import { completeSetup, failSetup, type SavedToken } from './complete.ts';
import {
  setupAttemptMachine as attempts,
  setupCompleted,
  type SetupAttemptStatus,
  setupAttemptWaiting,
} from './states.ts';
import { type Scope, type SetupNext, publicSetupStatusOf } from './hosted-session.ts';

const err = errorsFor('setup_session');

/** The current attempt of a session (the highest number), locked with it. */
export async function currentAttempt(scope: Scope, id: string) {
  return inTenant(scope, async (tx) => {
    const s = await tx.setupSession.findUnique({ where: { workspaceId_mode_id: { ...scoped(scope), id } } });
    if (!s) throw err.notFound('setup session');
    const a = s.attemptCount
      ? await tx.setupAttempt.findUnique({
          where: {
            workspaceId_mode_setupSessionId_number: { ...scoped(scope), setupSessionId: id, number: s.attemptCount },
          },
        })
      : null;
    const adapter =
      a && a.adapter !== SANDBOX_ADAPTER
        ? await tx.adapter.findUnique({ where: { workspaceId_mode_kind: { ...scoped(scope), kind: a.adapter } } })
        : null;
    return { s, a, adapter };
  });
}

const displayOf =
  (state: SetupState): SavedToken['display'] =>
  () =>
    state.display;

/**
 * Acts on the provider's word about attempt `attemptId` (asked by the caller: `fetchSetup` or
 * `confirmSetup`'s answer): active completes the session, failed or expired opens it again with
 * `lastError`, pending changes nothing.
 */
export async function applyState(scope: Scope, id: string, a: SetupAttempt, state: SetupState, source: string) {
  if (state.status === setupStatus.active && state.token) {
    const done = await completeSetup(scope, id, a.id, { token: state.token, display: displayOf(state) }, { source });
    if (!done.applied) await detachLate(scope, a, state.token);
    return done.session;
  }
  if (state.status === setupStatus.failed || state.status === setupStatus.expired) {
    const code = state.failureCode ?? (state.status === setupStatus.expired ? 'setup_expired' : 'setup_failed');
    await failSetup(scope, a, { code, message: `The provider did not save the payment method (${code})` });
  } else await releaseClaim(scope, a);
  return null;
}

/** Claims the attempt for its second step (compare-and-set on the status it was read in). */
export async function claimConfirm(scope: Scope, a: SetupAttempt): Promise<boolean> {
  if (!canMove(attempts, a.status as SetupAttemptStatus, 'claim_confirm')) return false;
  const claimed = await inTenant(scope, (tx) =>
    tx.setupAttempt.updateMany({
      where: { ...scoped(scope), id: a.id, status: a.status },
      data: { status: nextState(attempts, a.status as SetupAttemptStatus, 'claim_confirm').to, updatedAt: clock.now() },
    }),
  );
  return claimed.count === 1;
}

/** A claimed second step whose answer is not final: the attempt is open again for the next word. */
export const releaseClaim = (scope: Scope, a: SetupAttempt) =>
  inTenant(scope, (tx) =>
    tx.setupAttempt.updateMany({
      where: { ...scoped(scope), id: a.id, status: { in: statusesWhere(attempts, 'provider_pending') } },
      data: { status: attempts.moves.provider_pending.to, updatedAt: clock.now() },
    }),
  );

/** A token saved after its session ended: withdrawn at the provider after the commit (never kept). */
async function detachLate(scope: Scope, a: SetupAttempt, token: string) {
  if (a.adapter === SANDBOX_ADAPTER) return;
  const row = await inTenant(scope, (tx) =>
    tx.adapter.findUnique({ where: { workspaceId_mode_kind: { ...scoped(scope), kind: a.adapter } } }),
  );
  try {
    if (row) await providerFor(row).detachToken?.(token);
  } catch (e) {
    if (!isProviderError(e)) throw e;
    logger.error({ attempt: a.id, reason: e.message }, 'late setup token not detached at the provider');
  }
}

/** Asks the provider about the session's current attempt (the return URL and callbacks say when). */
export async function settleAttempt(
  scope: Scope,
  id: string,
  attemptId: string,
  provider: ReturnType<typeof providerFor>,
  source: string,
): Promise<SetupNext> {
  const a = await inTenant(scope, (tx) => scopedRow<SetupAttempt>(tx, 'setup_attempts', scope, attemptId));
  if (a?.providerRef && provider.fetchSetup) {
    try {
      let state = await provider.fetchSetup(a.providerRef);
      // An approved setup waiting for its exchange (PayPal's vault): claimed first, then exchanged, so two
      // returns or a return and a callback never both call the provider (as checkout claims a capture).
      // A direct-debit link waiting for its OTP waits for the customer instead.
      if (
        state.status === setupStatus.pending &&
        state.confirmable &&
        a.type !== 'direct_debit' &&
        provider.confirmSetup
      ) {
        if (!(await claimConfirm(scope, a))) return publicSetupStatusOf(scope, id);
        try {
          state = await provider.confirmSetup(a.providerRef, { idempotencyKey: `${a.idempotencyKey}:confirm` });
        } catch (e) {
          await releaseClaim(scope, a);
          throw e;
        }
      }
      await applyState(scope, id, a, state, source);
    } catch (e) {
      if (!isProviderError(e)) throw e;
      logger.warn({ attempt: a.id, reason: e.message }, 'setup status not fetched; the page asks again');
    }
  }
  return publicSetupStatusOf(scope, id);
}

/**
 * A provider said something happened to the setup `providerRef` of `adapter` (a token callback): the
 * provider is asked (fetchSetup) and the session moves on its answer. Unknown references are ignored,
 * and so are completed attempts (nothing is left to ask; they keep only the reference's hash).
 */
export async function settleSetupByRef(adapter: string, providerRef: string, tenant: RowScope): Promise<boolean> {
  const { rows } = await db().system.query<{ id: string; workspaceId: string; mode: Mode; setupSessionId: string }>(
    `SELECT id, "workspaceId", mode, "setupSessionId" FROM setup_attempts
     WHERE adapter = $1 AND "providerRef" = $2 AND "workspaceId" = $3 AND mode = $4 AND NOT (${savedAttempt})`,
    [adapter, providerRef, tenant.workspaceId, tenant.mode],
  );
  const r = rows[0];
  if (!r) return false;
  const scope: Scope = { workspaceId: r.workspaceId, mode: r.mode, modes: [r.mode] };
  const row = await inTenant(scope, (tx) =>
    tx.adapter.findUnique({ where: { workspaceId_mode_kind: { ...scoped(scope), kind: adapter } } }),
  );
  if (!row) return false;
  await settleAttempt(scope, r.setupSessionId, r.id, providerFor(row), 'callback');
  return true;
}

/** The SQL filter of attempts waiting at their provider (`a` the attempts' alias), for the callbacks' routing too. */
export const waitingAttempt = sqlIn(sqlText`a.status`, [setupAttemptWaiting]).text;
/** The SQL filter of attempts that saved a token (their `providerRef` is its hash: complete.ts withoutReference). */
const savedAttempt = sqlIn(sqlText`status`, [attempts.moves.complete.to, attempts.moves.complete_unapplied.to]).text;

/**
 * A token callback naming only the customer (`customerRef`, our id exactly as we sent it, cut to the
 * provider's length; provider_c): each open attempt of that customer's live setups at `adapter` is asked
 * (fetchSetup, then the exchange with the attempt's own key, which answers the token already vaulted).
 * True when one completed.
 */
export async function settleCustomerSetups(adapter: string, customerRef: string, tenant: RowScope): Promise<boolean> {
  const { rows } = await db().system.query<{ id: string; setupSessionId: string }>(
    `SELECT a.id, a."setupSessionId" FROM setup_attempts a
       JOIN setup_sessions s ON s."workspaceId" = a."workspaceId" AND s.mode = a.mode AND s.id = a."setupSessionId"
     WHERE a."workspaceId" = $1 AND a.mode = $2 AND a.adapter = $3 AND ${waitingAttempt}
       AND a."providerRef" IS NOT NULL AND left(s."customerId", ${MERCHANT_CUSTOMER_ID_LENGTH}) = $4::text
     ORDER BY a."createdAt" DESC LIMIT 10`,
    [tenant.workspaceId, tenant.mode, adapter, customerRef],
  );
  if (!rows.length) return false;
  const scope: Scope = { ...tenant, modes: [tenant.mode] };
  const row = await inTenant(scope, (tx) =>
    tx.adapter.findUnique({ where: { workspaceId_mode_kind: { ...scoped(scope), kind: adapter } } }),
  );
  if (!row) return false;
  let completed = false;
  for (const r of rows) {
    const now = await settleAttempt(scope, r.setupSessionId, r.id, providerFor(row), 'callback');
    if (now.status === setupCompleted) completed = true;
  }
  return completed;
}

/**
 * The provider's word on one attempt (the sweep: a crash between phases, a lost callback): `creating`
 * past the grace never reached the customer and fails; an attempt with a reference is asked (`fetchSetup`).
 */
export async function reconcileSetupAttempt(scope: Scope, a: SetupAttempt): Promise<boolean> {
  if (canMove(attempts, a.status as SetupAttemptStatus, 'record_setup'))
    return failSetup(scope, a, { code: 'provider_no_answer', message: 'The provider did not answer' });
  if (!a.providerRef || a.adapter === SANDBOX_ADAPTER) return false;
  const row = await inTenant(scope, (tx) =>
    tx.adapter.findUnique({ where: { workspaceId_mode_kind: { ...scoped(scope), kind: a.adapter } } }),
  );
  if (!row) return false;
  await settleAttempt(scope, a.setupSessionId, a.id, providerFor(row), 'sweep');
  return true;
}
