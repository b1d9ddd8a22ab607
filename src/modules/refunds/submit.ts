/**
 * Phases 2 and 3 of a provider refund (service.ts createRefund, and the sweep): the provider is
 * called with no transaction open, then its answer is recorded in a short transaction under the
 * payment's lock. Shared so the request and the sweep follow one rule.
 */
import { inTenant } from '../../core/db/client.ts';
import { logger } from '../../core/logger.ts';
import { isProviderError, type ProviderError } from '../../providers/index.ts';
import type { Adapter, Payment, Refund } from '../../generated/prisma/client.ts';
import { callProvider, type ProviderAnswer } from './provider.ts';
import { lockPayment, recordSubmission, type SettleOptions } from './settle.ts';
import { awaitingProvider } from './states.ts';
import type { RowScope } from '../../core/resource.ts';

type Scope = RowScope;

/**
 * The provider answered and refused this request: it did not and will not refund it. Anything else may have reached it.
 */
export const isDefiniteRefusal = (e: ProviderError) => !e.retryable && e.reason !== 'bad_response';

/** Records an answer (phase 3). Compare-and-set: a row already submitted (callback, sweep) is returned as it is. */
export function recordAnswer(
  scope: Scope,
  refund: Refund,
  answer: ProviderAnswer,
  opts: SettleOptions,
): Promise<Refund> {
  return inTenant({ ...scope, modes: [scope.mode] }, async (tx) => {
    const payment = await lockPayment(tx, scope, refund.paymentId);
    return recordSubmission(tx, scope, refund.id, payment!, answer, opts);
  });
}

/**
 * Calls the provider for an unsubmitted pending refund and records the outcome. A definite refusal
 * is handed to `onRefusal` (the request removes the row and answers 502; the sweep marks it
 * failed); an unknown outcome leaves the row pending and unsubmitted for the sweep.
 */
export async function submitRefund(
  scope: Scope,
  refund: Refund,
  payment: Payment,
  adapter: Adapter,
  opts: SettleOptions,
  onRefusal: (e: ProviderError) => Promise<Refund> = (e) => discardUnsubmitted(scope, refund, e),
): Promise<Refund> {
  let answer: ProviderAnswer;
  try {
    answer = await callProvider(adapter, payment, {
      amount: refund.amount,
      reason: refund.reason,
      providerKey: refund.providerKey!,
    });
  } catch (e) {
    if (!isProviderError(e)) throw e;
    if (isDefiniteRefusal(e)) return onRefusal(e);
    logger.warn({ refund: refund.id, reason: e.message }, 'refund outcome unknown; left pending for the refund sweep');
    return refund;
  }
  return recordAnswer(scope, refund, answer, opts);
}

/**
 * The request's refusal path: the row never announced is removed (as the old single transaction rolled back), then the
 * 502.
 */
async function discardUnsubmitted(scope: Scope, refund: Refund, e: ProviderError): Promise<never> {
  await inTenant({ ...scope, modes: [scope.mode] }, (tx) =>
    tx.refund.deleteMany({
      where: {
        id: refund.id,
        workspaceId: scope.workspaceId,
        mode: scope.mode,
        status: { in: awaitingProvider },
        submittedAt: null,
      },
    }),
  );
  throw e;
}
