/**
 * Where a refund goes when it is created (spec Refund states, spec Payment flow): the payment's own
 * adapter. `localAnswer` settles what needs no provider (manual, the test-mode sandbox) inside the
 * creating transaction; `callProvider` is the one provider call, made with no transaction open
 * (two phases: service.ts).
 */
import type { Mode } from '../../core/db/client.ts';
import { DomainError } from '../../core/errors.ts';
import { isOnline, providerFor } from '../adapters/providers.ts';
import type { Adapter, Payment } from '../../generated/prisma/client.ts';
import { refundStatus, type RefundStatus } from '../../providers/types.ts';

export interface ProviderAnswer {
  /** The provider's word (a same-call answer names the status the refund is created in). */
  status: RefundStatus;
  providerRefundId: string | null;
}

/**
 * The answer when no provider is involved; null when the payment's provider must be called. Throws when no refund path
 * exists.
 */
export function localAnswer(scope: { mode: Mode }, payment: Payment): ProviderAnswer | null {
  const adapter = payment.adapter ?? 'manual';
  // The merchant returned the money offline; the refund records it.
  if (adapter === 'manual') return { status: refundStatus.succeeded, providerRefundId: null };
  if (adapter === 'provider_a_platform') {
    // spec: a managed test-mode card refund resolves on the create call; other sandbox refunds
    // settle with POST /v1/refunds/:id/simulate.
    if (scope.mode === 'test')
      return {
        status: payment.method === 'card' ? refundStatus.succeeded : refundStatus.pending,
        providerRefundId: null,
      };
    throw new DomainError(
      'provider_error',
      'Refunds of live managed payments are not available yet; nothing was refunded',
      { resource: 'refund' },
    );
  }
  if (!isOnline(adapter))
    throw new DomainError('provider_error', `No refund path for adapter ${adapter}`, { resource: 'refund' });
  if (!payment.providerReference)
    throw new DomainError('provider_error', `The payment has no ${adapter} reference; nothing was refunded`, {
      resource: 'refund',
    });
  return null;
}

/** The adapter row a provider refund needs, or 502 when it is gone. */
export function requireAdapter(row: Adapter | null, kind: string): Adapter {
  if (!row)
    throw new DomainError('provider_error', `The ${kind} adapter is no longer connected; nothing was refunded`, {
      resource: 'refund',
    });
  return row;
}

/**
 * The provider call. `providerKey` is the refund's stable idempotency key: a repeated call (a
 * retried request, the sweep after a crash) is deduplicated by the provider and answers the same
 * refund. Throws ProviderError (502) when the provider fails or refuses.
 */
export async function callProvider(
  adapter: Adapter,
  payment: Payment,
  refund: { amount: bigint; reason: string | null; providerKey: string },
): Promise<ProviderAnswer> {
  const r = await providerFor(adapter).refund({
    providerRef: payment.providerReference!,
    amount: Number(refund.amount),
    currency: payment.currency,
    reason: refund.reason,
    idempotencyKey: refund.providerKey,
  });
  return { status: r.status, providerRefundId: r.providerRefundId };
}
