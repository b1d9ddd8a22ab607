/**
 * Automatic payouts (spec Payout: "automatic schedule"). Per workspace and mode, `interval`
 * `manual` (none), `daily` or `weekly`; the `payout-schedule` job (hourly) pays out the whole
 * available balance of each currency once the interval has passed since the last run, if it is at
 * least `minimumAmount`, to the bank account on file, by the chosen rail.
 */
import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { db, inTenant, type Mode } from '../../core/db/client.ts';
import { DomainError } from '../../core/errors.ts';
import { clock } from '../../core/clock.ts';
import { Sweep } from '../../core/sweep.ts';
import { logger } from '../../core/logger.ts';
import { isDomainError } from '../../core/errors.ts';
import { balanceOf, lockBalance } from './balance.ts';
import { createPayoutIn, payoutMethods } from './service.ts';
import type { RowScope } from '../../core/resource.ts';
import type { UpdateScheduleInput } from './schema.ts';

export const intervals = { manual: null, daily: 86_400_000, weekly: 7 * 86_400_000 } as const;
export interface ScheduleRow {
  interval: string;
  method: string;
  minimumAmount: bigint;
  lastScheduledAt: Date | null;
}

const invalid = (field: string, message: string) =>
  new DomainError('validation_error', message, { field, resource: 'payout' });

export async function getPayoutSchedule(ctx: Context): Promise<ScheduleRow> {
  const auth = authorize(ctx, 'svc:payout:read');
  const s = await inTenant(tenant(auth), (tx) =>
    tx.payoutSettings.findUnique({ where: { workspaceId_mode: { workspaceId: auth.workspaceId, mode: auth.mode } } }),
  );
  return {
    interval: s?.schedule ?? 'manual',
    method: s?.scheduleMethod ?? 'manual',
    minimumAmount: s?.minimumAmount ?? 1n,
    lastScheduledAt: s?.lastScheduledAt ?? null,
  };
}

export async function updatePayoutSchedule(ctx: Context, input: UpdateScheduleInput): Promise<ScheduleRow> {
  const auth = authorize(ctx, 'svc:payout:write');
  if (input.interval != null && !(input.interval in intervals))
    throw invalid('interval', `interval must be one of ${Object.keys(intervals).join(', ')}`);
  if (input.method != null && !(payoutMethods as readonly string[]).includes(input.method))
    throw invalid('method', `method must be one of ${payoutMethods.join(', ')}`);
  if (input.minimumAmount != null && (!Number.isSafeInteger(input.minimumAmount) || input.minimumAmount < 1))
    throw invalid('minimumAmount', 'minimumAmount must be a positive integer');
  const patch = {
    ...(input.interval != null ? { schedule: input.interval } : {}),
    ...(input.method != null ? { scheduleMethod: input.method } : {}),
    ...(input.minimumAmount != null ? { minimumAmount: BigInt(input.minimumAmount) } : {}),
    updatedAt: clock.now(),
  };
  await inTenant(tenant(auth), (tx) =>
    tx.payoutSettings.upsert({
      where: { workspaceId_mode: { workspaceId: auth.workspaceId, mode: auth.mode } },
      create: { workspaceId: auth.workspaceId, mode: auth.mode, ...patch },
      update: patch,
    }),
  );
  return getPayoutSchedule(ctx);
}

/** One run of the `payout-schedule` job; returns the payouts created. */
export async function runPayoutSchedule(now: Date = clock.now()): Promise<string[]> {
  const { rows } = await db().system.query<{
    workspaceId: string;
    mode: Mode;
    schedule: keyof typeof intervals;
    scheduleMethod: string;
    minimumAmount: string;
    lastScheduledAt: Date | null;
  }>(
    `SELECT "workspaceId", mode, schedule, "scheduleMethod", "minimumAmount", "lastScheduledAt" FROM payout_settings
     WHERE schedule <> 'manual'`,
  );
  const created: string[] = [];
  // Each workspace and mode alone: one that throws is quarantined, the others are paid out (src/core/sweep.ts).
  const sweep = await Sweep.one('payout_schedule');
  for (const s of rows) {
    const every = intervals[s.schedule];
    if (!every || (s.lastScheduledAt && now.getTime() - s.lastScheduledAt.getTime() < every)) continue;
    const scope: RowScope = { workspaceId: s.workspaceId, mode: s.mode };
    await sweep.tenant(scope, async () => {
      const payouts = await payoutsFor(scope, s.scheduleMethod, BigInt(s.minimumAmount), now);
      created.push(...payouts.map((p) => p.id));
      if (s.scheduleMethod === 'provider_a_disbursement') {
        const { disburse } = await import('./disbursement.ts');
        for (const p of payouts) await disburse(scope, p);
      }
    });
  }
  return created;
}

async function payoutsFor(scope: RowScope, method: string, minimum: bigint, now: Date) {
  return inTenant({ ...scope, modes: [scope.mode] }, async (tx) => {
    const currencies = await tx.$queryRaw<{ currency: string }[]>`
      SELECT DISTINCT currency FROM ledger_daily
      WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode} AND code LIKE 'settlement:%'
      ORDER BY currency`;
    const out = [];
    for (const { currency } of currencies) {
      await lockBalance(tx, scope, currency);
      const b = await balanceOf(tx, scope, currency);
      if (b.available < minimum || b.available <= 0n) continue;
      try {
        // One payout is at most 2^53 - 1 (a JSON-safe amount); a larger balance goes out over several runs.
        const amount = b.available > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(b.available);
        out.push(await createPayoutIn(tx, scope, { amount, currency, method, note: 'automatic payout' }, 'schedule'));
      } catch (e) {
        // No bank account on file (or no rail): nothing is paid out; the merchant sees the balance grow.
        if (!isDomainError(e)) throw e;
        logger.warn(
          { workspaceId: scope.workspaceId, mode: scope.mode, currency, code: e.canonical },
          'scheduled payout skipped',
        );
        break;
      }
    }
    await tx.payoutSettings.update({
      where: { workspaceId_mode: { workspaceId: scope.workspaceId, mode: scope.mode } },
      data: { lastScheduledAt: now },
    });
    return out;
  });
}
