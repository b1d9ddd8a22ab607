// The purge of a larger workspace (docs/decisions.md, Workspace lifecycle: one transaction per
// workspace). Rows are written in bulk as of before the archive; `SVC_PURGE_ROWS` scales them (the
// figure in docs/decisions.md: SVC_PURGE_ROWS=5000, i.e. 5,000 customers and 20,000 events).
import { expect, it } from 'vitest';
import { db, useServer } from '../../helpers/server.ts';
import { clock } from '../../../src/core/clock.ts';
import { purgeArchivedWorkspaces } from '../../../src/modules/workspaces/lifecycle.ts';
import { RETENTION_MS } from '../../../src/modules/workspaces/retention.ts';

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
