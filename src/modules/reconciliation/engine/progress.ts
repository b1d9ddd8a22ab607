// A run's progress and stats as it goes (docs/reconciliation.md, Runs): written with each chunk, so a poll of
// the run sees the phase and the rows processed.
import { clock } from '../../../core/clock.ts';
import { sql, toJson, type Sql } from '../../../core/db/sql.ts';
import type { RunContext } from './context.ts';

export type Phase = 'provider' | 'bank' | 'ledger' | 'done';

export async function recordProgress(tx: Sql, c: RunContext, phase: Phase, processed: number) {
  await tx.query(
    sql`UPDATE recon_runs SET phase = ${phase}, "rowsProcessed" = least("rowsTotal", "rowsProcessed" + ${processed}),
        stats = ${toJson(c.stats)}::jsonb, "updatedAt" = ${clock.now()}
      WHERE "workspaceId" = ${c.scope.workspaceId} AND mode = ${c.scope.mode} AND id = ${c.run.id}`,
  );
}
