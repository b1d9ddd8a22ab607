/**
 * What the customer does on the hosted setup page `/s/<token>` (docs/guides/setup-sessions.md,
 * Hosted page): public, no signature; the token (`<ss_id>_<secret>`, src/core/hosted-link.ts) is the
 * capability. Every call resolves the session's workspace and mode first and then runs in that
 * tenant's transaction. Attempts copy checkout's three phases (checkout-sessions/hosted-attempt.ts): (1) one
 * short transaction supersedes the live attempts and inserts the new one `creating`; (2) the
 * provider's `createSetup` with no transaction open; (3) compare-and-set records its reference. A
 * provider's word is final only through `fetchSetup` (or `confirmSetup`'s answer): a return or a
 * callback says when to ask.
 */
import { inTenant } from '../../core/db/client.ts';
import { DomainError, errorsFor } from '../../core/errors.ts';
import { hostedBase } from '../../core/hosted.ts';
import { type Language, workspaceLanguage } from '../../core/i18n/index.ts';
import { scoped } from '../../core/resource.ts';
import { canMove } from '../../core/state-machine.ts';
import type { SetupAttempt } from '../../generated/prisma/client.ts';
import { isProviderError } from '../../providers/index.ts';
import type { SavedMethodType, SetupState } from '../../providers/types.ts';
import { providerFor } from '../adapters/providers.ts';
import { sandboxDisplay, sandboxToken, SANDBOX_ADAPTER } from '../payment-methods/service.ts';
import { scenarioNames, scenarios, type Scenario } from '../payment-methods/scenarios.ts';
import { savableOf, setupAdapters } from './adapters.ts';
import { completeSetup, effectiveStatus, failSetup, type Display } from './complete.ts';
import { cancelSetupSessionIn } from './service.ts';
import {
  setupAttemptMachine as attempts,
  setupSessionMachine as sessions,
  setupCompleted,
  type SetupAttemptStatus,
  type SetupSessionStatus,
} from './states.ts';
import { type Scope, type SetupNext, assertLive, publicSetupStatusOf, sessionOf } from './hosted-session.ts';
import { channelsOf } from './hosted-attempt.ts';
import { applyState, claimConfirm, currentAttempt, releaseClaim, settleAttempt } from './settle.ts';

export { setupAttempt } from './hosted-attempt.ts';
export { setupSuccessRedirect, type SetupNext } from './hosted-session.ts';

const err = errorsFor('setup_session');

/** Direct-debit OTP that the sandbox accepts (docs/guides/setup-sessions.md, Test mode). */
const SANDBOX_OTP = '222000';

/** What the setup page shows (src/hosted/setup-page.ts renders it). */
export interface SetupPageView {
  lang: Language;
  id: string;
  token: string;
  status: SetupSessionStatus;
  merchantName: string;
  /** The types the customer may save now (requested and served), each with the channels it needs. */
  types: { type: SavedMethodType; channels: readonly string[] }[];
  expiresAt: Date;
  timezone: string;
  testMode: boolean;
  successUrl: string;
  cancelUrl: string;
  /** The sandbox picker's scenarios (test mode, sandbox adapter). */
  scenarios: { name: Scenario; last4: string }[];
}

/** `GET /s/<token>`. */
export async function setupPageView(
  token: string,
  pick: (workspace: Language) => Language = (w) => w,
): Promise<SetupPageView> {
  const { id, scope } = await sessionOf(token);
  return inTenant(scope, async (tx) => {
    const s = await tx.setupSession.findUniqueOrThrow({ where: { workspaceId_mode_id: { ...scoped(scope), id } } });
    const workspace = await tx.workspace.findUniqueOrThrow({ where: { id: scope.workspaceId } });
    const adapters = await setupAdapters(tx, scope, s.currency);
    const savable = savableOf(adapters) as string[];
    return {
      lang: pick(workspaceLanguage(workspace.defaultCurrency)),
      id: s.id,
      token,
      status: effectiveStatus(s),
      merchantName: workspace.brandName ?? workspace.name,
      types: s.types
        .filter((t) => savable.includes(t))
        .map((t) => ({ type: t as SavedMethodType, channels: channelsOf(t) })),
      expiresAt: s.expiresAt,
      timezone: workspace.timezone,
      testMode: scope.mode === 'test',
      successUrl: s.successUrl,
      cancelUrl: s.cancelUrl,
      scenarios: scope.mode === 'test' ? scenarioNames.map((n) => ({ name: n, last4: scenarios[n].last4 })) : [],
    };
  });
}

/** `GET /s/<token>/return`: the provider sent the customer back; its word is asked, never the redirect's. */
export async function setupReturn(token: string): Promise<string> {
  const { id, scope } = await sessionOf(token);
  const { a, adapter } = await currentAttempt(scope, id);
  if (a && adapter && a.providerRef) await settleAttempt(scope, id, a.id, providerFor(adapter), 'hosted');
  const now = await publicSetupStatusOf(scope, id);
  return now.redirectUrl ?? `${hostedBase()}/s/${token}`;
}

/** `POST /s/<token>/attempt/otp` `{otp}` (direct debit). */
export async function setupOtp(token: string, body: Record<string, unknown>): Promise<SetupNext> {
  const { id, scope } = await sessionOf(token);
  const otp = body.otp;
  if (typeof otp !== 'string' || !/^[0-9]{4,8}$/.test(otp)) throw err.validation('otp', 'otp must be 4 to 8 digits');
  const { s, a, adapter } = await currentAttempt(scope, id);
  assertLive(s);
  if (!a || a.type !== 'direct_debit' || !canMove(attempts, a.status as SetupAttemptStatus, 'claim_confirm'))
    throw err.conflict('Nothing waits for a code: pick a method first');
  if (a.adapter === SANDBOX_ADAPTER) {
    if (otp !== SANDBOX_OTP) {
      await failSetup(scope, a, { code: 'invalid_otp', message: 'The code is not valid' });
      return publicSetupStatusOf(scope, id);
    }
    return sandboxComplete(scope, id, a, (a.scenario as Scenario | null) ?? 'success');
  }
  const provider = adapter ? providerFor(adapter) : null;
  if (!provider?.confirmSetup || !a.providerRef) throw err.conflict('This provider takes no code');
  // Claimed before the provider is called, as checkout claims a capture (`confirming`).
  if (!(await claimConfirm(scope, a))) throw err.conflict('The attempt changed meanwhile; try again');
  let state: SetupState;
  try {
    state = await provider.confirmSetup(a.providerRef, { otp, idempotencyKey: `${a.idempotencyKey}:otp:${otp}` });
  } catch (e) {
    if (!isProviderError(e)) throw e;
    await releaseClaim(scope, a);
    throw err.of('gateway_error', `The payment provider did not answer: ${e.message}`, 'otp');
  }
  await applyState(scope, id, { ...a, status: attempts.moves.claim_confirm.to }, state, 'hosted');
  return publicSetupStatusOf(scope, id);
}

/** The sandbox "tokenizes" in process: a `sbx_` token carrying the scenario's last four digits. */
async function sandboxComplete(scope: Scope, id: string, a: SetupAttempt, scenario: Scenario): Promise<SetupNext> {
  if (scenarios[scenario].setupFails) {
    await failSetup(scope, a, { code: 'card_declined', message: 'The card was declined while saving it' });
    return publicSetupStatusOf(scope, id);
  }
  const channel = a.channel ?? undefined;
  await completeSetup(
    scope,
    id,
    a.id,
    {
      token: sandboxToken(scenario),
      display: (at) => {
        const d = sandboxDisplay({ ewalletProvider: channel, bank: channel }, a.type as SavedMethodType, scenario, at);
        return d as Display;
      },
    },
    { source: 'sandbox' },
  );
  return publicSetupStatusOf(scope, id);
}

/** `POST /s/<token>/simulate` `{outcome, scenario?}`: test mode only, the sandbox's answer. */
export async function simulateSetup(token: string, body: Record<string, unknown>): Promise<SetupNext> {
  const { id, scope } = await sessionOf(token);
  if (scope.mode !== 'test')
    throw new DomainError('forbidden_in_live_mode', 'simulate is available in test mode only', {
      resource: 'setup_session',
    });
  const outcome = body.outcome;
  if (outcome !== 'success' && outcome !== 'failure')
    throw err.validation('outcome', 'outcome must be success or failure');
  const scenario = body.scenario ?? null;
  if (scenario !== null && !(scenarioNames as unknown[]).includes(scenario))
    throw err.validation('scenario', `scenario must be one of ${scenarioNames.join(', ')}`);
  const { s, a } = await currentAttempt(scope, id);
  if (s.status === setupCompleted) return publicSetupStatusOf(scope, id);
  const status = effectiveStatus(s);
  if (!canMove(sessions, status, 'complete')) throw err.conflict(`The setup session is ${status}`);
  if (!a || a.adapter !== SANDBOX_ADAPTER || !canMove(sessions, status, 'attempt_failed'))
    throw err.conflict('Nothing to simulate: pick a method first');
  if (outcome === 'failure') {
    await failSetup(scope, a, { code: 'card_declined', message: 'The sandbox declined saving the payment method' });
    return publicSetupStatusOf(scope, id);
  }
  return sandboxComplete(scope, id, a, (scenario as Scenario | null) ?? (a.scenario as Scenario | null) ?? 'success');
}

/** `POST /s/<token>/cancel`: the customer gives up; back to `cancelUrl`. */
export async function customerCancelSetup(token: string) {
  const { id, scope } = await sessionOf(token);
  const row = await inTenant(scope, (tx) => cancelSetupSessionIn(tx, scope, id));
  return { status: row.status, redirectUrl: row.cancelUrl };
}

/** `GET /s/<token>/status`: the page polls it while the provider works. */
export async function publicSetupStatus(token: string): Promise<SetupNext> {
  const { id, scope } = await sessionOf(token);
  return publicSetupStatusOf(scope, id);
}
