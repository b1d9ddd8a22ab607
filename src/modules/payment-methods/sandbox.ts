/**
 * The managed test sandbox's off-session answers for saved methods (docs/guides/payment-methods.md,
 * Test scenarios): answered in process, as the fixed test tokens are, so a renewal batch charges and
 * settles them in its own transaction. The token is unsealed here, read for its scenario, and dropped.
 */
import { config } from '../../core/config.ts';
import { scopedRows, type AnyTx } from '../../core/db/sql.ts';
import type { RowScope } from '../../core/resource.ts';
import { unseal } from '../../core/sealed.ts';
import type { PaymentMethod } from '../../generated/prisma/client.ts';
import { amountMagic, scenarioOf, type Scenario } from './scenarios.ts';
import { isSavedMethodId, SANDBOX_ADAPTER, SANDBOX_TOKEN_PREFIX } from './service.ts';
import { chargeable } from './states.ts';
import { paymentPending, paymentRequiresAction } from '../payments/states.ts';

export type SandboxAnswer =
  | { ok: true; providerReference: string }
  | { ok: false; failureCode: string; failureMessage: string; methodMove?: 'expire' | 'revoke'; providerCode?: string }
  /**
   * No outcome yet: `requires_action` (the customer must authenticate; `nextAction` null means the
   * sandbox's own page, built by the caller) or `pending` (settled later by a callback or the sweep).
   */
  | {
      ok: null;
      waiting: typeof paymentRequiresAction | typeof paymentPending;
      providerReference?: string | null;
      nextAction?: { url: string; expiresAt: Date | null } | null;
      /** When to ask again (a pending answer); the payment lease's default otherwise. */
      retryInMs?: number;
    };

/** The saved methods (active or not) named by `values` (subscriptions' `paymentMethod`), by id. */
export async function savedMethods(tx: AnyTx, scope: RowScope, values: (string | null)[]) {
  const ids = values.filter(isSavedMethodId);
  const rows = await scopedRows<PaymentMethod>(tx, 'payment_methods', scope, ids);
  return new Map(rows.map((r) => [r.id, r]));
}

/** A method the sandbox answers in process: the managed adapter's, in test mode. */
export const answeredInProcess = (pm: PaymentMethod) => pm.mode === 'test' && pm.adapter === SANDBOX_ADAPTER;

function scenarioOfToken(pm: PaymentMethod): Scenario {
  const token = unseal('payment_methods', { id: pm.id, workspaceId: pm.workspaceId, mode: pm.mode }, pm.providerToken);
  const text = token.toString();
  if (!text.startsWith(SANDBOX_TOKEN_PREFIX)) throw new Error(`${pm.id}: not a sandbox token`);
  return scenarioOf(text.slice(SANDBOX_TOKEN_PREFIX.length, SANDBOX_TOKEN_PREFIX.length + 4));
}

const declined = (failureCode: string, failureMessage: string, methodMove?: 'expire' | 'revoke'): SandboxAnswer => ({
  ok: false,
  failureCode,
  failureMessage,
  ...(methodMove ? { methodMove } : {}),
});

/**
 * The sandbox's answer to an off-session charge of `amount` from `pm` (payment `paymentId`). A method
 * that is no longer active is never charged (`payment_method_unusable`). `requires_action` waits for
 * the customer on the sandbox's authenticate page (`/i/<token>/authenticate`), `async` stays pending
 * until `settleSandboxAsync` (docs/guides/payment-methods.md, Test scenarios).
 */
export function sandboxCharge(
  pm: PaymentMethod,
  amount: bigint,
  paymentId: string,
  o: { started?: boolean } = {},
): SandboxAnswer {
  // A charge already started (asked again by the pending sweep) carries its token: a detach since
  // then does not change its outcome (docs/guides/payment-methods.md, Off-session charges).
  if (pm.status !== chargeable && !o.started)
    return declined('payment_method_unusable', `The payment method is ${pm.status}; it cannot be charged`);
  const scenario = scenarioOfToken(pm);
  const magic = scenario === 'success' ? amountMagic[amount.toString()] : undefined;
  if (magic) return declined(magic, `The charge was refused (${magic})`);
  switch (scenario) {
    case 'charge_declined':
      return pm.type === 'card'
        ? declined('card_declined', 'Your card was declined.')
        : declined('payment_declined', 'The payment was declined.');
    case 'insufficient_funds':
      return declined('insufficient_funds', 'Insufficient funds.');
    case 'expired_card':
      return declined('expired_card', 'The payment method has expired.', 'expire');
    case 'revoked':
      return declined('payment_method_revoked', 'The payment method was revoked at the provider.', 'revoke');
    case 'requires_action':
      return { ok: null, waiting: paymentRequiresAction, nextAction: null };
    case 'async':
      return {
        ok: null,
        waiting: paymentPending,
        providerReference: `ch_sbx_${paymentId}`,
        retryInMs: config.sandboxAsyncMs,
      };
    default:
      return { ok: true, providerReference: `ch_sbx_${paymentId}` };
  }
}

/**
 * The sandbox's later word on a `pending` charge it answered `async` (the analogue of a provider's
 * callback): `succeeded` once its lease passed (`leaseUntil`, set to the charge's real time plus
 * `SVC_SANDBOX_ASYNC_MS`), else still pending. A forced outcome (`POST /v1/payments/:id/simulate`)
 * settles at once.
 */
export function sandboxAsyncOutcome(payment: { id: string; leaseUntil: Date | null }, now: Date): SandboxAnswer {
  return !payment.leaseUntil || payment.leaseUntil <= now
    ? { ok: true, providerReference: `ch_sbx_${payment.id}` }
    : {
        ok: null,
        waiting: paymentPending,
        providerReference: `ch_sbx_${payment.id}`,
        retryInMs: payment.leaseUntil.getTime() - now.getTime(),
      };
}
