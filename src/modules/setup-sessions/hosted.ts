/**
 * What the customer does on the hosted setup page `/s/<token>` (docs/guides/setup-sessions.md,
 * Hosted page): public, no signature; the token (`<ss_id>_<secret>`, src/core/hosted-link.ts) is the
 * capability. Every call resolves the session's workspace and mode first and then runs in that
 * tenant's transaction. Attempts copy checkout's three phases (checkout-sessions/hosted.ts): (1) one
 * short transaction supersedes the live attempts and inserts the new one `creating`; (2) the
 * provider's `createSetup` with no transaction open; (3) compare-and-set records its reference. A
 * provider's word is final only through `fetchSetup` (or `confirmSetup`'s answer): a return or a
 * callback says when to ask.
 */
import { db, inTenant, type Mode } from '../../core/db/client.ts';
import { scopedRow } from '../../core/db/sql.ts';
import { BoundedCache } from '../../core/bounded-cache.ts';
import { clock } from '../../core/clock.ts';
import { DomainError, errorsFor } from '../../core/errors.ts';
import { hostedBase } from '../../core/hosted.ts';
import { hostedSecretMatches, parseHostedToken } from '../../core/hosted-link.ts';
import { newId } from '../../core/ids.ts';
import { type Language, workspaceLanguage } from '../../core/i18n/index.ts';
import { logger } from '../../core/logger.ts';
import type { RowScope } from '../../core/resource.ts';
import { scoped } from '../../core/resource.ts';
import { canMove, nextState, sqlIn, statusesWhere } from '../../core/state-machine.ts';
import { sql as sqlText } from '../../core/db/sql-template.ts';
import { looksLikeCardNumber } from '../../core/validation.ts';
import type { Adapter, SetupAttempt, SetupSession } from '../../generated/prisma/client.ts';
import { isProviderError, MERCHANT_CUSTOMER_ID_LENGTH } from '../../providers/index.ts';
import { setupStatus, type SavedMethodType, type SetupState } from '../../providers/types.ts';
import { callbackUrl, providerFor, type OnlineKind } from '../adapters/providers.ts';
import { sandboxDisplay, sandboxToken, SANDBOX_ADAPTER } from '../payment-methods/service.ts';
import { scenarioNames, scenarioOf, scenarios, type Scenario } from '../payment-methods/scenarios.ts';
import { adapterFor, savableOf, setupAdapters } from './adapters.ts';
import { completeSetup, effectiveStatus, failSetup, type Display, type SavedToken } from './complete.ts';
import { cancelSetupSessionIn, lockSetupSession, supersedeAttempts } from './service.ts';
import {
  setupAttemptMachine as attempts,
  setupSessionMachine as sessions,
  setupCompleted,
  type SetupAttemptStatus,
  type SetupSessionStatus,
  setupAttemptWaiting,
} from './states.ts';

const err = errorsFor('setup_session');
type Scope = RowScope & { modes: readonly Mode[] };

/** At most this many attempts per session (card testing: docs/guides/setup-sessions.md). */
export const MAX_SETUP_ATTEMPTS = 10;
/** Direct-debit OTP that the sandbox accepts (docs/guides/setup-sessions.md, Test mode). */
const SANDBOX_OTP = '222000';
const ewallets = ['ovo', 'dana', 'shopeepay', 'gopay', 'linkaja'] as const;
const banks = ['bri', 'mandiri', 'bca', 'bni'] as const;

// A session's workspace, mode and secret never change: remembered for the page's next calls (only
// tokens that matched are kept, at most 10,000).
const scopes = new BoundedCache<string, { scope: Scope; secret: string }>(10_000);

/** The session id and tenant of a hosted token; 404 alike for a malformed token, an unknown session and a wrong secret. */
async function sessionOf(token: string): Promise<{ id: string; scope: Scope }> {
  const parsed = parseHostedToken('setupSession', token);
  if (!parsed) throw err.notFound('setup session');
  const { id, secret } = parsed;
  let known = scopes.get(id);
  if (!known) {
    const { rows } = await db().system.query<{ workspaceId: string; mode: Mode; hostedSecret: string }>(
      `SELECT "workspaceId", mode, "hostedSecret" FROM setup_sessions WHERE id = $1`,
      [id],
    );
    const row = rows[0];
    if (!row || !hostedSecretMatches(row.hostedSecret, secret)) throw err.notFound('setup session');
    known = { scope: { workspaceId: row.workspaceId, mode: row.mode, modes: [row.mode] }, secret: row.hostedSecret };
    scopes.set(id, known);
  } else if (!hostedSecretMatches(known.secret, secret)) {
    throw err.notFound('setup session');
  }
  return { id, scope: known.scope };
}

/** A session that can still take an attempt. */
function assertLive(s: SetupSession | null): SetupSession {
  if (!s) throw err.notFound('setup session');
  const status = effectiveStatus(s);
  if (!canMove(sessions, status, 'attempt')) throw err.conflict(`The setup session is ${status}`);
  return s;
}

/** `successUrl` with `?setup_session_id=`. */
export const setupSuccessRedirect = (successUrl: string, id: string) => {
  const u = new URL(successUrl);
  u.searchParams.set('setup_session_id', id);
  return u.toString();
};

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

const channelsOf = (type: string): readonly string[] =>
  type === 'ewallet' ? ewallets : type === 'direct_debit' ? banks : [];

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

/** The answer of an attempt: what the customer does next. */
export interface SetupNext {
  status: SetupSessionStatus;
  next: { kind: 'redirect'; redirectUrl: string } | { kind: 'otp' } | { kind: 'sandbox' } | null;
  redirectUrl?: string;
  lastError?: unknown;
}

function attemptInput(body: Record<string, unknown>) {
  const type = body.type;
  if (typeof type !== 'string') throw err.validation('type', 'type is required');
  const channel = body.channel == null ? null : body.channel;
  if (channel !== null && typeof channel !== 'string') throw err.validation('channel', 'channel must be a string');
  const phone = body.phone == null ? null : body.phone;
  if (phone !== null && (typeof phone !== 'string' || !/^\+?[0-9][0-9 -]{3,24}$/.test(phone)))
    throw err.validation('phone', 'phone must be a phone number or account number');
  // No card number ever reaches the service (docs/security.md): cards are typed on the provider's page.
  if (phone && looksLikeCardNumber(phone))
    throw err.validation('phone', 'card numbers are typed on the provider page, never here');
  const channels = channelsOf(type);
  if (channel !== null && !channels.includes(channel))
    throw err.validation('channel', channels.length ? `channel must be one of ${channels.join(', ')}` : 'no channel');
  return { type, channel: channel ?? channels[0] ?? null, phone };
}

/** `POST /s/<token>/attempt` `{type, channel?, phone?}`. */
export async function setupAttempt(token: string, body: Record<string, unknown>): Promise<SetupNext> {
  const { id, scope } = await sessionOf(token);
  const input = attemptInput(body);
  const begun = await beginAttempt(scope, id, input);
  if (!begun.adapter) {
    // The sandbox tokenizes in process: the page offers its scenario picker (or the OTP for direct debit).
    return { status: begun.session.status as SetupSessionStatus, next: { kind: begun.otp ? 'otp' : 'sandbox' } };
  }
  const a = begun.attempt;
  const provider = providerFor(begun.adapter);
  if (!provider.createSetup) {
    await failSetup(scope, a, { code: 'gateway_error', message: 'The provider cannot save payment methods' });
    throw err.of('gateway_error', 'The provider cannot save payment methods', 'type');
  }
  let setup;
  try {
    // Phase 2: no transaction open, no session lock.
    setup = await provider.createSetup({
      reference: a.id,
      type: input.type as SavedMethodType,
      channel: input.channel ?? undefined,
      account: input.phone,
      customer: { id: begun.session.customerId, ...begun.customer },
      currency: begun.session.currency,
      returnUrl: `${hostedBase()}/s/${token}/return`,
      cancelUrl: `${hostedBase()}/s/${token}`,
      callbackUrl: callbackUrl(a.adapter as OnlineKind),
      idempotencyKey: a.idempotencyKey,
    });
  } catch (e) {
    if (!isProviderError(e)) throw e;
    await failSetup(scope, a, { code: 'gateway_error', message: e.message });
    throw err.of('gateway_error', `The payment provider refused the attempt: ${e.message}`, 'type');
  }
  // Phase 3: compare-and-set; a setup that lost its place meanwhile is never shown.
  const current = await recordSetup(scope, a, setup.providerRef, setup.instructions);
  if (!current) throw err.conflict('The setup session changed while the provider was called; pick a method again');
  if (setup.status === setupStatus.active || setup.status === setupStatus.failed)
    return settleAttempt(scope, id, a.id, provider, 'hosted');
  return { status: sessions.moves.attempt.to, next: setup.instructions };
}

/** Phase 3: `creating` -> `open` with its reference, while the session is still pending on it. */
async function recordSetup(scope: Scope, a: SetupAttempt, providerRef: string, instructions: unknown) {
  return inTenant(scope, async (tx) => {
    const s = await lockSetupSession(tx, scope, a.setupSessionId);
    const updated = await tx.setupAttempt.updateMany({
      where: { ...scoped(scope), id: a.id, status: { in: [...recordable] } },
      data: {
        status: attempts.moves.record_setup.to,
        providerRef,
        instructions: (instructions ?? undefined) as never,
        updatedAt: clock.now(),
      },
    });
    if (!updated.count) return false;
    const live = s && s.attemptCount === a.number && canMove(sessions, effectiveStatus(s), 'attempt_failed');
    if (!live) await supersedeAttempts(tx, scope, a.setupSessionId, clock.now());
    return live;
  });
}
const recordable = statusesWhere(attempts, 'record_setup');

interface Begun {
  session: SetupSession;
  attempt: SetupAttempt;
  adapter: Adapter | null;
  customer: { name: string | null; email: string | null; phone: string | null };
  otp: boolean;
}

/** Phase 1: one short transaction. The sandbox's attempt is `open` at once; a provider's `creating`. */
function beginAttempt(
  scope: Scope,
  id: string,
  input: { type: string; channel: string | null; phone: string | null },
): Promise<Begun> {
  return inTenant(scope, async (tx) => {
    const s = assertLive(await lockSetupSession(tx, scope, id));
    if (!s.types.includes(input.type)) throw err.validation('type', `type must be one of ${s.types.join(', ')}`);
    if (s.attemptCount >= MAX_SETUP_ATTEMPTS)
      throw err.conflict(`This setup session has had its ${MAX_SETUP_ATTEMPTS} attempts; ask for a new link`);
    const chosen = adapterFor(await setupAdapters(tx, scope, s.currency), input.type);
    if (!chosen)
      throw err.of('no_adapter_supports_methods', `No enabled adapter saves ${input.type} in ${s.currency}`, 'type');
    const now = clock.now();
    const number = s.attemptCount + 1;
    const sandbox = chosen.row === null;
    await supersedeAttempts(tx, scope, id, now);
    const attempt = await tx.setupAttempt.create({
      data: {
        id: newId('setupAttempt'),
        ...scoped(scope),
        setupSessionId: id,
        number,
        adapter: chosen.name,
        type: input.type,
        channel: input.channel,
        status: nextState(attempts, null, sandbox ? 'create_open' : 'create').to,
        // The sandbox's scenario rides in the account's last four digits (a phone or account typed).
        scenario: sandbox && input.phone ? scenarioOf(input.phone) : null,
        idempotencyKey: `${id}:${number}`,
        createdAt: now,
        updatedAt: now,
      },
    });
    const session = await tx.setupSession.update({
      where: { workspaceId_mode_id: { ...scoped(scope), id } },
      data: {
        status: nextState(sessions, s.status as SetupSessionStatus, 'attempt').to,
        adapter: chosen.name,
        attemptCount: number,
        updatedAt: now,
      },
    });
    const customer = await tx.customer.findUniqueOrThrow({
      where: { workspaceId_mode_id: { ...scoped(scope), id: s.customerId } },
      select: { name: true, email: true, phone: true },
    });
    return { session, attempt, adapter: chosen.row, customer, otp: sandbox && input.type === 'direct_debit' };
  });
}

/** The current attempt of a session (the highest number), locked with it. */
async function currentAttempt(scope: Scope, id: string) {
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
async function applyState(scope: Scope, id: string, a: SetupAttempt, state: SetupState, source: string) {
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
async function claimConfirm(scope: Scope, a: SetupAttempt): Promise<boolean> {
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
const releaseClaim = (scope: Scope, a: SetupAttempt) =>
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
async function settleAttempt(
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

async function publicSetupStatusOf(scope: Scope, id: string): Promise<SetupNext> {
  const s = await inTenant(scope, (tx) => scopedRow<SetupSession>(tx, 'setup_sessions', scope, id));
  if (!s) throw err.notFound('setup session');
  const status = effectiveStatus(s);
  return {
    status,
    next: null,
    lastError: s.lastError,
    ...(status === setupCompleted ? { redirectUrl: setupSuccessRedirect(s.successUrl, s.id) } : {}),
  };
}

/** `GET /s/<token>/status`: the page polls it while the provider works. */
export async function publicSetupStatus(token: string): Promise<SetupNext> {
  const { id, scope } = await sessionOf(token);
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
