import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { useServer, db, createClient, type Workspace } from '../../helpers/server.ts';
import { sandboxPayment, unbalancedTxIds, unthrottled } from '../../helpers/payments.ts';
import { ProviderASim } from '../../simulators/provider_a.ts';
import { runPayoutSchedule } from '../../../src/modules/payouts/schedule.ts';
import { syncDisbursements } from '../../../src/modules/payouts/disbursement.ts';
import { clock } from '../../../src/core/clock.ts';

const server = useServer();
const key = () => ({ 'idempotency-key': randomUUID() });
type Res = { status: number; json: any; text: string };
function expectError(res: Res, status: number, code: string, field?: string) {
  expect(
    { status: res.status, code: res.json?.error?.code, ...(field ? { field: res.json?.error?.field } : {}) },
    res.text,
  ).toEqual({ status, code, ...(field ? { field } : {}) });
}
const bank = {
  bankCode: 'BCA',
  bankName: 'Bank Central Asia',
  bankAccountNumber: '1234567890',
  bankAccountHolder: 'PT Maju Jaya',
};
const balance = async (ws: { client: Workspace['client'] }) => (await ws.client.get('/v1/payouts/balance')).json.data;
const eventTypes = async (ws: { client: Workspace['client'] }, id: string) =>
  (await ws.client.get(`/v1/events?objectId=${id}`)).json.data.map((e: any) => e.type).reverse();

/** A platform admin and one of its merchants with a captured payment and a bank account on file. */
async function merchantWithFunds(amount = 100000) {
  const partner = await server.workspace({ platformAdmin: true });
  const m = (await partner.client.post('/v1/workspaces', { name: 'Merchant', businessEmail: 'm@example.com' }, key()))
    .json.data;
  const client = createClient({
    baseUrl: server.url,
    keyId: partner.keyId,
    secret: partner.secret,
    onBehalfOf: m.accountId,
  });
  const merchant = { client, workspaceId: m.id } as unknown as Workspace;
  await sandboxPayment(server, merchant, { amount });
  expect((await client.patch('/v1/payouts/bank-account', bank)).status).toBe(200);
  return { partner, merchant, admin: client };
}

describe('balance and bank account', () => {
  it('GET/PATCH bank-account: nulls before anything, partial updates, validation naming the field', async () => {
    const ws = await server.workspace();
    expect((await ws.client.get('/v1/payouts/bank-account')).json.data).toEqual({
      bankCode: null,
      bankName: null,
      bankAccountNumber: null,
      bankAccountHolder: null,
    });
    expect((await ws.client.patch('/v1/payouts/bank-account', bank)).json.data).toEqual(bank);
    expect((await ws.client.patch('/v1/payouts/bank-account', { bankCode: null })).json.data).toEqual({
      ...bank,
      bankCode: null,
    });
    expectError(
      await ws.client.patch('/v1/payouts/bank-account', { bankName: 'x'.repeat(61) }),
      400,
      'validation_error',
      'bankName',
    );
    expectError(
      await ws.client.patch('/v1/payouts/bank-account', { bankAccountNumber: 'abc' }),
      400,
      'validation_error',
      'bankAccountNumber',
    );
    expectError(await ws.client.patch('/v1/payouts/bank-account', { iban: 'x' }), 400, 'validation_error');
  });

  it('balance = settlement held (payments less fees); available = ledgerBalance - locked', async () => {
    const ws = await server.workspace();
    expect(await balance(ws)).toEqual({ ledgerBalance: 0, locked: 0, available: 0, currency: 'IDR' });
    await sandboxPayment(server, ws, { amount: 100000 });
    const { rows } = await db().system.query(
      `SELECT coalesce(sum(CASE direction WHEN 'debit' THEN amount ELSE -amount END), 0)::int AS held FROM ledger_entries WHERE "workspaceId" = $1 AND code LIKE 'settlement:%'`,
      [ws.workspaceId],
    );
    const b = await balance(ws);
    expect(b).toEqual({ ledgerBalance: rows[0].held, locked: 0, available: rows[0].held, currency: 'IDR' });
    expect(b.ledgerBalance).toBeGreaterThan(0);
    expect((await ws.client.get('/v1/payouts/balance?currency=USD')).json.data).toEqual({
      ledgerBalance: 0,
      locked: 0,
      available: 0,
      currency: 'USD',
    });
  });
});

describe('POST /v1/payouts: every documented error', () => {
  it('400 idempotency_required, invalid_amount, bank_account_missing, validation_error; 409 insufficient_balance with the figures', async () => {
    const ws = await server.workspace();
    await sandboxPayment(server, ws, { amount: 100000 });
    const b = await balance(ws);
    expectError(await ws.client.post('/v1/payouts', { amount: 1000, currency: 'IDR' }), 400, 'idempotency_required');
    for (const amount of [0, -5, 1.5])
      expectError(
        await ws.client.post('/v1/payouts', { amount, currency: 'IDR' }, key()),
        400,
        'invalid_amount',
        'amount',
      );
    expectError(await ws.client.post('/v1/payouts', { currency: 'IDR' }, key()), 400, 'invalid_amount', 'amount');
    expectError(
      await ws.client.post('/v1/payouts', { amount: 1000, currency: 'IDR' }, key()),
      400,
      'bank_account_missing',
    );
    await ws.client.patch('/v1/payouts/bank-account', bank);
    expectError(
      await ws.client.post('/v1/payouts', { amount: 1000, currency: 'idr' }, key()),
      400,
      'validation_error',
      'currency',
    );
    expectError(
      await ws.client.post('/v1/payouts', { amount: 1000, currency: 'IDR', note: 'n'.repeat(501) }, key()),
      400,
      'validation_error',
      'note',
    );
    expectError(
      await ws.client.post('/v1/payouts', { amount: 1000, currency: 'IDR', method: 'carrier_pigeon' }, key()),
      400,
      'validation_error',
      'method',
    );
    const p = (await ws.client.post('/v1/payouts', { amount: 1000, currency: 'IDR' }, key())).json.data;
    const over = await ws.client.post('/v1/payouts', { amount: b.available, currency: 'IDR' }, key());
    expectError(over, 409, 'insufficient_balance');
    expect(over.json.error.message).toBe(
      `Requested ${b.available} IDR but only ${b.available - 1000} IDR is available (running balance ${b.ledgerBalance}, in flight 1000)`,
    );
    expectError(
      await ws.client.post('/v1/payouts', { amount: 1, currency: 'USD' }, key()),
      409,
      'insufficient_balance',
    );
    expect(p.status).toBe('pending');
  });

  it('bank fields override the default; 404 not_found for unknown or foreign payouts', async () => {
    const ws = await server.workspace();
    await sandboxPayment(server, ws);
    await ws.client.patch('/v1/payouts/bank-account', bank);
    const p = await ws.client.post(
      '/v1/payouts',
      { amount: 500, currency: 'IDR', bankName: 'Bank Mandiri', bankAccountNumber: '999', note: 'weekly' },
      key(),
    );
    expect(p.status, p.text).toBe(201);
    expect(p.json.data).toMatchObject({
      ...bank,
      bankName: 'Bank Mandiri',
      bankAccountNumber: '999',
      note: 'weekly',
      method: 'manual',
      reference: null,
      failureReason: null,
      ledgerTransactionId: null,
      processedAt: null,
      completedAt: null,
    });
    expect(p.json.data.id).toMatch(/^po_[0-9A-Z]{26}$/);
    expect(p.json.data).not.toHaveProperty('accountId');
    expect((await ws.client.get(`/v1/payouts/${p.json.data.id}`)).json.data).toEqual(p.json.data);
    expectError(await ws.client.get('/v1/payouts/po_01J0000000000000000000000A'), 404, 'not_found');
    expectError(await (await server.workspace()).client.get(`/v1/payouts/${p.json.data.id}`), 404, 'not_found');
    expectError(
      await (await server.workspace()).client.post(`/v1/payouts/${p.json.data.id}/cancel`, {}, key()),
      404,
      'not_found',
    );
  });
});

describe('the payout state table', () => {
  it('cancel releases the lock at once (no event); a second cancel is 409 invalid_transition', async () => {
    const ws = await server.workspace();
    await sandboxPayment(server, ws);
    await ws.client.patch('/v1/payouts/bank-account', bank);
    const before = await balance(ws);
    const p = (await ws.client.post('/v1/payouts', { amount: 2000, currency: 'IDR' }, key())).json.data;
    expect(await balance(ws)).toMatchObject({
      ledgerBalance: before.ledgerBalance,
      locked: 2000,
      available: before.available - 2000,
    });
    expectError(await ws.client.post(`/v1/payouts/${p.id}/cancel`, {}), 400, 'idempotency_required');
    const c = await ws.client.post(`/v1/payouts/${p.id}/cancel`, {}, key());
    expect(c.status, c.text).toBe(200);
    expect(c.json.data.status).toBe('cancelled');
    expect(await balance(ws)).toEqual(before);
    expectError(await ws.client.post(`/v1/payouts/${p.id}/cancel`, {}, key()), 409, 'invalid_transition');
    expect(await eventTypes(ws, p.id)).toEqual([]);
  });

  it('admin: pending -> in_transit -> paid posts the payout; failed returns the funds; other moves are 409', async () => {
    const { merchant, admin } = await merchantWithFunds(100000);
    const start = await balance(merchant);
    const p = (await admin.post('/v1/payouts', { amount: 30000, currency: 'IDR' }, key())).json.data;
    expectError(await admin.post(`/v1/payouts/${p.id}/mark-paid`, {}), 409, 'invalid_transition');
    const t = await admin.post(`/v1/payouts/${p.id}/mark-in-transit`, {});
    expect(t.status, t.text).toBe(200);
    expect(t.json.data.status).toBe('in_transit');
    expect(t.json.data.processedAt).not.toBeNull();
    expectError(await admin.post(`/v1/payouts/${p.id}/cancel`, {}, key()), 409, 'invalid_transition');
    const paid = (await admin.post(`/v1/payouts/${p.id}/mark-paid`, {})).json.data;
    expect(paid).toMatchObject({ status: 'paid', failureReason: null });
    expect(paid.completedAt).not.toBeNull();
    expect(paid.ledgerTransactionId).toMatch(/^le_/);
    const legs = (
      await db().system.query(
        `SELECT id, code, direction, amount::int FROM ledger_entries WHERE "txId" = $1 ORDER BY direction DESC`,
        [p.id],
      )
    ).rows;
    expect(legs.map(({ id: _, ...l }) => l)).toEqual([
      { code: 'payout', direction: 'debit', amount: 30000 },
      { code: 'settlement:disbursed', direction: 'credit', amount: 30000 },
    ]);
    expect(legs[0].id).toBe(paid.ledgerTransactionId);
    expect(await balance(merchant)).toEqual({
      ...start,
      ledgerBalance: start.ledgerBalance - 30000,
      available: start.available - 30000,
    });
    expectError(
      await admin.post(`/v1/payouts/${p.id}/mark-failed`, { failureReason: 'late' }),
      409,
      'invalid_transition',
    );
    expect(await eventTypes(merchant, p.id)).toEqual(['payout.initiated', 'payout.paid']);

    const f = (await admin.post('/v1/payouts', { amount: 10000, currency: 'IDR' }, key())).json.data;
    expect((await balance(merchant)).locked).toBe(10000);
    expectError(await admin.post(`/v1/payouts/${f.id}/mark-failed`, {}), 400, 'validation_error', 'failureReason');
    await admin.post(`/v1/payouts/${f.id}/mark-in-transit`, {});
    const failed = (await admin.post(`/v1/payouts/${f.id}/mark-failed`, { failureReason: 'account closed' })).json.data;
    expect(failed).toMatchObject({ status: 'failed', failureReason: 'account closed', ledgerTransactionId: null });
    expect(await balance(merchant)).toEqual({
      ...start,
      ledgerBalance: start.ledgerBalance - 30000,
      available: start.available - 30000,
    });
    expect(await eventTypes(merchant, f.id)).toEqual(['payout.initiated', 'payout.failed']);
    expect(await unbalancedTxIds(merchant.workspaceId)).toEqual([]);
  });

  it('admin operations need a platform-admin key: 403 insufficient_scope', async () => {
    const ws = await server.workspace();
    await sandboxPayment(server, ws);
    await ws.client.patch('/v1/payouts/bank-account', bank);
    const p = (await ws.client.post('/v1/payouts', { amount: 100, currency: 'IDR' }, key())).json.data;
    for (const op of ['mark-in-transit', 'mark-paid'])
      expectError(await ws.client.post(`/v1/payouts/${p.id}/${op}`, {}), 403, 'insufficient_scope');
    expectError(
      await ws.client.post(`/v1/payouts/${p.id}/mark-failed`, { failureReason: 'x' }),
      403,
      'insufficient_scope',
    );
    expect((await ws.client.get(`/v1/payouts/${p.id}`)).json.data.status).toBe('pending');
  });

  it('a partner cannot reconcile its own payouts: admin operations need X-Svc-On-Behalf-Of (403)', async () => {
    const partner = await server.workspace({ platformAdmin: true });
    await sandboxPayment(server, partner);
    await partner.client.patch('/v1/payouts/bank-account', bank);
    const before = await balance(partner);
    const p = (await partner.client.post('/v1/payouts', { amount: 100, currency: 'IDR' }, key())).json.data;
    for (const op of ['mark-in-transit', 'mark-paid'])
      expectError(await partner.client.post(`/v1/payouts/${p.id}/${op}`, {}), 403, 'insufficient_scope');
    expectError(
      await partner.client.post(`/v1/payouts/${p.id}/mark-failed`, { failureReason: 'never arrived' }),
      403,
      'insufficient_scope',
    );
    expect((await partner.client.get(`/v1/payouts/${p.id}`)).json.data.status).toBe('pending');
    expect((await balance(partner)).available).toBe(before.available - 100);
  });

  it('list: newest first, status, currency and createdSince/createdUntil filters, keyset pages', async () => {
    const ws = await server.workspace();
    await sandboxPayment(server, ws);
    await ws.client.patch('/v1/payouts/bank-account', bank);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await ws.client.post('/v1/payouts', { amount: 100 + i, currency: 'IDR' }, key())).json.data.id);
    await ws.client.post(`/v1/payouts/${ids[1]}/cancel`, {}, key());
    expect((await ws.client.get('/v1/payouts')).json.data.map((p: any) => p.id)).toEqual([...ids].reverse());
    expect((await ws.client.get('/v1/payouts?status=cancelled')).json.data.map((p: any) => p.id)).toEqual([ids[1]]);
    expect((await ws.client.get('/v1/payouts?currency=USD')).json.data).toEqual([]);
    const second = (await ws.client.get(`/v1/payouts/${ids[1]}`)).json.data;
    expect(
      (await ws.client.get(`/v1/payouts?createdSince=${second.createdAt}`)).json.data.map((p: any) => p.id),
    ).toEqual([ids[2], ids[1]]);
    expect(
      (await ws.client.get(`/v1/payouts?createdUntil=${second.createdAt}`)).json.data.map((p: any) => p.id),
    ).toEqual([ids[0]]);
    const p1 = await ws.client.get('/v1/payouts?limit=2');
    const p2 = await ws.client.get(`/v1/payouts?limit=2&cursor=${p1.json.meta.page.nextCursor}`);
    expect([...p1.json.data, ...p2.json.data].map((p: any) => p.id)).toEqual([...ids].reverse());
    expectError(await ws.client.get('/v1/payouts?status=lost'), 400, 'validation_error', 'status');
  });
});

describe('race: concurrent payouts', () => {
  const rounds = Number(process.env.RACE_ROUNDS ?? 3);
  it(
    `20 concurrent payouts never take available below zero (${rounds} rounds), 0 server errors`,
    async () => {
      const ws = await server.workspace();
      await ws.client.patch('/v1/payouts/bank-account', bank);
      await unthrottled(async () => {
        for (let round = 0; round < rounds; round++) {
          await sandboxPayment(server, ws, { amount: 70000 });
          const b = await balance(ws);
          const each = Math.floor(b.available / 7);
          const results = await Promise.all(
            Array.from({ length: 20 }, () => ws.client.post('/v1/payouts', { amount: each, currency: 'IDR' }, key())),
          );
          expect(results.filter((r) => r.status >= 500)).toEqual([]);
          expect(results.filter((r) => r.status === 201)).toHaveLength(7);
          expect(
            results.filter((r) => r.status === 409).every((r) => r.json.error.code === 'insufficient_balance'),
          ).toBe(true);
          expect(results.filter((r) => r.status === 409)).toHaveLength(13);
          const after = await balance(ws);
          expect(after.available).toBe(b.available - 7 * each);
          expect(after.available).toBeGreaterThanOrEqual(0);
          // release the round's payouts
          for (const r of results.filter((x) => x.status === 201))
            await ws.client.post(`/v1/payouts/${r.json.data.id}/cancel`, {}, key());
        }
      });
    },
    60_000 + rounds * 3_000,
  );
});

describe('automatic payout schedule (payout-schedule job)', () => {
  it('pays out the available balance once per interval, to the account on file', async () => {
    const ws = await server.workspace();
    await sandboxPayment(server, ws, { amount: 50000 });
    expect((await ws.client.get('/v1/payouts/schedule')).json.data).toEqual({
      interval: 'manual',
      method: 'manual',
      minimumAmount: 1,
      lastScheduledAt: null,
    });
    expectError(
      await ws.client.patch('/v1/payouts/schedule', { interval: 'hourly' }),
      400,
      'validation_error',
      'interval',
    );
    expect(
      (await ws.client.patch('/v1/payouts/schedule', { interval: 'daily', minimumAmount: 1000 })).json.data,
    ).toMatchObject({ interval: 'daily', minimumAmount: 1000 });
    // no bank account on file: skipped, nothing locked
    const t0 = clock.now();
    expect((await runPayoutSchedule(t0)).filter((id) => id)).toEqual([]);
    expect((await balance(ws)).locked).toBe(0);
    await ws.client.patch('/v1/payouts/bank-account', bank);
    const t1 = new Date(t0.getTime() + 86_400_000);
    const first = await runPayoutSchedule(t1);
    const mine = (await ws.client.get('/v1/payouts')).json.data;
    expect(mine).toHaveLength(1);
    expect(first).toContain(mine[0].id);
    const b = await balance(ws);
    expect(mine[0]).toMatchObject({ status: 'pending', amount: b.locked, note: 'automatic payout' });
    expect(b.available).toBe(0);
    await sandboxPayment(server, ws, { amount: 50000 });
    await runPayoutSchedule(new Date(t1.getTime() + 3600_000)); // within the interval: nothing
    expect((await ws.client.get('/v1/payouts')).json.data).toHaveLength(1);
    await runPayoutSchedule(new Date(t1.getTime() + 86_400_000));
    expect((await ws.client.get('/v1/payouts')).json.data).toHaveLength(2);
  });
});

describe('provider_a_disbursement rail (simulator)', () => {
  const rand = (n: number) => randomBytes(n).toString('hex').slice(0, n);
  const creds = { secretKey: `xnd_development_${rand(20)}`, callbackToken: rand(24) };
  const sim = new ProviderASim(creds);
  beforeAll(async () => {
    await sim.start();
    process.env.PROVIDER_A_BASE_URL = sim.url;
  });
  afterAll(async () => {
    delete process.env.PROVIDER_A_BASE_URL;
    await sim.close();
  });

  it('is handed to the rail (in_transit, reference), and settles from the provider status: paid or failed', async () => {
    const ws = await server.workspace();
    await sandboxPayment(server, ws, { amount: 100000 });
    await ws.client.patch('/v1/payouts/bank-account', bank);
    expectError(
      await ws.client.post('/v1/payouts', { amount: 1000, currency: 'IDR', method: 'provider_a_disbursement' }, key()),
      400,
      'validation_error',
      'method',
    );
    await ws.client.put('/v1/adapters/provider_a', creds, key());
    const p = await ws.client.post(
      '/v1/payouts',
      { amount: 20000, currency: 'IDR', method: 'provider_a_disbursement' },
      key(),
    );
    expect(p.status, p.text).toBe(201);
    expect(p.json.data).toMatchObject({ status: 'in_transit', method: 'provider_a_disbursement' });
    const d = sim.disbursements.get(p.json.data.reference);
    expect(d).toMatchObject({
      amount: 20000,
      bank_code: 'BCA',
      account_number: '1234567890',
      external_id: p.json.data.id,
      status: 'PENDING',
    });
    expect(await syncDisbursements()).toBe(0);
    sim.settleDisbursement(d.id, 'COMPLETED');
    expect(await syncDisbursements()).toBe(1);
    expect((await ws.client.get(`/v1/payouts/${p.json.data.id}`)).json.data).toMatchObject({ status: 'paid' });

    const q = (
      await ws.client.post('/v1/payouts', { amount: 5000, currency: 'IDR', method: 'provider_a_disbursement' }, key())
    ).json.data;
    sim.settleDisbursement(q.reference, 'FAILED');
    await syncDisbursements();
    expect((await ws.client.get(`/v1/payouts/${q.id}`)).json.data).toMatchObject({
      status: 'failed',
      failureReason: 'INVALID_DESTINATION',
    });
    expect(await eventTypes(ws, q.id)).toEqual(['payout.initiated', 'payout.failed']);
    expect((await balance(ws)).locked).toBe(0);
  });

  it('claim, pay, settle: a cancel racing the disbursement is refused once the payout is claimed; never money sent and funds available', async () => {
    const ws = await server.workspace();
    await sandboxPayment(server, ws, { amount: 100000 });
    await ws.client.patch('/v1/payouts/bank-account', bank);
    await ws.client.put('/v1/adapters/provider_a', creds, key());
    const cancels: Res[] = [];
    // The merchant cancels while the provider is sending the money.
    sim.during = async (r) => {
      if (r.method !== 'POST' || r.path !== '/disbursements') return;
      const { rows } = await db().system.query(
        `SELECT id FROM payouts WHERE "workspaceId" = $1 AND status = 'pending'`,
        [ws.workspaceId],
      );
      for (const row of rows) cancels.push(await ws.client.post(`/v1/payouts/${row.id}/cancel`, {}, key()));
    };
    try {
      const p = await ws.client.post(
        '/v1/payouts',
        { amount: 20000, currency: 'IDR', method: 'provider_a_disbursement' },
        key(),
      );
      expect(p.status, p.text).toBe(201);
      expect(cancels).toHaveLength(1);
      expectError(cancels[0], 409, 'invalid_transition');
      const now = (await ws.client.get(`/v1/payouts/${p.json.data.id}`)).json.data;
      expect(now).toMatchObject({ status: 'in_transit' });
      expect([...sim.disbursements.values()].filter((d) => d.external_id === now.id)).toHaveLength(1);
      expect((await balance(ws)).locked).toBe(20000);

      // A payout the rail never claimed still cancels.
      const q = (await ws.client.post('/v1/payouts', { amount: 1000, currency: 'IDR', method: 'manual' }, key())).json
        .data;
      expect((await ws.client.post(`/v1/payouts/${q.id}/cancel`, {}, key())).json.data.status).toBe('cancelled');
    } finally {
      sim.during = undefined;
    }
  });
});
