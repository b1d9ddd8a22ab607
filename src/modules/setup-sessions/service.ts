/**
 * Setup sessions `ss_` (docs/guides/setup-sessions.md): create, read, list and cancel, for the API,
 * GraphQL and the portal. The hosted page's calls are hosted.ts; completion is complete.ts.
 */
import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { clock } from '../../core/clock.ts';
import { inTenant, type Tx } from '../../core/db/client.ts';
import { scopedRow, sql as q, sqlOf, type AnyTx } from '../../core/db/sql.ts';
import { errorsFor } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { keysetList } from '../../core/pagination.ts';
import { scoped, type RowScope } from '../../core/resource.ts';
import { nextState, statusesWhere } from '../../core/state-machine.ts';
import { checkCurrency, checkRedirectUrl, refuseCardNumbers, validateMetadata } from '../../core/validation.ts';
import type { SetupSession, Subscription } from '../../generated/prisma/client.ts';
import { paymentMethodTypes } from '../payment-methods/states.ts';
import { savableOf, setupAdapters } from './adapters.ts';
import type { SetupSessionRow } from './fields.ts';
import { setupSessionList } from './list.ts';
import type { CreateSetupSessionInput, ListSetupSessionsArgs } from './schema.ts';
import { setupAttemptMachine as attempts, setupSessionMachine as sessions, type SetupSessionStatus } from './states.ts';

const err = errorsFor('setup_session');
const withAccount = (row: SetupSession, accountId: string): SetupSessionRow => ({ ...row, accountId });

/** Where the method's consent comes from: the API's session, or the portal's (`consent.source`). */
export type ConsentSource = 'setup_session' | 'portal';

interface Valid {
  customerId: string;
  types: string[] | null;
  currency: string | null;
  successUrl: string;
  cancelUrl: string;
  setDefault: boolean;
  subscriptionId: string | null;
  expiresInSec: number;
  metadata: Record<string, string> | null;
}

function validateCreate(input: CreateSetupSessionInput, trustedUrls: boolean): Valid {
  if (typeof input.customerId !== 'string' || !input.customerId)
    throw err.validation('customerId', 'customerId is required');
  let types: string[] | null = null;
  if (input.types != null) {
    if (!Array.isArray(input.types) || input.types.length === 0)
      throw err.validation('types', 'types must be a non-empty array');
    for (const t of input.types)
      if (!(paymentMethodTypes as readonly string[]).includes(t))
        throw err.validation('types', `unknown type ${JSON.stringify(t)}; one of ${paymentMethodTypes.join(', ')}`);
    types = paymentMethodTypes.filter((t) => input.types!.includes(t));
  }
  if (input.currency != null) checkCurrency(input.currency, 'currency', 'setup_session');
  if (typeof input.successUrl !== 'string') throw err.validation('successUrl', 'successUrl is required');
  if (typeof input.cancelUrl !== 'string') throw err.validation('cancelUrl', 'cancelUrl is required');
  if (input.setDefault != null && typeof input.setDefault !== 'boolean')
    throw err.validation('setDefault', 'setDefault must be a boolean');
  if (input.subscriptionId != null && typeof input.subscriptionId !== 'string')
    throw err.validation('subscriptionId', 'subscriptionId must be a string');
  const expiresInSec = input.expiresInSec ?? 86_400;
  if (!Number.isSafeInteger(expiresInSec) || expiresInSec < 300 || expiresInSec > 86_400)
    throw err.validation('expiresInSec', 'expiresInSec must be an integer from 300 to 86400');
  const metadata = input.metadata == null ? null : validateMetadata(input.metadata, 'metadata', 'setup_session');
  refuseCardNumbers(metadata, 'metadata', 'setup_session');
  return {
    customerId: input.customerId,
    types,
    currency: input.currency ?? null,
    // The portal's own page (its URL is ours, not the caller's) skips the redirect rules.
    successUrl: trustedUrls ? input.successUrl : checkRedirectUrl(input.successUrl, 'successUrl', 'setup_session'),
    cancelUrl: trustedUrls ? input.cancelUrl : checkRedirectUrl(input.cancelUrl, 'cancelUrl', 'setup_session'),
    setDefault: input.setDefault === true,
    subscriptionId: input.subscriptionId ?? null,
    expiresInSec,
    metadata,
  };
}

/**
 * A new session in the caller's tenant (no authorization here: the API and the portal authorize
 * their callers). 404 for a customer or subscription not of this workspace and mode (or a
 * subscription of another customer); 422 when no adapter saves any requested type in the currency.
 */
export async function createSetupSessionIn(
  scope: RowScope,
  input: CreateSetupSessionInput,
  o: { consentSource: ConsentSource; trustedUrls?: boolean },
): Promise<SetupSession> {
  const v = validateCreate(input, o.trustedUrls === true);
  return inTenant({ ...scope, modes: [scope.mode] }, async (tx) => {
    const customer = await scopedRow<{ id: string }>(tx, 'customers', scope, v.customerId);
    if (!customer) throw err.of('not_found', 'No such customer', 'customerId');
    let sub: Subscription | null = null;
    if (v.subscriptionId) {
      sub = await scopedRow<Subscription>(tx, 'subscriptions', scope, v.subscriptionId);
      if (!sub || sub.customerId !== v.customerId)
        throw err.of('not_found', 'No such subscription of this customer', 'subscriptionId');
    }
    const workspace = await tx.workspace.findUniqueOrThrow({ where: { id: scope.workspaceId } });
    const currency = v.currency ?? sub?.currency ?? workspace.defaultCurrency;
    if (sub && sub.currency !== currency)
      throw err.validation('currency', `currency must be the subscription's (${sub.currency})`);
    const adapters = await setupAdapters(tx, scope, currency);
    const savable = savableOf(adapters) as string[];
    const types = v.types ?? savable;
    if (!types.some((t) => savable.includes(t)))
      throw err.of(
        'no_adapter_supports_methods',
        `No enabled adapter saves ${v.types ? v.types.join(', ') : 'any payment method'} in ${currency}`,
        v.types ? 'types' : 'currency',
      );
    const now = clock.now();
    return tx.setupSession.create({
      data: {
        id: newId('setupSession'),
        ...scoped(scope),
        customerId: v.customerId,
        status: nextState(sessions, null, 'create').to,
        types,
        currency,
        successUrl: v.successUrl,
        cancelUrl: v.cancelUrl,
        setDefault: v.setDefault,
        subscriptionId: v.subscriptionId,
        consentSource: o.consentSource,
        metadata: v.metadata ?? undefined,
        expiresAt: new Date(now.getTime() + v.expiresInSec * 1000),
        createdAt: now,
        updatedAt: now,
      },
    });
  });
}

/** POST /v1/setup-sessions (201). */
export async function createSetupSession(ctx: Context, input: CreateSetupSessionInput): Promise<SetupSessionRow> {
  const auth = authorize(ctx, 'svc:payment_method:write');
  return withAccount(
    await createSetupSessionIn(tenant(auth), input, { consentSource: 'setup_session' }),
    auth.accountId,
  );
}

export async function getSetupSession(ctx: Context, id: string): Promise<SetupSessionRow> {
  const auth = authorize(ctx, 'svc:payment_method:read');
  const row = await inTenant(tenant(auth), (tx) => scopedRow<SetupSession>(tx, 'setup_sessions', auth, id));
  if (!row) throw err.notFound('setup session');
  return withAccount(row, auth.accountId);
}

export async function listSetupSessions(ctx: Context, args: ListSetupSessionsArgs) {
  const auth = authorize(ctx, 'svc:payment_method:read');
  setupSessionList.check(args);
  const page = await keysetList(
    {
      args,
      workspaceId: auth.workspaceId,
      filters: setupSessionList.values(args),
      limit: setupSessionList.limit,
      column: setupSessionList.position,
    },
    (ks) =>
      inTenant(tenant(auth), (tx) =>
        tx.setupSession.findMany({
          where: { ...scoped(auth), AND: [...setupSessionList.prisma(args), ks.where] },
          orderBy: ks.orderBy,
          take: ks.take,
        }),
      ),
  );
  return { ...page, edges: page.edges.map((e) => ({ ...e, node: withAccount(e.node, auth.accountId) })) };
}

/** The session row locked for the rest of the transaction: every state change starts here. */
export async function lockSetupSession(tx: AnyTx, scope: RowScope, id: string): Promise<SetupSession | null> {
  return scopedRow<SetupSession>(tx, 'setup_sessions', scope, id, { lock: true });
}

/** Supersedes the session's live attempts (a newer attempt, a cancel, the expiry), in the caller's transaction. */
export async function supersedeAttempts(tx: AnyTx, scope: RowScope, sessionId: string, at: Date, except?: string) {
  await sqlOf(tx).query(
    q`UPDATE setup_attempts SET status = ${attempts.moves.supersede.to}, "updatedAt" = ${at}::timestamptz
      WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode} AND "setupSessionId" = ${sessionId}
        AND status = ANY (${statusesWhere(attempts, 'supersede')}::text[]) AND id <> ${except ?? ''}`,
  );
}

/** Merchant or customer cancel: no event; 409 `conflict` once the session is terminal. */
export async function cancelSetupSessionIn(tx: Tx, scope: RowScope, id: string): Promise<SetupSession> {
  const s = await lockSetupSession(tx, scope, id);
  if (!s) throw err.notFound('setup session');
  const next = nextState(sessions, s.status as SetupSessionStatus, 'cancel');
  const now = clock.now();
  await supersedeAttempts(tx, scope, id, now);
  return tx.setupSession.update({
    where: { workspaceId_mode_id: { ...scoped(scope), id } },
    data: { status: next.to, canceledAt: now, updatedAt: now },
  });
}

/** POST /v1/setup-sessions/:id/cancel (200). */
export async function cancelSetupSession(ctx: Context, id: string): Promise<SetupSessionRow> {
  const auth = authorize(ctx, 'svc:payment_method:write');
  const scope = tenant(auth);
  const row = await inTenant(scope, (tx) => cancelSetupSessionIn(tx, scope, id));
  return withAccount(row, auth.accountId);
}
