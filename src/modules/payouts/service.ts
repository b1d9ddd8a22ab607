import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant, type Tx } from '../../core/db/client.ts';
import { DomainError, errorsFor } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { clock } from '../../core/clock.ts';
import { emit } from '../../core/outbox.ts';
import { postLedger } from '../../core/ledger.ts';
import { keysetList } from '../../core/pagination.ts';
import { findScoped, scoped, type RowScope } from '../../core/resource.ts';
import { checkCurrency, checkLength } from '../../core/validation.ts';
import { toWire } from '../../core/wire.ts';
import { balanceOf, lockBalance } from './balance.ts';
import { bankAccountOf, checkBankAccount, missingBankField } from './bank-account.ts';
import { payoutFields, type Balance } from './fields.ts';
import { nextState } from '../../core/state-machine.ts';
import { adapterDisabled } from '../adapters/states.ts';
import { payoutMachine, type PayoutStatus, type PayoutTrigger } from './states.ts';
import type { Payout } from '../../generated/prisma/client.ts';
import type { CreatePayoutInput, ListPayoutsArgs } from './schema.ts';
import { payoutList } from './list.ts';

const err = errorsFor('payout');

export const payoutMethods = ['manual', 'provider_a_disbursement'] as const;

/** spec: 409 insufficient_balance; the message states requested, available, running balance and in-flight total. */
export const insufficient = (requested: bigint, b: Balance) =>
  new DomainError(
    'insufficient_balance',
    `Requested ${requested} ${b.currency} but only ${b.available} ${b.currency} is available ` +
      `(running balance ${b.ledgerBalance}, in flight ${b.locked})`,
    { resource: 'payout' },
  );

/**
 * Creates a pending payout in the caller's transaction. The balance lock is held to commit, so
 * concurrent payouts see each other's locked amounts and `available` never goes below zero.
 */
export async function createPayoutIn(
  tx: Tx,
  scope: RowScope,
  input: CreatePayoutInput,
  trigger: 'api' | 'schedule' = 'api',
  id: string = newId('payout'),
): Promise<Payout> {
  if (typeof input.amount !== 'number' || !Number.isSafeInteger(input.amount) || input.amount <= 0) {
    throw new DomainError('invalid_amount', 'amount must be a positive integer in the smallest currency unit', {
      field: 'amount',
      resource: 'payout',
    });
  }
  const currency = checkCurrency(input.currency, 'currency', 'payout');
  const method = input.method ?? 'manual';
  if (!(payoutMethods as readonly string[]).includes(method))
    throw err.validation('method', `method must be one of ${payoutMethods.join(', ')}`);
  if (input.note != null) checkLength(input.note, 'note', 0, 500, 'payout');
  const overrides = checkBankAccount(input);
  const bank = { ...(await bankAccountOf(tx, scope)) };
  for (const [k, v] of Object.entries(overrides)) if (v !== undefined) (bank as Record<string, unknown>)[k] = v;
  const missing = missingBankField(bank);
  if (missing)
    throw new DomainError(
      'bank_account_missing',
      `No ${missing} given and none on file (PATCH /v1/payouts/bank-account)`,
      { field: missing, resource: 'payout' },
    );
  if (method === 'provider_a_disbursement') {
    // The rail needs the bank's code and a connected provider_a account to send from.
    if (!bank.bankCode)
      throw new DomainError('bank_account_missing', 'provider_a_disbursement needs a bankCode', {
        field: 'bankCode',
        resource: 'payout',
      });
    const rail = await tx.adapter.findUnique({
      where: { workspaceId_mode_kind: { workspaceId: scope.workspaceId, mode: scope.mode, kind: 'provider_a' } },
      select: { status: true },
    });
    if (!rail || rail.status === adapterDisabled)
      throw err.validation('method', 'provider_a_disbursement needs a connected provider_a adapter');
  }
  await lockBalance(tx, scope, currency);
  const balance = await balanceOf(tx, scope, currency);
  const amount = BigInt(input.amount);
  if (amount > balance.available) throw insufficient(amount, balance);
  const now = clock.now();
  return tx.payout.create({
    data: {
      id,
      workspaceId: scope.workspaceId,
      mode: scope.mode,
      amount,
      currency,
      status: nextState(payoutMachine, null, 'create').to,
      method,
      bankCode: bank.bankCode,
      bankName: bank.bankName!,
      bankAccountNumber: bank.bankAccountNumber!,
      bankAccountHolder: bank.bankAccountHolder!,
      note: input.note ?? null,
      trigger,
      createdAt: now,
      updatedAt: now,
    },
  });
}

export async function getPayout(ctx: Context, id: string): Promise<Payout> {
  const auth = authorize(ctx, 'svc:payout:read');
  return inTenant(tenant(auth), (tx) => findScoped(tx.payout, auth, id, () => err.notFound('payout')));
}

export async function listPayouts(ctx: Context, args: ListPayoutsArgs) {
  const auth = authorize(ctx, 'svc:payout:read');
  payoutList.check(args);
  return keysetList(
    {
      args: payoutList.paged(args),
      workspaceId: auth.workspaceId,
      filters: payoutList.values(args),
      limit: payoutList.limit,
      column: payoutList.position,
    },
    (ks) =>
      inTenant(tenant(auth), (tx) =>
        tx.payout.findMany({
          where: { ...scoped(auth), AND: [...payoutList.prisma(args), ks.where] },
          orderBy: ks.orderBy,
          take: ks.take,
        }),
      ),
  );
}

/** The payout row, locked for the rest of the transaction. */
async function lockPayout(tx: Tx, scope: RowScope, id: string): Promise<Payout> {
  const found = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM payouts
    WHERE id = ${id} AND "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode} FOR UPDATE`;
  if (!found.length) throw err.notFound('payout');
  return tx.payout.findUniqueOrThrow({ where: { id } });
}

/**
 * Applies one state-table move with its effects, in the caller's transaction: `processedAt` on
 * initiate; on paid the posting (debit `payout`, credit `settlement:disbursed`; txId = the payout
 * id) and `ledgerTransactionId`; on failed the reason. Funds locked by a pending or in-transit
 * payout were never posted, so failure and cancel release them by the status change alone.
 */
export async function movePayout(
  tx: Tx,
  scope: RowScope,
  id: string,
  trigger: PayoutTrigger,
  opts: { failureReason?: string; reference?: string | null; requestId?: string; source?: string } = {},
): Promise<Payout> {
  const p = await lockPayout(tx, scope, id);
  // Claimed by the rail (disbursement.ts): only the rail's answer may release it (the `claimed` hold).
  const t = nextState(payoutMachine, p.status as PayoutStatus, trigger, p.claimedAt ? ['claimed'] : []);
  const now = clock.now();
  const data: Record<string, unknown> = { status: t.to, updatedAt: now };
  if (t.to === payoutMachine.moves.initiate.to)
    Object.assign(data, { processedAt: now }, opts.reference ? { reference: opts.reference } : {});
  if (t.to === payoutMachine.moves.mark_failed.to)
    Object.assign(data, { failureReason: opts.failureReason, completedAt: now });
  if (t.to === payoutMachine.moves.mark_paid.to) {
    const rows = await postLedger(tx, scope, {
      txId: p.id,
      currency: p.currency,
      sourceType: 'payout',
      sourceId: p.id,
      postedAt: now,
      legs: [
        {
          code: 'payout',
          direction: 'debit',
          amount: p.amount,
          memo: `payout to ${p.bankName} ${p.bankAccountNumber.slice(-4)}`,
        },
        { code: 'settlement:disbursed', direction: 'credit', amount: p.amount },
      ],
    });
    Object.assign(data, { completedAt: now, ledgerTransactionId: rows.find((r) => r.code === 'payout')!.id });
  }
  const updated = await tx.payout.update({ where: { id: p.id }, data });
  for (const type of t.events)
    await emit(tx, scope, type, toWire(updated, payoutFields), {
      requestId: opts.requestId,
      source: opts.source,
      previousAttributes: { status: p.status },
    });
  return updated;
}

export async function cancelPayout(ctx: Context, id: string): Promise<Payout> {
  const auth = authorize(ctx, 'svc:payout:write');
  return inTenant(tenant(auth), (tx) => movePayout(tx, tenant(auth), id, 'cancel', { requestId: ctx.requestId }));
}

/** spec Response shapes: reconciliation by platform-admin keys (on behalf of the merchant). */
export async function adminMovePayout(
  ctx: Context,
  id: string,
  trigger: 'initiate' | 'mark_paid' | 'mark_failed',
  failureReason?: string | null,
): Promise<Payout> {
  const auth = authorize(ctx, 'svc:payout:write');
  // A partner reconciles its merchants' payouts, never its own: without on-behalf-of it would act on its own workspace.
  if (!auth.isPlatformAdmin || !auth.onBehalfOf) {
    throw new DomainError(
      'insufficient_scope',
      'Only platform-admin keys acting on behalf of a merchant (X-Svc-On-Behalf-Of) reconcile payouts',
      { resource: 'payout' },
    );
  }
  if (trigger === 'mark_failed') {
    if (typeof failureReason !== 'string' || !failureReason.trim())
      throw err.validation('failureReason', 'failureReason is required');
    checkLength(failureReason, 'failureReason', 1, 500, 'payout');
  }
  return inTenant(tenant(auth), (tx) =>
    movePayout(tx, tenant(auth), id, trigger, {
      failureReason: failureReason ?? undefined,
      requestId: ctx.requestId,
      source: 'admin',
    }),
  );
}

export async function getPayoutBalance(ctx: Context, currency?: string | null): Promise<Balance> {
  const auth = authorize(ctx, 'svc:payout:read');
  return inTenant(tenant(auth), async (tx) => {
    const c = currency
      ? checkCurrency(currency, 'currency', 'payout')
      : (await tx.workspace.findUniqueOrThrow({ where: { id: auth.workspaceId }, select: { defaultCurrency: true } }))
          .defaultCurrency;
    return balanceOf(tx, tenant(auth), c);
  });
}
