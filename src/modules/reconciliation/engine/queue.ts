/**
 * The `reconciliation-run` queue (docs/reconciliation.md, Runs): a queued run gets its job in the outbox relay's
 * publishing transaction (a pass that published nothing included), so a run queued by an upload, a request or
 * the sweep is worked within a relay tick, and a crash loses neither. One job per workspace and mode of the
 * runs found; the handler works every queued run of its scope, so a job for runs already worked does nothing.
 */
import type pg from 'pg';
import type { PgBoss, Queue } from 'pg-boss';
import type { Mode } from '../../../core/db/client.ts';

export const RUN_QUEUE = 'reconciliation-run';
export const runQueue: Omit<Queue, 'name'> = {
  retryLimit: 3,
  retryDelay: 5,
  retryBackoff: true,
  expireInSeconds: 3600,
  deleteAfterSeconds: 3600,
};

export interface RunJob {
  workspaceId: string;
  mode: Mode;
}

/** Runs handed over per relay pass; the rest wait for the next pass. */
const DISPATCH_LIMIT = 500;

/** Cross-tenant on the relay's owner connection (docs/scaling.md lists it). */
export function runFanOut(boss: PgBoss) {
  return async (client: pg.ClientBase) => {
    const { rows } = await client.query<RunJob>(
      `WITH due AS (
         SELECT "workspaceId", mode, id FROM recon_runs WHERE "dispatchedAt" IS NULL
         ORDER BY "createdAt" LIMIT $1 FOR UPDATE SKIP LOCKED),
       marked AS (
         UPDATE recon_runs r SET "dispatchedAt" = now() FROM due
         WHERE r."workspaceId" = due."workspaceId" AND r.mode = due.mode AND r.id = due.id
         RETURNING r."workspaceId", r.mode)
       SELECT DISTINCT "workspaceId", mode FROM marked`,
      [DISPATCH_LIMIT],
    );
    if (!rows.length) return;
    await boss.insert(
      RUN_QUEUE,
      rows.map((data) => ({ data, group: { id: data.workspaceId } })),
      { db: { executeSql: (text: string, values?: unknown[]) => client.query(text, values) } },
    );
  };
}
