/**
 * Runs of one workspace and mode, one at a time in creation order (docs/reconciliation.md, Runs): one connection
 * of the reconciliation pool holds the workspace's advisory lock while it works the queued runs, each through
 * its phases (provider, bank, missing at provider and auto-resolution, ledger, done); a failure fails that run
 * (`reconciliation_run.failed`) and the next one starts.
 */
import { clock } from '../../../core/clock.ts';
import { db } from '../../../core/db/client.ts';
import { sql, toJson, type Sql } from '../../../core/db/sql.ts';
import { logger } from '../../../core/logger.ts';
import { emit } from '../../../core/outbox.ts';
import type { RowScope } from '../../../core/resource.ts';
import { nextState } from '../../../core/state-machine.ts';
import type { ReconRun } from '../../../generated/prisma/client.ts';
import { runSnapshot } from '../fields.ts';
import { runMachine, type RunStatus } from '../states.ts';
import { runBankPhase } from './bank-phase.ts';
import { emptyStats, inRunTx, loadSettings, type RunContext } from './context.ts';
import { runLedgerPhase } from './ledger-phase.ts';
import { runMissingPhase } from './missing-phase.ts';
import { runProviderPhase } from './provider-phase.ts';
import { recordProgress } from './progress.ts';
import { pendingStatus } from './rows.ts';

const queued = runMachine.moves.queue.to;

/** The advisory lock key of a workspace and mode's runs. */
const lockKey = (scope: RowScope) => sql`hashtextextended(${`recon-run:${scope.workspaceId}:${scope.mode}`}, 0)`;

/** Works every queued run of the scope, oldest first; returns how many ran. */
export async function processQueuedRuns(scope: RowScope): Promise<number> {
  const client = await db().recon.connect();
  let broken: Error | undefined;
  let ran = 0;
  try {
    const base = { client, scope };
    await inRunTx(base, (tx) => tx.query(sql`SELECT pg_advisory_lock(${lockKey(scope)})`));
    try {
      for (;;) {
        const run = await inRunTx(base, (tx) => nextQueued(tx, scope));
        if (!run) break;
        await executeRun(client, scope, run);
        ran++;
      }
    } finally {
      await inRunTx(base, (tx) => tx.query(sql`SELECT pg_advisory_unlock(${lockKey(scope)})`));
    }
  } catch (e) {
    broken = e instanceof Error ? e : new Error(String(e));
    throw e;
  } finally {
    client.release(broken);
  }
  return ran;
}

async function nextQueued(tx: Sql, scope: RowScope): Promise<ReconRun | null> {
  const [run] = await tx.query<ReconRun>(
    sql`SELECT * FROM recon_runs WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
        AND status = ${queued} ORDER BY "createdAt", id LIMIT 1`,
  );
  return run ?? null;
}

async function executeRun(client: RunContext['client'], scope: RowScope, queuedRun: ReconRun) {
  const started = clock.now();
  const c = await inRunTx({ client, scope }, async (tx) => {
    const { settings, accountId } = await loadSettings(tx, scope);
    const run = await moveRun(tx, scope, queuedRun, 'start', { startedAt: started, total: await rowsTotal(tx, scope) });
    return { scope, accountId, run, settings, client, stats: emptyStats(), evaluated: new Set<string>() };
  });
  try {
    await runProviderPhase(c);
    await runBankPhase(c);
    await runMissingPhase(c);
    const check = await runLedgerPhase(c);
    await inRunTx(c, async (tx) => {
      await recordProgress(tx, c, 'done', 0);
      const run = await moveRun(tx, scope, c.run, 'complete', { ledgerCheck: check });
      await emitRun(tx, c, run);
    });
    logger.info({ run: c.run.id, stats: c.stats }, 'reconciliation run completed');
  } catch (e) {
    logger.error({ run: c.run.id, err: (e as Error).message }, 'reconciliation run failed');
    await inRunTx(c, async (tx) => {
      const [current] = await tx.query<ReconRun>(
        sql`SELECT * FROM recon_runs WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
          AND id = ${c.run.id}`,
      );
      const run = await moveRun(tx, scope, current, 'fail', { failureCode: 'internal_error' });
      await emitRun(tx, c, run);
    });
  }
}

/** Provider and bank rows still pending (rows in a resolvable exception come on top; a completed run is 100). */
async function rowsTotal(tx: Sql, scope: RowScope): Promise<number> {
  const [{ n }] = await tx.query<{ n: bigint }>(
    sql`SELECT (SELECT count(*) FROM recon_rows WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
        AND status = ${pendingStatus}) AS n`,
  );
  return Number(n);
}

interface MoveData {
  startedAt?: Date;
  total?: number;
  ledgerCheck?: unknown;
  failureCode?: string;
}

/** A compare-and-set move of the run through its state table. */
async function moveRun(
  tx: Sql,
  scope: RowScope,
  run: ReconRun,
  trigger: 'start' | 'complete' | 'fail',
  d: MoveData,
): Promise<ReconRun> {
  const move = nextState(runMachine, run.status as RunStatus, trigger);
  const now = clock.now();
  const done = trigger !== 'start';
  const [row] = await tx.query<ReconRun>(
    sql`UPDATE recon_runs SET status = ${move.to}, "startedAt" = coalesce(${d.startedAt ?? null}, "startedAt"),
        "rowsTotal" = coalesce(${d.total ?? null}::int, "rowsTotal"),
        "rowsProcessed" = CASE WHEN ${trigger === 'complete'} THEN "rowsTotal" ELSE least("rowsProcessed", coalesce(${d.total ?? null}::int, "rowsTotal")) END,
        "ledgerCheck" = coalesce(${d.ledgerCheck === undefined ? null : toJson(d.ledgerCheck)}::jsonb, "ledgerCheck"),
        "failureCode" = ${d.failureCode ?? null}, "completedAt" = ${done ? now : null}, "updatedAt" = ${now}
      WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode} AND id = ${run.id} AND status = ${run.status}
      RETURNING *`,
  );
  if (!row) throw new Error(`reconciliation run ${run.id} moved under us`);
  return row;
}

async function emitRun(tx: Sql, c: RunContext, run: ReconRun) {
  const trigger = run.status === runMachine.moves.complete.to ? 'complete' : 'fail';
  for (const type of nextState(runMachine, runMachine.moves.start.to, trigger).events)
    await emit(tx, c.scope, type, runSnapshot({ ...run, accountId: c.accountId }), { source: 'reconciliation' });
}
