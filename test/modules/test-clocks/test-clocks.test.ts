import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { planBody, postPlan } from '../../helpers/plans.ts';
import { useServer, createClient, db, type Workspace } from '../../helpers/server.ts';
import { mintLiveKey } from '../../helpers/keys.ts';
import { markPastDueInvoices } from '../../../src/modules/invoices/sweep.ts';
import { processDue } from '../../../src/modules/subscriptions/renewals.ts';
import { walkClock } from '../../../src/modules/test-clocks/service.ts';
import { clockedSubscriptions } from '../../helpers/clocked-subscriptions.ts';

// No worker: a background advance stays `advancing` here (test-clocks-background.test.ts runs it).
const server = useServer();

type Res = { status: number; json: any };
function expectError(res: Res, status: number, code: string, field?: string) {
  expect({ status: res.status, code: res.json?.error?.code, field: res.json?.error?.field }).toEqual({
    status,
    code,
    field: field ?? res.json?.error?.field,
  });
}

const DAY = 86_400_000;
const start = '2025-01-31T00:00:00.000Z';
const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
const eventTypes = async (ws: Workspace, id: string) =>
  (await ws.client.get(`/v1/events?objectId=${id}&order=asc`)).json.data.map((e: any) => e.type);

async function newClock(ws: Workspace, body: Record<string, unknown> = { frozenTime: start }) {
  const res = await ws.client.post('/v1/test-clocks', body);
  expect(res.status).toBe(201);
  return res.json.data;
}

describe('/v1/test-clocks', () => {
  it('creates (201), retrieves, lists, advances (ready) and deletes (204, soft) with test_clock.* events', async () => {
    const ws = await server.workspace();
    const c = await newClock(ws, { frozenTime: start, name: 'year one' });
    expect(Object.keys(c)).toEqual(['id', 'name', 'frozenTime', 'status', 'createdAt', 'updatedAt']);
    expect(c.id).toMatch(/^clk_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(c).toMatchObject({ name: 'year one', frozenTime: start, status: 'ready' });
    expect((await ws.client.get(`/v1/test-clocks/${c.id}`)).json.data).toEqual(c);
    // epoch seconds are accepted as well as ISO 8601
    const second = await newClock(ws, { frozenTime: Date.parse(start) / 1000 });
    expect(second).toMatchObject({ name: null, frozenTime: start });
    const list = await ws.client.get('/v1/test-clocks');
    expect(list.json.data.map((x: any) => x.id)).toEqual([second.id, c.id]);
    expect(list.json.meta.page).toMatchObject({ limit: 20, hasMore: false });

    const target = plus(start, 40 * DAY);
    const adv = await ws.client.post(`/v1/test-clocks/${c.id}/advance`, { frozenTime: target });
    expect(adv.status).toBe(200);
    expect(adv.json.data).toMatchObject({ id: c.id, frozenTime: target, status: 'ready' });
    expect(await eventTypes(ws, c.id)).toEqual(['test_clock.created', 'test_clock.advancing', 'test_clock.ready']);

    const del = await ws.client.delete(`/v1/test-clocks/${c.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expectError(await ws.client.get(`/v1/test-clocks/${c.id}`), 404, 'not_found');
    expectError(
      await ws.client.post(`/v1/test-clocks/${c.id}/advance`, { frozenTime: plus(target, DAY) }),
      404,
      'not_found',
    );
    expectError(await ws.client.delete(`/v1/test-clocks/${c.id}`), 404, 'not_found');
    expect((await ws.client.get('/v1/test-clocks')).json.data.map((x: any) => x.id)).toEqual([second.id]);
    expect((await eventTypes(ws, c.id)).at(-1)).toBe('test_clock.deleted');
  });

  it.each([
    [{}, 'frozenTime'],
    [{ frozenTime: 'yesterday' }, 'frozenTime'],
    [{ frozenTime: -5 }, 'frozenTime'],
    [{ frozenTime: start, name: '' }, 'name'],
    [{ frozenTime: start, name: 'x'.repeat(256) }, 'name'],
  ])('create %j is 400 validation_error', async (body, field) => {
    const ws = await server.workspace();
    const res = await ws.client.post('/v1/test-clocks', body);
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe('validation_error');
    if (field === 'name' || !('frozenTime' in body)) expect(res.json.error.field).toBe(field);
  });

  it('advance is forward only, at most 5 years, 404 for unknown or foreign clocks', async () => {
    const ws = await server.workspace();
    const other = await server.workspace();
    const c = await newClock(ws);
    for (const frozenTime of [start, plus(start, -1000)])
      expectError(
        await ws.client.post(`/v1/test-clocks/${c.id}/advance`, { frozenTime }),
        400,
        'validation_error',
        'frozenTime',
      );
    expectError(
      await ws.client.post(`/v1/test-clocks/${c.id}/advance`, { frozenTime: plus(start, 6 * 366 * DAY) }),
      400,
      'validation_error',
      'frozenTime',
    );
    expectError(await ws.client.post(`/v1/test-clocks/${c.id}/advance`, {}), 400, 'validation_error', 'frozenTime');
    expectError(await other.client.get(`/v1/test-clocks/${c.id}`), 404, 'not_found');
    expectError(
      await other.client.post(`/v1/test-clocks/${c.id}/advance`, { frozenTime: plus(start, DAY) }),
      404,
      'not_found',
    );
    expectError(await other.client.delete(`/v1/test-clocks/${c.id}`), 404, 'not_found');
    expect((await other.client.get('/v1/test-clocks')).json.data).toEqual([]);
    expectError(await ws.client.get('/v1/test-clocks/clk_nope'), 404, 'not_found');
    // Nothing moved: the refused advances left the clock where it was.
    expect((await ws.client.get(`/v1/test-clocks/${c.id}`)).json.data).toMatchObject({
      frozenTime: start,
      status: 'ready',
    });
  });

  it('a live key gets 403 forbidden_in_live_mode on every route', async () => {
    const ws = await server.workspace();
    const c = await newClock(ws);
    const live = createClient({ baseUrl: server.url, ...(await mintLiveKey(ws.workspaceId)) });
    for (const res of [
      await live.post('/v1/test-clocks', { frozenTime: start }),
      await live.get('/v1/test-clocks'),
      await live.get(`/v1/test-clocks/${c.id}`),
      await live.post(`/v1/test-clocks/${c.id}/advance`, { frozenTime: plus(start, DAY) }),
      await live.delete(`/v1/test-clocks/${c.id}`),
    ])
      expectError(res, 403, 'forbidden_in_live_mode');
  });

  it('a large advance answers advancing; meanwhile advance and delete are 409 conflict', async () => {
    const ws = await server.workspace();
    const c = await newClock(ws);
    // More objects than the synchronous bound (docs/decisions.md, Test clocks): the advance goes to the job.
    for (let i = 0; i < 11; i++) await ws.client.post('/v1/customers', { name: `c${i}`, testClockId: c.id });
    const adv = await ws.client.post(`/v1/test-clocks/${c.id}/advance`, { frozenTime: plus(start, DAY) });
    expect(adv.status).toBe(200);
    expect(adv.json.data).toMatchObject({ status: 'advancing', frozenTime: start });
    expectError(
      await ws.client.post(`/v1/test-clocks/${c.id}/advance`, { frozenTime: plus(start, 2 * DAY) }),
      409,
      'conflict',
    );
    expectError(await ws.client.delete(`/v1/test-clocks/${c.id}`), 409, 'conflict');
  });

  it('over GraphQL: the same object and codes', async () => {
    const ws = await server.workspace();
    const made = await ws.client.graphql(
      'mutation($i: CreateTestClockInput!) { createTestClock(input: $i) { id name frozenTime status createdAt updatedAt } }',
      { i: { frozenTime: start, name: 'gql' } },
    );
    expect(made.json.errors).toBeUndefined();
    const c = made.json.data.createTestClock;
    expect((await ws.client.get(`/v1/test-clocks/${c.id}`)).json.data).toEqual(c);
    const bad = await ws.client.graphql(
      `mutation { advanceTestClock(id: "${c.id}", input: {frozenTime: "${start}"}) { id } }`,
    );
    expect(bad.json.errors?.[0].extensions).toEqual({ code: 'validation_error', field: 'frozenTime' });
  });
});

describe('customers on a test clock', () => {
  it('testClockId is accepted at creation, returned in REST and GraphQL, and immutable', async () => {
    const ws = await server.workspace();
    const c = await newClock(ws);
    const cus = await ws.client.post('/v1/customers', { name: 'Clocked', testClockId: c.id });
    expect(cus.status).toBe(201);
    expect(cus.json.data.testClockId).toBe(c.id);
    const plain = (await ws.client.post('/v1/customers', { name: 'Plain' })).json.data;
    expect(plain.testClockId).toBeNull();
    const gql = await ws.client.graphql(
      `{ customer(id: "${cus.json.data.id}") { id testClockId testClock { id frozenTime status } } }`,
    );
    expect(gql.json.data.customer).toEqual({
      id: cus.json.data.id,
      testClockId: c.id,
      testClock: { id: c.id, frozenTime: start, status: 'ready' },
    });
    expect((await ws.client.get(`/v1/customers/${cus.json.data.id}`)).json.data).toEqual(cus.json.data);
    // Immutable: PATCH does not know the field.
    const patch = await ws.client.patch(`/v1/customers/${cus.json.data.id}`, { testClockId: null });
    expect(patch.status).toBe(400);
    expect((await ws.client.get(`/v1/customers/${cus.json.data.id}`)).json.data.testClockId).toBe(c.id);
    // The edge reads a deleted clock as none; the id stays (it is history).
    expect((await ws.client.delete(`/v1/test-clocks/${c.id}`)).status).toBe(204);
    const gone = await ws.client.graphql(`{ customer(id: "${cus.json.data.id}") { testClockId testClock { id } } }`);
    expect(gone.json.data.customer).toEqual({ testClockId: c.id, testClock: null });
  });

  it('an unknown, foreign or deleted clock is 400 on testClockId; a live key cannot attach one', async () => {
    const ws = await server.workspace();
    const other = await server.workspace();
    const c = await newClock(ws);
    const gone = await newClock(ws);
    expect((await ws.client.delete(`/v1/test-clocks/${gone.id}`)).status).toBe(204);
    for (const [client, id] of [
      [ws.client, 'clk_unknown'],
      [other.client, c.id],
      [ws.client, gone.id],
    ] as const)
      expectError(await client.post('/v1/customers', { testClockId: id }), 400, 'validation_error', 'testClockId');
    const live = createClient({ baseUrl: server.url, ...(await mintLiveKey(ws.workspaceId)) });
    expectError(await live.post('/v1/customers', { testClockId: c.id }), 400, 'validation_error', 'testClockId');
  });
});

describe('time on a clock', () => {
  it('the real-time past_due sweep skips clocked invoices; the clock moves them at their due instant', async () => {
    const ws = await server.workspace();
    const c = await newClock(ws);
    const clocked = (await ws.client.post('/v1/customers', { name: 'On clock', testClockId: c.id })).json.data;
    const plain = (await ws.client.post('/v1/customers', { name: 'Real time' })).json.data;
    const dueAt = plus(start, 10 * DAY);
    const invoice = async (customerId: string) =>
      (
        await ws.client.post('/v1/invoices', {
          customerId,
          currency: 'IDR',
          status: 'open',
          dueAt,
          lines: [{ description: 'Setup', quantity: 1, unitAmount: 10000 }],
        })
      ).json.data;
    const onClock = await invoice(clocked.id);
    const onRealTime = await invoice(plain.id);
    // dueAt (2025) is long past in real time: the sweep takes the plain invoice, never the clocked one.
    await markPastDueInvoices();
    const status = async (id: string) => (await ws.client.get(`/v1/invoices/${id}`)).json.data;
    expect((await status(onRealTime.id)).status).toBe('past_due');
    expect((await status(onClock.id)).status).toBe('open');
    // An advance short of dueAt leaves it open; one past it moves it at dueAt (clock time), not at the target.
    await ws.client.post(`/v1/test-clocks/${c.id}/advance`, { frozenTime: plus(start, 5 * DAY) });
    expect((await status(onClock.id)).status).toBe('open');
    const target = plus(start, 30 * DAY);
    const adv = await ws.client.post(`/v1/test-clocks/${c.id}/advance`, { frozenTime: target });
    expect(adv.json.data).toMatchObject({ status: 'ready', frozenTime: target });
    const after = await status(onClock.id);
    expect(after.status).toBe('past_due');
    const { rows } = await db().system.query('SELECT "pastDueAt" FROM invoices WHERE id = $1', [onClock.id]);
    expect(rows[0].pastDueAt.toISOString()).toBe(dueAt);
  });
});

describe('renewals on a clock', () => {
  it('an advance over a year of monthly renewals: 12 paid invoices, 12 distinct months in order, on clock time', async () => {
    const ws = await server.workspace();
    const c = await newClock(ws);
    const { ids } = await clockedSubscriptions(ws, { testClockId: c.id, anchor: start });
    const target = '2026-01-31T00:00:00.000Z';
    const adv = await ws.client.post(`/v1/test-clocks/${c.id}/advance`, { frozenTime: target });
    expect(adv.status).toBe(200);
    expect(adv.json.data).toMatchObject({ status: 'ready', frozenTime: target });
    const { rows } = await db().system.query(
      `SELECT "periodStart", "periodEnd", "createdAt", "issuedAt", "paidAt", status, number FROM invoices
       WHERE "subscriptionId" = $1 ORDER BY "periodStart"`,
      [ids[0]],
    );
    const iso = (d: Date) => d.toISOString();
    // Month-end anchor: Jan 31 -> Feb 28 -> Mar 31 -> Apr 30 ... (each period from the anchor).
    expect(rows.map((r) => iso(r.periodStart).slice(0, 10))).toEqual([
      '2025-02-28',
      '2025-03-31',
      '2025-04-30',
      '2025-05-31',
      '2025-06-30',
      '2025-07-31',
      '2025-08-31',
      '2025-09-30',
      '2025-10-31',
      '2025-11-30',
      '2025-12-31',
      '2026-01-31',
    ]);
    expect(new Set(rows.map((r) => iso(r.periodStart).slice(0, 7))).size).toBe(12);
    // Each invoice is dated at its own boundary (the walk's instant), not at the target.
    for (const r of rows) {
      expect(iso(r.createdAt)).toBe(iso(r.periodStart));
      expect(r.status).toBe('paid');
      expect(iso(r.paidAt)).toBe(iso(r.periodStart));
    }
    expect(rows.map((r) => r.number)).toEqual([...rows.map((r) => r.number)].sort());
    const sub = (await db().system.query('SELECT * FROM subscriptions WHERE id = $1', [ids[0]])).rows[0];
    expect({ status: sub.status, start: iso(sub.currentPeriodStart), end: iso(sub.currentPeriodEnd) }).toEqual({
      status: 'active',
      start: target,
      end: '2026-02-28T00:00:00.000Z',
    });
  });

  it('a trial ends on the clock: active at trialEnd, its first invoice dated trialEnd', async () => {
    const ws = await server.workspace();
    const c = await newClock(ws);
    const trialEnd = plus(start, 14 * DAY);
    const { ids } = await clockedSubscriptions(ws, { testClockId: c.id, anchor: start, trialEnd });
    await ws.client.post(`/v1/test-clocks/${c.id}/advance`, { frozenTime: plus(start, 10 * DAY) });
    expect((await db().system.query('SELECT status FROM subscriptions WHERE id = $1', [ids[0]])).rows[0].status).toBe(
      'trialing',
    );
    const adv = await ws.client.post(`/v1/test-clocks/${c.id}/advance`, { frozenTime: plus(start, 20 * DAY) });
    expect(adv.json.data.status).toBe('ready');
    const sub = (await db().system.query('SELECT * FROM subscriptions WHERE id = $1', [ids[0]])).rows[0];
    expect(sub.status).toBe('active');
    expect(sub.currentPeriodStart.toISOString()).toBe(trialEnd);
    const inv = (
      await db().system.query('SELECT "createdAt", "periodStart", status FROM invoices WHERE "subscriptionId" = $1', [
        ids[0],
      ])
    ).rows;
    expect(inv.map((r) => [r.createdAt.toISOString(), r.periodStart.toISOString(), r.status])).toEqual([
      [trialEnd, trialEnd, 'paid'],
    ]);
  });

  it('a declined renewal walks its dunning schedule on the clock, each retry at its own day, to the final action', async () => {
    const ws = await server.workspace();
    const c = await newClock(ws);
    const dp = (
      await ws.client.post('/v1/dunning-policies', { retryScheduleDays: [1, 3], finalAction: 'uncollectible' })
    ).json.data;
    const { ids } = await clockedSubscriptions(ws, {
      testClockId: c.id,
      anchor: start,
      paymentMethod: 'pm_test_decline',
      dunningPolicyId: dp.id,
    });
    const renewal = '2025-02-28T00:00:00.000Z';
    const adv = await ws.client.post(`/v1/test-clocks/${c.id}/advance`, { frozenTime: plus(renewal, 5 * DAY) });
    expect(adv.json.data.status).toBe('ready');
    const inv = (await db().system.query('SELECT * FROM invoices WHERE "subscriptionId" = $1', [ids[0]])).rows;
    expect(inv.map((i) => [i.status, i.collectionAttempts])).toEqual([['uncollectible', 3]]);
    const failed = (
      await db().system.query(
        `SELECT "occurredAt" FROM events WHERE type = 'svc.invoice.payment_failed.v1' AND "objectId" = $1
         ORDER BY "occurredAt"`,
        [inv[0].id],
      )
    ).rows.map((r) => r.occurredAt.toISOString());
    // The first attempt at the renewal, the retries 1 and 3 days after it (offsets), on clock time.
    expect(failed).toEqual([renewal, plus(renewal, DAY), plus(renewal, 3 * DAY)]);
    const sub = (await db().system.query('SELECT status FROM subscriptions WHERE id = $1', [ids[0]])).rows[0];
    expect(sub.status).toBe('canceled');
  });

  it('the real-time tick skips clocked subscriptions; deleting the clock cancels them at its time', async () => {
    const ws = await server.workspace();
    const c = await newClock(ws);
    const { ids } = await clockedSubscriptions(ws, { testClockId: c.id, anchor: start });
    // Its period ended in 2025: on real time it would be due, but it lives on the clock.
    const tick = await processDue({ scope: null, at: new Date(), testClockId: null });
    void tick;
    const count = async () =>
      Number(
        (await db().system.query('SELECT count(*) FROM invoices WHERE "subscriptionId" = $1', [ids[0]])).rows[0].count,
      );
    expect(await count()).toBe(0);
    expect((await ws.client.delete(`/v1/test-clocks/${c.id}`)).status).toBe(204);
    const sub = (await db().system.query('SELECT status, "canceledAt" FROM subscriptions WHERE id = $1', [ids[0]]))
      .rows[0];
    expect({ status: sub.status, canceledAt: sub.canceledAt.toISOString() }).toEqual({
      status: 'canceled',
      canceledAt: start,
    });
    expect(await count()).toBe(0);
  });
});

describe('subscriptions created on a clock (the API)', () => {
  const idem = () => ({ 'idempotency-key': randomUUID() });

  it('the subscription starts at clock time; a trial on the clock ends when the clock passes it', async () => {
    const ws = await server.workspace();
    const c = await newClock(ws);
    const cus = (await ws.client.post('/v1/customers', { name: 'Trial', testClockId: c.id })).json.data;
    const plan = (await postPlan(ws, planBody({ trialDays: 7 }))).json.data;
    const res = await ws.client.post(
      '/v1/subscriptions',
      { customerId: cus.id, priceId: plan.prices[0].id, paymentMethod: 'pm_test_success' },
      idem(),
    );
    expect(res.status, res.text).toBe(201);
    const sub = res.json.data;
    expect(sub).toMatchObject({ status: 'trialing', currentPeriodStart: start, trialEnd: plus(start, 7 * DAY) });
    const adv = await ws.client.post(`/v1/test-clocks/${c.id}/advance`, { frozenTime: plus(start, 8 * DAY) });
    expect(adv.json.data.status).toBe('ready');
    const after = (await ws.client.get(`/v1/subscriptions/${sub.id}`)).json.data;
    expect(after).toMatchObject({ status: 'active', currentPeriodStart: plus(start, 7 * DAY) });
    const invoices = (await ws.client.get(`/v1/invoices?subscriptionId=${sub.id}`)).json.data;
    expect(invoices.map((i: any) => [i.status, i.issuedAt])).toEqual([['paid', plus(start, 7 * DAY)]]);
  });

  it('usage timestamps are checked against the customer clock time (docs/billing.md, Test clocks)', async () => {
    const ws = await server.workspace();
    const c = await newClock(ws);
    const cus = (await ws.client.post('/v1/customers', { name: 'Metered', testClockId: c.id })).json.data;
    const plan = (
      await postPlan(
        ws,
        planBody({ usageAggregate: 'sum', prices: [{ currency: 'IDR', model: 'usage', unitAmount: 100 }] }),
      )
    ).json.data;
    const sub = (
      await ws.client.post(
        '/v1/subscriptions',
        { customerId: cus.id, priceId: plan.prices[0].id, paymentMethod: 'pm_test_success' },
        idem(),
      )
    ).json.data;
    const usage = (body: unknown) => ws.client.post(`/v1/subscriptions/${sub.id}/usage`, body, idem());
    // Default timestamp: the clock's time, not the real time.
    const now = await usage({ quantity: 3 });
    expect(now.status, now.text).toBe(201);
    expect(now.json.data.timestamp).toBe(start);
    // Real time is years ahead of the clock: "more than 5 minutes in the future" on the clock.
    expectError(
      await usage({ quantity: 1, timestamp: new Date().toISOString() }),
      400,
      'validation_error',
      'timestamp',
    );
    expect((await usage({ quantity: 4, timestamp: plus(start, 60_000) })).status).toBe(201);
    await ws.client.post(`/v1/test-clocks/${c.id}/advance`, { frozenTime: plus(start, 10 * DAY) });
    expect((await usage({ quantity: 5, timestamp: plus(start, 9 * DAY) })).status).toBe(201);
  });
});

describe('the request walk budget', () => {
  it('a walk over budget leaves the clock advancing at the time reached; a job-side walk finishes it', async () => {
    const ws = await server.workspace();
    const c = await newClock(ws);
    await clockedSubscriptions(ws, { testClockId: c.id, anchor: start });
    const target = '2025-06-30T00:00:00.000Z';
    await db().system.query(`UPDATE test_clocks SET status = 'advancing', "advanceTarget" = $2 WHERE id = $1`, [
      c.id,
      target,
    ]);
    const scope = { workspaceId: ws.workspaceId, mode: 'test' as const };
    const cut = await walkClock(scope, c.id, { request: true, budgetMs: 0 });
    expect(cut).toMatchObject({ status: 'advancing' });
    expect(cut.frozenTime.toISOString()).toBe(start);
    // What the job re-queued by the sweep runs (test-clocks-background.test.ts runs the sweep itself).
    await walkClock(scope, c.id);
    const done = (await ws.client.get(`/v1/test-clocks/${c.id}`)).json.data;
    expect(done).toMatchObject({ status: 'ready', frozenTime: target });
  });
});

describe('the object limit', () => {
  it('a clock holds at most 10,000 customers and subscriptions: the next customer or subscription is 400', async () => {
    const ws = await server.workspace();
    const c = await newClock(ws);
    const first = (await ws.client.post('/v1/customers', { name: 'First', testClockId: c.id })).json.data;
    // 9,999 more, written as rows (what is under test is the refusal of the next one).
    await db().system.query(
      `INSERT INTO customers (id, "workspaceId", mode, "testClockId", "createdAt", "updatedAt")
       SELECT 'cus_limit' || lpad(g::text, 21, '0'), $1, 'test', $2, now(), now() FROM generate_series(1, 9999) g`,
      [ws.workspaceId, c.id],
    );
    expectError(await ws.client.post('/v1/customers', { testClockId: c.id }), 400, 'validation_error', 'testClockId');
    const plan = (await postPlan(ws)).json.data;
    const sub = await ws.client.post(
      '/v1/subscriptions',
      { customerId: first.id, priceId: plan.prices[0].id, paymentMethod: 'pm_test_success' },
      { 'idempotency-key': randomUUID() },
    );
    expectError(sub, 400, 'validation_error', 'customerId');
    // A customer without a clock is not affected.
    expect((await ws.client.post('/v1/customers', { name: 'Free' })).status).toBe(201);
  });
});

describe('the workspace and advance caps', () => {
  it('a workspace holds at most 100 live clocks: the next is 409 tier_cap_reached; a deleted one frees its place', async () => {
    const ws = await server.workspace();
    // 99 written as rows (what is under test is the refusal past the cap), one more through the API.
    await db().system.query(
      `INSERT INTO test_clocks (id, "workspaceId", mode, "frozenTime", status)
       SELECT 'clk_cap' || lpad(g::text, 23, '0'), $1, 'test', $2, 'ready' FROM generate_series(1, 99) g`,
      [ws.workspaceId, start],
    );
    const hundredth = await newClock(ws);
    const refused = await ws.client.post('/v1/test-clocks', { frozenTime: start });
    expectError(refused, 409, 'tier_cap_reached');
    expect(refused.json.error.message).toMatch(/at most 100 test clocks/);
    // Another workspace is not affected.
    expect((await (await server.workspace()).client.post('/v1/test-clocks', { frozenTime: start })).status).toBe(201);
    expect((await ws.client.delete(`/v1/test-clocks/${hundredth.id}`)).status).toBe(204);
    expect((await ws.client.post('/v1/test-clocks', { frozenTime: start })).status).toBe(201);
  });

  it('one advance bills at most 400 cycles of one subscription: a daily one 401 days ahead is 400', async () => {
    const ws = await server.workspace();
    const c = await newClock(ws);
    const { plan, ids } = await clockedSubscriptions(ws, { testClockId: c.id, anchor: start });
    await db().system.query(`UPDATE plans SET interval = 'day' WHERE id = $1`, [plan.id]);
    await db().system.query(`UPDATE subscriptions SET "currentPeriodEnd" = $2 WHERE id = $1`, [
      ids[0],
      plus(start, DAY),
    ]);
    const far = await ws.client.post(`/v1/test-clocks/${c.id}/advance`, { frozenTime: plus(start, 401 * DAY) });
    expectError(far, 400, 'validation_error', 'frozenTime');
    expect(far.json.error.message).toMatch(/401 renewal cycles \(401 of one subscription\)/);
    expect((await ws.client.get(`/v1/test-clocks/${c.id}`)).json.data).toMatchObject({
      status: 'ready',
      frozenTime: start,
    });
    // In smaller steps it goes.
    const near = await ws.client.post(`/v1/test-clocks/${c.id}/advance`, { frozenTime: plus(start, 3 * DAY) });
    expect(near.json.data).toMatchObject({ status: 'ready', frozenTime: plus(start, 3 * DAY) });
    const { rows } = await db().system.query(`SELECT count(*)::int AS n FROM invoices WHERE "subscriptionId" = $1`, [
      ids[0],
    ]);
    expect(rows[0].n).toBe(3);
  });

  it('one advance bills at most 12,000 cycles in all: 1,001 monthly subscriptions a year ahead is 400', async () => {
    const ws = await server.workspace();
    const c = await newClock(ws);
    await clockedSubscriptions(ws, { testClockId: c.id, anchor: start, count: 1001 });
    const year = await ws.client.post(`/v1/test-clocks/${c.id}/advance`, { frozenTime: '2026-01-31T00:00:00.000Z' });
    expectError(year, 400, 'validation_error', 'frozenTime');
    expect(year.json.error.message).toMatch(/12012 renewal cycles \(12 of one subscription\)/);
    // Eleven months are 11,011 cycles: accepted (a large clock: answered advancing, walked by the job).
    const eleven = await ws.client.post(`/v1/test-clocks/${c.id}/advance`, { frozenTime: '2025-12-31T00:00:00.000Z' });
    expect(eleven.json.data).toMatchObject({ status: 'advancing' });
  });
});
