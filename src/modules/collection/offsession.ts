/**
 * The provider step of an off-session charge of a provider-held saved method (docs/guides/payment-methods.md,
 * Off-session charges; docs/decisions.md, Off-session outcomes): called after the pending payment
 * committed, with no transaction open and no pool connection held, with the payment id as the
 * provider's idempotency key, so a repeat (the pending sweep after a crash or a timeout) is the same
 * charge. The token is unsealed just before the call and dropped after it. A timeout, a 5xx or a
 * network error is never a decline: the answer is `pending` and the sweep asks again.
 */
import { config } from '../../core/config.ts';
import { scopeOf, tenantTx, type AnyTx } from '../../core/db/sql.ts';
import type { RowScope } from '../../core/resource.ts';
import { unseal } from '../../core/sealed.ts';
import { logger } from '../../core/logger.ts';
import type { Payment, PaymentMethod } from '../../generated/prisma/client.ts';
import { isProviderError } from '../../providers/errors.ts';
import { offSessionStatus, type OffSessionResult, type Provider, type SavedMethodType } from '../../providers/types.ts';
import { adapterRows, callbackUrl, isOnline, providerFor } from '../adapters/providers.ts';
import type { SandboxAnswer } from '../payment-methods/sandbox.ts';
import { chargeable } from '../payment-methods/states.ts';
import { paymentPending, paymentRequiresAction } from '../payments/states.ts';

/**
 * The provider clients of one tenant's adapters, by kind, in one statement of the caller's
 * transaction (read per charge or per batch of charges, never kept: credentials rotate).
 */
export async function providersIn(tx: AnyTx, scope: RowScope, kinds: string[]): Promise<Map<string, Provider>> {
  const online = kinds.filter(isOnline);
  const rows = online.length ? await adapterRows(tx, scope, online) : [];
  return new Map(rows.map((r) => [r.kind, providerFor(r)]));
}

/** `providersIn` in a transaction of its own (a single charge's provider step). */
export const providersOf = (scope: RowScope, kinds: string[]) =>
  tenantTx(scopeOf(scope), (sql) => providersIn(sql, scope, kinds));

/** A counting gate per adapter kind: at most `SVC_OFFSESSION_CONCURRENCY` calls in flight per worker. */
export class Gate {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly limit: () => number) {}
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= Math.max(1, this.limit())) await new Promise<void>((r) => this.waiting.push(r));
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}
const gates = new Map<string, Gate>();
const gateOf = (kind: string) => {
  let g = gates.get(kind);
  if (!g) gates.set(kind, (g = new Gate(() => config.offSessionConcurrency)));
  return g;
};

/** The provider's answer in the sandbox's shape (collect.ts reconciles both alike). */
export function answerOf(r: OffSessionResult): SandboxAnswer {
  switch (r.status) {
    case offSessionStatus.succeeded:
      return { ok: true, providerReference: r.providerRef };
    case offSessionStatus.failed: {
      const failureCode = r.failureCode ?? 'payment_declined';
      const methodMove =
        failureCode === 'expired_card' ? 'expire' : failureCode === 'payment_method_revoked' ? 'revoke' : undefined;
      return {
        ok: false,
        failureCode,
        failureMessage: r.failureMessage ?? 'The payment was declined.',
        ...(r.providerCode ? { providerCode: r.providerCode } : {}),
        ...(methodMove ? { methodMove } : {}),
      };
    }
    case offSessionStatus.requires_action:
      return {
        ok: null,
        waiting: paymentRequiresAction,
        providerReference: r.providerRef,
        nextAction: r.nextAction
          ? { url: r.nextAction.url, expiresAt: r.nextAction.expiresAt ? new Date(r.nextAction.expiresAt) : null }
          : null,
      };
    default:
      return { ok: null, waiting: paymentPending, providerReference: r.providerRef };
  }
}

const stillPending = (providerReference: string | null = null): SandboxAnswer => ({
  ok: null,
  waiting: paymentPending,
  providerReference,
});

const unusable = (message: string): SandboxAnswer => ({
  ok: false,
  failureCode: 'payment_method_unusable',
  failureMessage: message,
});

/**
 * Charges `pm` for `payment` at its adapter (`chargeOffSession`), or, when `resume` (the pending
 * sweep), asks for the status of the charge already sent (`fetchOffSession`) and re-sends with the
 * same key only when the provider does not know it. `providers`: the tenant's, when a batch looked
 * them up in its transaction (`providersIn`). Returns the answer in the sandbox's shape.
 */
export async function chargeAtProvider(
  scope: RowScope,
  payment: Payment,
  pm: PaymentMethod,
  customer: { id: string; name?: string | null; email?: string | null; phone?: string | null },
  o: { resume?: boolean; providers?: Map<string, Provider> } = {},
): Promise<SandboxAnswer> {
  const provider = (o.providers ?? (await providersOf(scope, [pm.adapter]))).get(pm.adapter) ?? null;
  if (!provider?.chargeOffSession)
    // Nothing was sent: the adapter is gone or cannot charge saved methods.
    return o.resume && !provider
      ? stillPending(payment.providerReference)
      : unusable(`The ${pm.adapter} adapter cannot charge saved payment methods`);
  const key = { providerRef: payment.providerReference, reference: payment.id, idempotencyKey: payment.id };
  return gateOf(pm.adapter).run(async () => {
    try {
      if (o.resume && provider.fetchOffSession) {
        const known = await provider.fetchOffSession(key);
        if (known) return answerOf(known);
        // Never reached the provider, and the method left `active` since (detached, revoked): no
        // charge of it starts after that committed; the attempt fails instead.
        if (pm.status !== chargeable) return unusable(`The payment method is ${pm.status}; it was not charged`);
      }
      // Unsealed just before the call; only this closure holds it.
      const token = unseal(
        'payment_methods',
        { id: pm.id, workspaceId: pm.workspaceId, mode: pm.mode },
        pm.providerToken,
      ).toString();
      const result = await provider.chargeOffSession!({
        reference: payment.id,
        token,
        type: pm.type as SavedMethodType,
        amount: Number(payment.amount),
        currency: payment.currency,
        customer,
        description: payment.invoiceId ? `Invoice ${payment.invoiceId}` : null,
        callbackUrl: callbackUrl(pm.adapter as 'provider_a'),
        idempotencyKey: payment.id,
      });
      return answerOf(result);
    } catch (e) {
      if (!isProviderError(e)) throw e;
      // Timeouts, 5xx, network errors: the charge may have happened; never a decline (docs/decisions.md,
      // Off-session outcomes). The provider is asked once by our key: a charge made whose answer was lost
      // is reconciled now; unknown or unanswered, it stays pending for the callback or the sweep.
      if (e.retryable || e.reason === 'bad_response') {
        logger.warn({ payment: payment.id, adapter: pm.adapter, reason: e.reason }, 'off-session charge unanswered');
        const known = o.resume ? null : await provider.fetchOffSession?.(key).catch(() => null);
        return known ? answerOf(known) : stillPending(payment.providerReference);
      }
      // A sandbox token at a live adapter is refused before any call: the method cannot be charged here.
      if (e.reason === 'rejected' && e.providerCode === 'sandbox_token') return unusable(e.message);
      if (e.reason === 'rejected')
        return {
          ok: false,
          failureCode: 'payment_declined',
          failureMessage: e.message,
          ...(e.providerCode ? { providerCode: e.providerCode } : {}),
        };
      return unusable(e.message);
    }
  });
}
