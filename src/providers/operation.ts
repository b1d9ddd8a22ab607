/**
 * The one shape of a call that starts money or a saved method moving at a provider: checkout
 * attempts, off-session charges and setup attempts run through `runProviderOperation`, in steps:
 *
 * 1. `pending`: validate, and write the pending row (an attempt `creating`, a payment `pending`) in
 *    its own transaction, committed before anything is sent. It may answer without a call (`done`):
 *    a method that needs no provider, a page already decided.
 * 2. `call`: the provider, with no transaction open and no pool connection held (the HTTP transport
 *    refuses a call made inside a transaction: src/core/db/open-transaction.ts). Each flow passes an
 *    idempotency key derived from the pending row, so a repeated call is one charge at the provider.
 * 3. `answer`: the answer recorded on the pending row by compare-and-set (the row may have been
 *    superseded, expired or settled by a callback meanwhile) and what it settles, in one transaction.
 * - `refused`: the provider refused or could not be reached (a ProviderError): the pending row is
 *   marked and the caller told. An answer that never arrived leaves the row pending for the flow's
 *   reconciliation (callbacks and the pending sweeps ask the provider by the same key).
 *
 * Each step is timed in `svc_provider_operation_step_seconds{operation,step}`.
 */
import { transactionOpen } from '../core/db/open-transaction.ts';
import { observeProviderStep } from '../core/metrics.ts';
import { isProviderError, type ProviderError } from './errors.ts';

/** The operations, as the metric names them. */
export const providerOperations = {
  checkoutAttempt: 'checkout_attempt',
  offSessionCharge: 'offsession_charge',
  setupAttempt: 'setup_attempt',
} as const;
export type ProviderOperationName = (typeof providerOperations)[keyof typeof providerOperations];

export interface ProviderOperation<Pending, Answer, Result> {
  readonly name: ProviderOperationName;
  pending(): Promise<{ pending: Pending } | { done: Result }>;
  call(pending: Pending): Promise<Answer>;
  refused(pending: Pending, e: ProviderError): Promise<Result>;
  answer(pending: Pending, answer: Answer): Promise<Result>;
}

async function step<T>(operation: ProviderOperationName, name: string, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await fn();
  } finally {
    observeProviderStep(operation, name, performance.now() - started);
  }
}

export async function runProviderOperation<Pending, Answer, Result>(
  op: ProviderOperation<Pending, Answer, Result>,
): Promise<Result> {
  if (transactionOpen()) throw new Error(`${op.name}: a provider operation started inside a transaction`);
  const first = await step(op.name, 'pending', () => op.pending());
  if ('done' in first) return first.done;
  let answer: Answer;
  try {
    answer = await step(op.name, 'call', () => op.call(first.pending));
  } catch (e) {
    if (!isProviderError(e)) throw e;
    return step(op.name, 'refused', () => op.refused(first.pending, e));
  }
  return step(op.name, 'answer', () => op.answer(first.pending, answer));
}

/**
 * The batch form, for pending rows a caller's transaction already wrote and committed (a renewal or
 * dunning batch): each row called (`call` isolates a row's failure and answers undefined for it), then the
 * answers recorded together (`answer`, in as few transactions as the caller groups them).
 */
export async function runProviderBatch<Pending, Answer, Result>(op: {
  readonly name: ProviderOperationName;
  pending: readonly Pending[];
  call(pending: Pending): Promise<Answer | undefined>;
  answer(answered: { pending: Pending; answer: Answer }[]): Promise<Result>;
}): Promise<Result> {
  if (transactionOpen()) throw new Error(`${op.name}: a provider operation started inside a transaction`);
  const called = await Promise.all(
    op.pending.map(async (pending) => {
      const answer = await step(op.name, 'call', () => op.call(pending));
      return answer === undefined ? null : { pending, answer };
    }),
  );
  const answered = called.filter((a) => a !== null);
  return step(op.name, 'answer', () => op.answer(answered));
}
