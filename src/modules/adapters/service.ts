import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant, type Mode, type Tx } from '../../core/db/client.ts';
import { errorsFor } from '../../core/errors.ts';
import { emit } from '../../core/outbox.ts';
import { audit } from '../../core/audit.ts';
import { lockName } from '../../core/locks.ts';
import { sha256Hex } from '../../core/crypto.ts';
import { seal, unseal } from '../../core/sealed.ts';
import { checkHttpsUrl, checkLength, oneOf } from '../../core/validation.ts';
import { clock } from '../../core/clock.ts';
import { changedFrom } from '../../core/wire.ts';
import type { Adapter, ManagedAccount } from '../../generated/prisma/client.ts';
import { sql, sqlOf, type AnyTx, type Fragment } from '../../core/db/sql.ts';
import type { AdapterKind, EnabledAdapter } from './capabilities.ts';
import type { AdapterView } from './fields.ts';
import { adapterActive, adapterDisabled, adapterMachine, adapterStatusAfter, type AdapterStatus } from './states.ts';
import { canMove, nextState, sqlStatus } from '../../core/state-machine.ts';

/** A failed gateway call's event (the table's `gateway_failed`), also where the status cannot move. */
const [ERROR_EVENT] = nextState(adapterMachine, adapterActive, 'gateway_failed').events;
import {
  adapterWire,
  applyManagedUpdate,
  capabilitiesPending,
  kybInvited,
  managedAdapterView,
  managedEnabled,
  managedPlatform,
  onboardingView,
} from './managed.ts';
import { scoped, type RowScope } from '../../core/resource.ts';
import type { ManualInput, ProviderAInput, ProviderBInput, ProviderCInput } from './schema.ts';

const err = errorsFor('adapter');
type StoredKind = Exclude<AdapterKind, 'managed'>;

const viewOf = (r: Adapter): AdapterView => ({
  kind: r.kind as AdapterKind,
  status: r.status,
  secretKeyLast4: r.secretKeyLast4,
  publicConfig: r.publicConfig as Record<string, unknown>,
  configuredAt: r.configuredAt,
  lastErrorAt: r.lastErrorAt,
  lastErrorCode: r.lastErrorCode,
});

async function managedRow(tx: Tx, scope: RowScope) {
  return tx.managedAccount.findUnique({ where: { workspaceId_mode: scoped(scope) } });
}
async function workspaceCreatedAt(tx: Tx, workspaceId: string) {
  return (await tx.workspace.findUniqueOrThrow({ where: { id: workspaceId }, select: { createdAt: true } })).createdAt;
}

/** spec GET /v1/adapters: keyed by kind; never-connected kinds are absent. */
export async function listAdapters(ctx: Context): Promise<Partial<Record<AdapterKind, AdapterView>>> {
  const auth = authorize(ctx, 'svc:adapter:read');
  const scope = tenant(auth);
  return inTenant(scope, async (tx) => {
    const out: Partial<Record<AdapterKind, AdapterView>> = {};
    for (const r of await tx.adapter.findMany({ where: scoped(auth) })) out[r.kind as AdapterKind] = viewOf(r);
    const managed = managedAdapterView(
      await managedRow(tx, scope),
      auth.mode,
      await workspaceCreatedAt(tx, auth.workspaceId),
    );
    if (managed) out.managed = managed;
    return out;
  });
}

/** What a PUT stores: write-only secrets (encrypted), their last 4, and the public part. */
interface Connection {
  secrets: Record<string, string | null> | null;
  secretKeyLast4: string | null;
  publicConfig: Record<string, unknown>;
  callbackTokenHash?: string | null;
}

/**
 * spec Adapters PUT: upsert by kind. A repeat PUT replaces the configuration, refreshes
 * `configuredAt` and clears the last error; a support-disabled adapter stays disabled.
 */
async function putAdapter(ctx: Context, kind: StoredKind, build: (mode: Mode) => Connection): Promise<AdapterView> {
  const auth = authorize(ctx, 'svc:adapter:write');
  const c = build(auth.mode);
  const scope = tenant(auth);
  return inTenant(scope, async (tx) => {
    await lockName(tx, `adapter:${auth.workspaceId}:${auth.mode}:${kind}`);
    const where = { workspaceId_mode_kind: { ...scoped(auth), kind } };
    const existing = await tx.adapter.findUnique({ where });
    const now = clock.now();
    const data = {
      status: existing
        ? adapterStatusAfter(existing.status as AdapterStatus, 'reconfigure')
        : nextState(adapterMachine, null, 'connect').to,
      secrets: c.secrets ? seal('adapters', { ...scoped(auth), kind }, Buffer.from(JSON.stringify(c.secrets))) : null,
      secretKeyLast4: c.secretKeyLast4,
      publicConfig: c.publicConfig as object,
      callbackTokenHash: c.callbackTokenHash ?? null,
      configuredAt: now,
      lastErrorAt: null,
      lastErrorCode: null,
      updatedAt: now,
    };
    const row = existing
      ? await tx.adapter.update({ where, data })
      : await tx.adapter.create({ data: { ...data, ...scoped(auth), kind, createdAt: now } });
    const after = adapterWire(viewOf(row));
    const [type] = adapterMachine.moves[existing ? 'reconfigure' : 'connect'].events ?? [];
    await emit(tx, scope, type, after, {
      objectId: kind,
      requestId: ctx.requestId,
      ...(existing ? { previousAttributes: changedFrom(adapterWire(viewOf(existing)), after, ['configuredAt']) } : {}),
    });
    // Credentials changed: recorded for the audit log as well as the event stream.
    await audit(tx, auth, type, kind, ctx.requestId);
    return viewOf(row);
  });
}

/** Write-only credential text: 1-255 characters, no whitespace (a pasted key with a newline is a mistake). */
function credential(value: string | null | undefined, field: string): string {
  if (typeof value !== 'string' || value.length === 0) throw err.validation(field, `${field} is required`);
  if (value.length > 255) throw err.validation(field, `${field} must be at most 255 characters`);
  if (/\s/.test(value)) throw err.validation(field, `${field} must not contain whitespace`);
  return value;
}
const last4 = (s: string) => s.slice(-4);

/**
 * spec: provider_a secret keys carry the provider's prefix, else 422 gateway_error. The prefix
 * also names the environment (docs/providers.md): test mode takes `xnd_development_` keys and live
 * mode `xnd_production_` keys, so test payments can never move real money and the reverse.
 */
export function connectProviderA(ctx: Context, input: ProviderAInput) {
  return putAdapter(ctx, 'provider_a', (mode) => {
    const secretKey = credential(input.secretKey, 'secretKey');
    const env = /^xnd_(development|production)_\S+$/.exec(secretKey)?.[1];
    if (!env)
      throw err.of(
        'gateway_error',
        'secretKey is not a provider_a secret key (xnd_development_... or xnd_production_...)',
        'secretKey',
      );
    const wanted = mode === 'live' ? 'production' : 'development';
    if (env !== wanted)
      throw err.of('gateway_error', `A ${mode}-mode adapter needs an xnd_${wanted}_ secret key`, 'secretKey');
    const token = input.callbackToken == null ? null : credential(input.callbackToken, 'callbackToken');
    return {
      secrets: { secretKey, callbackToken: token },
      secretKeyLast4: last4(secretKey),
      publicConfig: { callbackTokenFingerprint: token ? sha256Hex(token).slice(0, 16) : null },
      callbackTokenHash: token ? sha256Hex(token) : null,
    };
  });
}

export function connectProviderB(ctx: Context, input: ProviderBInput) {
  return putAdapter(ctx, 'provider_b', () => {
    const serverKey = credential(input.serverKey, 'serverKey');
    const clientKey = credential(input.clientKey, 'clientKey');
    const merchantId = credential(input.merchantId, 'merchantId');
    if (merchantId.length > 64) throw err.validation('merchantId', 'merchantId must be at most 64 characters');
    const env = oneOf(input.env ?? 'sandbox', ['sandbox', 'production'] as const, 'env', 'adapter');
    return { secrets: { serverKey }, secretKeyLast4: last4(serverKey), publicConfig: { clientKey, merchantId, env } };
  });
}

export function connectProviderC(ctx: Context, input: ProviderCInput) {
  return putAdapter(ctx, 'provider_c', () => {
    const clientId = credential(input.clientId, 'clientId');
    const secret = credential(input.secret, 'secret');
    const mode = oneOf(input.mode ?? 'live', ['live', 'sandbox'] as const, 'mode', 'adapter');
    return { secrets: { secret }, secretKeyLast4: last4(secret), publicConfig: { clientId, mode } };
  });
}

export const MAX_BANK_ACCOUNTS = 10;

/** spec Limits "Manual adapter"; PUT replaces the whole configuration. */
export function configureManual(ctx: Context, input: ManualInput) {
  return putAdapter(ctx, 'manual', () => {
    const accounts = input.bankAccounts ?? [];
    if (accounts.length > MAX_BANK_ACCOUNTS)
      throw err.validation('bankAccounts', `at most ${MAX_BANK_ACCOUNTS} bank accounts`);
    const bankAccounts = accounts.map((a, i) => ({
      bankName: checkLength(a.bankName ?? '', `bankAccounts[${i}].bankName`, 1, 60, 'adapter'),
      accountNumber: checkLength(a.accountNumber ?? '', `bankAccounts[${i}].accountNumber`, 1, 40, 'adapter'),
      accountHolder: checkLength(a.accountHolder ?? '', `bankAccounts[${i}].accountHolder`, 1, 80, 'adapter'),
    }));
    const url =
      input.staticQrImageUrl == null ? null : checkHttpsUrl(input.staticQrImageUrl, 'staticQrImageUrl', 'adapter');
    const instructions =
      input.instructions == null ? null : checkLength(input.instructions, 'instructions', 1, 500, 'adapter');
    return { secrets: null, secretKeyLast4: null, publicConfig: { bankAccounts, staticQrImageUrl: url, instructions } };
  });
}

export async function getManagedOnboarding(ctx: Context) {
  const auth = authorize(ctx, 'svc:adapter:read');
  const scope = tenant(auth);
  return onboardingView(await inTenant(scope, (tx) => managedRow(tx, scope)));
}

const emailShape = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/**
 * spec POST /v1/adapters/managed/onboarding `{email}`: creates the sub-account and invites the
 * merchant (kybStatus `invited`). Repeating it is harmless: while invited, a new email re-targets
 * the invitation; once registered or live the state is returned unchanged.
 */
export async function startManagedOnboarding(ctx: Context, input: { email: string }) {
  const auth = authorize(ctx, 'svc:adapter:write');
  const email = input.email;
  if (typeof email !== 'string' || email.length > 254 || !emailShape.test(email))
    throw err.validation('email', 'email must be an email address');
  const scope = tenant(auth);
  const current = await inTenant(scope, (tx) => managedRow(tx, scope));
  // The platform call happens outside the transaction: no row lock is held across a network call.
  const created =
    !current || current.kybStatus === 'not_started'
      ? await managedPlatform().createSubAccount({ ...scoped(auth), email })
      : null;
  return inTenant(scope, async (tx) => {
    await lockName(tx, `managed:${auth.workspaceId}:${auth.mode}`);
    const now = clock.now();
    const before = await tx.managedAccount.upsert({
      where: { workspaceId_mode: scoped(auth) },
      create: { ...scoped(auth), createdAt: now, updatedAt: now },
      update: {},
    });
    if (before.kybStatus === 'not_started' && created) {
      const row = await applyManagedUpdate(
        tx,
        scope,
        before,
        { ...created, email, kybStatus: kybInvited, capabilitiesStatus: capabilitiesPending },
        ctx.requestId,
      );
      await audit(tx, auth, 'adapter.managed.onboarding_started', row.subAccountId, ctx.requestId);
      return onboardingView(row);
    }
    if (before.kybStatus === kybInvited && before.email !== email) {
      const row = await tx.managedAccount.update({
        where: { workspaceId_mode: scoped(auth) },
        data: { email, updatedAt: now },
      });
      await audit(tx, auth, 'adapter.managed.invitation_retargeted', row.subAccountId, ctx.requestId);
      return onboardingView(row);
    }
    return onboardingView(before);
  });
}

/** What enabledAdapters reads: the stored adapters taking payments and the managed account. */
export interface AdapterSources {
  stored: { kind: AdapterKind; publicConfig: Record<string, unknown> }[];
  managed: ManagedAccount | null;
}

/**
 * The read behind enabledAdapters as one jsonb expression, so a hot statement can carry it in its
 * select list.
 */
const notDisabled = sql`status <> ${sqlStatus(adapterDisabled)}`;
export const adapterSourcesSql = (ws: string, mode: string): Fragment => sql`jsonb_build_object(
  'stored', (SELECT coalesce(
      jsonb_agg(jsonb_build_object('kind', kind, 'publicConfig', "publicConfig") ORDER BY kind), '[]')
    FROM adapters WHERE "workspaceId" = ${ws} AND mode = ${mode} AND ${notDisabled}),
  'managed', (SELECT to_jsonb(m) FROM managed_accounts m WHERE "workspaceId" = ${ws} AND mode = ${mode}))`;

/** The adapters that may take payments now, from their sources. */
export function enabledFrom(sources: AdapterSources, mode: Mode): EnabledAdapter[] {
  const out: EnabledAdapter[] = sources.stored.map((r) => ({
    kind: r.kind,
    configured: true,
    publicConfig: r.publicConfig,
  }));
  // The test-mode sandbox is not the merchant's configuration: anything they configured wins.
  if (managedEnabled(sources.managed, mode))
    out.push({ kind: 'managed', configured: mode === 'live', publicConfig: {} });
  return out;
}

/** The adapters that may take payments now, for the capability decision (checkout create and attempts). */
export async function enabledAdapters(tx: AnyTx, scope: RowScope): Promise<EnabledAdapter[]> {
  const [row] = await sqlOf(tx).query<{ sources: AdapterSources }>(
    sql`SELECT ${adapterSourcesSql(scope.workspaceId, scope.mode)} AS sources`,
  );
  return enabledFrom(row.sources, scope.mode);
}

/** The write-only credentials of a stored adapter, for the provider clients. */
export function adapterSecrets<T = Record<string, string | null>>(
  row: Pick<Adapter, 'secrets' | 'workspaceId' | 'mode' | 'kind'>,
): T | null {
  return row.secrets ? (JSON.parse(unseal('adapters', row, row.secrets).toString('utf8')) as T) : null;
}

/**
 * spec Adapter states: a failed upstream gateway call sets `error` (a support-disabled adapter
 * stays disabled), records the code and emits `adapter.error`. For the provider clients.
 */
export async function recordGatewayFailure(
  tx: Tx,
  scope: RowScope,
  kind: AdapterKind,
  code: string,
  requestId?: string,
) {
  const now = clock.now();
  if (kind === 'managed') {
    const before = await managedRow(tx, scope);
    if (!before) return null;
    const row = await tx.managedAccount.update({
      where: { workspaceId_mode: scoped(scope) },
      data: {
        status: adapterStatusAfter(before.status as AdapterStatus, 'gateway_failed'),
        lastErrorAt: now,
        lastErrorCode: code,
        updatedAt: now,
      },
    });
    const view = managedAdapterView(row, scope.mode, row.createdAt);
    if (view)
      await emit(tx, scope, ERROR_EVENT, adapterWire(view), {
        objectId: kind,
        requestId,
        source: 'gateway',
        previousAttributes: { status: before.status },
      });
    return view;
  }
  const where = { workspaceId_mode_kind: { ...scoped(scope), kind } };
  const before = await tx.adapter.findUnique({ where });
  if (!before) return null;
  const row = await tx.adapter.update({
    where,
    data: {
      status: adapterStatusAfter(before.status as AdapterStatus, 'gateway_failed'),
      lastErrorAt: now,
      lastErrorCode: code,
      updatedAt: now,
    },
  });
  const view = viewOf(row);
  await emit(tx, scope, ERROR_EVENT, adapterWire(view), {
    objectId: kind,
    requestId,
    source: 'gateway',
    previousAttributes: changedFrom(adapterWire(viewOf(before)), adapterWire(view)),
  });
  return view;
}

/** A successful gateway call after a failure: the adapter is `active` again (`adapter.updated`). */
export async function recordGatewaySuccess(tx: Tx, scope: RowScope, kind: StoredKind, requestId?: string) {
  const where = { workspaceId_mode_kind: { ...scoped(scope), kind } };
  const before = await tx.adapter.findUnique({ where });
  if (!before || !canMove(adapterMachine, before.status as AdapterStatus, 'gateway_succeeded'))
    return before ? viewOf(before) : null;
  const next = nextState(adapterMachine, before.status as AdapterStatus, 'gateway_succeeded');
  const row = await tx.adapter.update({ where, data: { status: next.to, updatedAt: clock.now() } });
  await emit(tx, scope, next.events[0], adapterWire(viewOf(row)), {
    objectId: kind,
    requestId,
    source: 'gateway',
    previousAttributes: { status: before.status },
  });
  return viewOf(row);
}
