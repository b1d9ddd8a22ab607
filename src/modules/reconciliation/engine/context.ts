/**
 * What every phase of a run needs (docs/reconciliation.md, Runs): the run, the workspace's settings and zone,
 * its `acc_` id for the events' objects, and one connection of the reconciliation pool that holds the
 * workspace's advisory lock for the whole run and carries each of its transactions.
 */
import type pg from 'pg';
import { clientSql, sql, type Sql } from '../../../core/db/sql.ts';
import type { RowScope } from '../../../core/resource.ts';
import type { ReconRun } from '../../../generated/prisma/client.ts';
import type { FeeRule } from '../rules/fees.ts';
import type { ToleranceMap } from '../rules/tolerances.ts';
import { settingsDefaults } from '../settings.ts';

export interface EngineSettings {
  dateToleranceDays: number;
  lateSettlementDays: number;
  amountTolerance: ToleranceMap;
  feeTolerance: ToleranceMap;
  transferFeeTolerance: ToleranceMap;
  feeRules: FeeRule[];
  timeZone: string;
}

/** What a run decided, counted as it goes (the run's `stats`). */
export interface RunStats {
  rowsMatched: number;
  rowsAutoMatched: number;
  rowsException: number;
  rowsIgnored: number;
  matches: number;
  exceptionsOpened: number;
  exceptionsAutoResolved: number;
  batchesMatched: number;
}

export const emptyStats = (): RunStats => ({
  rowsMatched: 0,
  rowsAutoMatched: 0,
  rowsException: 0,
  rowsIgnored: 0,
  matches: 0,
  exceptionsOpened: 0,
  exceptionsAutoResolved: 0,
  batchesMatched: 0,
});

export interface RunContext {
  scope: RowScope;
  accountId: string;
  run: ReconRun;
  settings: EngineSettings;
  client: pg.PoolClient;
  stats: RunStats;
  /** Provider rows this run decided (the ledger check's scope). */
  evaluated: Set<string>;
}

/** One transaction of the run on its connection, scoped to the workspace and mode (row-level security). */
export async function inRunTx<T>(c: Pick<RunContext, 'client' | 'scope'>, fn: (tx: Sql) => Promise<T>): Promise<T> {
  await c.client.query('BEGIN');
  try {
    const tx = clientSql(c.client);
    await tx.query(
      sql`SELECT set_config('app.workspace_id', ${c.scope.workspaceId}, true),
        set_config('app.modes', ${c.scope.mode}, true)`,
    );
    const out = await fn(tx);
    await c.client.query('COMMIT');
    return out;
  } catch (e) {
    await c.client.query('ROLLBACK').catch(() => {});
    throw e;
  }
}

/** The workspace's settings (defaults until the first PATCH), its zone and its account id. */
export async function loadSettings(tx: Sql, scope: RowScope): Promise<{ settings: EngineSettings; accountId: string }> {
  const [ws] = await tx.query<{ timezone: string; accountId: string }>(
    sql`SELECT timezone, "accountId" FROM workspaces WHERE id = ${scope.workspaceId}`,
  );
  const [row] = await tx.query<Omit<EngineSettings, 'timeZone'>>(
    sql`SELECT "dateToleranceDays", "lateSettlementDays", "amountTolerance", "feeTolerance",
        "transferFeeTolerance", "feeRules"
      FROM recon_settings WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}`,
  );
  return { settings: { ...settingsDefaults, ...row, timeZone: ws.timezone }, accountId: ws.accountId };
}
