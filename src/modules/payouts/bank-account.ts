/** The workspace's default payout destination (spec Response shapes GET|PATCH /v1/payouts/bank-account). */
import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant, type Tx } from '../../core/db/client.ts';
import { DomainError } from '../../core/errors.ts';
import { clock } from '../../core/clock.ts';
import { audit } from '../../core/audit.ts';
import type { BankAccount } from './fields.ts';
import type { RowScope } from '../../core/resource.ts';

// spec Limits (manual adapter)
const limits = { bankCode: 32, bankName: 60, bankAccountNumber: 40, bankAccountHolder: 80 } as const;
const required = ['bankName', 'bankAccountNumber', 'bankAccountHolder'] as const;

/** Validates the bank fields given (undefined = not given; null clears, except required ones). */
export function checkBankAccount(
  input: Partial<Record<keyof BankAccount, string | null | undefined>>,
): Partial<BankAccount> {
  const out: Partial<BankAccount> = {};
  for (const [field, max] of Object.entries(limits) as [keyof BankAccount, number][]) {
    const v = input[field];
    if (v === undefined) continue;
    if (v === null) {
      out[field] = null;
      continue;
    }
    if (typeof v !== 'string' || v.trim().length === 0 || v.length > max) {
      throw new DomainError('validation_error', `${field} must be 1-${max} characters`, { field, resource: 'payout' });
    }
    if (field === 'bankAccountNumber' && !/^[0-9 -]+$/.test(v))
      throw new DomainError('validation_error', 'bankAccountNumber must be digits', { field, resource: 'payout' });
    out[field] = v;
  }
  return out;
}

export const missingBankField = (b: BankAccount) => required.find((f) => !b[f]) ?? null;

export async function bankAccountOf(tx: Tx, scope: RowScope): Promise<BankAccount> {
  const s = await tx.payoutSettings.findUnique({
    where: { workspaceId_mode: { workspaceId: scope.workspaceId, mode: scope.mode } },
  });
  return {
    bankCode: s?.bankCode ?? null,
    bankName: s?.bankName ?? null,
    bankAccountNumber: s?.bankAccountNumber ?? null,
    bankAccountHolder: s?.bankAccountHolder ?? null,
  };
}

export async function getPayoutBankAccount(ctx: Context): Promise<BankAccount> {
  const auth = authorize(ctx, 'svc:payout:read');
  return inTenant(tenant(auth), (tx) => bankAccountOf(tx, tenant(auth)));
}

/** Changes only the fields sent; `null` clears. Audited (it redirects money). */
export async function updatePayoutBankAccount(
  ctx: Context,
  input: Partial<Record<keyof BankAccount, string | null>>,
): Promise<BankAccount> {
  const auth = authorize(ctx, 'svc:payout:write');
  const patch = checkBankAccount(input);
  const scope = tenant(auth);
  return inTenant(scope, async (tx) => {
    const now = clock.now();
    await tx.payoutSettings.upsert({
      where: { workspaceId_mode: { workspaceId: scope.workspaceId, mode: scope.mode } },
      create: { workspaceId: scope.workspaceId, mode: scope.mode, ...patch, updatedAt: now },
      update: { ...patch, updatedAt: now },
    });
    await audit(tx, auth, 'payout.bank_account.updated', 'payout_settings', ctx.requestId);
    return bankAccountOf(tx, scope);
  });
}
