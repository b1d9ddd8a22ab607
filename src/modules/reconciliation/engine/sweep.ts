/**
 * The hourly sweep (docs/reconciliation.md, Runs): lateness needs time to pass, not a file, so every workspace
 * and mode with open batches or open exceptions a run may resolve by itself gets a `schedule` run, unless one
 * is already waiting. Cross-tenant on the owner pool (docs/scaling.md lists it); the relay hands the runs over.
 */
import { clock } from '../../../core/clock.ts';
import { db } from '../../../core/db/client.ts';
import { newId } from '../../../core/ids.ts';
import { nextState } from '../../../core/state-machine.ts';
import { batchMachine, reconExceptionMachine, runMachine } from '../states.ts';

/** Exceptions a later run may resolve without a person. */
export const autoResolvable = ['missing_in_ledger', 'missing_at_provider', 'late_settlement', 'unknown_bank_credit'];

export async function queueScheduledRuns(limit = 1000): Promise<number> {
  const queued = nextState(runMachine, null, 'queue').to;
  const { rows } = await db().system.query<{ workspaceId: string; mode: string }>(
    `SELECT "workspaceId", mode FROM recon_batches WHERE status = $1
     UNION SELECT "workspaceId", mode FROM recon_exceptions WHERE status = $2 AND category = ANY($3::text[])
     LIMIT $4`,
    [batchMachine.moves.open.to, reconExceptionMachine.moves.open.to, autoResolvable, limit],
  );
  const now = clock.now();
  let n = 0;
  for (const s of rows) {
    const { rowCount } = await db().system.query(
      `INSERT INTO recon_runs (id, "workspaceId", mode, trigger, status, "createdAt", "updatedAt")
       SELECT $1, $2, $3, $4, $5, $6, $6
       WHERE NOT EXISTS (SELECT 1 FROM recon_runs WHERE "workspaceId" = $2 AND mode = $3 AND status = $5)`,
      [newId('reconciliationRun'), s.workspaceId, s.mode, 'schedule', queued, now],
    );
    n += rowCount ?? 0;
  }
  return n;
}
