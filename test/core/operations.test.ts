/**
 * A money-creating request whose first run committed but whose response was lost (a crash after the
 * commit, or a run slower than the lease) is run again under the same Idempotency-Key once its
 * claim is taken over (src/core/idempotency.ts). The re-run finds what the first run made
 * (src/core/operations.ts) and answers with it: nothing new is created or charged.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { clock } from '../../src/core/clock.ts';
import { scopeOf, tenantTx } from '../../src/core/db/sql.ts';
import { claimOperation } from '../../src/core/operations.ts';
import { clockedSender } from '../helpers/clocked.ts';
import { sandboxPayment } from '../helpers/payments.ts';
import { until } from '../helpers/receiver.ts';
import { customer, plan } from '../helpers/renewals.ts';
import { db, useServer, type Workspace } from '../helpers/server.ts';

const server = useServer();
afterEach(() => clock.reset());
const send = clockedSender(server);

/**
 * Runs `method target body` under one key, then loses its answer as a crash after the commit would
 * (the key back in flight with its lease over) and sends the same request again: both answers.
 */
async function runTwice(ws: Workspace, method: string, target: string, body: unknown) {
  const key = randomUUID();
  const first = await send(ws, method, target, body, { 'idempotency-key': key });
  expect(first.status, first.text).toBeLessThan(300);
  const { rowCount } = await db().system.query(
    `UPDATE idempotency_keys SET state = 'in_flight', body = NULL, "statusCode" = NULL, "leaseUntil" = $3
      WHERE "workspaceId" = $1 AND key = $2`,
    [ws.workspaceId, key, clock.now()],
  );
  expect(rowCount).toBe(1);
  clock.advance(1000);
  const rerun = await send(ws, method, target, body, { 'idempotency-key': key });
  expect(rerun.status, rerun.text).toBe(first.status);
  // Run again, not replayed: the stored response was lost.
  expect(rerun.headers.get('idempotent-replayed')).toBeNull();
  return { first: first.json.data, rerun: rerun.json.data };
}

const count = async (table: string, where: string, values: unknown[]) =>
  (await db().system.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, values)).rows[0].n as number;

describe('a money-creating request run again after its claim was taken over', () => {
  it('subscription create: the same subscription, charged once', async () => {
    const ws = await server.workspace();
    const { priceId } = await plan(ws);
    const cus = await customer(ws);
    const body = { customerId: cus, priceId, paymentMethod: 'pm_test_success' };
    const { first, rerun } = await runTwice(ws, 'POST', '/v1/subscriptions', body);
    expect(first.status).toBe('active');
    expect(rerun).toMatchObject({ id: first.id, status: 'active', latestInvoiceId: first.latestInvoiceId });
    expect(await count('subscriptions', '"customerId" = $1', [cus])).toBe(1);
    expect(await count('invoices', '"customerId" = $1', [cus])).toBe(1);
    expect(await count('payments', '"customerId" = $1', [cus])).toBe(1);
  });

  it('invoice pay: the paid invoice again (not 409), one payment and one ledger posting', async () => {
    const ws = await server.workspace();
    const cus = await customer(ws);
    const inv = await ws.client.post('/v1/invoices', {
      customerId: cus,
      currency: 'IDR',
      status: 'open',
      lines: [{ description: 'Konsultasi', quantity: 1, unitAmount: 50_000 }],
    });
    expect(inv.status, JSON.stringify(inv.json)).toBe(201);
    const id = inv.json.data.id as string;
    const { first, rerun } = await runTwice(ws, 'POST', `/v1/invoices/${id}/pay`, {});
    expect(first).toMatchObject({ id, status: 'paid' });
    expect(rerun).toMatchObject({ id, status: 'paid', paidAt: first.paidAt });
    expect(await count('payments', '"invoiceId" = $1', [id])).toBe(1);
    expect(await count('receipts', '"sourceId" = $1', [id])).toBe(1);
    expect(await count('ledger_entries', '"sourceId" = $1', [id])).toBe(2);
  });

  it('usage record: the same record, counted once', async () => {
    const ws = await server.workspace();
    const { priceId } = await plan(ws, {
      name: 'Metered',
      usageAggregate: 'sum',
      prices: [{ currency: 'IDR', model: 'usage', unitAmount: 1000 }],
    });
    const sub = await ws.client.post(
      '/v1/subscriptions',
      { customerId: await customer(ws), priceId, paymentMethod: 'pm_test_success' },
      { 'idempotency-key': randomUUID() },
    );
    expect(sub.status, JSON.stringify(sub.json)).toBe(201);
    const subId = sub.json.data.id as string;
    const { first, rerun } = await runTwice(ws, 'POST', `/v1/subscriptions/${subId}/usage`, { quantity: 7 });
    expect(rerun).toEqual(first);
    expect(await count('usage_records', '"subscriptionId" = $1', [subId])).toBe(1);
  });

  it('checkout session: the same session', async () => {
    const ws = await server.workspace();
    const body = {
      amount: 100_000,
      currency: 'IDR',
      methods: ['card'],
      successUrl: 'https://shop.example/thanks',
      cancelUrl: 'https://shop.example/cart',
    };
    const { first, rerun } = await runTwice(ws, 'POST', '/v1/checkout-sessions', body);
    expect(rerun).toEqual(first);
    expect(await count('checkout_sessions', '"workspaceId" = $1', [ws.workspaceId])).toBe(1);
  });

  it('refund: the same refund, the payment refunded once', async () => {
    const ws = await server.workspace();
    const payment = await sandboxPayment(server, ws, { amount: 100_000 });
    const { first, rerun } = await runTwice(ws, 'POST', '/v1/refunds', { chargeId: payment.id, amount: 10_000 });
    expect(rerun).toMatchObject({ id: first.id, amount: first.amount, status: first.status });
    expect(await count('refunds', '"paymentId" = $1', [payment.id])).toBe(1);
    expect((await ws.client.get(`/v1/payments/${payment.id}`)).json.data.amountRefunded).toBe(10_000);
  });
});

describe('claimOperation', () => {
  it('a re-run racing a slower first run waits for its commit and gets its result; a rolled-back one left nothing', async () => {
    const ws = await server.workspace();
    const scope = { workspaceId: ws.workspaceId, mode: 'test' as const };
    const notes = { operationId: randomUUID() };
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let claimed!: () => void;
    const firstClaimed = new Promise<void>((r) => {
      claimed = r;
    });
    // The first run claims, then is slow (past the lease) before it commits.
    const first = tenantTx(scopeOf(scope), async (sql) => {
      const earlier = await claimOperation(sql, scope, notes, 'usage_record.create', 'ur_first');
      claimed();
      await held;
      return earlier;
    });
    await firstClaimed;
    const second = tenantTx(scopeOf(scope), (sql) =>
      claimOperation(sql, scope, notes, 'usage_record.create', 'ur_second'),
    );
    // The re-run waits on the first run's uncommitted claim instead of acting (a lock not granted).
    try {
      await until(
        async () =>
          (
            await db().system.query(
              `SELECT 1 FROM pg_locks l JOIN pg_stat_activity a USING (pid)
                WHERE NOT l.granted AND a.datname = current_database()`,
            )
          ).rowCount === 1,
        'the re-run waiting on the first claim',
      );
    } finally {
      release();
    }
    expect(await first).toBeNull();
    expect(await second).toBe('ur_first');

    const other = { operationId: randomUUID() };
    await expect(
      tenantTx(scopeOf(scope), async (sql) => {
        await claimOperation(sql, scope, other, 'invoice.pay', 'inv_a');
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(
      await tenantTx(scopeOf(scope), (sql) => claimOperation(sql, scope, other, 'invoice.pay', 'inv_b')),
    ).toBeNull();
    // Without an operation id (no Idempotency-Key) every run acts.
    expect(await tenantTx(scopeOf(scope), (sql) => claimOperation(sql, scope, {}, 'invoice.pay', 'inv_c'))).toBeNull();
  });
});
