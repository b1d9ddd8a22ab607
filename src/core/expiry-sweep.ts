/**
 * The one shape of an expiry sweep (docs/sweeps.md): the rows of `table` whose status may `expire`
 * and whose `expiresAt` has passed, oldest first, each run alone in its tenant's transaction through
 * `src/core/sweep.ts` (a row that throws is quarantined, the others expire on time). `expire` locks
 * and re-checks its row (a completing attempt may have won) and answers 1 when it expired it.
 */
import { clock } from './clock.ts';
import { db, inTenant, type Mode, type Tx } from './db/client.ts';
import { sql } from './db/sql-template.ts';
import { type Machine, sqlIn, statusesWhere } from './state-machine.ts';
import { Sweep, type SweepName } from './sweep.ts';

export interface ExpiringRow {
  id: string;
  workspaceId: string;
  mode: Mode;
  accountId: string;
}
export type ExpiryScope = { workspaceId: string; mode: Mode; modes: Mode[] };

export async function expireDue(
  o: { table: string; machine: Machine<string, string, string>; sweep: SweepName; limit: number },
  expire: (tx: Tx, scope: ExpiryScope, row: ExpiringRow, now: Date) => Promise<number>,
): Promise<number> {
  const now = clock.now();
  const expirable = sqlIn(sql`s.status`, statusesWhere(o.machine, 'expire')).text;
  const { rows } = await db().system.query<ExpiringRow>(
    `SELECT s.id, s."workspaceId", s.mode, w."accountId"
     FROM ${o.table} s JOIN workspaces w ON w.id = s."workspaceId"
     WHERE ${expirable} AND s."expiresAt" <= $1 ORDER BY s."expiresAt" LIMIT $2`,
    [now, o.limit],
  );
  const sweep = await Sweep.one(o.sweep);
  return sweep.rows(rows, (r) => {
    const scope = { workspaceId: r.workspaceId, mode: r.mode, modes: [r.mode] };
    return inTenant(scope, (tx) => expire(tx, scope, r, now));
  });
}
