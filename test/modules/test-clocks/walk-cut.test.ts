import { describe, expect, it } from 'vitest';
import { useServer, db } from '../../helpers/server.ts';
import { until } from '../../helpers/receiver.ts';
import { clockedSubscriptions } from '../../helpers/clocked-subscriptions.ts';
import { TEST_CLOCK_HEARTBEAT_SEC, TEST_CLOCK_QUEUE } from '../../../src/modules/test-clocks/service.ts';

// A test clock's walk cut as a failover cuts it, against the local PostgreSQL: its connection
// terminated mid-walk, and its job claimed by a worker that could never complete or fail it.
const server = useServer({ background: 'worker' });

const DAY = 86_400_000;
const start = '2025-01-31T00:00:00.000Z';
const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
const clockOf = async (ws: { client: any }, id: string) => (await ws.client.get(`/v1/test-clocks/${id}`)).json.data;

describe('a test clock walk cut by the database', () => {
  it('a job claimed and never settled (its worker cut off) holds its workspace for its heartbeat, not its expiry', async () => {
    const ws = await server.workspace();
    const c = (await ws.client.post('/v1/test-clocks', { frozenTime: start })).json.data;
    const boss = server.worker!.boss;
    // The job of an advance, claimed by a worker whose complete() and fail() both met the outage: it
    // stays `active`, without a heartbeat, in the workspace's group (one job per workspace at a time).
    const data = { workspaceId: ws.workspaceId, mode: 'test', testClockId: c.id };
    const sent = await boss.send(TEST_CLOCK_QUEUE, data, {
      group: { id: ws.workspaceId },
      startAfter: new Date(Date.now() + 3_600_000),
    });
    const [claimed] = await boss.fetch(TEST_CLOCK_QUEUE, { ignoreStartAfter: true });
    expect(claimed?.id).toBe(sent);
    const target = plus(start, DAY);
    await db().system.query(`UPDATE test_clocks SET status = 'advancing', "advanceTarget" = $2 WHERE id = $1`, [
      c.id,
      target,
    ]);
    const t0 = Date.now();
    await server.worker!.boss.send('test-clock-advance-sweep', {});
    // Before the heartbeat, the group is the lost job's: the sweep's job waits.
    let now = await clockOf(ws, c.id);
    expect(now.status).toBe('advancing');
    // Then the supervisor fails the lost job for retry (its heartbeat stopped) and the walk runs:
    // within the heartbeat, the supervisor's 5 s and the retry delay, not the job's 900 s expiry.
    await until(
      async () => (now = await clockOf(ws, c.id)).status === 'ready',
      'the clock to be ready',
      (TEST_CLOCK_HEARTBEAT_SEC + 30) * 1000,
    );
    expect(now.frozenTime).toBe(target);
    expect(Date.now() - t0).toBeGreaterThan((TEST_CLOCK_HEARTBEAT_SEC - 1) * 1000);
    const lost = await boss.getJobById(TEST_CLOCK_QUEUE, sent!);
    expect(lost?.state).not.toBe('active');
  }, 120_000);

  it("a walk whose connection is terminated stays advancing at the time reached and resumes: every period's invoice once", async () => {
    const ws = await server.workspace();
    const c = (await ws.client.post('/v1/test-clocks', { frozenTime: start })).json.data;
    const { ids } = await clockedSubscriptions(ws, { testClockId: c.id, anchor: start, count: 40 });
    const target = '2025-12-31T00:00:00.000Z';
    const key = `test_clock:${ws.workspaceId}:test:${c.id}`;
    const adv = await ws.client.post(`/v1/test-clocks/${c.id}/advance`, { frozenTime: target });
    expect(adv.json.data.status).toBe('advancing');
    // The connection holding the clock's lock (the walker's own), terminated once some periods are billed.
    let cut = false;
    await until(
      async () => {
        const { rows } = await db().system.query<{ pid: number; billed: number }>(
          `SELECT l.pid, (SELECT count(*)::int FROM invoices WHERE "subscriptionId" = ANY($2)) AS billed
             FROM pg_locks l
            WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
              AND ((l.classid::bigint << 32) | l.objid::bigint) = hashtextextended($1, 0)`,
          [key, ids],
        );
        if (!rows.length || rows[0].billed < 2 * ids.length) return false;
        await db().system.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
        return (cut = true);
      },
      'the walker mid-walk',
      60_000,
    );
    expect(cut).toBe(true);
    expect((await clockOf(ws, c.id)).status).toBe('advancing');
    let now: any;
    await until(async () => (now = await clockOf(ws, c.id)).status !== 'advancing', 'the walk resumed', 90_000);
    expect(now).toMatchObject({ status: 'ready', frozenTime: target });
    const { rows } = await db().system.query(
      `SELECT to_char("periodStart", 'YYYY-MM-DD') AS p, count(*)::int AS n, count(DISTINCT "subscriptionId")::int AS subs
         FROM invoices WHERE "subscriptionId" = ANY($1) GROUP BY 1 ORDER BY 1`,
      [ids],
    );
    expect(rows).toHaveLength(11);
    for (const r of rows) expect(r).toMatchObject({ n: ids.length, subs: ids.length });
    const types = (await ws.client.get(`/v1/events?objectId=${c.id}&order=asc`)).json.data.map((e: any) => e.type);
    expect(types).toEqual(['test_clock.created', 'test_clock.advancing', 'test_clock.ready']);
  }, 120_000);
});
