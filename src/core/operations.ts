/**
 * Money-creating operations run once per idempotent request, also when its claim is taken over
 * (src/core/idempotency.ts: a crash after the commit, or a run slower than the lease, lets the same
 * request run again under the same `operationId`). The operation records what it makes in
 * `idempotent_operations`, keyed by that id, in the transaction that makes it; a later run finds
 * it there and answers with it instead of making (and charging) a second one. The claim comes
 * first in the transaction, so a run racing a slower first run waits for it on the key and then
 * finds its result; a first run that rolled back left nothing, and the next run acts.
 */
import { sql as q, scopedRow, sqlOf, type AnyTx } from './db/sql.ts';
import type { ReplayNotes } from './idempotency.ts';
import type { RowScope } from './resource.ts';

/** What an operation makes (or pays): one name per money-creating entry point. */
export type OperationKind =
  | 'subscription.create'
  | 'invoice.pay'
  | 'refund.create'
  | 'usage_record.create'
  | 'checkout_session.create'
  | 'payout.create';

/**
 * In the caller's transaction, before it acts: claims the operation for `resourceId` (the id it is
 * about to make, or the invoice it pays) and returns null, or returns the id an earlier run of the
 * same request recorded (the caller loads and answers that, doing nothing else). Without an
 * operation id (no Idempotency-Key, or work outside a request) every run acts.
 */
export async function claimOperation(
  tx: AnyTx,
  scope: RowScope,
  notes: Pick<ReplayNotes, 'operationId'> | undefined,
  kind: OperationKind,
  resourceId: string,
): Promise<string | null> {
  const operationId = notes?.operationId;
  if (!operationId) return null;
  const sql = sqlOf(tx);
  const claimed = await sql.query(
    q`INSERT INTO idempotent_operations ("workspaceId", mode, "operationId", kind, "resourceId")
      VALUES (${scope.workspaceId}, ${scope.mode}, ${operationId}, ${kind}, ${resourceId})
      ON CONFLICT ("workspaceId", mode, "operationId") DO NOTHING RETURNING 1`,
  );
  if (claimed.length) return null;
  // Committed by the earlier run (the insert above waited for it): read in a new snapshot.
  const [earlier] = await sql.query<{ kind: string; resourceId: string }>(
    q`SELECT kind, "resourceId" FROM idempotent_operations
      WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode} AND "operationId" = ${operationId}`,
  );
  // One key and fingerprint is one request, so one kind; anything else is a fault, not a reason to act twice.
  if (!earlier || earlier.kind !== kind) throw new Error(`operation ${operationId} was recorded as ${earlier?.kind}`);
  return earlier.resourceId;
}

/**
 * `claimOperation` for a create whose answer is the row it made: that row (from `table`) when an
 * earlier run of the same request made it, else null and this run acts.
 */
export async function earlierRow<R>(
  tx: AnyTx,
  scope: RowScope,
  notes: Pick<ReplayNotes, 'operationId'> | undefined,
  kind: OperationKind,
  table: string,
  resourceId: string,
): Promise<R | null> {
  const earlier = await claimOperation(tx, scope, notes, kind, resourceId);
  return earlier ? scopedRow<R>(tx, table, scope, earlier) : null;
}
