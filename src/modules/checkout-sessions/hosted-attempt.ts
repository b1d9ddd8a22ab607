// An attempt from the hosted page, a provider operation (src/providers/operation.ts): pending in the
// tenant's transaction (the attempt written, the session locked), the provider's charge outside any
// transaction, then a compare-and-set of its answer.
import { inTenant } from '../../core/db/client.ts';
import { tenantTx } from '../../core/db/sql.ts';
import { errorsFor } from '../../core/errors.ts';
import { clock } from '../../core/clock.ts';
import { adaptersFor, sessionAdapterName, type AdapterKind, type PaymentMethod } from '../adapters/capabilities.ts';
import {
  adapterSourcesSql,
  enabledFrom,
  recordGatewayFailure,
  recordGatewaySuccess,
  type AdapterSources,
} from '../adapters/service.ts';
import { successRedirect } from './redirect.ts';
import { assertInvoicePayable } from './invoice-page.ts';
import { lockSessionWith } from './service.ts';
import { canMove, nextState, statusesWhere } from '../../core/state-machine.ts';
import {
  checkoutAttemptMachine as attempts,
  checkoutSessionMachine as sessions,
  type SessionStatus,
} from './states.ts';
import { callbackUrl, isOnline, providerFor, type OnlineKind } from '../adapters/providers.ts';
import { adapterMachine, type AdapterStatus } from '../adapters/states.ts';
import type { Charge, CreateChargeInput } from '../../providers/index.ts';
import { providerOperations, runProviderOperation } from '../../providers/operation.ts';
import type { Adapter, CheckoutAttempt } from '../../generated/prisma/client.ts';
import { failAttempt, newAttempt, recordCharge, voidAttempts, writeAttempt, type Superseded } from './attempts.ts';
import { newId } from '../../core/ids.ts';
import { methodDisplay } from '../adapters/display.ts';
import type { Language } from '../../core/i18n/index.ts';
import { attemptSaves, offeredMethods } from './save.ts';
import { type Scope, assertLive, sessionOf } from './hosted-session.ts';
import { type AttemptView, instructionsView, manualAttempt, sandboxAttempt } from './attempt-views.ts';

const err = errorsFor('checkout_session');

/** `lang`: the page's language (its script sends it). */
export async function attempt(
  token: string,
  method: string,
  lang: Language = 'en',
  savePaymentMethod?: unknown,
): Promise<AttemptView> {
  const { id, scope } = await sessionOf(token);
  return runProviderOperation<Pending, Charge, AttemptView>({
    name: providerOperations.checkoutAttempt,
    pending: async () => {
      const first = await beginAttempt(scope, id, method, lang, savePaymentMethod);
      // Whatever this attempt replaced is withdrawn at its provider, outside any transaction.
      if (first.superseded.length) await voidAttempts(scope, first.superseded);
      if ('view' in first) return { done: first.view };
      if (!first.adapter) {
        // Removed between the two statements of phase 1 (rare): nothing was called.
        await failAttempt(scope, first.attempt);
        throw err.of('gateway_error', `The ${first.kind} adapter is no longer connected`, 'method');
      }
      return { pending: { ...first, adapter: first.adapter } };
    },
    call: (p) => providerFor(p.adapter).createCharge(p.input),
    refused: async (p, e) => {
      // spec Adapter: the failed call sets status error and emits adapter.error (its own transaction).
      await failAttempt(scope, p.attempt);
      const code = e.reason === 'invalid_credentials' ? 'invalid_credentials' : 'gateway_error';
      await inTenant(scope, (tx) => recordGatewayFailure(tx, scope, p.kind, code));
      throw err.of('gateway_error', `The payment provider refused the attempt: ${e.message}`, 'method');
    },
    answer: async (p, charge) => {
      await recordAnswer(scope, p, charge);
      return {
        ...(await instructionsView(charge.instructions, methodDisplay(lang)[method as PaymentMethod].label, lang)),
        canDeclarePaid: false,
        canSimulate: false,
        waiting: true,
      };
    },
  });
}

type Pending = Extract<Begun, { attempt: CheckoutAttempt }> & { adapter: Adapter };

/** Phase 3: compare-and-set; a charge that lost its place meanwhile is voided, never shown. */
async function recordAnswer(scope: Scope, p: Pending, charge: Charge) {
  const { attempt: a, kind, adapter } = p;
  const current = await tenantTx(scope, (sql) => recordCharge(sql, scope, a, charge.providerRef, charge.instructions));
  if (!current) {
    // Keep the reference whatever happened meanwhile: if the void fails, a payment on it is still matched.
    await inTenant(
      scope,
      (tx) =>
        tx.$executeRaw`UPDATE checkout_attempts
        SET "providerReference" = coalesce("providerReference", ${charge.providerRef}),
        status = CASE WHEN status = ANY(${statusesWhere(attempts, 'supersede')}) THEN ${attempts.moves.supersede.to}
          ELSE status END, "updatedAt" = ${clock.now()}
        WHERE id = ${a.id} AND "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}`,
    );
    await voidAttempts(scope, [{ id: a.id, adapter: kind, providerReference: charge.providerRef }]);
    throw err.conflict('The checkout session changed while the payment was being prepared; pick a method again');
  }
  // spec Adapter: a successful call clears `error` (its own transaction, after the attempt commits).
  if (canMove(adapterMachine, adapter.status as AdapterStatus, 'gateway_succeeded'))
    await inTenant(scope, (tx) => recordGatewaySuccess(tx, scope, kind));
}

type Begun =
  | { superseded: Superseded[]; view: AttemptView }
  | {
      superseded: Superseded[];
      kind: OnlineKind;
      adapter: Adapter | null;
      attempt: CheckoutAttempt;
      input: CreateChargeInput;
    };

/**
 * Phase 1, on a bare `pg` transaction of two statements (the session locked with the enabled
 * adapters read beside it; then one write with COMMIT that supersedes the live attempts, inserts
 * the new one, updates the session and reads the adapter row). Manual and sandbox attempts are
 * complete here; an online one is `creating` until its provider answers (phase 3).
 */
function beginAttempt(scope: Scope, id: string, method: string, lang: Language, box: unknown): Promise<Begun> {
  return tenantTx(scope, async (sql) => {
    const locked = await lockSessionWith<AdapterSources>(
      sql,
      scope,
      id,
      adapterSourcesSql(scope.workspaceId, scope.mode),
    );
    const s = assertLive(locked?.session);
    if (s.invoiceId) await assertInvoicePayable(sql, scope, s.invoiceId);
    const offered = offeredMethods(s.savePaymentMethod, s.methods);
    if (!offered.includes(method)) throw err.validation('method', `method must be one of ${offered.join(', ')}`);
    // The consent box (implied by `required`); recorded on the attempt, read again at completion.
    const saves = attemptSaves(s.savePaymentMethod, method, box);
    const enabled = enabledFrom(locked!.also, scope.mode);
    const [kind] = adaptersFor(enabled, scope.mode, method, s.currency) as AdapterKind[];
    if (!kind)
      throw err.of('no_adapter_supports_methods', `No enabled adapter serves ${method} in ${s.currency}`, 'method');
    if (kind !== 'manual' && !(kind === 'managed' && scope.mode === 'test') && !isOnline(kind)) {
      throw err.of('gateway_error', `The ${kind} adapter cannot take hosted payments in live mode yet`, 'method');
    }
    const now = clock.now();
    const adapterName = sessionAdapterName(kind);
    const base = {
      adapter: adapterName,
      attemptMethod: method,
      attemptCount: s.attemptCount + 1,
      attemptedAt: now,
      updatedAt: now,
      failureCode: null,
      failureMessage: null,
    };
    const write = (
      status: SessionStatus,
      providerReference: string | null,
      attemptData: unknown,
      online: OnlineKind | null,
    ) =>
      writeAttempt(
        sql,
        scope,
        id,
        newAttempt(scope, s, {
          id: newId('checkoutAttempt'),
          adapter: adapterName,
          method,
          created: online ? 'create' : 'create_open',
          providerReference,
          attemptData,
          savePaymentMethod: saves,
        }),
        { ...base, status, providerReference, attemptData },
        online,
      );
    if (kind === 'manual') {
      const publicConfig = enabled.find((a) => a.kind === 'manual')!.publicConfig;
      const { superseded } = await write(
        nextState(sessions, s.status as SessionStatus, 'attempt_manual').to,
        null,
        { kind: 'manual' },
        null,
      );
      return {
        superseded,
        view: { ...manualAttempt(publicConfig, lang), canDeclarePaid: true, canSimulate: false, waiting: false },
      };
    }
    if (kind === 'managed') {
      const a = await sandboxAttempt(s, method as PaymentMethod, lang);
      const { superseded } = await write(
        nextState(sessions, s.status as SessionStatus, 'attempt_online').to,
        a.ref,
        a.data,
        null,
      );
      return { superseded, view: { ...a.view, canDeclarePaid: false, canSimulate: true, waiting: true } };
    }
    const online = kind as OnlineKind;
    const attemptRow = newAttempt(scope, s, {
      id: newId('checkoutAttempt'),
      adapter: adapterName,
      method,
      created: 'create',
      providerReference: null,
      attemptData: null,
      savePaymentMethod: saves,
    });
    // The session is pending on an attempt whose charge does not exist yet: no reference, no instructions.
    const { superseded, adapter } = await writeAttempt(
      sql,
      scope,
      id,
      attemptRow,
      {
        ...base,
        status: nextState(sessions, s.status as SessionStatus, 'attempt_online').to,
        providerReference: null,
        attemptData: null,
      },
      online,
    );
    const input: CreateChargeInput = {
      reference: s.id,
      amount: Number(s.amount),
      currency: s.currency,
      method: method as PaymentMethod,
      expiresAt: s.expiresAt,
      successUrl: successRedirect(s.successUrl, s.id),
      cancelUrl: s.cancelUrl,
      callbackUrl: callbackUrl(online),
      idempotencyKey: attemptRow.idempotencyKey,
      description: `Checkout ${s.id}`,
      ...(saves ? { saveForFutureUse: true, customerId: s.customerId } : {}),
    };
    return { superseded, kind: online, adapter, attempt: attemptRow, input };
  });
}
