/**
 * The purge (spec Workspace: "data retained 90 days then purged"; docs/decisions.md, Workspace
 * lifecycle). The daily `workspace-purge` job deletes every row of a workspace archived more than
 * 90 days ago, in short transactions of at most `purgeBatchRows` rows, so a large workspace never
 * holds one transaction open for minutes (which would hold back vacuum for every tenant). A purge
 * that stops (a crash, a deploy) resumes where it was on the next run: `purgeStartedAt` marks the
 * workspace as being purged, `purgedAt` as purged.
 */
import { db } from '../../core/db/client.ts';
import { clock } from '../../core/clock.ts';
import { Sweep, TENANT_ROW } from '../../core/sweep.ts';
import { logger } from '../../core/logger.ts';
import { lockWorkspace, openBalances } from './lifecycle.ts';
import { retainedSince } from '../../core/retention.ts';

/** Rows per transaction: each batch is a short transaction of its own. */
export const purgeBatchRows = 5_000;
/** Kept after the purge: an old slug never comes back. The `workspaces` row stays as a tombstone. */
const KEPT = new Set(['retired_slugs']);
/**
 * The foreign-key cycles (subscriptions.latestInvoiceId -> invoices -> subscriptions; a customer's
 * default payment method -> payment_methods -> customers; an import's run -> recon_runs -> the import) are opened by clearing these nullable
 * pointers before the deletes.
 */
const CYCLE_BREAKS = [
  { table: 'subscriptions', column: 'latestInvoiceId', constraint: 'subscriptions_latest_invoice_fkey' },
  { table: 'customers', column: 'defaultPaymentMethodId', constraint: 'customers_default_payment_method_fkey' },
  { table: 'recon_imports', column: 'runId', constraint: 'recon_imports_run_fkey' },
];

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Every table with a `workspaceId` column (found in the catalog, so new tables are covered), children
 * before parents by their foreign keys, so no delete ever waits on a row another table still holds.
 */
export async function purgeOrder(): Promise<string[]> {
  const { rows: tables } = await db().system.query<{ table: string }>(
    `SELECT c.table_name AS table FROM information_schema.columns c
     JOIN information_schema.tables t USING (table_schema, table_name)
     WHERE c.table_schema = current_schema() AND c.column_name = 'workspaceId' AND t.table_type = 'BASE TABLE'
     ORDER BY 1`,
  );
  const { rows: keys } = await db().system.query<{ child: string; parent: string; name: string }>(
    `SELECT ch.relname AS child, pa.relname AS parent, k.conname AS name
     FROM pg_constraint k JOIN pg_class ch ON ch.oid = k.conrelid JOIN pg_class pa ON pa.oid = k.confrelid
     WHERE k.contype = 'f' AND k.connamespace = current_schema()::regnamespace`,
  );
  const left = new Set(tables.map((t) => t.table).filter((t) => !KEPT.has(t)));
  const edges = keys.filter((k) => !CYCLE_BREAKS.some((b) => b.constraint === k.name) && k.child !== k.parent);
  const order: string[] = [];
  while (left.size) {
    // A table goes once no table still to be emptied refers to it.
    const free = [...left].filter((t) => !edges.some((k) => k.parent === t && k.child !== t && left.has(k.child)));
    if (free.length === 0) throw new Error(`purge order: a foreign-key cycle between ${[...left].join(', ')}`);
    for (const t of free.sort()) {
      order.push(t);
      left.delete(t);
    }
  }
  return order;
}

/**
 * Purges the workspaces archived more than 90 days ago (on the injected clock), 100 per run; returns
 * the ids purged whole in this run. A workspace whose live ledger is not settled (a late provider
 * callback recorded money after the archive) is not started and is logged: its money must be paid
 * out first. `opts.afterBatch` lets a test stop a purge midway.
 */
export async function purgeArchivedWorkspaces(
  now: Date = clock.now(),
  opts: { batchRows?: number; afterBatch?: (table: string, rows: number) => void } = {},
): Promise<string[]> {
  const { rows: due } = await db().system.query<{ id: string }>(
    `SELECT id FROM workspaces WHERE "archivedAt" <= $1 AND "purgedAt" IS NULL
     ORDER BY "purgeStartedAt" NULLS LAST, "archivedAt" LIMIT 100`,
    [retainedSince(now)],
  );
  if (due.length === 0) return [];
  const order = await purgeOrder();
  const purged: string[] = [];
  // Each workspace alone (both modes: mode `*`): one that fails is quarantined with backoff, and the
  // run after its retry time resumes it (src/core/sweep.ts).
  const sweep = await Sweep.one('workspace_purge');
  for (const { id } of due) {
    await sweep.tenant({ workspaceId: id, mode: TENANT_ROW }, async () => {
      if (!(await startPurge(id, now))) return;
      await deleteRows(id, order, opts.batchRows ?? purgeBatchRows, opts.afterBatch);
      await db().system.query(`UPDATE workspaces SET "purgedAt" = $2, "updatedAt" = $2 WHERE id = $1`, [id, now]);
      purged.push(id);
    });
  }
  return purged;
}

/** Marks the purge as started (once; restore is already closed past the window). False: not to purge. */
async function startPurge(workspaceId: string, now: Date): Promise<boolean> {
  return db().systemPrisma.$transaction(async (tx) => {
    const ws = await lockWorkspace(tx, workspaceId);
    if (!ws.archivedAt || ws.purgedAt || ws.archivedAt > retainedSince(now)) return false;
    // Checked before the first delete only: once rows are going, a partial ledger proves nothing.
    if (ws.purgeStartedAt) return true;
    const open = await openBalances(tx, workspaceId);
    if (open.length) {
      logger.warn({ workspaceId, open }, 'archived workspace not purged: its live ledger is not settled');
      return false;
    }
    await tx.$executeRaw`UPDATE workspaces SET "purgeStartedAt" = ${now} WHERE id = ${workspaceId}`;
    return true;
  });
}

/** One short transaction per batch; each names the workspace so finalized invoice lines may go. */
async function deleteRows(
  workspaceId: string,
  order: string[],
  batchRows: number,
  afterBatch?: (table: string, rows: number) => void,
) {
  const batch = async (statement: string) =>
    db().systemPrisma.$transaction(async (tx) => {
      // Finalized invoices' lines refuse deletes except in a purge of their workspace (migration workspace_lifecycle).
      await tx.$executeRaw`SELECT set_config('app.purge_workspace', ${workspaceId}, true)`;
      return tx.$executeRawUnsafe(statement, workspaceId, batchRows);
    });
  let n: number;
  for (const cut of CYCLE_BREAKS) {
    const [t, c] = [ident(cut.table), ident(cut.column)];
    do {
      n = await batch(`UPDATE ${t} SET ${c} = NULL WHERE ctid = ANY (ARRAY(
         SELECT ctid FROM ${t} WHERE "workspaceId" = $1 AND ${c} IS NOT NULL LIMIT $2))`);
      afterBatch?.(cut.table, n);
    } while (n === batchRows);
  }
  for (const table of order) {
    const name = ident(table);
    do {
      n = await batch(
        `DELETE FROM ${name} WHERE ctid = ANY (ARRAY(SELECT ctid FROM ${name} WHERE "workspaceId" = $1 LIMIT $2))`,
      );
      afterBatch?.(table, n);
    } while (n === batchRows);
  }
}
