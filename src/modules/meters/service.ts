import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import type { Auth } from '../../core/auth/authenticate.ts';
import { clock } from '../../core/clock.ts';
import { inTenant, type Tx } from '../../core/db/client.ts';
import { errorsFor } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { lockName } from '../../core/locks.ts';
import { emit } from '../../core/outbox.ts';
import { keysetList } from '../../core/pagination.ts';
import { scoped } from '../../core/resource.ts';
import { nextState } from '../../core/state-machine.ts';
import { changedFrom } from '../../core/wire.ts';
import { Prisma, type Meter } from '../../generated/prisma/client.ts';
import { forgetMeters } from './cache.ts';
import { meterSnapshot, type MeterRow } from './fields.ts';
import { meterList } from './list.ts';
import type { CreateMeterInput, ListMetersArgs, UpdateMeterInput } from './schema.ts';
import { meterActive, meterArchived, meterMachine, type MeterStatus } from './states.ts';
import { meterLimits, validateCreate, validateUpdate } from './validate.ts';

const err = errorsFor('meter');
const rowOf = (auth: Auth, m: Meter): MeterRow => ({ ...m, accountId: auth.accountId });
const json = (v: unknown) => (v === null ? Prisma.DbNull : (v as Prisma.InputJsonValue));

async function loadMeter(tx: Tx, auth: Auth, id: string, lock = false): Promise<MeterRow> {
  if (lock) {
    const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM meters
      WHERE "workspaceId" = ${auth.workspaceId} AND mode = ${auth.mode} AND id = ${id} FOR UPDATE`;
    if (locked.length === 0) throw err.notFound('meter');
  }
  const row = await tx.meter.findFirst({ where: { ...scoped(auth), id } });
  if (!row) throw err.notFound('meter');
  return rowOf(auth, row);
}

/** The key is free and the active counts stay within their limits; meter writers queue on one name. */
async function checkRoom(tx: Tx, auth: Auth, key: string, eventName: string) {
  await lockName(tx, `meters:${auth.workspaceId}:${auth.mode}`);
  const [taken, perEventName, total] = await Promise.all([
    tx.meter.count({ where: { ...scoped(auth), key } }),
    tx.meter.count({ where: { ...scoped(auth), eventName, status: meterActive } }),
    tx.meter.count({ where: { ...scoped(auth), status: meterActive } }),
  ]);
  if (taken > 0) throw err.of('conflict', `A meter with key "${key}" exists (archived meters keep their key)`, 'key');
  if (perEventName >= meterLimits.activePerEventName)
    throw err.of('conflict', `At most ${meterLimits.activePerEventName} active meters per eventName`, 'eventName');
  if (total >= meterLimits.perWorkspace)
    throw err.conflict(`At most ${meterLimits.perWorkspace} active meters per workspace and mode`);
}

export async function createMeter(ctx: Context, input: CreateMeterInput): Promise<MeterRow> {
  const auth = authorize(ctx, 'svc:meter:write');
  const v = validateCreate(input);
  const scope = tenant(auth);
  const out = await inTenant(scope, async (tx) => {
    await checkRoom(tx, auth, v.key, v.eventName);
    const now = clock.now();
    const row = await tx.meter.create({
      data: {
        id: newId('meter'),
        ...scoped(auth),
        ...v,
        filters: v.filters as Prisma.InputJsonValue,
        metadata: json(v.metadata),
        status: nextState(meterMachine, null, 'create').to,
        createdAt: now,
        updatedAt: now,
      },
    });
    const meter = rowOf(auth, row);
    await emit(tx, scope, 'meter.created', meterSnapshot(meter), { requestId: ctx.requestId });
    return meter;
  });
  forgetMeters(auth);
  return out;
}

export async function getMeter(ctx: Context, id: string): Promise<MeterRow> {
  const auth = authorize(ctx, 'svc:meter:read');
  return inTenant(tenant(auth), (tx) => loadMeter(tx, auth, id));
}

export async function listMeters(ctx: Context, args: ListMetersArgs) {
  const auth = authorize(ctx, 'svc:meter:read');
  meterList.check(args);
  const archived = args.archived ?? false;
  return keysetList(
    {
      args: meterList.paged(args),
      workspaceId: auth.workspaceId,
      filters: meterList.values({ ...args, archived }),
      limit: meterList.limit,
      column: meterList.position,
    },
    (ks) =>
      inTenant(tenant(auth), (tx) =>
        tx.meter.findMany({
          where: {
            ...scoped(auth),
            status: archived ? meterArchived : meterActive,
            AND: [...meterList.prisma(args), ks.where],
          },
          orderBy: ks.orderBy,
          take: ks.take,
        }),
      ).then((rows) => rows.map((r) => rowOf(auth, r))),
  );
}

/** Only name, description, unit and metadata change; a PATCH that changes nothing has no event. */
export async function updateMeter(ctx: Context, id: string, input: UpdateMeterInput): Promise<MeterRow> {
  const auth = authorize(ctx, 'svc:meter:write');
  const patch = validateUpdate(input);
  const scope = tenant(auth);
  return inTenant(scope, async (tx) => {
    const before = await loadMeter(tx, auth, id, true);
    const previousAttributes = changedFrom(meterSnapshot(before), meterSnapshot({ ...before, ...patch } as MeterRow));
    if (Object.keys(previousAttributes).length === 0) return before;
    const { metadata, ...rest } = patch;
    const data: Prisma.MeterUpdateInput = { ...rest, updatedAt: clock.now() };
    if (metadata !== undefined) data.metadata = json(metadata);
    await tx.meter.update({ where: { workspaceId_mode_id: { ...scoped(auth), id } }, data });
    const after = await loadMeter(tx, auth, id);
    await emit(tx, scope, 'meter.updated', meterSnapshot(after), { requestId: ctx.requestId, previousAttributes });
    return after;
  });
}

/** Archive stops counting new events; what was counted stays. Again: 200, unchanged, no event. */
export async function archiveMeter(ctx: Context, id: string): Promise<MeterRow> {
  const auth = authorize(ctx, 'svc:meter:write');
  const scope = tenant(auth);
  const out = await inTenant(scope, async (tx) => {
    const before = await loadMeter(tx, auth, id, true);
    if (before.status === meterArchived) return before;
    const now = clock.now();
    await tx.meter.update({
      where: { workspaceId_mode_id: { ...scoped(auth), id } },
      data: {
        status: nextState(meterMachine, before.status as MeterStatus, 'archive').to,
        archivedAt: now,
        updatedAt: now,
      },
    });
    const after = await loadMeter(tx, auth, id);
    const object = meterSnapshot(after);
    await emit(tx, scope, 'meter.archived', object, {
      requestId: ctx.requestId,
      previousAttributes: changedFrom(meterSnapshot(before), object, ['updatedAt']),
    });
    return after;
  });
  forgetMeters(auth);
  return out;
}
