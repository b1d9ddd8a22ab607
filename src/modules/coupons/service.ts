import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import type { Auth } from '../../core/auth/authenticate.ts';
import { clock } from '../../core/clock.ts';
import { inTenant, type Tx } from '../../core/db/client.ts';
import { errorsFor } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { emit } from '../../core/outbox.ts';
import { keysetList } from '../../core/pagination.ts';
import { scoped } from '../../core/resource.ts';
import { changedFrom } from '../../core/wire.ts';
import { Prisma, type Coupon } from '../../generated/prisma/client.ts';
import { couponSnapshot, type CouponRow } from './fields.ts';
import { couponList } from './list.ts';
import type { CreateCouponInput, ListCouponsArgs, UpdateCouponInput } from './schema.ts';
import { validateCreate, validateUpdate } from './validate.ts';

const err = errorsFor('coupon');
const rowOf = (auth: Auth, c: Coupon): CouponRow => ({ ...c, accountId: auth.accountId });
const json = (v: unknown) => (v === null ? Prisma.DbNull : (v as Prisma.InputJsonValue));

async function loadCoupon(tx: Tx, auth: Auth, id: string, lock = false): Promise<CouponRow> {
  if (lock) {
    const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM coupons
      WHERE id = ${id} AND "workspaceId" = ${auth.workspaceId} AND mode = ${auth.mode} FOR UPDATE`;
    if (locked.length === 0) throw err.notFound('coupon');
  }
  const row = await tx.coupon.findFirst({ where: { ...scoped(auth), id } });
  if (!row) throw err.notFound('coupon');
  return rowOf(auth, row);
}

/** docs/coupons.md: every plan in `appliesTo` is one of this workspace and mode (else 400). */
async function checkPlans(tx: Tx, auth: Auth, planIds: string[]) {
  const found = await tx.plan.findMany({ where: { ...scoped(auth), id: { in: planIds } }, select: { id: true } });
  const known = new Set(found.map((p) => p.id));
  const i = planIds.findIndex((id) => !known.has(id));
  if (i >= 0) throw err.validation(`appliesTo.planIds[${i}]`, `No such plan: ${planIds[i]}`);
}

export async function createCoupon(ctx: Context, input: CreateCouponInput): Promise<CouponRow> {
  const auth = authorize(ctx, 'svc:coupon:write');
  const v = validateCreate(input);
  const scope = tenant(auth);
  return inTenant(scope, async (tx) => {
    if (v.appliesTo) await checkPlans(tx, auth, v.appliesTo.planIds);
    const now = clock.now();
    const row = await tx.coupon.create({
      data: {
        id: newId('coupon'),
        ...scoped(auth),
        name: v.name,
        percentOffHundredths: v.percentOffHundredths,
        amountOff: json(v.amountOff),
        duration: v.duration,
        durationInMonths: v.durationInMonths,
        maxRedemptions: v.maxRedemptions,
        redeemBy: v.redeemBy,
        appliesTo: json(v.appliesTo),
        metadata: json(v.metadata),
        createdAt: now,
        updatedAt: now,
      },
    });
    const out = rowOf(auth, row);
    await emit(tx, scope, 'coupon.created', couponSnapshot(out), { requestId: ctx.requestId });
    return out;
  });
}

export async function getCoupon(ctx: Context, id: string): Promise<CouponRow> {
  const auth = authorize(ctx, 'svc:coupon:read');
  return inTenant(tenant(auth), (tx) => loadCoupon(tx, auth, id));
}

/** `archived` false (default): coupons not archived; true: archived ones. */
export async function listCoupons(ctx: Context, args: ListCouponsArgs) {
  const auth = authorize(ctx, 'svc:coupon:read');
  couponList.check(args);
  const archived = args.archived ?? false;
  return keysetList(
    {
      args: couponList.paged(args),
      workspaceId: auth.workspaceId,
      filters: { archived },
      limit: couponList.limit,
      column: couponList.position,
    },
    (ks) =>
      inTenant(tenant(auth), (tx) =>
        tx.coupon.findMany({
          where: { ...scoped(auth), archivedAt: archived ? { not: null } : null, AND: [ks.where] },
          orderBy: ks.orderBy,
          take: ks.take,
        }),
      ).then((rows) => rows.map((r) => rowOf(auth, r))),
  );
}

/** Only `name` and `metadata` change; a PATCH that changes nothing has no event and no new updatedAt. */
export async function updateCoupon(ctx: Context, id: string, input: UpdateCouponInput): Promise<CouponRow> {
  const auth = authorize(ctx, 'svc:coupon:write');
  const patch = validateUpdate(input);
  const scope = tenant(auth);
  return inTenant(scope, async (tx) => {
    const before = await loadCoupon(tx, auth, id, true);
    const data: Prisma.CouponUpdateInput = {};
    if (patch.name !== undefined) data.name = patch.name;
    if (patch.metadata !== undefined) data.metadata = json(patch.metadata);
    const candidate = couponSnapshot({ ...before, ...patch } as CouponRow);
    const previousAttributes = changedFrom(couponSnapshot(before), candidate);
    if (Object.keys(previousAttributes).length === 0) return before;
    await tx.coupon.update({
      where: { workspaceId_mode_id: { ...scoped(auth), id } },
      data: { ...data, updatedAt: clock.now() },
    });
    const after = await loadCoupon(tx, auth, id);
    await emit(tx, scope, 'coupon.updated', couponSnapshot(after), { requestId: ctx.requestId, previousAttributes });
    return after;
  });
}

/** Archive stops new redemptions; applied discounts continue. Again: 200, no event. */
export async function archiveCoupon(ctx: Context, id: string): Promise<CouponRow> {
  const auth = authorize(ctx, 'svc:coupon:write');
  const scope = tenant(auth);
  return inTenant(scope, async (tx) => {
    const before = await loadCoupon(tx, auth, id, true);
    if (before.archivedAt) return before;
    const now = clock.now();
    await tx.coupon.update({
      where: { workspaceId_mode_id: { ...scoped(auth), id } },
      data: { archivedAt: now, updatedAt: now },
    });
    const after = await loadCoupon(tx, auth, id);
    const object = couponSnapshot(after);
    await emit(tx, scope, 'coupon.archived', object, {
      requestId: ctx.requestId,
      previousAttributes: changedFrom(couponSnapshot(before), object, ['updatedAt', 'valid']),
    });
    return after;
  });
}
