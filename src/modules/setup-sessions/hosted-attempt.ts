// An attempt from the hosted setup page, a provider operation (src/providers/operation.ts): one short
// transaction writes it, the provider's `createSetup` runs with no transaction open, and a
// compare-and-set records its reference.
import { inTenant } from '../../core/db/client.ts';
import { clock } from '../../core/clock.ts';
import { errorsFor } from '../../core/errors.ts';
import { hostedBase } from '../../core/hosted.ts';
import { newId } from '../../core/ids.ts';
import { scoped } from '../../core/resource.ts';
import { canMove, nextState, statusesWhere } from '../../core/state-machine.ts';
import { looksLikeCardNumber } from '../../core/validation.ts';
import type { Adapter, SetupAttempt, SetupSession } from '../../generated/prisma/client.ts';
import { providerOperations, runProviderOperation } from '../../providers/operation.ts';
import { setupStatus, type Provider, type SavedMethodType, type SetupResult } from '../../providers/types.ts';
import { callbackUrl, providerFor, type OnlineKind } from '../adapters/providers.ts';
import { scenarioOf } from '../payment-methods/scenarios.ts';
import { adapterFor, setupAdapters } from './adapters.ts';
import { effectiveStatus, failSetup } from './complete.ts';
import { lockSetupSession, supersedeAttempts } from './service.ts';
import { setupAttemptMachine as attempts, setupSessionMachine as sessions, type SetupSessionStatus } from './states.ts';
import { type Scope, type SetupNext, assertLive, sessionOf } from './hosted-session.ts';
import { settleAttempt } from './settle.ts';

const err = errorsFor('setup_session');

/** At most this many attempts per session (card testing: docs/guides/setup-sessions.md). */
export const MAX_SETUP_ATTEMPTS = 10;

const ewallets = ['ovo', 'dana', 'shopeepay', 'gopay', 'linkaja'] as const;
const banks = ['bri', 'mandiri', 'bca', 'bni'] as const;

export const channelsOf = (type: string): readonly string[] =>
  type === 'ewallet' ? ewallets : type === 'direct_debit' ? banks : [];

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
  return runProviderOperation<Pending, SetupResult, SetupNext>({
    name: providerOperations.setupAttempt,
    pending: async () => {
      const begun = await beginAttempt(scope, id, input);
      if (!begun.adapter) {
        // The sandbox tokenizes in process: the page offers its scenario picker (or the OTP for direct debit).
        const next = { kind: begun.otp ? 'otp' : 'sandbox' } as const;
        return { done: { status: begun.session.status as SetupSessionStatus, next } };
      }
      const provider = providerFor(begun.adapter);
      if (!provider.createSetup) {
        const message = 'The provider cannot save payment methods';
        await failSetup(scope, begun.attempt, { code: 'gateway_error', message });
        throw err.of('gateway_error', message, 'type');
      }
      return { pending: { ...begun, provider } };
    },
    // pending refused a provider without createSetup.
    call: ({ attempt: a, session, customer, provider }) =>
      provider.createSetup!({
        reference: a.id,
        type: input.type as SavedMethodType,
        channel: input.channel ?? undefined,
        account: input.phone,
        customer: { id: session.customerId, ...customer },
        currency: session.currency,
        returnUrl: `${hostedBase()}/s/${token}/return`,
        cancelUrl: `${hostedBase()}/s/${token}`,
        callbackUrl: callbackUrl(a.adapter as OnlineKind),
        idempotencyKey: a.idempotencyKey,
      }),
    refused: async (p, e) => {
      await failSetup(scope, p.attempt, { code: 'gateway_error', message: e.message });
      throw err.of('gateway_error', `The payment provider refused the attempt: ${e.message}`, 'type');
    },
    answer: async ({ attempt: a, provider }, setup) => {
      // Compare-and-set; a setup that lost its place meanwhile is never shown.
      const current = await recordSetup(scope, a, setup.providerRef, setup.instructions);
      if (!current) throw err.conflict('The setup session changed while the provider was called; pick a method again');
      if (setup.status === setupStatus.active || setup.status === setupStatus.failed)
        return settleAttempt(scope, id, a.id, provider, 'hosted');
      return { status: sessions.moves.attempt.to, next: setup.instructions };
    },
  });
}

type Pending = Begun & { provider: Provider };

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
