/**
 * The fold (docs/usage.md, Fold): moves a workspace's pending journal into its rollups, one bounded
 * turn at a time. Workspaces take turns by the age of their oldest pending batch; a transaction-level
 * advisory lock per workspace and mode keeps two folders off the same one.
 */
import type pg from 'pg';
import { db } from '../../core/db/client.ts';
import { clientSql } from '../../core/db/sql.ts';
import { applyStatement, recountStatement, type Entry, type Scope } from './apply.ts';

/** A turn's bounds: at most this many events, and no new batch once this much time has gone. */
export const foldLimits = { events: 10_000, ms: 250, batches: 500 } as const;

interface Pending {
  id: string;
  kind: string;
  eventCount: number;
  firstSeq: string;
  lastSeq: string;
}

/** Workspaces with pending batches, the longest waiting first (the partial index over pending rows). */
async function candidates(client: pg.ClientBase): Promise<Scope[]> {
  const { rows } = await client.query<Scope>(
    `SELECT "workspaceId", mode FROM usage_ingest_batches WHERE "foldedAt" IS NULL
      GROUP BY "workspaceId", mode ORDER BY min("receivedAt") LIMIT 32`,
  );
  return rows;
}

/** The pending journal of one workspace in `seq` order, cut at the turn's event bound (one batch at least). */
async function pendingOf(client: pg.ClientBase, s: Scope): Promise<Pending[]> {
  const { rows } = await client.query<Pending>(
    `SELECT id, kind, "eventCount", "firstSeq"::text, "lastSeq"::text FROM usage_ingest_batches
      WHERE "workspaceId" = $1 AND mode = $2 AND "foldedAt" IS NULL ORDER BY seq LIMIT $3`,
    [s.workspaceId, s.mode, foldLimits.batches],
  );
  let total = 0;
  const out: Pending[] = [];
  for (const r of rows) {
    if (out.length > 0 && total + r.eventCount > foldLimits.events) break;
    total += r.eventCount;
    out.push(r);
  }
  return out;
}

/** Folds the batches given (already locked to this transaction) and marks them folded. */
async function foldBatches(client: pg.ClientBase, s: Scope, batches: Pending[]) {
  const sql = clientSql(client);
  const entries: Entry[] = batches.map((b) => ({
    firstSeq: b.firstSeq,
    lastSeq: b.lastSeq,
    sign: b.kind === 'correction' ? -1 : 1,
  }));
  const touched = await sql.query<{ subscriptionId: string; meterId: string; periodStart: Date }>(
    applyStatement(s, entries),
  );
  for (const k of touched) await sql.query(recountStatement(s, k));
  await client.query(
    `UPDATE usage_ingest_batches SET "foldedAt" = now() WHERE "workspaceId" = $1 AND mode = $2 AND id = ANY ($3::text[])`,
    [s.workspaceId, s.mode, batches.map((b) => b.id)],
  );
}

/**
 * One turn: the first candidate workspace whose lock is free folds up to the turn's bounds, in
 * transactions of at most `foldLimits.events` events. Answers the number of batches folded (0: nothing
 * to do or every candidate busy).
 */
export async function foldTurn(): Promise<number> {
  const client = await db().system.connect();
  try {
    for (const s of await candidates(client)) {
      const started = Date.now();
      let folded = 0;
      while (Date.now() - started < foldLimits.ms) {
        await client.query('BEGIN');
        const [lock] = (
          await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_xact_lock(hashtext('usage-fold:' || $1)) AS ok`, [
            `${s.workspaceId}:${s.mode}`,
          ])
        ).rows;
        const batches = lock.ok ? await pendingOf(client, s) : [];
        if (batches.length === 0) {
          await client.query('ROLLBACK');
          break;
        }
        await foldBatches(client, s, batches);
        await client.query('COMMIT');
        folded += batches.length;
      }
      if (folded > 0) return folded;
    }
    return 0;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    client.release();
  }
}
