/**
 * "Write pending, call the provider, reconcile" (CONTRIBUTING.md, Adding a resource; docs/architecture.md,
 * Provider operations), one shape for every operation that asks a provider: a checkout attempt, an
 * off-session charge, a setup attempt. Its named steps run in this order, each in its own place:
 *   1. validate: what is asked, checked before anything is written (throws what the client sees);
 *   2. writePending: one transaction writes the pending row(s); nothing left to call ends the run here;
 *   3. call: the provider, with no transaction open and no connection held;
 *   4. recordAnswer: the answer written (compare-and-set, or under the row's lock), its own transaction;
 *   5. reconcile: what follows from the recorded answer (a void, a dunning step, the view returned).
 * So no provider is ever called inside a database transaction: the step that calls opens none.
 */
export interface ProviderOperation<In, Pending, Answer, Recorded, Out> {
  validate(input: In): In | Promise<In>;
  /** Null: nothing to call (`settled` answers instead). */
  writePending(input: In): Promise<{ pending: Pending } | { settled: Out }>;
  call(pending: Pending): Promise<Answer>;
  recordAnswer(pending: Pending, answer: Answer): Promise<Recorded>;
  reconcile(recorded: Recorded, pending: Pending): Promise<Out>;
}

/** Runs the steps of `op` for `input`, in order. */
export async function runOperation<In, Pending, Answer, Recorded, Out>(
  op: ProviderOperation<In, Pending, Answer, Recorded, Out>,
  input: In,
): Promise<Out> {
  const written = await op.writePending(await op.validate(input));
  if ('settled' in written) return written.settled;
  const answer = await op.call(written.pending);
  return op.reconcile(await op.recordAnswer(written.pending, answer), written.pending);
}
