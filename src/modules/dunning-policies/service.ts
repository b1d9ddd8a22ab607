import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { clock } from '../../core/clock.ts';
import { inTenant } from '../../core/db/client.ts';
import { errorsFor } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { emit } from '../../core/outbox.ts';
import { checkOrder, keysetList, listPageSize } from '../../core/pagination.ts';
import { findScoped, scoped } from '../../core/resource.ts';
import { oneOf } from '../../core/validation.ts';
import { changedFrom, toWire } from '../../core/wire.ts';
import type { DunningPolicy } from '../../generated/prisma/client.ts';
import { dunningPolicyFields } from './fields.ts';
import type { DunningPolicyInput, ListDunningPoliciesArgs } from './schema.ts';

const err = errorsFor('dunning_policy');
export const finalActions = ['uncollectible', 'void'] as const;
/** docs/decisions.md, Dunning policies: 1-10 retries, days strictly increasing, 1-60. */
export const scheduleLimits = { maxRetries: 10, maxDay: 60 } as const;

const snapshot = (p: DunningPolicy) => toWire(p, dunningPolicyFields);

function validate(input: DunningPolicyInput, creating: boolean) {
  const out: { retryScheduleDays?: number[]; finalAction?: string } = {};
  if (input.retryScheduleDays !== undefined || creating) {
    const days = input.retryScheduleDays;
    if (!days) throw err.validation('retryScheduleDays', 'retryScheduleDays is required');
    if (days.length < 1 || days.length > scheduleLimits.maxRetries)
      throw err.validation('retryScheduleDays', `retryScheduleDays must have 1-${scheduleLimits.maxRetries} entries`);
    days.forEach((d, i) => {
      if (d < 1 || d > scheduleLimits.maxDay || (i > 0 && d <= days[i - 1]))
        throw err.validation(
          `retryScheduleDays[${i}]`,
          `retryScheduleDays must be strictly increasing days from 1 to ${scheduleLimits.maxDay}`,
        );
    });
    out.retryScheduleDays = days;
  }
  if (input.finalAction !== undefined || creating) {
    if (!input.finalAction) throw err.validation('finalAction', 'finalAction is required');
    out.finalAction = oneOf(input.finalAction, finalActions, 'finalAction', 'dunning_policy');
  }
  return out;
}

// Scopes (docs/decisions.md, Dunning policies): plan configuration, so svc:plan:read and svc:plan:write.
export async function createDunningPolicy(ctx: Context, input: DunningPolicyInput) {
  const auth = authorize(ctx, 'svc:plan:write');
  const v = validate(input, true);
  const scope = tenant(auth);
  return inTenant(scope, async (tx) => {
    const now = clock.now();
    const row = await tx.dunningPolicy.create({
      data: {
        id: newId('dunningPolicy'),
        ...scoped(auth),
        retryScheduleDays: v.retryScheduleDays!,
        finalAction: v.finalAction!,
        createdAt: now,
        updatedAt: now,
      },
    });
    await emit(tx, scope, 'dunning_policy.created', snapshot(row), { requestId: ctx.requestId });
    return row;
  });
}

export async function getDunningPolicy(ctx: Context, id: string) {
  const auth = authorize(ctx, 'svc:plan:read');
  return inTenant(tenant(auth), (tx) => findScoped(tx.dunningPolicy, auth, id, () => err.notFound('dunning_policy')));
}

/** The `Plan.dunningPolicy` edge: null when it is not in the caller's workspace and mode. */
export async function findDunningPolicy(ctx: Context, id: string) {
  const auth = authorize(ctx, 'svc:plan:read');
  return inTenant(tenant(auth), (tx) => tx.dunningPolicy.findFirst({ where: { ...scoped(auth), id } }));
}

/** Applies to the next failed renewal (the invoice snapshots the policy at its first failure). */
export async function updateDunningPolicy(ctx: Context, id: string, input: DunningPolicyInput) {
  const auth = authorize(ctx, 'svc:plan:write');
  const patch = validate(input, false);
  const scope = tenant(auth);
  return inTenant(scope, async (tx) => {
    const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM dunning_policies
      WHERE id = ${id} AND "workspaceId" = ${auth.workspaceId} AND mode = ${auth.mode} FOR UPDATE`;
    if (locked.length === 0) throw err.notFound('dunning_policy');
    const found = await findScoped(tx.dunningPolicy, auth, id, () => err.notFound('dunning_policy'));
    const previous = changedFrom(snapshot(found), snapshot({ ...found, ...patch }));
    if (Object.keys(previous).length === 0) return found;
    const row = await tx.dunningPolicy.update({
      where: { workspaceId_mode_id: { ...scoped(auth), id } },
      data: { ...patch, updatedAt: clock.now() },
    });
    await emit(tx, scope, 'dunning_policy.updated', snapshot(row), {
      requestId: ctx.requestId,
      previousAttributes: previous,
    });
    return row;
  });
}

export async function listDunningPolicies(ctx: Context, args: ListDunningPoliciesArgs) {
  const auth = authorize(ctx, 'svc:plan:read');
  checkOrder(args.order, 'dunning_policy');
  return keysetList(
    { args, workspaceId: auth.workspaceId, filters: {}, limit: listPageSize.dunningPolicies, column: 'createdAt' },
    (ks) =>
      inTenant(tenant(auth), (tx) =>
        tx.dunningPolicy.findMany({
          where: { ...scoped(auth), AND: [ks.where] },
          orderBy: ks.orderBy,
          take: ks.take,
        }),
      ),
  );
}
