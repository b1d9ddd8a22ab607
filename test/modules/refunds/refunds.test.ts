import { beforeAll, describe, expect, it, vi } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { useServer, db, createClient, type Workspace } from '../../helpers/server.ts';
import { useSimulators } from '../../helpers/simulators.ts';
import { mintLiveKey } from '../../helpers/keys.ts';
import { providerRefOf, sandboxPayment, startPayment, unbalancedTxIds, unthrottled } from '../../helpers/payments.ts';
import { ProviderASim } from '../../simulators/provider_a.ts';
import { ProviderBSim } from '../../simulators/provider_b.ts';
import { ProviderCSim } from '../../simulators/provider_c.ts';
import { clock } from '../../../src/core/clock.ts';
import { newId } from '../../../src/core/ids.ts';
import { providerBSignature } from '../../../src/providers/index.ts';
import { reconcilePendingRefunds, SWEEP_GRACE_MS } from '../../../src/modules/refunds/sweep.ts';

/**
 * What the database looks like from outside while a provider call is being served: the payment
 * row must be lockable at once (NOWAIT) and no backend may sit idle inside a transaction.
 */
async function duringProviderCall(payId: string) {
  const c = await db().system.connect();
  try {
    await c.query('BEGIN');
    const locked = (await c.query(`SELECT id FROM payments WHERE id = $1 FOR UPDATE NOWAIT`, [payId])).rowCount;
    const refunds = (
      await c.query(`SELECT status, "submittedAt" FROM refunds WHERE "paymentId" = $1 AND "submittedAt" IS NULL`, [
        payId,
      ])
    ).rows;
    // Sampled: another transaction (the relay's) may pause between statements for a moment; one held across the call shows in every sample.
    const samples: number[] = [];
    for (let i = 0; i < 5; i++, await new Promise((r) => setTimeout(r, 10))) {
      samples.push(
        (
          await c.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%' AND pid <> pg_backend_pid()`,
          )
        ).rows[0].n,
      );
    }
    const idle = Math.min(...samples);
    return { locked, refunds, idle };
  } finally {
    await c.query('ROLLBACK');
    c.release();
  }
}

/** Phase 1 committed, then the process died: a pending refund that never reached the provider. */
async function crashedAfterPhaseOne(ws: Workspace, payId: string, amount: number, adapter: string) {
  const id = newId('refund');
  const providerKey = `rf-crash-${rand(16)}`;
  await db().system.query(
    `INSERT INTO refunds (id, "workspaceId", mode, "paymentId", amount, currency, reason, status, adapter, "providerKey", "createdAt", "updatedAt")
     SELECT $1, "workspaceId", mode, id, $2, currency, 'requested_by_customer', 'pending', $3, $4, now(), now() FROM payments WHERE id = $5`,
    [id, amount, adapter, providerKey, payId],
  );
  return { id, providerKey };
}

async function sweepLater() {
  clock.advance(SWEEP_GRACE_MS + 1000);
  try {
    return await reconcilePendingRefunds();
  } finally {
    clock.reset();
  }
}

const server = useServer();
const key = () => ({ 'idempotency-key': randomUUID() });
const rand = (n: number) => randomBytes(n).toString('hex').slice(0, n);
type Res = { status: number; json: any; text: string };
const refund = (ws: Workspace, body: Record<string, unknown>, headers: Record<string, string> = key()) =>
  ws.client.post('/v1/refunds', body, headers);
function expectError(res: Res, status: number, code: string, field?: string) {
  expect(
    { status: res.status, code: res.json?.error?.code, ...(field ? { field: res.json?.error?.field } : {}) },
    res.text,
  ).toEqual({ status, code, ...(field ? { field } : {}) });
}
const eventsOf = async (ws: Workspace, objectId: string) =>
  (await ws.client.get(`/v1/events?objectId=${objectId}&limit=100`)).json.data.map((e: any) => e.type).reverse();
const ledgerOf = async (txId: string) =>
  (
    await db().system.query(
      `SELECT code, direction, amount::int FROM ledger_entries WHERE "txId" = $1 ORDER BY direction DESC, code`,
      [txId],
    )
  ).rows;

describe('POST /v1/refunds: every documented error, exact spelling', () => {
  it('400 VALIDATION_ERROR for chargeId, amount and reason; 400 without an Idempotency-Key', async () => {
    const ws = await server.workspace();
    const pay = await sandboxPayment(server, ws);
    expectError(await refund(ws, {}), 400, 'VALIDATION_ERROR', 'chargeId');
    expectError(await refund(ws, { chargeId: 'cs_01J0000000000000000000000' }), 400, 'VALIDATION_ERROR', 'chargeId');
    expectError(await refund(ws, { chargeId: pay.id, amount: 0 }), 400, 'VALIDATION_ERROR', 'amount');
    expectError(await refund(ws, { chargeId: pay.id, amount: -5 }), 400, 'VALIDATION_ERROR', 'amount');
    expectError(await refund(ws, { chargeId: pay.id, amount: 1.5 }), 400, 'VALIDATION_ERROR', 'amount');
    expectError(await refund(ws, { chargeId: pay.id, reason: 'bored' }), 400, 'VALIDATION_ERROR', 'reason');
    expectError(await refund(ws, { chargeId: pay.id, metadata: { a: 1 } }), 400, 'VALIDATION_ERROR', 'metadata');
    expectError(await refund(ws, { chargeId: pay.id, surprise: true }), 400, 'VALIDATION_ERROR');
    expectError(await refund(ws, { chargeId: pay.id }, {}), 400, 'idempotency_required', 'Idempotency-Key');
    expect((await ws.client.get(`/v1/payments/${pay.id}`)).json.data).toMatchObject({
      status: 'succeeded',
      amountRefunded: 0,
    });
  });

  it('404 NOT_FOUND for an unknown payment, another workspace, and the other mode', async () => {
    const ws = await server.workspace();
    const other = await server.workspace();
    const pay = await sandboxPayment(server, other);
    expectError(await refund(ws, { chargeId: 'pay_01J0000000000000000000000A' }), 404, 'NOT_FOUND');
    expectError(await refund(ws, { chargeId: pay.id }), 404, 'NOT_FOUND');
    const live = await mintLiveKey(other.workspaceId);
    const liveClient = createClient({ baseUrl: server.url, ...live });
    expectError(await liveClient.post('/v1/refunds', { chargeId: pay.id }, key()), 404, 'NOT_FOUND');
    expectError(await ws.client.get('/v1/refunds/rf_01J0000000000000000000000A'), 404, 'NOT_FOUND');
  });

  it('422 VALIDATION_ERROR over the remaining amount and when nothing is left; default is the whole remainder', async () => {
    const ws = await server.workspace();
    const pay = await sandboxPayment(server, ws, { amount: 100000 });
    expectError(await refund(ws, { chargeId: pay.id, amount: 100001 }), 422, 'VALIDATION_ERROR', 'amount');
    expect((await refund(ws, { chargeId: pay.id, amount: 30000 })).status).toBe(201);
    expectError(await refund(ws, { chargeId: pay.id, amount: 70001 }), 422, 'VALIDATION_ERROR', 'amount');
    const rest = await refund(ws, { chargeId: pay.id });
    expect(rest.status, rest.text).toBe(201);
    expect(rest.json.data).toMatchObject({ amount: 70000, reason: 'requested_by_customer', status: 'succeeded' });
    expectError(await refund(ws, { chargeId: pay.id }), 422, 'VALIDATION_ERROR', 'amount');
    expectError(await refund(ws, { chargeId: pay.id, amount: 1 }), 422, 'VALIDATION_ERROR', 'amount');
  });

  it('422 VALIDATION_ERROR on chargeId for a bookkeeping payment (invoice marked paid): its money never passed through a provider', async () => {
    const ws = await server.workspace();
    const cus = (await ws.client.post('/v1/customers', { name: 'Budi' })).json.data.id;
    const inv = (
      await ws.client.post('/v1/invoices', {
        customerId: cus,
        currency: 'IDR',
        status: 'open',
        lines: [{ description: 'Sewa alat', quantity: 1, unitAmount: 50_000 }],
      })
    ).json.data;
    expect((await ws.client.post(`/v1/invoices/${inv.id}/pay`, {}, key())).status).toBe(201);
    const { rows } = await db().system.query(`SELECT id, method, adapter FROM payments WHERE "invoiceId" = $1`, [
      inv.id,
    ]);
    expect(rows).toEqual([{ id: expect.stringMatching(/^pay_/), method: 'offline', adapter: null }]);
    const pay = rows[0].id as string;
    for (const body of [{ chargeId: pay }, { chargeId: pay, amount: 1 }]) {
      const res = await refund(ws, body);
      expectError(res, 422, 'VALIDATION_ERROR', 'chargeId');
      expect(res.json.error.message).toContain('outOfBandAmount');
    }
    expect((await ws.client.get(`/v1/refunds?chargeId=${pay}`)).json.data).toEqual([]);
    expect((await ws.client.get(`/v1/payments/${pay}`)).json.data).toMatchObject({
      status: 'succeeded',
      amountRefunded: 0,
    });
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
  });

  it('409 IDEMPOTENCY_CONFLICT for the same key with another body; the same body replays', async () => {
    const ws = await server.workspace();
    const pay = await sandboxPayment(server, ws);
    const k = key();
    const first = await refund(ws, { chargeId: pay.id, amount: 1000 }, k);
    expect(first.status).toBe(201);
    const again = await refund(ws, { chargeId: pay.id, amount: 1000 }, k);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.data.id).toBe(first.json.data.id);
    expectError(await refund(ws, { chargeId: pay.id, amount: 2000 }, k), 409, 'IDEMPOTENCY_CONFLICT');
    expect((await ws.client.get(`/v1/refunds?chargeId=${pay.id}`)).json.data).toHaveLength(1);
  });

  it('429 RATE_LIMITED in the mutating_heavy class (burst 20), with Retry-After', async () => {
    const ws = await server.workspace();
    const pay = await sandboxPayment(server, ws, { amount: 1000 });
    const at = Date.now();
    const spy = vi.spyOn(Date, 'now').mockReturnValue(at);
    let results: Res[] & { headers?: Headers }[];
    try {
      results = (await Promise.all(
        Array.from({ length: 24 }, () => refund(ws, { chargeId: pay.id, amount: 1 })),
      )) as never;
    } finally {
      spy.mockRestore();
    }
    const limited = results.filter((r) => r.status === 429);
    expect(limited).toHaveLength(4);
    for (const r of limited) expectError(r, 429, 'RATE_LIMITED');
    expect(results.filter((r) => r.status === 201)).toHaveLength(20);
  });
});

describe('the test-mode sandbox', () => {
  it('a managed card refund succeeds on the create call: events, payment status, ledger', async () => {
    const ws = await server.workspace();
    const pay = await sandboxPayment(server, ws, { amount: 100000, method: 'card' });
    const r1 = await refund(ws, { chargeId: pay.id, amount: 40000, reason: 'duplicate', metadata: { ticket: 'T-1' } });
    expect(r1.status, r1.text).toBe(201);
    expect(r1.json.data).toMatchObject({
      chargeId: pay.id,
      amount: 40000,
      currency: 'IDR',
      status: 'succeeded',
      reason: 'duplicate',
      metadata: { ticket: 'T-1' },
      failureCode: null,
      invoiceId: null,
    });
    expect(r1.json.data.id).toMatch(/^rf_[0-9A-Z]{26}$/);
    expect(r1.json.data.arn).toBe(`arn:svc:${ws.accountId}:refund:${r1.json.data.id}`);
    expect((await ws.client.get(`/v1/payments/${pay.id}`)).json.data).toMatchObject({
      status: 'partially_refunded',
      amountRefunded: 40000,
    });
    expect(await eventsOf(ws, r1.json.data.id)).toEqual(['refund.created', 'refund.succeeded']);
    expect(await ledgerOf(r1.json.data.id)).toEqual([
      { code: 'refunds', direction: 'debit', amount: 40000 },
      { code: 'settlement:provider_a_platform', direction: 'credit', amount: 40000 },
    ]);
    const r2 = await refund(ws, { chargeId: pay.id });
    expect(r2.json.data).toMatchObject({ amount: 60000, status: 'succeeded' });
    expect((await ws.client.get(`/v1/payments/${pay.id}`)).json.data).toMatchObject({
      status: 'refunded',
      amountRefunded: 100000,
    });
    expect((await eventsOf(ws, pay.id)).filter((t: string) => t.startsWith('payment.'))).toEqual([
      'payment.succeeded',
      'payment.partially_refunded',
      'payment.refunded',
    ]);
    expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
  });

  it('other sandbox refunds stay pending until POST /v1/refunds/:id/simulate; a failure frees the amount', async () => {
    const ws = await server.workspace();
    const pay = await sandboxPayment(server, ws, { amount: 50000, method: 'qris' });
    const r = (await refund(ws, { chargeId: pay.id, amount: 50000 })).json.data;
    expect(r.status).toBe('pending');
    // pending counts against the remainder at once
    expectError(await refund(ws, { chargeId: pay.id, amount: 1 }), 422, 'VALIDATION_ERROR', 'amount');
    expect((await ws.client.get(`/v1/payments/${pay.id}`)).json.data).toMatchObject({
      status: 'succeeded',
      amountRefunded: 0,
    });

    const failed = await ws.client.post(`/v1/refunds/${r.id}/simulate`, { outcome: 'failure' });
    expect(failed.status, failed.text).toBe(200);
    expect(failed.json.data).toMatchObject({ status: 'failed', failureCode: 'simulated_failure' });
    expect(typeof failed.json.data.failureMessage).toBe('string');
    expect(Date.parse(failed.json.data.updatedAt)).toBeGreaterThanOrEqual(Date.parse(r.updatedAt));
    expect(await eventsOf(ws, r.id)).toEqual(['refund.created', 'refund.failed']);
    expect(await ledgerOf(r.id)).toEqual([]);
    expectError(await ws.client.post(`/v1/refunds/${r.id}/simulate`, { outcome: 'success' }), 409, 'conflict');

    const r2 = (await refund(ws, { chargeId: pay.id, amount: 20000 })).json.data;
    expect(r2.status).toBe('pending');
    const ok = await ws.client.post(`/v1/refunds/${r2.id}/simulate`, { outcome: 'success' });
    expect(ok.json.data.status).toBe('succeeded');
    expect((await ws.client.get(`/v1/payments/${pay.id}`)).json.data).toMatchObject({
      status: 'partially_refunded',
      amountRefunded: 20000,
    });
    expect(await eventsOf(ws, r2.id)).toEqual(['refund.created', 'refund.succeeded']);
    expectError(
      await ws.client.post(`/v1/refunds/${r2.id}/simulate`, { outcome: 'maybe' }),
      400,
      'VALIDATION_ERROR',
      'outcome',
    );
    expectError(
      await ws.client.post(`/v1/refunds/rf_01J0000000000000000000000A/simulate`, { outcome: 'success' }),
      404,
      'NOT_FOUND',
    );
  });

  it('simulate is test mode only: 403 forbidden_in_live_mode', async () => {
    const ws = await server.workspace();
    const live = await mintLiveKey(ws.workspaceId);
    const res = await createClient({ baseUrl: server.url, ...live }).post(
      '/v1/refunds/rf_01J0000000000000000000000A/simulate',
      { outcome: 'success' },
    );
    expectError(res, 403, 'forbidden_in_live_mode');
  });

  it('retrieve and list with chargeId, status, order and keyset pages', async () => {
    const ws = await server.workspace();
    const a = await sandboxPayment(server, ws, { amount: 10000, method: 'qris' });
    const b = await sandboxPayment(server, ws, { amount: 10000, method: 'card' });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await refund(ws, { chargeId: a.id, amount: 1000 })).json.data.id);
    ids.push((await refund(ws, { chargeId: b.id, amount: 1000 })).json.data.id);
    const got = await ws.client.get(`/v1/refunds/${ids[0]}`);
    expect(got.json.data).toMatchObject({ id: ids[0], chargeId: a.id, status: 'pending' });
    expect((await ws.client.get('/v1/refunds')).json.data.map((r: any) => r.id)).toEqual([...ids].reverse());
    expect((await ws.client.get(`/v1/refunds?chargeId=${a.id}&order=asc`)).json.data.map((r: any) => r.id)).toEqual(
      ids.slice(0, 3),
    );
    expect((await ws.client.get('/v1/refunds?status=succeeded')).json.data.map((r: any) => r.id)).toEqual([ids[3]]);
    const p1 = await ws.client.get('/v1/refunds?limit=2');
    expect(p1.json.meta.page).toMatchObject({ limit: 2, hasMore: true });
    const p2 = await ws.client.get(`/v1/refunds?limit=2&cursor=${p1.json.meta.page.nextCursor}`);
    expect([...p1.json.data, ...p2.json.data].map((r: any) => r.id)).toEqual([...ids].reverse());
    expect(p2.json.meta.page.hasMore).toBe(false);
    expectError(await ws.client.get('/v1/refunds?status=done'), 400, 'VALIDATION_ERROR', 'status');
    expectError(await ws.client.get('/v1/refunds?limit=101'), 400, 'invalid_limit');
    expectError(
      await ws.client.get(`/v1/refunds?limit=2&status=pending&cursor=${p1.json.meta.page.nextCursor}`),
      400,
      'invalid_cursor',
    );
    const other = await server.workspace();
    expectError(await other.client.get(`/v1/refunds/${ids[0]}`), 404, 'NOT_FOUND');
  });

  it('GraphQL createRefund follows the same rules and spellings', async () => {
    const ws = await server.workspace();
    const pay = await sandboxPayment(server, ws, { amount: 5000 });
    const m =
      'mutation($input: CreateRefundInput!, $k: String) { createRefund(input: $input, idempotencyKey: $k) { id status amount chargeId } }';
    const ok = await ws.client.graphql(m, { input: { chargeId: pay.id, amount: 2000 }, k: randomUUID() });
    expect(ok.json.data.createRefund).toMatchObject({ status: 'succeeded', amount: 2000, chargeId: pay.id });
    const over = await ws.client.graphql(m, { input: { chargeId: pay.id, amount: 4000 }, k: randomUUID() });
    expect(over.json.errors![0].extensions).toMatchObject({ code: 'VALIDATION_ERROR', field: 'amount' });
    const noKey = await ws.client.graphql(m, { input: { chargeId: pay.id, amount: 1 } });
    expect(noKey.json.errors![0].extensions.code).toBe('idempotency_required');
  });
});

describe('race: concurrent partial refunds of one payment', () => {
  const rounds = Number(process.env.RACE_ROUNDS ?? 3);
  it(
    `50 concurrent refunds never exceed the captured amount (${rounds} rounds), 0 server errors`,
    async () => {
      const ws = await server.workspace();
      await unthrottled(async () => {
        for (let round = 0; round < rounds; round++) {
          // 50 x 3,000 against 100,000: exactly 33 fit.
          const pay = await sandboxPayment(server, ws, { amount: 100000, method: 'card' });
          const results = await Promise.all(
            Array.from({ length: 50 }, () => refund(ws, { chargeId: pay.id, amount: 3000 })),
          );
          const statuses = results.map((r) => r.status);
          expect(
            statuses.filter((s) => s >= 500),
            JSON.stringify(results.find((r) => r.status >= 500)?.json),
          ).toEqual([]);
          expect(statuses.filter((s) => s === 201)).toHaveLength(33);
          expect(statuses.filter((s) => s === 422)).toHaveLength(17);
          const p = (await ws.client.get(`/v1/payments/${pay.id}`)).json.data;
          expect(p).toMatchObject({ amountRefunded: 99000, status: 'partially_refunded' });
          const { rows } = await db().system.query(
            `SELECT count(*)::int AS n, sum(amount)::int AS total FROM refunds WHERE "paymentId" = $1`,
            [pay.id],
          );
          expect(rows[0]).toEqual({ n: 33, total: 99000 });
        }
      });
      expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
    },
    60_000 + rounds * 3_000,
  );
});

const simulators = useSimulators(server);

describe('provider refunds through the simulators', () => {
  describe('provider_a: pending, settled by callback', () => {
    const creds = { secretKey: `xnd_development_${rand(20)}`, callbackToken: rand(24) };
    const sim = simulators.track(new ProviderASim(creds));
    beforeAll(async () => {
      await sim.start();
      process.env.PROVIDER_A_BASE_URL = sim.url;
      sim.callbackUrl = `${server.url}/v1/callbacks/provider_a`;
    });

    async function paidByProviderA(ws: Workspace, method = 'card') {
      const sessionId = await startPayment(server, ws, { amount: 150000, method });
      const ref = await providerRefOf(sessionId);
      expect((await sim.pay(ref)).map((d) => d.status)).toEqual([200]);
      const s = (await ws.client.get(`/v1/checkout-sessions/${sessionId}`)).json.data;
      expect(s.status).toBe('completed');
      return s.paymentId as string;
    }

    it('a card refund goes to the provider; the success callback settles it once; a failure frees the amount', async () => {
      const ws = await server.workspace();
      expect((await ws.client.put('/v1/adapters/provider_a', creds, key())).status).toBe(200);
      const payId = await paidByProviderA(ws);
      const r = (await refund(ws, { chargeId: payId, amount: 50000 })).json.data;
      expect(r.status).toBe('pending');
      const { rows } = await db().system.query(`SELECT "providerRefundId" FROM refunds WHERE id = $1`, [r.id]);
      expect(sim.refunds.get(rows[0].providerRefundId)).toMatchObject({ amount: 50000, status: 'PENDING' });
      const deliveries = await sim.settleRefund(rows[0].providerRefundId, 'SUCCEEDED', { duplicates: 2 });
      expect(deliveries.map((d) => d.status)).toEqual([200, 200, 200]);
      expect((await ws.client.get(`/v1/refunds/${r.id}`)).json.data.status).toBe('succeeded');
      expect((await ws.client.get(`/v1/payments/${payId}`)).json.data).toMatchObject({
        status: 'partially_refunded',
        amountRefunded: 50000,
      });
      expect(await eventsOf(ws, r.id)).toEqual(['refund.created', 'refund.succeeded']);
      expect(await ledgerOf(r.id)).toEqual([
        { code: 'refunds', direction: 'debit', amount: 50000 },
        { code: 'settlement:provider_a', direction: 'credit', amount: 50000 },
      ]);

      const r2 = (await refund(ws, { chargeId: payId })).json.data;
      expect(r2).toMatchObject({ amount: 100000, status: 'pending' });
      const id2 = (await db().system.query(`SELECT "providerRefundId" FROM refunds WHERE id = $1`, [r2.id])).rows[0]
        .providerRefundId;
      await sim.settleRefund(id2, 'FAILED');
      expect((await ws.client.get(`/v1/refunds/${r2.id}`)).json.data).toMatchObject({
        status: 'failed',
        failureCode: 'provider_rejected',
      });
      expect((await refund(ws, { chargeId: payId, amount: 100000 })).status).toBe(201);
    });

    it('two phases: while the provider is called no transaction is open and the payment is not locked', async () => {
      const ws = await server.workspace();
      await ws.client.put('/v1/adapters/provider_a', creds, key());
      const payId = await paidByProviderA(ws);
      const seen: unknown[] = [];
      sim.during = async (r) => {
        if (r.method === 'POST' && r.path === '/refunds') seen.push(await duringProviderCall(payId));
      };
      let r: Res;
      try {
        r = await refund(ws, { chargeId: payId, amount: 40000 });
      } finally {
        sim.during = undefined;
      }
      expect(r.status, r.text).toBe(201);
      // Phase 1 had committed the reservation; nothing held the payment or a transaction.
      expect(seen).toEqual([{ locked: 1, refunds: [{ status: 'pending', submittedAt: null }], idle: 0 }]);
      const row = (
        await db().system.query(`SELECT status, "submittedAt", "providerRefundId" FROM refunds WHERE id = $1`, [
          r.json.data.id,
        ])
      ).rows[0];
      expect(row.submittedAt).not.toBeNull();
      expect(sim.refunds.get(row.providerRefundId)).toMatchObject({ amount: 40000 });
      expect(await eventsOf(ws, r.json.data.id)).toEqual(['refund.created']);
    });

    it('a crash between the phases: the reservation holds, and the sweep submits the refund once with its own key', async () => {
      const ws = await server.workspace();
      await ws.client.put('/v1/adapters/provider_a', creds, key());
      const payId = await paidByProviderA(ws);
      const crashed = await crashedAfterPhaseOne(ws, payId, 100000, 'provider_a');
      expectError(await refund(ws, { chargeId: payId, amount: 50001 }), 422, 'VALIDATION_ERROR', 'amount');
      expect(await reconcilePendingRefunds()).toBe(0); // within the grace period: maybe still in flight
      expect(await sweepLater()).toBe(1);
      expect(await sweepLater()).toBe(0);
      const row = (
        await db().system.query(`SELECT status, "submittedAt", "providerRefundId" FROM refunds WHERE id = $1`, [
          crashed.id,
        ])
      ).rows[0];
      expect(row).toMatchObject({ status: 'pending' });
      expect(row.submittedAt).not.toBeNull();
      const atProvider = [...sim.refunds.values()].filter((x) => x.reference_id === crashed.providerKey);
      expect(atProvider).toHaveLength(1);
      expect(atProvider[0]).toMatchObject({ id: row.providerRefundId, amount: 100000 });
      expect(await eventsOf(ws, crashed.id)).toEqual(['refund.created']);
      await sim.settleRefund(row.providerRefundId, 'SUCCEEDED');
      expect((await ws.client.get(`/v1/refunds/${crashed.id}`)).json.data.status).toBe('succeeded');
      expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
    });

    it('the sweep fails a crashed refund the provider refuses: the amount is refundable again', async () => {
      const ws = await server.workspace();
      await ws.client.put('/v1/adapters/provider_a', creds, key());
      const sessionId = await startPayment(server, ws, { amount: 150000, method: 'va' });
      await sim.pay(await providerRefOf(sessionId));
      const payId = (await ws.client.get(`/v1/checkout-sessions/${sessionId}`)).json.data.paymentId;
      const crashed = await crashedAfterPhaseOne(ws, payId, 150000, 'provider_a');
      expect(await sweepLater()).toBe(1);
      expect((await ws.client.get(`/v1/refunds/${crashed.id}`)).json.data).toMatchObject({
        status: 'failed',
        failureCode: 'provider_rejected',
      });
      expect(await eventsOf(ws, crashed.id)).toEqual(['refund.created', 'refund.failed']);
    });

    it('a VA payment cannot be refunded through the API: 502 PROVIDER_ERROR, nothing recorded', async () => {
      const ws = await server.workspace();
      await ws.client.put('/v1/adapters/provider_a', creds, key());
      const sessionId = await startPayment(server, ws, { amount: 150000, method: 'va' });
      const ref = await providerRefOf(sessionId);
      await sim.pay(ref);
      const payId = (await ws.client.get(`/v1/checkout-sessions/${sessionId}`)).json.data.paymentId;
      expect(payId).toMatch(/^pay_/);
      const k = key();
      expectError(await refund(ws, { chargeId: payId, amount: 1000 }, k), 502, 'PROVIDER_ERROR');
      expect((await ws.client.get(`/v1/refunds?chargeId=${payId}`)).json.data).toEqual([]);
      // 5xx released the key: the same key may be retried
      expectError(await refund(ws, { chargeId: payId, amount: 1000 }, k), 502, 'PROVIDER_ERROR');
    });
  });

  describe('provider_b: approved on the refund call', () => {
    const creds = {
      serverKey: `SB-Mid-server-${rand(12)}`,
      clientKey: `SB-Mid-client-${rand(8)}`,
      merchantId: 'G123456789',
    };
    const sim = simulators.track(new ProviderBSim({ serverKey: creds.serverKey, merchantId: creds.merchantId }));
    beforeAll(async () => {
      await sim.start();
      process.env.PROVIDER_B_BASE_URL = sim.url;
    });

    it('refunds succeed synchronously; over the remainder is 422 before the provider is asked', async () => {
      const ws = await server.workspace();
      expect((await ws.client.put('/v1/adapters/provider_b', creds, key())).status).toBe(200);
      const sessionId = await startPayment(server, ws, { amount: 150000, method: 'va' });
      await sim.pay(await providerRefOf(sessionId));
      const payId = (await ws.client.get(`/v1/checkout-sessions/${sessionId}`)).json.data.paymentId;
      const r = await refund(ws, { chargeId: payId, amount: 100000 });
      expect(r.status, r.text).toBe(201);
      expect(r.json.data.status).toBe('succeeded');
      expectError(await refund(ws, { chargeId: payId, amount: 50001 }), 422, 'VALIDATION_ERROR', 'amount');
      expect((await refund(ws, { chargeId: payId })).json.data).toMatchObject({ amount: 50000, status: 'succeeded' });
      expect((await ws.client.get(`/v1/payments/${payId}`)).json.data).toMatchObject({
        status: 'refunded',
        amountRefunded: 150000,
      });
      expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
    });
  });

  describe('provider_b: concurrency and confirmation', () => {
    const creds = {
      serverKey: `SB-Mid-server-${rand(12)}`,
      clientKey: `SB-Mid-client-${rand(8)}`,
      merchantId: 'G123456789',
    };
    const sim = simulators.track(new ProviderBSim({ serverKey: creds.serverKey, merchantId: creds.merchantId }));
    beforeAll(async () => {
      await sim.start();
      process.env.PROVIDER_B_BASE_URL = sim.url;
    });
    async function paidByProviderB(ws: Workspace) {
      const sessionId = await startPayment(server, ws, { amount: 150000, method: 'va' });
      const ref = await providerRefOf(sessionId);
      await sim.pay(ref);
      return {
        payId: (await ws.client.get(`/v1/checkout-sessions/${sessionId}`)).json.data.paymentId as string,
        orderId: ref,
      };
    }

    const rounds = Number(process.env.RACE_ROUNDS ?? 3);
    it(
      `race: concurrent provider refunds (two phases) never exceed the captured amount (${rounds} rounds)`,
      async () => {
        const ws = await server.workspace();
        await ws.client.put('/v1/adapters/provider_b', creds, key());
        await unthrottled(async () => {
          for (let round = 0; round < rounds; round++) {
            const { payId } = await paidByProviderB(ws);
            // 10 x 40,000 against 150,000: exactly 3 fit.
            const results = await Promise.all(
              Array.from({ length: 10 }, () => refund(ws, { chargeId: payId, amount: 40000 })),
            );
            const statuses = results.map((r) => r.status);
            expect(
              statuses.filter((x) => x >= 500),
              JSON.stringify(results.find((r) => r.status >= 500)?.json),
            ).toEqual([]);
            expect(statuses.filter((x) => x === 201)).toHaveLength(3);
            expect(statuses.filter((x) => x === 422)).toHaveLength(7);
            expect((await ws.client.get(`/v1/payments/${payId}`)).json.data).toMatchObject({
              amountRefunded: 120000,
              status: 'partially_refunded',
            });
          }
        });
        await sim.flush();
        expect(await unbalancedTxIds(ws.workspaceId)).toEqual([]);
      },
      60_000 + rounds * 5_000,
    );

    it('a refund notification is confirmed with the status API: one the provider does not list moves no money', async () => {
      const ws = await server.workspace();
      await ws.client.put('/v1/adapters/provider_b', creds, key());
      const { payId, orderId } = await paidByProviderB(ws);
      // A refund whose outcome we do not know yet (its call never reached the provider).
      const crashed = await crashedAfterPhaseOne(ws, payId, 50000, 'provider_b');
      // A correctly signed notification that claims it was refunded: the provider's status lists no such refund.
      const body = {
        order_id: orderId,
        status_code: '200',
        gross_amount: '150000.00',
        transaction_status: 'partial_refund',
        transaction_id: `t-${rand(8)}`,
        currency: 'IDR',
        refund_amount: '50000.00',
        refunds: [{ refund_chargeback_id: 9999, refund_amount: '50000.00', refund_key: crashed.providerKey }],
        signature_key: providerBSignature(orderId, '200', '150000.00', creds.serverKey),
      };
      const res = await fetch(`${server.url}/v1/callbacks/provider_b`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      expect((await ws.client.get(`/v1/refunds/${crashed.id}`)).json.data.status).toBe('pending');
      expect((await ws.client.get(`/v1/payments/${payId}`)).json.data).toMatchObject({ amountRefunded: 0 });
      expect(await ledgerOf(crashed.id)).toEqual([]);
      // The sweep makes the refund for real; the provider's own notification then agrees.
      expect(await sweepLater()).toBe(1);
      await sim.flush();
      expect((await ws.client.get(`/v1/refunds/${crashed.id}`)).json.data.status).toBe('succeeded');
      expect((await ws.client.get(`/v1/payments/${payId}`)).json.data).toMatchObject({ amountRefunded: 50000 });
    });
  });

  describe('provider_c: capture refund completed on the call; its webhook changes nothing', () => {
    const creds = { clientId: `AZ${rand(16)}`, secret: `EL${rand(16)}`, webhookId: `WH${rand(8).toUpperCase()}` };
    const sim = simulators.track(new ProviderCSim(creds));
    beforeAll(async () => {
      await sim.start();
      process.env.PROVIDER_C_BASE_URL = sim.url;
      process.env.PROVIDER_C_WEBHOOK_ID = creds.webhookId;
      sim.webhookUrl = `${server.url}/v1/callbacks/provider_c`;
    });

    it('USD refund of a captured order', async () => {
      const ws = await server.workspace();
      expect(
        (
          await ws.client.put(
            '/v1/adapters/provider_c',
            { clientId: creds.clientId, secret: creds.secret, mode: 'sandbox' },
            key(),
          )
        ).status,
      ).toBe(200);
      const sessionId = await startPayment(server, ws, { amount: 1234, currency: 'USD', method: 'provider_c' });
      await sim.pay(await providerRefOf(sessionId));
      await sim.flush();
      const payId = (await ws.client.get(`/v1/checkout-sessions/${sessionId}`)).json.data.paymentId;
      expect(payId).toMatch(/^pay_/);
      const r = await refund(ws, { chargeId: payId, amount: 234 });
      expect(r.status, r.text).toBe(201);
      expect(r.json.data).toMatchObject({ status: 'succeeded', currency: 'USD', amount: 234 });
      await sim.flush();
      expect(await eventsOf(ws, r.json.data.id)).toEqual(['refund.created', 'refund.succeeded']);
      expect((await ws.client.get(`/v1/payments/${payId}`)).json.data).toMatchObject({
        status: 'partially_refunded',
        amountRefunded: 234,
      });
    });
  });
});
