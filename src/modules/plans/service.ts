import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import type { Auth } from '../../core/auth/authenticate.ts';
import { clock } from '../../core/clock.ts';
import { inTenant, type Tx } from '../../core/db/client.ts';
import { errorsFor } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { emit } from '../../core/outbox.ts';
import { checkOrder, keysetList, listPageSize } from '../../core/pagination.ts';
import { scoped } from '../../core/resource.ts';
import { changedFrom } from '../../core/wire.ts';
import { Prisma, type Plan, type Price } from '../../generated/prisma/client.ts';
import { planSnapshot, type PlanRow } from './fields.ts';
import type { CreatePlanInput, ListPlansArgs, PriceInput, UpdatePlanInput, UpdatePriceInput } from './schema.ts';
import { validateCreate, validatePrice, validateUpdate, type PriceData } from './validate.ts';
import { checkMeters } from './metered.ts';

const err = errorsFor('plan');

/** spec: prices in the order given at creation, then by creation time (docs/billing.md, Plans and prices). */
export const priceOrder = (): Prisma.PriceOrderByWithRelationInput[] => [
  { position: 'asc' },
  { createdAt: 'asc' },
  { id: 'asc' },
];
const withPrices = { prices: { orderBy: priceOrder() } } satisfies Prisma.PlanInclude;

const rowOf = (auth: Auth, plan: Plan & { prices: Price[] }): PlanRow => ({ ...plan, accountId: auth.accountId });

const priceData = (auth: Auth, planId: string, position: number, p: PriceData, now: Date) => ({
  id: newId('price'),
  ...scoped(auth),
  planId,
  position,
  currency: p.currency,
  model: p.model,
  unitAmount: p.unitAmount === null ? null : BigInt(p.unitAmount),
  tiers: p.tiers === null ? Prisma.DbNull : (p.tiers as unknown as Prisma.InputJsonValue),
  taxMode: p.taxMode,
  active: p.active,
  meterId: p.meterId,
  divideBy: p.divideBy,
  quantityRounding: p.quantityRounding,
  createdAt: now,
});

/** DECISIONS §3: a plan's `dunningPolicyId` must name a policy of this workspace and mode (else 400). */
async function checkDunningPolicy(tx: Tx, auth: Auth, id: string | null | undefined) {
  if (!id) return;
  const found = await tx.dunningPolicy.findFirst({ where: { ...scoped(auth), id }, select: { id: true } });
  if (!found) throw err.validation('dunningPolicyId', `No such dunning policy: ${id}`);
}

/** The plan under a row lock: price changes and updates of one plan are serialised. */
async function lockPlan(tx: Tx, auth: Auth, id: string): Promise<PlanRow> {
  const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM plans
    WHERE id = ${id} AND "workspaceId" = ${auth.workspaceId} AND mode = ${auth.mode} FOR UPDATE`;
  if (locked.length === 0) throw err.notFound('plan');
  return loadPlan(tx, auth, id);
}

async function loadPlan(tx: Tx, auth: Auth, id: string): Promise<PlanRow> {
  const plan = await tx.plan.findFirst({ where: { ...scoped(auth), id }, include: withPrices });
  if (!plan) throw err.notFound('plan');
  return rowOf(auth, plan);
}

export async function createPlan(ctx: Context, input: CreatePlanInput): Promise<PlanRow> {
  const auth = authorize(ctx, 'svc:plan:create');
  const v = validateCreate(input);
  const scope = tenant(auth);
  return inTenant(scope, async (tx) => {
    await checkDunningPolicy(tx, auth, v.dunningPolicyId);
    await checkMeters(
      tx,
      auth,
      v.prices.map((p, i) => ({ meterId: p.meterId, path: `prices[${i}].` })),
    );
    const now = clock.now();
    const id = newId('plan');
    await tx.plan.create({
      data: {
        id,
        ...scoped(auth),
        name: v.name,
        description: v.description,
        interval: v.interval,
        intervalCount: v.intervalCount,
        trialDays: v.trialDays,
        usageAggregate: v.usageAggregate,
        meteredUnit: v.meteredUnit,
        portalFeatures: v.portalFeatures,
        dunningPolicyId: v.dunningPolicyId,
        active: v.active,
        metadata: v.metadata ?? Prisma.DbNull,
        createdAt: now,
        updatedAt: now,
      },
    });
    await tx.price.createMany({ data: v.prices.map((p, i) => priceData(auth, id, i, p, now)) });
    const row = await loadPlan(tx, auth, id);
    await emit(tx, scope, 'plan.created', planSnapshot(row), { requestId: ctx.requestId });
    return row;
  });
}

export async function getPlan(ctx: Context, id: string): Promise<PlanRow> {
  const auth = authorize(ctx, 'svc:plan:read');
  return inTenant(tenant(auth), (tx) => loadPlan(tx, auth, id));
}

/**
 * spec Plans list `active` (docs/decisions.md, Plans list filter): omitted = every plan not
 * archived (live and deactivated); true = live (`active`); false = archived.
 */
export async function listPlans(ctx: Context, args: ListPlansArgs) {
  const auth = authorize(ctx, 'svc:plan:read');
  checkOrder(args.order, 'plan');
  const active = args.active ?? null;
  const where: Prisma.PlanWhereInput =
    active === null ? { archivedAt: null } : active ? { active: true } : { archivedAt: { not: null } };
  return keysetList(
    { args, workspaceId: auth.workspaceId, filters: { active }, limit: listPageSize.plans, column: 'createdAt' },
    (ks) =>
      inTenant(tenant(auth), (tx) =>
        tx.plan.findMany({
          where: { ...scoped(auth), ...where, AND: [ks.where] },
          include: withPrices,
          orderBy: ks.orderBy,
          take: ks.take,
        }),
      ).then((rows) => rows.map((r) => rowOf(auth, r))),
  );
}

/** One `plan.updated` with the old values of what changed (prices included). */
async function emitUpdated(tx: Tx, ctx: Context, auth: Auth, before: PlanRow, after: PlanRow) {
  const now = planSnapshot(after);
  await emit(tx, tenant(auth), 'plan.updated', now, {
    requestId: ctx.requestId,
    previousAttributes: changedFrom(planSnapshot(before), now),
  });
}

export async function updatePlan(ctx: Context, id: string, input: UpdatePlanInput): Promise<PlanRow> {
  const auth = authorize(ctx, 'svc:plan:write');
  const patch = validateUpdate(input);
  return inTenant(tenant(auth), async (tx) => {
    const before = await lockPlan(tx, auth, id);
    await checkDunningPolicy(tx, auth, patch.dunningPolicyId);
    const { metadata, active, ...rest } = patch;
    const data: Prisma.PlanUpdateInput = { ...rest };
    if (metadata !== undefined) data.metadata = metadata === null ? Prisma.DbNull : metadata;
    // spec Plan states: active false hides (archivedAt unchanged); active true also clears archivedAt.
    if (active !== undefined) Object.assign(data, active ? { active, archivedAt: null } : { active });
    if (Object.keys(data).length === 0) return before;
    const where = { workspaceId_mode_id: { ...scoped(auth), id } };
    await tx.plan.update({ where, data });
    // A PATCH that changes nothing is answered without an event or a new updatedAt.
    if (Object.keys(changedFrom(planSnapshot(before), planSnapshot(await loadPlan(tx, auth, id)))).length === 0)
      return before;
    await touch(tx, auth, id);
    const after = await loadPlan(tx, auth, id);
    await emitUpdated(tx, ctx, auth, before, after);
    return after;
  });
}

/** spec Plan states: archive sets `archivedAt` and `active` false; archiving again changes nothing. */
export async function archivePlan(ctx: Context, id: string): Promise<PlanRow> {
  const auth = authorize(ctx, 'svc:plan:write');
  const scope = tenant(auth);
  return inTenant(scope, async (tx) => {
    const before = await lockPlan(tx, auth, id);
    if (before.archivedAt) return before;
    const now = clock.now();
    await tx.plan.update({
      where: { workspaceId_mode_id: { ...scoped(auth), id } },
      data: { active: false, archivedAt: now, updatedAt: now },
    });
    const after = await loadPlan(tx, auth, id);
    const object = planSnapshot(after);
    await emit(tx, scope, 'plan.archived', object, {
      requestId: ctx.requestId,
      previousAttributes: changedFrom(planSnapshot(before), object),
    });
    return after;
  });
}

/** Deactivates the active sibling of a price that becomes active (one active per currency, model and meter). */
async function retireSibling(
  tx: Tx,
  auth: Auth,
  planId: string,
  p: { currency: string; model: string; meterId: string | null; id?: string },
) {
  const { currency, model, meterId } = p;
  await tx.price.updateMany({
    where: { ...scoped(auth), planId, currency, model, meterId, active: true, id: { not: p.id ?? '' } },
    data: { active: false },
  });
}

/**
 * spec Add price: a new version. An active new price replaces the active one of its currency and
 * model in the same transaction (docs/decisions.md, Price versions); one `plan.updated`.
 */
export async function addPrice(ctx: Context, planId: string, input: PriceInput): Promise<Price> {
  const auth = authorize(ctx, 'svc:plan:write');
  return inTenant(tenant(auth), async (tx) => {
    const before = await lockPlan(tx, auth, planId);
    // usageAggregate is immutable (not in the update list), so a plan without one takes no usage price.
    const p = validatePrice(input, '', before.usageAggregate);
    await checkMeters(tx, auth, [{ meterId: p.meterId, path: '' }]);
    if (p.active) await retireSibling(tx, auth, planId, p);
    const position = before.prices.reduce((m, x) => Math.max(m, x.position), -1) + 1;
    const price = await tx.price.create({ data: priceData(auth, planId, position, p, clock.now()) });
    await touch(tx, auth, planId);
    await emitUpdated(tx, ctx, auth, before, await loadPlan(tx, auth, planId));
    return price;
  });
}

const touch = (tx: Tx, auth: Auth, id: string) =>
  tx.plan.update({ where: { workspaceId_mode_id: { ...scoped(auth), id } }, data: { updatedAt: clock.now() } });

/** spec Price PATCH: only `active` is mutable (other fields are not on the input: 400). */
export async function updatePrice(ctx: Context, id: string, input: UpdatePriceInput): Promise<Price> {
  const auth = authorize(ctx, 'svc:plan:write');
  if (input.active === undefined || input.active === null) throw err.validation('active', 'active is required');
  const active = input.active;
  return inTenant(tenant(auth), async (tx) => {
    const found = await tx.price.findFirst({ where: { ...scoped(auth), id } });
    if (!found) throw err.notFound('price');
    const before = await lockPlan(tx, auth, found.planId);
    const current = before.prices.find((x) => x.id === id)!;
    if (current.active === active) return current;
    if (active) await retireSibling(tx, auth, current.planId, current);
    const price = await tx.price.update({
      where: { workspaceId_mode_id: { ...scoped(auth), id } },
      data: { active },
    });
    await touch(tx, auth, current.planId);
    await emitUpdated(tx, ctx, auth, before, await loadPlan(tx, auth, current.planId));
    return price;
  });
}

/** For other modules (subscriptions): a price with its plan, in the caller's workspace and mode. */
export async function findPrice(tx: Tx, auth: Auth, id: string) {
  return tx.price.findFirst({ where: { ...scoped(auth), id }, include: { plan: true } });
}
