/**
 * Where a refund goes when it is created (spec Refund states, DECISIONS §4): the payment's own
 * adapter. The answer is the refund's status at creation.
 */
import type { Mode, Tx } from '../../core/db/client.ts';
import { DomainError } from '../../core/errors.ts';
import { isOnline, providerFor } from '../adapters/providers.ts';
import type { Payment } from '../../generated/prisma/client.ts';
import type { RefundStatus } from './states.ts';

export interface ProviderAnswer {
  status: Extract<RefundStatus, 'pending' | 'succeeded' | 'failed'>;
  providerRefundId: string | null;
}

export async function refundAtProvider(
  tx: Tx,
  scope: { workspaceId: string; mode: Mode },
  payment: Payment,
  refund: { amount: bigint; reason: string | null; idempotencyKey: string },
): Promise<ProviderAnswer> {
  const adapter = payment.adapter ?? 'manual';
  // The merchant returned the money offline; the refund records it.
  if (adapter === 'manual') return { status: 'succeeded', providerRefundId: null };
  if (adapter === 'provider_a_platform') {
    // spec: a managed test-mode card refund resolves on the create call; other sandbox refunds
    // settle with POST /v1/refunds/:id/simulate.
    if (scope.mode === 'test') return { status: payment.method === 'card' ? 'succeeded' : 'pending', providerRefundId: null };
    throw new DomainError('provider_error', 'Refunds of live managed payments are not available yet; nothing was refunded', { resource: 'refund' });
  }
  if (!isOnline(adapter)) throw new DomainError('provider_error', `No refund path for adapter ${adapter}`, { resource: 'refund' });
  const row = await tx.adapter.findUnique({ where: { workspaceId_mode_kind: { workspaceId: scope.workspaceId, mode: scope.mode, kind: adapter } } });
  if (!row || !payment.providerReference) throw new DomainError('provider_error', `The ${adapter} adapter is no longer connected; nothing was refunded`, { resource: 'refund' });
  // A ProviderError is a 502 PROVIDER_ERROR: the transaction rolls back, the client retries with the same key.
  const r = await providerFor(row).refund({
    providerRef: payment.providerReference,
    amount: Number(refund.amount),
    currency: payment.currency,
    reason: refund.reason,
    idempotencyKey: refund.idempotencyKey,
  });
  return { status: r.status, providerRefundId: r.providerRefundId };
}
