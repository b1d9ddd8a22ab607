import { describe, expect, it } from 'vitest';
import { useServer, db } from '../../helpers/server.ts';
import { until } from '../../helpers/receiver.ts';
import { clockedSubscriptions } from '../../helpers/clocked-subscriptions.ts';

// The whole worker: the relay enqueues `test-clock-advance` when it publishes `test_clock.advancing`.
const server = useServer({ background: 'worker' });

const DAY = 86_400_000;
const start = '2025-01-31T00:00:00.000Z';
const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();

describe('background advance', () => {
  it('a large advance answers advancing, then the job walks it: ready, past-due moved, test_clock.ready', async () => {
    const ws = await server.workspace();
    const c = (await ws.client.post('/v1/test-clocks', { frozenTime: start })).json.data;
    const customers: string[] = [];
    for (let i = 0; i < 12; i++)
      customers.push((await ws.client.post('/v1/customers', { name: `c${i}`, testClockId: c.id })).json.data.id);
    const dueAt = plus(start, 3 * DAY);
    const inv = (
      await ws.client.post('/v1/invoices', {
        customerId: customers[0],
        currency: 'IDR',
        status: 'open',
        dueAt,
        lines: [{ description: 'Setup', quantity: 1, unitAmount: 10000 }],
      })
    ).json.data;
    const target = plus(start, 60 * DAY);
    const adv = await ws.client.post(`/v1/test-clocks/${c.id}/advance`, { frozenTime: target });
    expect(adv.status).toBe(200);
    expect(adv.json.data).toMatchObject({ status: 'advancing', frozenTime: start });
    let now: any;
    await until(async () => {
      now = (await ws.client.get(`/v1/test-clocks/${c.id}`)).json.data;
      return now.status === 'ready';
    }, 'the clock to be ready');
    expect(now.frozenTime).toBe(target);
    expect((await ws.client.get(`/v1/invoices/${inv.id}`)).json.data.status).toBe('past_due');
    const { rows } = await db().system.query('SELECT "pastDueAt" FROM invoices WHERE id = $1', [inv.id]);
    expect(rows[0].pastDueAt.toISOString()).toBe(dueAt);
    const types = (await ws.client.get(`/v1/events?objectId=${c.id}&order=asc`)).json.data.map((e: any) => e.type);
    expect(types).toEqual(['test_clock.created', 'test_clock.advancing', 'test_clock.ready']);
  });

  it('many subscriptions: advancing, then ready with every renewal of the span, each at its boundary', async () => {
    const ws = await server.workspace();
    const c = (await ws.client.post('/v1/test-clocks', { frozenTime: start })).json.data;
    const { ids } = await clockedSubscriptions(ws, { testClockId: c.id, anchor: start, count: 25 });
    const target = '2025-04-30T00:00:00.000Z';
    const adv = await ws.client.post(`/v1/test-clocks/${c.id}/advance`, { frozenTime: target });
    expect(adv.json.data.status).toBe('advancing');
    await until(
      async () => (await ws.client.get(`/v1/test-clocks/${c.id}`)).json.data.status === 'ready',
      'the clock to be ready',
      60_000,
    );
    const { rows } = await db().system.query(
      `SELECT to_char("periodStart", 'YYYY-MM-DD') AS p, count(*)::int AS n, count(*) FILTER (WHERE status = 'paid')::int AS paid,
         bool_and("createdAt" = "periodStart") AS dated
       FROM invoices WHERE "subscriptionId" = ANY($1) GROUP BY 1 ORDER BY 1`,
      [ids],
    );
    expect(rows).toEqual(['2025-02-28', '2025-03-31', '2025-04-30'].map((p) => ({ p, n: 25, paid: 25, dated: true })));
  });

  it('a clock left advancing (its job lost) is resumed by the sweep, once', async () => {
    const ws = await server.workspace();
    const c = (await ws.client.post('/v1/test-clocks', { frozenTime: start })).json.data;
    const target = plus(start, DAY);
    // As if the process died after committing `advancing` and before any job ran.
    await db().system.query(`UPDATE test_clocks SET status = 'advancing', "advanceTarget" = $2 WHERE id = $1`, [
      c.id,
      target,
    ]);
    // The sweep now rather than at the next minute (which may get there first: either way one walk, one ready).
    await server.worker!.boss.send('test-clock-advance-sweep', {});
    let now: any;
    await until(async () => {
      now = (await ws.client.get(`/v1/test-clocks/${c.id}`)).json.data;
      return now.status === 'ready';
    }, 'the clock to be ready');
    expect(now).toMatchObject({ status: 'ready', frozenTime: target });
    const types = (await ws.client.get(`/v1/events?objectId=${c.id}&order=asc`)).json.data.map((e: any) => e.type);
    expect(types).toEqual(['test_clock.created', 'test_clock.ready']);
  });
});
