// The purge of a larger workspace (docs/decisions.md, Workspace lifecycle: batches of at most 5,000
// rows, each its own transaction, resumed after a stop). Rows are written in bulk as of before the archive; `SVC_PURGE_ROWS` scales them (the
// figure in docs/decisions.md: SVC_PURGE_ROWS=5000, i.e. 5,000 customers and 20,000 events).
import { expect, it } from 'vitest';
import { db, useServer } from '../../helpers/server.ts';
import { clock } from '../../../src/core/clock.ts';
import { backoffMs } from '../../../src/core/sweep.ts';
import { purgeArchivedWorkspaces } from '../../../src/modules/workspaces/purge.ts';
import { RETENTION_MS } from '../../../src/core/retention.ts';

const server = useServer({ background: 'none' });
const N = Number(process.env.SVC_PURGE_ROWS ?? 1000);

it(`purges a workspace of ${N} customers and ${4 * N} events whole, in one run`, { timeout: 600_000 }, async () => {
  const ws = await server.workspace({ name: 'Big' });
  await db().system.query(
    `INSERT INTO events (id, "workspaceId", mode, type, sequence, "occurredAt", data, metadata)
     SELECT 'evt_' || lpad(g::text, 26, '0'), $1, 'test', 'x.y', 1, now(), '{}', '{}' FROM generate_series(1, $2::int) g`,
    [ws.workspaceId, 4 * N],
  );
  await db().system.query(
    `INSERT INTO customers (id, "workspaceId", mode, name, metadata, "createdAt", "updatedAt")
     SELECT 'cus_' || lpad(g::text, 26, '0'), $1, 'test', 'c', '{}', now(), now() FROM generate_series(1, $2::int) g`,
    [ws.workspaceId, N],
  );
  // As in production, where these tables carry statistics: without them the generic plans of the
  // foreign-key checks pick an index on ("workspaceId", mode) alone and every deleted customer scans
  // the workspace's customers (2.5 s instead of 0.13 s for 5,000; docs/decisions.md, Purge).
  await db().system.query('ANALYZE customers, events');
  expect((await ws.client.delete(`/v1/workspaces/${ws.workspaceId}`)).status).toBe(204);
  clock.advance(RETENTION_MS + 1000);
  try {
    const t = performance.now();
    expect(await purgeArchivedWorkspaces(clock.now())).toEqual([ws.workspaceId]);
    console.log(`purge: ${N} customers, ${4 * N} events in ${(performance.now() - t).toFixed(0)} ms`);
  } finally {
    clock.reset();
  }
  const { rows } = await db().system.query(
    `SELECT (SELECT count(*) FROM events WHERE "workspaceId" = $1)::int AS events,
            (SELECT count(*) FROM customers WHERE "workspaceId" = $1)::int AS customers`,
    [ws.workspaceId],
  );
  expect(rows[0]).toEqual({ events: 0, customers: 0 });
});

it('deletes in short batches, and a purge stopped midway resumes on the next run', async () => {
  const ws = await server.workspace({ name: 'Resumed' });
  await db().system.query(
    `INSERT INTO events (id, "workspaceId", mode, type, sequence, "occurredAt", data, metadata)
     SELECT 'evt_r' || lpad(g::text, 25, '0'), $1, 'test', 'x.y', 1, now(), '{}', '{}' FROM generate_series(1, 1200) g`,
    [ws.workspaceId],
  );
  await db().system.query(
    `INSERT INTO customers (id, "workspaceId", mode, name, metadata, "createdAt", "updatedAt")
     SELECT 'cus_r' || lpad(g::text, 25, '0'), $1, 'test', 'c', '{}', now(), now() FROM generate_series(1, 300) g`,
    [ws.workspaceId],
  );
  const rowsLeft = async () =>
    (
      await db().system.query(
        `SELECT (SELECT count(*) FROM events WHERE "workspaceId" = $1)::int + (SELECT count(*) FROM customers WHERE "workspaceId" = $1)::int AS n`,
        [ws.workspaceId],
      )
    ).rows[0].n as number;
  const state = async () =>
    (await db().system.query(`SELECT "purgeStartedAt", "purgedAt" FROM workspaces WHERE id = $1`, [ws.workspaceId]))
      .rows[0];
  const before = await rowsLeft();
  expect((await ws.client.delete(`/v1/workspaces/${ws.workspaceId}`)).status).toBe(204);
  clock.advance(RETENTION_MS + 1000);
  try {
    // The first run stops (a crash, a deploy) after three batches that deleted rows.
    const sizes: number[] = [];
    const stopped = await purgeArchivedWorkspaces(clock.now(), {
      batchRows: 100,
      afterBatch: (_table, rows) => {
        if (rows > 0) sizes.push(rows);
        if (sizes.length === 3) throw new Error('stopped midway');
      },
    });
    expect(stopped).toEqual([]);
    expect(sizes).toHaveLength(3);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(100);
    const midway = await rowsLeft();
    expect(midway).toBeLessThan(before);
    expect(midway).toBeGreaterThan(0);
    const s = await state();
    expect(s.purgeStartedAt).not.toBeNull();
    expect(s.purgedAt).toBeNull();

    // The failure is quarantined (src/core/sweep.ts): a run before its retry time leaves it alone.
    const held = await db().system.query(
      `SELECT failures, error FROM sweep_quarantine WHERE sweep = 'workspace_purge' AND "workspaceId" = $1`,
      [ws.workspaceId],
    );
    expect(held.rows).toEqual([{ failures: 1, error: 'stopped midway' }]);
    expect(await purgeArchivedWorkspaces(clock.now(), { batchRows: 100 })).toEqual([]);
    expect(await rowsLeft()).toBe(midway);
    clock.advance(backoffMs(1));

    // The next run after it takes it up again and finishes, never more than a batch per transaction.
    const later: number[] = [];
    const resumed = await purgeArchivedWorkspaces(clock.now(), {
      batchRows: 100,
      afterBatch: (_t, rows) => later.push(rows),
    });
    expect(resumed).toEqual([ws.workspaceId]);
    expect(Math.max(...later)).toBe(100);
    expect(later.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(midway);
    expect(await rowsLeft()).toBe(0);
    expect((await state()).purgedAt).not.toBeNull();
    expect(
      (await db().system.query('SELECT 1 FROM sweep_quarantine WHERE "workspaceId" = $1', [ws.workspaceId])).rows,
    ).toEqual([]);
    // Done is done: a third run finds nothing to do.
    expect(await purgeArchivedWorkspaces(clock.now())).toEqual([]);
  } finally {
    clock.reset();
  }
});
