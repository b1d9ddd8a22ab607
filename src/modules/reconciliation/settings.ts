/**
 * Reconciliation settings, one per workspace and mode (docs/reconciliation.md, Import pipeline): defaults until
 * the first PATCH, which replaces each field it names wholesale.
 */
import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { audit } from '../../core/audit.ts';
import { inTenant } from '../../core/db/client.ts';
import { errorsFor } from '../../core/errors.ts';
import { clock } from '../../core/clock.ts';
import { isCurrency } from '../../core/money.ts';
import { scoped } from '../../core/resource.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import type { SettingsRow } from './fields.ts';
import { withAccount } from './service.ts';
import type { UpdateSettingsInput } from './schema.ts';
import { adapters, checkoutMethods } from './vocabulary.ts';

const err = errorsFor('reconciliation');
const MAX_FEE_RULES = 50;
const RULE_KEYS = ['adapter', 'method', 'currency', 'percent', 'fixed'];

/** What a workspace's settings are until its first PATCH. */
export const settingsDefaults = {
  dateToleranceDays: 3,
  lateSettlementDays: 3,
  amountTolerance: {},
  feeTolerance: {},
  transferFeeTolerance: { IDR: 6500 },
  feeRules: [],
  updatedAt: null,
};

export async function getSettings(ctx: Context): Promise<SettingsRow> {
  const auth = authorize(ctx, 'svc:reconciliation:read');
  const row = await inTenant(tenant(auth), (tx) =>
    tx.reconSettings.findUnique({ where: { workspaceId_mode: scoped(auth) } }),
  );
  if (!row) return withAccount(auth, { ...settingsDefaults, mode: auth.mode });
  const { workspaceId: _, ...rest } = row;
  return withAccount(auth, rest);
}

export async function updateSettings(ctx: Context, input: UpdateSettingsInput): Promise<SettingsRow> {
  const auth = authorize(ctx, 'svc:reconciliation:write');
  const data = checkSettings(input);
  const now = clock.now();
  const row = await inTenant(tenant(auth), async (tx) => {
    const saved = await tx.reconSettings.upsert({
      where: { workspaceId_mode: scoped(auth) },
      create: { ...scoped(auth), ...data, updatedAt: now },
      update: { ...data, updatedAt: now },
    });
    await audit(tx, auth, 'reconciliation_settings.updated', null, ctx.requestId);
    return saved;
  });
  const { workspaceId: _, ...rest } = row;
  return withAccount(auth, rest);
}

interface SettingsData {
  dateToleranceDays?: number;
  lateSettlementDays?: number;
  amountTolerance?: Prisma.InputJsonValue;
  feeTolerance?: Prisma.InputJsonValue;
  transferFeeTolerance?: Prisma.InputJsonValue;
  feeRules?: Prisma.InputJsonValue;
}

/** Each named field checked (400 naming it; a currency the service does not know: UNSUPPORTED_CURRENCY). */
export function checkSettings(input: UpdateSettingsInput): SettingsData {
  const out: SettingsData = {};
  const given = (k: keyof UpdateSettingsInput) => input[k] !== undefined;
  if (given('dateToleranceDays')) out.dateToleranceDays = checkInt(input.dateToleranceDays, 'dateToleranceDays', 31);
  if (given('lateSettlementDays'))
    out.lateSettlementDays = checkInt(input.lateSettlementDays, 'lateSettlementDays', 60);
  for (const field of ['amountTolerance', 'feeTolerance', 'transferFeeTolerance'] as const)
    if (given(field)) out[field] = checkTolerance(input[field], field);
  if (given('feeRules')) out.feeRules = checkFeeRules(input.feeRules);
  return out;
}

function checkInt(v: unknown, field: string, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > max)
    throw err.validation(field, `${field} must be an integer from 0 to ${max}`);
  return v;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function checkTolerance(v: unknown, field: string): Record<string, number> {
  if (!isObject(v)) throw err.validation(field, `${field} must be an object of currency to minor units`);
  for (const [currency, amount] of Object.entries(v)) {
    if (!isCurrency(currency)) throw err.of('unsupported_currency', `Currency ${currency} is not supported`, field);
    if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount < 0)
      throw err.validation(field, `${field}.${currency} must be an integer of minor units, 0 or more`);
  }
  return v as Record<string, number>;
}

function checkFeeRules(v: unknown): Prisma.InputJsonValue {
  const field = 'feeRules';
  if (!Array.isArray(v)) throw err.validation(field, 'feeRules must be an array');
  if (v.length > MAX_FEE_RULES) throw err.validation(field, `feeRules holds at most ${MAX_FEE_RULES} rules`);
  const seen = new Set<string>();
  return v.map((rule, i) => {
    const at = `${field}[${i}]`;
    if (!isObject(rule)) throw err.validation(field, `${at} must be an object`);
    const unknown = Object.keys(rule).find((k) => !RULE_KEYS.includes(k));
    if (unknown) throw err.validation(field, `${at} has an unknown field ${unknown}`);
    const { adapter, method = null, currency, percent, fixed } = rule;
    if (!(adapters as readonly unknown[]).includes(adapter))
      throw err.validation(field, `${at}.adapter must be one of ${adapters.join(', ')}`);
    if (method !== null && !(checkoutMethods as readonly unknown[]).includes(method))
      throw err.validation(field, `${at}.method must be null or one of ${checkoutMethods.join(', ')}`);
    if (!isCurrency(currency))
      throw err.of('unsupported_currency', `Currency ${String(currency)} is not supported`, field);
    if (typeof percent !== 'number' || percent < 0 || percent > 100 || Number(percent.toFixed(4)) !== percent)
      throw err.validation(field, `${at}.percent must be from 0 to 100 with at most 4 decimals`);
    if (typeof fixed !== 'number' || !Number.isSafeInteger(fixed) || fixed < 0)
      throw err.validation(field, `${at}.fixed must be an integer of minor units, 0 or more`);
    const key = `${adapter}/${method}/${currency}`;
    if (seen.has(key)) throw err.validation(field, `${at} repeats the rule for ${adapter}, ${method}, ${currency}`);
    seen.add(key);
    return { adapter, method, currency, percent, fixed } as Prisma.InputJsonValue;
  });
}
