/**
 * The billing contract, route by route, as a black box over real HTTP ("How it is
 * checked"; DECISIONS §3, spec Conventions, Errors, Invoice, docs/billing.md): every
 * documented route of subscriptions, usage, dunning policies and test clocks answers the status,
 * the error code (spelled as the resource spells it) and the envelope the contract states, and
 * billing emits `subscription.*` (two l's in `cancelled`) and `svc.invoice.payment_failed.v1`
 * with its reason, counting `collectionAttempts`. Behaviour in depth is in the sibling files.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { clock } from '../../../src/core/clock.ts';
import { mintKey, mintLiveKey } from '../../helpers/keys.ts';
import { planBody, postPlan } from '../../helpers/plans.ts';
import { createClient, useServer, type Workspace } from '../../helpers/server.ts';

const server = useServer();

type Res = { status: number; json: any; text: string };
const key = () => ({ 'idempotency-key': randomUUID() });
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const DAY = 86_400_000;

/** spec Conventions: `data`, `error` (null on success), `meta` {requestId, timestamp}; lists add `meta.page`. */
function ok(res: Res, status: number, list = false) {
  expect(res.status, res.text).toBe(status);
  expect(Object.keys(res.json).sort()).toEqual(['data', 'error', 'meta']);
  expect(res.json.error).toBeNull();
  expect(res.json.meta).toMatchObject({ requestId: expect.stringMatching(/^req_/), timestamp: expect.any(String) });
  expect(res.json.meta.timestamp).toMatch(ISO);
  if (list) {
    expect(Array.isArray(res.json.data)).toBe(true);
    expect(res.json.meta.page).toEqual({
      limit: expect.any(Number),
      hasMore: expect.any(Boolean),
      nextCursor: res.json.meta.page.hasMore ? expect.stringMatching(/^cur_/) : null,
    });
  } else expect(res.json.data).not.toBeNull();
  return res.json.data;
}

/** spec Errors: `data` null, `error.code` as the resource spells it, `field` on validation errors, a message. */
function fails(res: Res, status: number, code: string, field?: string) {
  expect({ status: res.status, code: res.json?.error?.code }, res.text).toEqual({ status, code });
  expect(res.json.data).toBeNull();
  expect(typeof res.json.error.message).toBe('string');
  expect(res.json.meta.requestId).toMatch(/^req_/);
  // A field inside a list is named with its index (`retryScheduleDays[1]`).
  if (field !== undefined) {
    const named: string = res.json.error.field;
    expect(named === field || named?.startsWith(`${field}[`), `field ${named}, expected ${field}`).toBe(true);
  } else if (/validation/i.test(code)) expect(typeof res.json.error.field).toBe('string');
}

async function setup(ws: Workspace, prices?: unknown[], extra: Record<string, unknown> = {}) {
  const plan = await postPlan(
    ws,
    planBody({ prices: prices ?? [{ currency: 'IDR', model: 'flat', unitAmount: 100_000 }], ...extra }),
  );
  expect(plan.status, plan.text).toBe(201);
  const cus = await ws.client.post('/v1/customers', { name: 'Budi', email: 'budi@example.com' });
  return { planId: plan.json.data.id as string, priceId: plan.json.data.prices[0].id as string, cus: cus.json.data.id };
}
const subscribe = (ws: Workspace, body: Record<string, unknown>, headers = key()) =>
  ws.client.post('/v1/subscriptions', body, headers);
const eventsOf = async (ws: Workspace, objectId: string) =>
  ok(await ws.client.get(`/v1/events?objectId=${objectId}&order=asc&limit=100`), 200, true) as any[];

const subscriptionFields = [
  'id',
  'customerId',
  'planId',
  'priceId',
  'status',
  'currentPeriodStart',
  'currentPeriodEnd',
  'trialEnd',
  'cancelAtPeriodEnd',
  'canceledAt',
  'quantity',
  'paymentMethod',
  'metadata',
];

describe('subscriptions (DECISIONS §3)', () => {
  it('POST /v1/subscriptions: 201 with the DECISIONS fields; 400 validation_error naming the field; 404 not_found', async () => {
    const ws = await server.workspace();
    const { cus, priceId, planId } = await setup(ws);
    const sub = ok(await subscribe(ws, { customerId: cus, priceId, paymentMethod: 'pm_test_success' }), 201);
    for (const f of subscriptionFields) expect(sub, f).toHaveProperty(f);
    expect(sub).toMatchObject({
      id: expect.stringMatching(/^sub_/),
      customerId: cus,
      planId,
      priceId,
      status: 'active',
      quantity: 1,
      cancelAtPeriodEnd: false,
      canceledAt: null,
      paymentMethod: 'pm_test_success',
    });
    expect(sub.currentPeriodStart).toMatch(ISO);
    expect(sub.currentPeriodEnd).toMatch(ISO);
    fails(await subscribe(ws, { priceId }), 400, 'validation_error', 'customerId');
    fails(await subscribe(ws, { customerId: cus }), 400, 'validation_error', 'priceId');
    fails(await subscribe(ws, { customerId: cus, priceId, quantity: -1 }), 400, 'validation_error', 'quantity');
    fails(await subscribe(ws, { customerId: 'cus_nope', priceId }), 404, 'not_found');
    fails(await subscribe(ws, { customerId: cus, priceId: 'pr_nope' }), 404, 'not_found');
    fails(await subscribe(ws, { customerId: cus, priceId, paymentMethod: 'tok_x' }), 400, 'validation_error');
  });

  it('POST replays a key with the same body, refuses it with another; a malformed body is 400', async () => {
    const ws = await server.workspace();
    const { cus, priceId } = await setup(ws);
    const headers = key();
    const first = ok(await subscribe(ws, { customerId: cus, priceId }, headers), 201);
    const again = ok(await subscribe(ws, { customerId: cus, priceId }, headers), 201);
    expect(again.id).toBe(first.id);
    const other = await subscribe(ws, { customerId: cus, priceId, quantity: 2 }, headers);
    expect(other.status, other.text).toBe(409);
    expect(other.json.data).toBeNull();
    expect(other.json.error.code).toMatch(/^idempotency_(conflict|mismatch)$/i);
    const list = ok(await ws.client.get('/v1/subscriptions'), 200, true);
    expect(list).toHaveLength(1);
  });

  it('GET /v1/subscriptions/:id and the list: 200 envelopes, default limit 50, 404 not_found, 400 invalid_limit/invalid_cursor', async () => {
    const ws = await server.workspace();
    const { cus, priceId } = await setup(ws);
    const sub = ok(await subscribe(ws, { customerId: cus, priceId }), 201);
    expect(ok(await ws.client.get(`/v1/subscriptions/${sub.id}`), 200)).toMatchObject({ id: sub.id });
    fails(await ws.client.get('/v1/subscriptions/sub_01JAAAAAAAAAAAAAAAAAAAAAAA'), 404, 'not_found');
    const elsewhere = await server.workspace();
    fails(await elsewhere.client.get(`/v1/subscriptions/${sub.id}`), 404, 'not_found');
    const list = await ws.client.get('/v1/subscriptions');
    expect(ok(list, 200, true).map((s: any) => s.id)).toEqual([sub.id]);
    expect(list.json.meta.page).toEqual({ limit: 50, hasMore: false, nextCursor: null });
    fails(await ws.client.get('/v1/subscriptions?limit=101'), 400, 'invalid_limit');
    fails(await ws.client.get('/v1/subscriptions?cursor=cur_forged'), 400, 'invalid_cursor');
    fails(await ws.client.get('/v1/subscriptions?status=nope'), 400, 'validation_error', 'status');
    for (const q of [`customerId=${cus}`, `priceId=${priceId}`, 'status=incomplete', 'order=asc'])
      expect(ok(await ws.client.get(`/v1/subscriptions?${q}`), 200, true)).toHaveLength(1);
  });

  it('PATCH, cancel, pause, resume: 200 with the moved object, 409 conflict where the state forbids, 404 unknown', async () => {
    const ws = await server.workspace();
    const { cus, priceId } = await setup(ws);
    const sub = ok(await subscribe(ws, { customerId: cus, priceId, paymentMethod: 'pm_test_success' }), 201);
    const path = `/v1/subscriptions/${sub.id}`;
    expect(ok(await ws.client.patch(path, { metadata: { tier: 'gold' } }), 200)).toMatchObject({
      metadata: { tier: 'gold' },
    });
    fails(await ws.client.patch(path, { quantity: 0 }), 400, 'validation_error', 'quantity');
    fails(await ws.client.patch('/v1/subscriptions/sub_01JAAAAAAAAAAAAAAAAAAAAAAA', { quantity: 2 }), 404, 'not_found');
    fails(await ws.client.post(`${path}/resume`, {}, key()), 409, 'conflict');
    expect(ok(await ws.client.post(`${path}/pause`, {}, key()), 200).status).toBe('paused');
    fails(await ws.client.post(`${path}/pause`, {}, key()), 409, 'conflict');
    expect(ok(await ws.client.post(`${path}/resume`, {}, key()), 200).status).toBe('active');
    expect(ok(await ws.client.post(`${path}/cancel`, { atPeriodEnd: true }, key()), 200)).toMatchObject({
      status: 'active',
      cancelAtPeriodEnd: true,
    });
    const canceled = ok(await ws.client.post(`${path}/cancel`, {}, key()), 200);
    expect(canceled).toMatchObject({ status: 'canceled', canceledAt: expect.stringMatching(ISO) });
    fails(await ws.client.post(`${path}/cancel`, {}, key()), 409, 'conflict');
    fails(await ws.client.post(`${path}/pause`, {}, key()), 409, 'conflict');
    for (const verb of ['cancel', 'pause', 'resume'])
      fails(
        await ws.client.post(`/v1/subscriptions/sub_01JAAAAAAAAAAAAAAAAAAAAAAA/${verb}`, {}, key()),
        404,
        'not_found',
      );

    // Events as DECISIONS §3 spells them: created, updated (pause/resume with previousAttributes.status), cancelled.
    const events = await eventsOf(ws, sub.id);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe('subscription.created');
    expect(types.at(-1)).toBe('subscription.cancelled');
    expect(new Set(types)).toEqual(new Set(['subscription.created', 'subscription.updated', 'subscription.cancelled']));
    const paused = events.find((e) => e.type === 'subscription.updated' && e.data.object.status === 'paused');
    expect(paused.data.previousAttributes).toMatchObject({ status: 'active' });
    const patched = events.find((e) => e.type === 'subscription.updated' && e.data.object.metadata?.tier === 'gold');
    expect(patched.data.previousAttributes).toEqual({ metadata: null });
    expect(paused.data.object.id).toBe(sub.id);
  });

  it('a declined charge: svc.invoice.payment_failed.v1 with the reason in data.metadata, collectionAttempts counted', async () => {
    const ws = await server.workspace();
    const { cus, priceId } = await setup(ws);
    const sub = ok(await subscribe(ws, { customerId: cus, priceId, paymentMethod: 'pm_test_decline' }), 201);
    expect(sub.status).toBe('incomplete');
    const [inv] = ok(await ws.client.get(`/v1/invoices?subscriptionId=${sub.id}`), 200, true);
    expect(inv).toMatchObject({ status: 'open', collectionAttempts: 1, subscriptionId: sub.id });
    const failed = (await eventsOf(ws, inv.id)).filter((e) => e.type === 'svc.invoice.payment_failed.v1');
    expect(failed).toHaveLength(1);
    expect(failed[0].data.object).toMatchObject({ id: inv.id, collectionAttempts: 1 });
    expect(failed[0].data.metadata).toEqual({ failureCode: expect.any(String), failureMessage: expect.any(String) });
    // The payment that failed is on record with the same reason (DECISIONS §3 Payment: status failed).
    const payments = ok(await ws.client.get(`/v1/payments?limit=100`), 200, true).filter(
      (p: any) => p.invoiceId === inv.id,
    );
    expect(payments.map((p: any) => p.status)).toEqual(['failed']);
  });

  it('scopes: svc:subscription:read reads, a write needs svc:subscription:write (403 insufficient_scope)', async () => {
    const ws = await server.workspace();
    const { cus, priceId } = await setup(ws);
    const sub = ok(await subscribe(ws, { customerId: cus, priceId }), 201);
    const k = await mintKey(ws.workspaceId, 'test', { role: 'restricted', scopes: ['svc:subscription:read'] });
    const reader = createClient({ baseUrl: server.url, keyId: k.keyId, secret: k.secret });
    ok(await reader.get(`/v1/subscriptions/${sub.id}`), 200);
    ok(await reader.get('/v1/subscriptions'), 200, true);
    fails(await reader.post('/v1/subscriptions', { customerId: cus, priceId }, key()), 403, 'insufficient_scope');
    fails(await reader.post(`/v1/subscriptions/${sub.id}/cancel`, {}, key()), 403, 'insufficient_scope');
    fails(await reader.patch(`/v1/subscriptions/${sub.id}`, { quantity: 2 }), 403, 'insufficient_scope');
  });
});

describe('usage records (DECISIONS §3; docs/billing.md, Usage)', () => {
  it('POST /v1/subscriptions/:id/usage: 201 ur_; 400 idempotency_required without a key; 400 on bad input; 404; 409 canceled', async () => {
    const ws = await server.workspace();
    const { cus, priceId } = await setup(ws, [{ currency: 'IDR', model: 'usage', unitAmount: 1000 }], {
      usageAggregate: 'sum',
    });
    const sub = ok(await subscribe(ws, { customerId: cus, priceId }), 201);
    const path = `/v1/subscriptions/${sub.id}/usage`;
    const rec = ok(await ws.client.post(path, { quantity: 3 }, key()), 201);
    expect(rec).toMatchObject({ id: expect.stringMatching(/^ur_/), subscriptionId: sub.id, quantity: 3 });
    expect(rec.timestamp).toMatch(ISO);
    expect(rec.createdAt).toMatch(ISO);
    fails(await ws.client.post(path, { quantity: 1 }), 400, 'idempotency_required');
    fails(await ws.client.post(path, { quantity: -1 }, key()), 400, 'validation_error', 'quantity');
    const future = new Date(clock.now().getTime() + DAY).toISOString();
    fails(await ws.client.post(path, { quantity: 1, timestamp: future }, key()), 400, 'validation_error', 'timestamp');
    fails(
      await ws.client.post('/v1/subscriptions/sub_01JAAAAAAAAAAAAAAAAAAAAAAA/usage', { quantity: 1 }, key()),
      404,
      'not_found',
    );
    ok(await ws.client.post(`/v1/subscriptions/${sub.id}/cancel`, {}, key()), 200);
    fails(await ws.client.post(path, { quantity: 1 }, key()), 409, 'conflict');
    // A licensed price takes no usage.
    const licensed = await setup(ws);
    const lsub = ok(await subscribe(ws, { customerId: licensed.cus, priceId: licensed.priceId }), 201);
    fails(await ws.client.post(`/v1/subscriptions/${lsub.id}/usage`, { quantity: 1 }, key()), 400, 'validation_error');
  });
});

describe('dunning policies (DECISIONS §3; docs/decisions.md, Dunning policies: spelled as plans)', () => {
  it('POST 201, GET 200, list (limit 20), PATCH 200; 400 VALIDATION_ERROR with field; 404 NOT_FOUND', async () => {
    const ws = await server.workspace();
    const dp = ok(
      await ws.client.post('/v1/dunning-policies', { retryScheduleDays: [1, 3, 5], finalAction: 'void' }, key()),
      201,
    );
    expect(dp).toMatchObject({ id: expect.stringMatching(/^dp_/), retryScheduleDays: [1, 3, 5], finalAction: 'void' });
    expect(ok(await ws.client.get(`/v1/dunning-policies/${dp.id}`), 200).id).toBe(dp.id);
    const list = await ws.client.get('/v1/dunning-policies');
    expect(ok(list, 200, true).map((p: any) => p.id)).toEqual([dp.id]);
    expect(list.json.meta.page.limit).toBe(20);
    expect(
      ok(await ws.client.patch(`/v1/dunning-policies/${dp.id}`, { finalAction: 'uncollectible' }), 200),
    ).toMatchObject({ finalAction: 'uncollectible' });
    fails(
      await ws.client.post('/v1/dunning-policies', { retryScheduleDays: [3, 1], finalAction: 'void' }, key()),
      400,
      'VALIDATION_ERROR',
      'retryScheduleDays',
    );
    fails(
      await ws.client.post('/v1/dunning-policies', { retryScheduleDays: [1], finalAction: 'cancel' }, key()),
      400,
      'VALIDATION_ERROR',
      'finalAction',
    );
    fails(await ws.client.get('/v1/dunning-policies/dp_01JAAAAAAAAAAAAAAAAAAAAAAA'), 404, 'NOT_FOUND');
    fails(
      await ws.client.patch('/v1/dunning-policies/dp_01JAAAAAAAAAAAAAAAAAAAAAAA', { finalAction: 'void' }),
      404,
      'NOT_FOUND',
    );
    const elsewhere = await server.workspace();
    fails(await elsewhere.client.get(`/v1/dunning-policies/${dp.id}`), 404, 'NOT_FOUND');
    const types = (await eventsOf(ws, dp.id)).map((e) => e.type);
    expect(types).toEqual(['dunning_policy.created', 'dunning_policy.updated']);
  });
});

describe('test clocks (DECISIONS §3; docs/billing.md, Test clocks)', () => {
  it('POST 201, GET, list, advance 200 with status, DELETE 204 then 404; forward only; live key 403', async () => {
    const ws = await server.workspace();
    const t0 = '2026-01-31T00:00:00.000Z';
    const clk = ok(await ws.client.post('/v1/test-clocks', { frozenTime: t0 }, key()), 201);
    expect(clk).toMatchObject({ id: expect.stringMatching(/^clk_/), frozenTime: t0, status: 'ready' });
    expect(ok(await ws.client.get(`/v1/test-clocks/${clk.id}`), 200).id).toBe(clk.id);
    expect(ok(await ws.client.get('/v1/test-clocks'), 200, true).map((c: any) => c.id)).toEqual([clk.id]);
    const advanced = ok(
      await ws.client.post(`/v1/test-clocks/${clk.id}/advance`, { frozenTime: '2026-02-28T00:00:00.000Z' }, key()),
      200,
    );
    expect(advanced).toMatchObject({ id: clk.id, frozenTime: '2026-02-28T00:00:00.000Z' });
    expect(['ready', 'advancing']).toContain(advanced.status);
    fails(
      await ws.client.post(`/v1/test-clocks/${clk.id}/advance`, { frozenTime: t0 }, key()),
      400,
      'validation_error',
      'frozenTime',
    );
    fails(
      await ws.client.post('/v1/test-clocks', { frozenTime: 'soon' }, key()),
      400,
      'validation_error',
      'frozenTime',
    );
    fails(await ws.client.get('/v1/test-clocks/clk_01JAAAAAAAAAAAAAAAAAAAAAAA'), 404, 'not_found');
    fails(
      await ws.client.post(
        '/v1/test-clocks/clk_01JAAAAAAAAAAAAAAAAAAAAAAA/advance',
        { frozenTime: '2027-01-01T00:00:00.000Z' },
        key(),
      ),
      404,
      'not_found',
    );
    const live = await mintLiveKey(ws.workspaceId);
    const liveClient = createClient({ baseUrl: server.url, keyId: live.keyId, secret: live.secret });
    fails(await liveClient.get('/v1/test-clocks'), 403, 'forbidden_in_live_mode');
    fails(await liveClient.post('/v1/test-clocks', { frozenTime: t0 }, key()), 403, 'forbidden_in_live_mode');
    const del = await ws.client.delete(`/v1/test-clocks/${clk.id}`);
    expect(del.status, del.text).toBe(204);
    fails(await ws.client.get(`/v1/test-clocks/${clk.id}`), 404, 'not_found');
    fails(await ws.client.delete(`/v1/test-clocks/${clk.id}`), 404, 'not_found');
  });
});

describe('renewal through a test clock (DECISIONS §3: created, finalized, then paid or payment_failed per attempt)', () => {
  async function clocked(ws: Workspace, paymentMethod: string, dunning?: string) {
    const clk = ok(await ws.client.post('/v1/test-clocks', { frozenTime: '2026-01-31T00:00:00.000Z' }, key()), 201);
    const cus = ok(
      await ws.client.post('/v1/customers', { name: 'Sari', email: 'sari@example.com', testClockId: clk.id }),
      201,
    );
    const plan = await postPlan(ws, planBody({ ...(dunning ? { dunningPolicyId: dunning } : {}) }));
    const priceId = plan.json.data.prices[0].id;
    const sub = ok(await subscribe(ws, { customerId: cus.id, priceId, paymentMethod: 'pm_test_success' }), 201);
    expect(sub).toMatchObject({ status: 'active', currentPeriodStart: '2026-01-31T00:00:00.000Z' });
    if (paymentMethod !== 'pm_test_success')
      ok(await ws.client.patch(`/v1/subscriptions/${sub.id}`, { paymentMethod }), 200);
    const adv = ok(
      await ws.client.post(`/v1/test-clocks/${clk.id}/advance`, { frozenTime: '2026-03-01T00:00:00.000Z' }, key()),
      200,
    );
    expect(adv.status).toBe('ready');
    const invoices = ok(await ws.client.get(`/v1/invoices?subscriptionId=${sub.id}&order=asc`), 200, true);
    expect(invoices).toHaveLength(2);
    return { sub, cycle: invoices[1] };
  }

  it('a paid renewal: the cycle invoice for Feb 28 (month-end anchor), its events in order', async () => {
    const ws = await server.workspace();
    const { sub, cycle } = await clocked(ws, 'pm_test_success');
    expect(cycle).toMatchObject({ status: 'paid', collectionAttempts: 1, amountDue: 0, subscriptionId: sub.id });
    expect(cycle.periodStart ?? cycle.issuedAt).toMatch(/^2026-02-28T00:00:00/);
    const evs = await eventsOf(ws, cycle.id);
    const types = evs.map((e) => e.type);
    expect(types, JSON.stringify(evs.map((e) => [e.type, e.id, e.createdAt, e.occurredAt, e.sequence]))).toEqual([
      'svc.invoice.created.v1',
      'svc.invoice.finalized.v1',
      'svc.invoice.paid.v1',
    ]);
    const subEvents = (await eventsOf(ws, sub.id)).map((e) => e.type);
    expect(subEvents[0]).toBe('subscription.created');
    expect(subEvents.slice(1).every((t) => t === 'subscription.updated')).toBe(true);
  });

  it('a declined renewal: payment_failed with its reason, collectionAttempts 1, invoice and subscription past_due', async () => {
    const ws = await server.workspace();
    const dp = ok(
      await ws.client.post('/v1/dunning-policies', { retryScheduleDays: [1, 3], finalAction: 'void' }, key()),
      201,
    );
    const { sub, cycle } = await clocked(ws, 'pm_test_decline', dp.id);
    expect(cycle.status).toBe('past_due');
    expect(cycle.collectionAttempts).toBeGreaterThanOrEqual(1);
    const events = await eventsOf(ws, cycle.id);
    expect(events.slice(0, 3).map((e) => e.type)).toEqual([
      'svc.invoice.created.v1',
      'svc.invoice.finalized.v1',
      'svc.invoice.payment_failed.v1',
    ]);
    const failed = events.filter((e) => e.type === 'svc.invoice.payment_failed.v1');
    expect(failed).toHaveLength(cycle.collectionAttempts);
    for (const e of failed)
      expect(e.data.metadata).toEqual({ failureCode: expect.any(String), failureMessage: expect.any(String) });
    expect(ok(await ws.client.get(`/v1/subscriptions/${sub.id}`), 200).status).toBe('past_due');
    // spec Invoice states: payment_failed repeated per retry, and finally voided (finalAction void).
    const clk = ok(await ws.client.get(`/v1/customers/${sub.customerId}`), 200).testClockId;
    ok(await ws.client.post(`/v1/test-clocks/${clk}/advance`, { frozenTime: '2026-03-10T00:00:00.000Z' }, key()), 200);
    expect((await eventsOf(ws, cycle.id)).map((e) => e.type)).toEqual([
      'svc.invoice.created.v1',
      'svc.invoice.finalized.v1',
      'svc.invoice.payment_failed.v1',
      'svc.invoice.payment_failed.v1',
      'svc.invoice.payment_failed.v1',
      'svc.invoice.voided.v1',
    ]);
    expect(ok(await ws.client.get(`/v1/invoices/${cycle.id}`), 200)).toMatchObject({
      status: 'void',
      collectionAttempts: 3,
    });
    expect(ok(await ws.client.get(`/v1/subscriptions/${sub.id}`), 200).status).toBe('canceled');
    expect((await eventsOf(ws, sub.id)).map((e) => e.type).at(-1)).toBe('subscription.cancelled');
  });
});

describe('hostile input on the billing routes', () => {
  it('unknown fields and wrong types are 400 naming the field; GraphQL answers the same codes', async () => {
    const ws = await server.workspace();
    const { cus, priceId } = await setup(ws);
    fails(await subscribe(ws, { customerId: cus, priceId, surprise: 1 }), 400, 'validation_error', 'surprise');
    fails(await subscribe(ws, { customerId: cus, priceId, quantity: '2' }), 400, 'validation_error', 'quantity');
    const sub = ok(await subscribe(ws, { customerId: cus, priceId, paymentMethod: 'pm_test_success' }), 201);
    fails(
      await ws.client.post(`/v1/subscriptions/${sub.id}/cancel`, { atPeriodEnd: 'yes' }, key()),
      400,
      'validation_error',
      'atPeriodEnd',
    );
    fails(
      await ws.client.patch(`/v1/subscriptions/${sub.id}`, { status: 'active' }),
      400,
      'validation_error',
      'status',
    );
    fails(
      await ws.client.post('/v1/test-clocks', { frozenTime: '2026-01-01T00:00:00.000Z', extra: true }, key()),
      400,
      'validation_error',
      'extra',
    );
    fails(
      await ws.client.post('/v1/dunning-policies', { retryScheduleDays: [1], finalAction: 'void', x: 1 }, key()),
      400,
      'VALIDATION_ERROR',
      'x',
    );
    const gql = await ws.client.graphql('{ subscription(id: "sub_01JAAAAAAAAAAAAAAAAAAAAAAA") { id status } }');
    expect(gql.json.errors?.[0]?.extensions?.code).toBe('not_found');
    const created = await ws.client.graphql(
      'mutation ($k: String) { createSubscription(input: { priceId: "pr_x" }, idempotencyKey: $k) { id } }',
      { k: randomUUID() },
    );
    expect(created.json.errors?.[0]?.extensions).toMatchObject({ code: 'validation_error', field: 'customerId' });
  });
});
