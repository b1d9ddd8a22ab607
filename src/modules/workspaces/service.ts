import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { db, inTenant, type Mode, type Tx } from '../../core/db/client.ts';
import { lockName } from '../../core/locks.ts';
import { switchScope } from '../../core/db/scope.ts';
import { DomainError, errorsFor } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { emit } from '../../core/outbox.ts';
import { keysetList, listPageSize } from '../../core/pagination.ts';
import { checkCurrency, checkLength, oneOf } from '../../core/validation.ts';
import { clock } from '../../core/clock.ts';
import { randomHex } from '../../core/crypto.ts';
import { seal } from '../../core/sealed.ts';
import { signingKeyOf } from '../../core/auth/signing.ts';
import { forgetKey } from '../../core/auth/authenticate.ts';
import { isCurrency } from '../../core/money.ts';
import { toWire } from '../../core/wire.ts';
import { workspaceFields } from './fields.ts';
import type { Workspace } from '../../generated/prisma/client.ts';
import type { CreateWorkspaceInput, ListWorkspacesArgs, UpdateWorkspaceInput } from './schema.ts';
import { cancelWorkspaceAtPeriodEnd } from '../subscriptions/moves.ts';
import { forgetMerchant } from '../../core/auth/authenticate.ts';
import { assertOwner } from '../../core/auth/scopes.ts';
import { visible } from '../../core/auth/visible.ts';
import { cancelSession } from '../checkout-sessions/service.ts';
import { checkoutSessionMachine } from '../checkout-sessions/states.ts';
import { nextState, statusesWhere } from '../../core/state-machine.ts';
import { memberMachine } from '../members/states.ts';
import { logger } from '../../core/logger.ts';
import { activateWorkspace as activate, assertSettled, lockWorkspace, restoreLocked } from './lifecycle.ts';

const err = errorsFor('workspace');
const regions = {
  'id-jakarta': { currency: 'IDR', timezone: 'Asia/Jakarta' },
  'sg-singapore': { currency: 'SGD', timezone: 'Asia/Singapore' },
};
type Region = keyof typeof regions;
const BOTH = ['test', 'live'] as const;

export const slugShape = /^[a-z0-9](?:[a-z0-9-]{1,61}[a-z0-9])$/;
const slugify = (name: string) =>
  name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48) || 'workspace';

/** Slugs are global (hosted URLs), so availability is checked across tenants. */
async function slugTaken(slug: string): Promise<boolean> {
  const { rowCount } = await db().system.query(
    'SELECT 1 FROM workspaces WHERE slug = $1 UNION ALL SELECT 1 FROM retired_slugs WHERE slug = $1',
    [slug],
  );
  return (rowCount ?? 0) > 0;
}
/**
 * The name's slug if free, else with a random suffix that is free too: neither another workspace's
 * nor a retired one (an old slug never comes back). Two workspaces of one name created at once
 * would both find a slug free: the transaction-scoped lock on the name's slug serialises them until
 * the first commits, so the second sees its row (checked on another connection, after the lock).
 * `suffix` is for tests.
 */
export async function freeSlug(tx: Tx, name: string, suffix = () => randomHex(3)): Promise<string> {
  const base = slugify(name);
  await lockName(tx, `slug:${base}`);
  if (base.length >= 2 && !(await slugTaken(base))) return base;
  // 16.7M suffixes per name: a taken one is rare, five in a row is a broken generator.
  for (let i = 0; i < 5; i++) {
    const candidate = `${base}-${suffix()}`;
    if (!(await slugTaken(candidate))) return candidate;
  }
  throw new Error(`no free slug for ${base} after 5 tries`);
}

const snapshot = (w: Workspace) => toWire(w, workspaceFields);

/** A workspace to insert: the API's create input, and for bootstrap and partners, who owns it. */
type NewWorkspace = CreateWorkspaceInput & {
  partnerId?: string | null;
  isPlatformAdmin?: boolean;
  activated?: boolean;
};

/** Inserts a workspace, its owner and `workspace.created` in the caller's transaction. */
async function insertWorkspace(tx: Tx, input: NewWorkspace, ownerEmail: string, mode: Mode, requestId?: string) {
  checkLength(input.name ?? '', 'name', 1, 255, 'workspace');
  const region = oneOf(input.region ?? 'id-jakarta', Object.keys(regions) as Region[], 'region', 'workspace');
  const currency = checkCurrency(input.defaultCurrency ?? regions[region].currency, 'defaultCurrency', 'workspace');
  const id = newId('workspace');
  const now = clock.now();
  await switchScope(tx, { workspaceId: id, modes: BOTH });
  const ws = await tx.workspace.create({
    data: {
      id,
      accountId: newId('account'),
      partnerId: input.partnerId ?? null,
      isPlatformAdmin: input.isPlatformAdmin ?? false,
      name: input.name,
      slug: await freeSlug(tx, input.name),
      region,
      defaultCurrency: currency,
      timezone: regions[region].timezone,
      brandName: input.brandName ?? null,
      businessEmail: input.businessEmail ?? null,
      // Bootstrapped live by the operator: activated from the start (docs/decisions.md, Workspace lifecycle).
      mode: input.activated ? 'live' : 'test',
      createdAt: now,
      updatedAt: now,
    },
  });
  const owner = await tx.member.create({
    data: {
      id: newId('member'),
      workspaceId: id,
      email: ownerEmail,
      role: 'owner',
      status: nextState(memberMachine, null, 'create_owner').to,
      joinedAt: now,
      createdAt: now,
    },
  });
  await emit(tx, { workspaceId: id, mode }, 'workspace.created', snapshot(ws), { requestId });
  return { ws, owner };
}

/** spec Bootstrap `svc bootstrap`: a workspace, its owner and a full_access key, outside any request. */
export async function bootstrapWorkspace(opts: {
  name: string;
  platformAdmin?: boolean;
  environment?: Mode;
  ownerEmail?: string;
}) {
  const environment = opts.environment ?? 'test';
  return db().prisma.$transaction(async (tx) => {
    const { ws, owner } = await insertWorkspace(
      tx,
      { name: opts.name, isPlatformAdmin: !!opts.platformAdmin, activated: environment === 'live' },
      opts.ownerEmail ?? 'owner@example.com',
      environment,
      'bootstrap',
    );
    const apiKey = await insertOwnerKey(tx, ws.id, owner.id, environment, 'bootstrap');
    return { workspaceId: ws.id, accountId: ws.accountId, apiKey, platformAdmin: ws.isPlatformAdmin };
  });
}

/** A full_access key acting for the owner, outside any request (bootstrap, restore from the CLI). */
async function insertOwnerKey(tx: Tx, workspaceId: string, ownerId: string, environment: Mode, name: string) {
  const secret = `sk_${environment}_${randomHex(24)}`;
  const id = newId('apiKey');
  const key = await tx.apiKey.create({
    data: {
      id,
      workspaceId,
      mode: environment,
      keyId: `pk_${environment}_${randomHex(6)}`,
      name,
      role: 'full_access',
      scopes: [],
      signingKey: seal('api_keys', { id, workspaceId }, signingKeyOf(secret)),
      memberId: ownerId,
      createdAt: clock.now(),
    },
  });
  return { id: key.id, keyId: key.keyId, key: secret, environment, role: key.role };
}

/**
 * `svc restore-workspace <ws_id>`: the dashboard's restore for a merchant without a partner
 * (spec: "restorable from the merchant dashboard"). Every key was revoked at archive, so it mints
 * a new test key for the owner, printed once like bootstrap's.
 */
export async function restoreWorkspaceFromCli(workspaceId: string) {
  return db().systemPrisma.$transaction(async (tx) => {
    const ws = await lockWorkspace(tx, workspaceId);
    await restoreLocked(tx, ws, 'test', 'cli');
    const owner = await tx.member.findFirst({ where: { workspaceId, role: 'owner', removedAt: null } });
    if (!owner) throw err.notFound('workspace owner');
    const apiKey = await insertOwnerKey(tx, workspaceId, owner.id, 'test', 'restore');
    return { workspaceId, accountId: ws.accountId, apiKey };
  });
}

export async function createWorkspace(ctx: Context, input: CreateWorkspaceInput) {
  const auth = authorize(ctx, 'svc:workspace:write');
  // Partner provisioning only: a platform-admin key acting as itself.
  if (!auth.isPlatformAdmin || auth.onBehalfOf)
    throw new DomainError('insufficient_scope', 'Creating workspaces needs a platform-admin key');
  const ownerEmail = input.businessEmail ?? (await ownerEmailOf(auth.workspaceId));
  return inTenant(tenant(auth, BOTH), async (tx) => {
    const { ws } = await insertWorkspace(
      tx,
      { ...input, partnerId: auth.workspaceId, isPlatformAdmin: false },
      ownerEmail,
      auth.mode,
      ctx.requestId,
    );
    return ws;
  });
}

async function ownerEmailOf(workspaceId: string) {
  const { rows } = await db().system.query(
    `SELECT email FROM members WHERE "workspaceId" = $1 AND role = 'owner' LIMIT 1`,
    [workspaceId],
  );
  return rows[0]?.email ?? 'owner@example.com';
}

export async function getWorkspace(ctx: Context, id: string) {
  const auth = authorize(ctx, 'svc:workspace:read');
  return inTenant(tenant(auth, BOTH), (tx) => visible(tx, auth, id));
}

export async function listWorkspaces(ctx: Context, args: ListWorkspacesArgs) {
  const auth = authorize(ctx, 'svc:workspace:read');
  const mode = args.mode ? oneOf(args.mode, ['test', 'live'] as const, 'mode', 'workspace') : null;
  const filters = { mode, archived: !!args.archived };
  // spec: a merchant key gets its single workspace; a partner key, every merchant under it.
  const owner = auth.isPlatformAdmin && !auth.onBehalfOf ? { partnerId: auth.workspaceId } : { id: auth.workspaceId };
  return keysetList(
    { args, workspaceId: auth.workspaceId, filters, limit: listPageSize.workspaces, column: 'createdAt' },
    (ks) =>
      inTenant(tenant(auth, BOTH), (tx) =>
        tx.workspace.findMany({
          where: {
            ...owner,
            ...(mode ? { mode } : {}),
            archivedAt: filters.archived ? { not: null } : null,
            ...ks.where,
          },
          orderBy: ks.orderBy,
          take: ks.take,
        }),
      ),
  );
}

export async function updateWorkspace(ctx: Context, id: string, input: UpdateWorkspaceInput) {
  const auth = authorize(ctx, 'svc:workspace:write');
  return inTenant(tenant(auth, BOTH), async (tx) => {
    const ws = await visible(tx, auth, id);
    if (input.region != null && input.region !== ws.region)
      throw err.of('region_immutable', 'region cannot change after creation', 'region');
    const patch = validatePatch(input);
    if (patch.portalSettings)
      patch.portalSettings = { ...(ws.portalSettings as Record<string, boolean>), ...patch.portalSettings };
    if (patch.slug && patch.slug !== ws.slug) {
      if (await slugTaken(patch.slug)) throw err.validation('slug', 'slug is already taken');
      await tx.retiredSlug.create({ data: { slug: ws.slug, workspaceId: ws.id, retiredAt: clock.now() } });
    }
    const previous = Object.fromEntries(Object.keys(patch).map((k) => [k, ws[k as keyof Workspace]]));
    const updated = await tx.workspace.update({ where: { id }, data: { ...patch, updatedAt: clock.now() } });
    await emit(tx, { workspaceId: id, mode: auth.mode }, 'workspace.updated', snapshot(updated), {
      requestId: ctx.requestId,
      previousAttributes: previous,
    });
    return updated;
  });
}

function validatePatch(input: UpdateWorkspaceInput) {
  const patch: Omit<Partial<Workspace>, 'portalSettings'> & { portalSettings?: Record<string, boolean> } = {};
  if (input.name !== undefined) patch.name = checkLength(input.name ?? '', 'name', 1, 255, 'workspace');
  if (input.slug !== undefined) {
    if (!input.slug || !slugShape.test(input.slug))
      throw err.validation('slug', 'slug must be 3-63 lower-case letters, digits or hyphens');
    patch.slug = input.slug;
  }
  if (input.brandName !== undefined)
    patch.brandName = input.brandName === null ? null : checkLength(input.brandName, 'brandName', 1, 255, 'workspace');
  if (input.businessEmail !== undefined) {
    if (input.businessEmail !== null && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(input.businessEmail))
      throw err.validation('businessEmail', 'businessEmail must be an email address');
    patch.businessEmail = input.businessEmail;
  }
  if (input.defaultCurrency !== undefined) {
    if (!input.defaultCurrency || !isCurrency(input.defaultCurrency))
      throw err.validation('defaultCurrency', 'defaultCurrency must be a supported ISO 4217 code');
    patch.defaultCurrency = input.defaultCurrency;
  }
  if (input.timezone !== undefined) {
    if (!input.timezone || !Intl.supportedValuesOf('timeZone').includes(input.timezone))
      throw err.validation('timezone', 'timezone must be an IANA zone');
    patch.timezone = input.timezone;
  }
  if (input.portalSettings !== undefined) {
    if (input.portalSettings === null) throw err.validation('portalSettings', 'portalSettings must be an object');
    const toggles: Record<string, boolean> = {};
    for (const [k, v] of Object.entries(input.portalSettings)) {
      if (v === undefined) continue;
      if (typeof v !== 'boolean') throw err.validation(`portalSettings.${k}`, `portalSettings.${k} must be a boolean`);
      toggles[k] = v;
    }
    patch.portalSettings = toggles;
  }
  return patch;
}

/**
 * spec Workspace: archive (owner only) needs a settled live ledger (409 has_open_balance), turns
 * live mode off and revokes every key at once, cancels subscriptions at period end; webhooks stop
 * after 24 hours (webhooks/fan-out.ts), the data is purged after 90 days (lifecycle.ts).
 */
export async function archiveWorkspace(ctx: Context, id: string) {
  const auth = authorize(ctx, 'svc:workspace:write');
  assertOwner(auth, 'archive it');
  const result = await inTenant(tenant(auth, BOTH), async (tx) => {
    await visible(tx, auth, id);
    const ws = await lockWorkspace(tx, id);
    if (ws.archivedAt) return { ws, keyIds: [] as string[], now: false };
    await assertSettled(tx, id);
    const now = clock.now();
    const updated = await tx.workspace.update({
      where: { id },
      data: { archivedAt: now, mode: 'test', updatedAt: now },
    });
    const keys = await tx.apiKey.findMany({ where: { workspaceId: id, revokedAt: null }, select: { keyId: true } });
    await tx.apiKey.updateMany({ where: { workspaceId: id, revokedAt: null }, data: { revokedAt: now } });
    // spec Workspace: archive "cancels subscriptions at period end".
    await cancelWorkspaceAtPeriodEnd(tx, id, { requestId: ctx.requestId, source: 'api', at: now });
    await emit(tx, { workspaceId: id, mode: auth.mode }, 'workspace.archived', snapshot(updated), {
      requestId: ctx.requestId,
      previousAttributes: { archivedAt: null, mode: ws.mode },
    });
    return { ws: updated, keyIds: keys.map((k) => k.keyId), now: true };
  });
  result.keyIds.forEach(forgetKey);
  if (result.ws.partnerId) forgetMerchant(result.ws.partnerId, result.ws.accountId);
  if (result.now) await cancelLiveSessions(id);
  return result.ws;
}

/**
 * Live mode off at once: open live checkout sessions are canceled as the merchant's cancel would
 * (no event; their attempts are withdrawn at the providers, so after the archive's commit). A
 * session whose capture is under way refuses and is left to complete (its money is recorded, and
 * the purge waits for the ledger to settle).
 */
async function cancelLiveSessions(workspaceId: string) {
  const scope = { workspaceId, mode: 'live' as const };
  const open = await inTenant({ workspaceId, modes: ['live'] }, (tx) =>
    tx.checkoutSession.findMany({
      where: { ...scope, status: { in: statusesWhere(checkoutSessionMachine, 'cancel') } },
      select: { id: true },
    }),
  );
  for (const s of open)
    await cancelSession(scope, s.id).catch((e: Error) =>
      logger.warn({ workspaceId, sessionId: s.id, err: e.message }, 'archive: live session left open'),
    );
}

/** DECISIONS §7 activation (lifecycle.ts), on a workspace the caller may act on. */
export function activateWorkspace(ctx: Context, id: string) {
  return activate(ctx, id, (tx) => visible(tx, ctx.auth!, id));
}
