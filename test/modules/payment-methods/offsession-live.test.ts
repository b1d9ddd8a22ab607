/**
 * Live-mode off-session charges through the provider_a simulator (docs/guides/payment-methods.md,
 * Off-session charges; docs/decisions.md, Off-session outcomes): the first charge of a live subscription runs during
 * the create call outside any transaction, with the payment id as the provider's idempotency key; the provider's
 * answer is reconciled (succeeded, declined, requires_action with the provider's page); a dropped answer is never a
 * decline, and the pending sweep finds the charge by its key without charging twice.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../../src/core/clock.ts';
import { newId } from '../../../src/core/ids.ts';
import { seal } from '../../../src/core/sealed.ts';
import { providerTokenHash } from '../../../src/modules/payment-methods/service.ts';
import { sweepPendingCharges } from '../../../src/modules/collection/waiting.ts';
import { processDue } from '../../../src/modules/subscriptions/renewals.ts';
import { countStatements, withStatementCounter } from '../../../src/core/db/statements.ts';
import { mintLiveKey } from '../../helpers/keys.ts';
import { plan } from '../../helpers/renewals.ts';
import { createClient, db, useServer, type Workspace } from '../../helpers/server.ts';
import { useSimulators } from '../../helpers/simulators.ts';
import { until } from '../../helpers/receiver.ts';
import { ProviderASim } from '../../simulators/provider_a.ts';

countStatements(true);
const server = useServer();
const simulators = useSimulators(server);
const key = () => ({ 'idempotency-key': randomUUID() });
const rand = (n: number) => randomBytes(n).toString('hex').slice(0, n);
const creds = { secretKey: `xnd_production_${rand(20)}`, callbackToken: rand(24) };
const sim = simulators.track(new ProviderASim(creds));

beforeAll(async () => {
  await sim.start();
  process.env.PROVIDER_A_BASE_URL = sim.url;
  sim.callbackUrl = `${server.url}/v1/callbacks/provider_a`;
});

/** A live workspace with provider_a connected to the simulator. */
async function liveWorkspace(): Promise<Workspace> {
  const ws = await server.workspace();
  const live = await mintLiveKey(ws.workspaceId);
  const client = createClient({ baseUrl: server.url, keyId: live.keyId, secret: live.secret });
  const put = await client.put('/v1/adapters/provider_a', creds, key());
  expect(put.status, put.text).toBe(200);
  return { ...ws, client };
}

/** A live card saved at provider_a (the simulator's token; setup sessions are another path), sealed to its row. */
async function liveCard(ws: Workspace, customerId: string, digits: string) {
  const token = sim.seedToken({ digits });
  const id = newId('paymentMethod');
  const row = { id, workspaceId: ws.workspaceId, mode: 'live' as const };
  await db().system.query(
    `INSERT INTO payment_methods (id, "workspaceId", mode, "customerId", type, status, adapter, card, consent,
       "providerToken", "providerTokenHash", "createdAt", "updatedAt")
     VALUES ($1, $2, 'live', $3, 'card', 'active', 'provider_a', $4, $5, $6, $7, now(), now())`,
    [
      id,
      ws.workspaceId,
      customerId,
      { brand: 'visa', last4: digits.slice(-4), expMonth: 12, expYear: 2030, funding: 'credit' },
      { source: 'test', sourceId: null, at: new Date().toISOString() },
      seal('payment_methods', row, Buffer.from(token)),
      providerTokenHash('provider_a', token),
    ],
  );
  return { id, token };
}

async function subscribe(ws: Workspace, digits: string) {
  const { priceId } = await plan(ws, { prices: [{ currency: 'IDR', model: 'flat', unitAmount: 120_000 }] });
  const cus = (await ws.client.post('/v1/customers', { name: 'Sari', email: 'sari@example.com' })).json.data.id;
  const pm = await liveCard(ws, cus, digits);
  const res = await ws.client.post('/v1/subscriptions', { customerId: cus, priceId, paymentMethod: pm.id }, key());
  expect(res.status, res.text).toBe(201);
  const { rows } = await db().system.query(`SELECT * FROM invoices WHERE "subscriptionId" = $1`, [res.json.data.id]);
  const payments = async () =>
    (await db().system.query(`SELECT * FROM payments WHERE "invoiceId" = $1 ORDER BY "createdAt"`, [rows[0].id])).rows;
  return { sub: res.json.data, inv: rows[0], pm, payments };
}

describe('live mode: the first charge of a subscription at provider_a', () => {
  it('success: paid off session with the payment id as the idempotency key, once', async () => {
    const ws = await liveWorkspace();
    const { sub, inv, payments } = await subscribe(ws, '4242424242424242');
    expect(sub.status).toBe('active');
    const [p] = await payments();
    expect(p).toMatchObject({ status: 'succeeded', adapter: 'provider_a', method: 'card', mode: 'live' });
    expect(p.providerReference).toMatch(/^payment_request:pr-/);
    expect(sim.charges.byKey.get(p.id)).toBe(1);
    expect((await db().system.query(`SELECT status FROM invoices WHERE id = $1`, [inv.id])).rows[0].status).toBe(
      'paid',
    );
    const { rows } = await db().system.query(
      `SELECT code, direction, amount FROM ledger_entries WHERE "txId" = $1 ORDER BY code, direction`,
      [p.id],
    );
    expect(rows.map((r) => `${r.direction} ${r.code} ${r.amount}`)).toContain('debit settlement:provider_a 120000');
  });

  it('declined (0341): failed card_declined, the subscription incomplete and its invoice open', async () => {
    const ws = await liveWorkspace();
    const { sub, payments } = await subscribe(ws, '4000000000000341');
    expect(sub.status).toBe('incomplete');
    expect((await payments())[0]).toMatchObject({ status: 'failed', failureCode: 'card_declined' });
  });

  it("requires_action (3184): 201 incomplete, the payment waits with the provider's page", async () => {
    const ws = await liveWorkspace();
    const { sub, inv, payments } = await subscribe(ws, '4000002760003184');
    expect(sub.status).toBe('incomplete');
    const [p] = await payments();
    expect(p.status).toBe('requires_action');
    expect(p.nextAction.url.startsWith(sim.url)).toBe(true);
    // The live hosted invoice page sends "confirm" to the provider's page; the sandbox page is test-only.
    const token = `${inv.id}_${inv.hostedSecret}`;
    const confirm = await fetch(`${server.url}/i/${token}/confirm`, { redirect: 'manual' });
    expect(confirm.status).toBe(303);
    expect(confirm.headers.get('location')).toBe(p.nextAction.url);
    expect((await fetch(`${server.url}/i/${token}/authenticate`, { redirect: 'manual' })).status).toBe(404);
  });

  it('async (0077): pending, then the provider callback (confirmed by a status lookup) pays it; duplicates change nothing', async () => {
    const ws = await liveWorkspace();
    sim.offSession.duplicates = 2;
    try {
      const { sub, payments } = await subscribe(ws, '4000000000000077');
      expect(sub.status).toBe('incomplete');
      await until(async () => (await payments())[0].status === 'succeeded', 'the callback to settle the charge');
      const [p] = await payments();
      expect(sim.charges.byKey.get(p.id)).toBe(1);
      await until(
        async () =>
          (await db().system.query(`SELECT status FROM subscriptions WHERE id = $1`, [sub.id])).rows[0].status ===
          'active',
        'the subscription to be active',
      );
      const { rows } = await db().system.query(`SELECT count(*)::int AS n FROM ledger_entries WHERE "txId" = $1`, [
        p.id,
      ]);
      expect(rows[0].n).toBeGreaterThan(0);
      const paidEvents = await db().system.query(
        `SELECT count(*)::int AS n FROM events WHERE "objectId" = $1 AND type = 'payment.succeeded'`,
        [p.id],
      );
      expect(paidEvents.rows[0].n).toBe(1);
      // The callback is recorded once, with the state the provider confirmed (the copies: `duplicate`).
      const recorded = await db().system.query(
        `SELECT "providerEventId", outcome FROM provider_events WHERE "objectId" = $1 AND type = 'charge'`,
        [p.id],
      );
      expect(recorded.rows).toHaveLength(1);
      expect(recorded.rows[0]).toMatchObject({ outcome: 'applied' });
      expect(recorded.rows[0].providerEventId).toMatch(/:succeeded$/);
    } finally {
      sim.offSession.duplicates = 0;
    }
  });

  it('requires_action completed at the provider: its callback pays the waiting charge', async () => {
    const ws = await liveWorkspace();
    const { payments } = await subscribe(ws, '4000002760003184');
    const [p] = await payments();
    expect(p.status).toBe('requires_action');
    await sim.completeAction(p.id, true);
    await until(async () => (await payments())[0].status === 'succeeded', 'the action callback to settle the charge');
  });

  it('a dropped answer after the charge is reconciled at once by a status lookup by our key: paid, charged once', async () => {
    const ws = await liveWorkspace();
    sim.offSession.dropResponseAfterCharge = true;
    sim.offSession.deliver = false;
    let out: Awaited<ReturnType<typeof subscribe>>;
    try {
      out = await subscribe(ws, '4242424242424242');
    } finally {
      sim.offSession.dropResponseAfterCharge = false;
      sim.offSession.deliver = true;
    }
    expect(out.sub.status).toBe('active');
    const [p] = await out.payments();
    expect(p).toMatchObject({ status: 'succeeded', failureCode: null });
    expect(sim.charges.byKey.get(p.id)).toBe(1);
    expect(sim.requests.some((r) => r.method === 'GET' && r.path.startsWith('/payment_requests'))).toBe(true);
  }, 60_000);

  it('a callback during the open call is deferred to it; the same callback replayed late is a duplicate', async () => {
    // Two workspaces connected to the same provider account before this one (see the end).
    await liveWorkspace();
    await liveWorkspace();
    const ws = await liveWorkspace();
    // The answer is dropped (the call stays open until its timeout) while the callback is sent at once.
    sim.offSession.dropResponseAfterCharge = true;
    const before = sim.sent.length;
    let out: Awaited<ReturnType<typeof subscribe>>;
    try {
      out = await subscribe(ws, '4242424242424242');
    } finally {
      sim.offSession.dropResponseAfterCharge = false;
    }
    await sim.flush();
    const [p] = await out.payments();
    // The call's own status lookup reconciled it; the callback changed nothing while the call was open.
    expect(p).toMatchObject({ status: 'succeeded' });
    expect(sim.charges.byKey.get(p.id)).toBe(1);
    const during = sim.sent.slice(before).filter((d) => d.body.includes(p.id));
    expect(during.length).toBeGreaterThanOrEqual(1);
    expect(during.map((d) => JSON.parse(d.result.body).data.outcome)).toContain('deferred');
    // Replayed now (late, after the charge settled): verified, answered duplicate, nothing moves.
    const late = await fetch(during[0].url, { method: 'POST', headers: during[0].headers, body: during[0].body });
    expect(late.status).toBe(200);
    expect((await late.json()).data.outcome).toBe('duplicate');
    const events = await db().system.query(
      `SELECT count(*)::int AS n FROM events WHERE "objectId" = $1 AND type = 'payment.succeeded'`,
      [p.id],
    );
    expect(events.rows[0].n).toBe(1);

    // One provider account connected to many workspaces (this file's earlier ones share the token): the
    // workspace holding the payment is tried first, so the callback costs what it costs with it alone.
    const replay = async () => {
      const r = await fetch(during[0].url, { method: 'POST', headers: during[0].headers, body: during[0].body });
      expect((await r.json()).data.outcome).toBe('duplicate');
      return Number(r.headers.get('x-svc-statements'));
    };
    const shared = await replay();
    const others = await db().system.query<{ workspaceId: string }>(
      `UPDATE adapters SET "callbackTokenHash" = NULL WHERE kind = 'provider_a' AND "workspaceId" <> $1
         AND "callbackTokenHash" = (SELECT "callbackTokenHash" FROM adapters WHERE kind = 'provider_a' AND "workspaceId" = $1)
       RETURNING "workspaceId"`,
      [ws.workspaceId],
    );
    expect(others.rowCount).toBeGreaterThan(1);
    const alone = await replay();
    await db().system.query(
      `UPDATE adapters SET "callbackTokenHash" = (SELECT "callbackTokenHash" FROM adapters WHERE kind = 'provider_a'
         AND "workspaceId" = $2) WHERE kind = 'provider_a' AND "workspaceId" = ANY ($1::text[])`,
      [others.rows.map((r) => r.workspaceId), ws.workspaceId],
    );
    expect(alone).toBeGreaterThan(0);
    expect(shared).toBe(alone);
  }, 60_000);

  it('a dropped answer whose status lookup fails too is pending, never a decline; the sweep finds the charge by its key', async () => {
    const ws = await liveWorkspace();
    // The charge is made, its answer never comes, the lookup right after it is refused (503), and no
    // callback either: only the sweep can find it.
    sim.offSession.dropResponseAfterCharge = true;
    sim.offSession.deliver = false;
    sim.during = ({ method, path }) => {
      if (method === 'POST' && path === '/payment_requests') sim.errorStatus = 503;
    };
    let out: Awaited<ReturnType<typeof subscribe>>;
    try {
      out = await subscribe(ws, '4242424242424242');
    } finally {
      sim.offSession.dropResponseAfterCharge = false;
      sim.offSession.deliver = true;
      sim.during = undefined;
      sim.errorStatus = null;
    }
    expect(out.sub.status).toBe('incomplete');
    const [p] = await out.payments();
    expect(p).toMatchObject({ status: 'pending', failureCode: null });
    expect(sim.charges.byKey.get(p.id)).toBe(1);
    // After the lease the sweep asks the provider (by our reference) instead of charging again.
    clock.advance(6 * 60_000);
    try {
      expect(await sweepPendingCharges()).toBeGreaterThanOrEqual(1);
    } finally {
      clock.reset();
    }
    expect((await out.payments())[0]).toMatchObject({ status: 'succeeded' });
    expect(sim.charges.byKey.get(p.id)).toBe(1);
    expect(
      (await db().system.query(`SELECT status FROM subscriptions WHERE id = $1`, [out.sub.id])).rows[0].status,
    ).toBe('active');
  }, 60_000);
});

/** `n` live monthly subscriptions of one customer due at `at`, paying with one live card, by one statement. */
async function seedDueLive(ws: Workspace, n: number, digits: string, at: Date) {
  const { planId, priceId } = await plan(ws, { prices: [{ currency: 'IDR', model: 'flat', unitAmount: 50_000 }] });
  const cus = (await ws.client.post('/v1/customers', { name: 'Burst', email: 'burst@example.com' })).json.data.id;
  const pm = await liveCard(ws, cus, digits);
  await db().system.query(
    `INSERT INTO subscriptions (id, "workspaceId", mode, status, "customerId", "planId", "priceId", currency, quantity,
       "paymentMethod", "anchorAt", "periodIndex", "currentPeriodStart", "currentPeriodEnd", "createdAt", "updatedAt")
     SELECT 'sub_live' || $6 || lpad(g::text, 10, '0'), $1, 'live', 'active', $2, $3, $4, 'IDR', 1, $7,
       $5::timestamptz - interval '1 month', 0, $5::timestamptz - interval '1 month', $5::timestamptz,
       $5::timestamptz - interval '1 month', $5::timestamptz - interval '1 month'
     FROM generate_series(1, $8) g`,
    [ws.workspaceId, cus, planId, priceId, at, ws.workspaceId.slice(-8), pm.id, n],
  );
}

describe('live mode: a renewal burst of provider-held methods', () => {
  it('is charged in batches: 1 and 40 due renewals send the same statements; each charged once and paid', async () => {
    const at = new Date(Date.now() - 1000);
    const runFor = async (n: number) => {
      const ws = await liveWorkspace();
      await seedDueLive(ws, n, '4242424242424242', at);
      const counter = { count: 0 };
      const r = await withStatementCounter(counter, () =>
        processDue({ scope: { workspaceId: ws.workspaceId, mode: 'live' }, at, testClockId: null }),
      );
      const { rows } = await db().system.query(
        `SELECT p.id, p.status, i.status AS "invoiceStatus" FROM payments p JOIN invoices i ON i.id = p."invoiceId"
         WHERE p."workspaceId" = $1 AND i."billingReason" = 'subscription_cycle'`,
        [ws.workspaceId],
      );
      return { r, statements: counter.count, rows };
    };
    const one = await runFor(1);
    const burst = await runFor(40);
    for (const [run, n] of [
      [one, 1],
      [burst, 40],
    ] as const) {
      expect(run.r).toMatchObject({ renewed: n, attempted: n });
      expect(run.rows).toHaveLength(n);
      expect(run.rows.every((p) => p.status === 'succeeded' && p.invoiceStatus === 'paid')).toBe(true);
      for (const p of run.rows) expect(sim.charges.byKey.get(p.id)).toBe(1);
    }
    // Per charge there is a provider call and nothing else: no transaction, no statement.
    console.log(`statements: 1 -> ${one.statements}, 40 -> ${burst.statements}`);
    expect(burst.statements).toBe(one.statements);
  }, 60_000);
});

describe('live mode: a saved method revoked or expired at provider_a', () => {
  it('its verified token callback moves the method (revoked, expired), clears it from the subscription; forged is 401', async () => {
    const ws = await liveWorkspace();
    const { sub, pm } = await subscribe(ws, '4242424242424242');
    const [forged] = await sim.revokeToken(pm.token, { forge: true });
    expect(forged.status).toBe(401);
    expect((await ws.client.get(`/v1/payment-methods/${pm.id}`)).json.data.status).toBe('active');
    const [d] = await sim.revokeToken(pm.token);
    expect(d.status).toBe(200);
    expect((await ws.client.get(`/v1/payment-methods/${pm.id}`)).json.data.status).toBe('revoked');
    const { rows } = await db().system.query(`SELECT "paymentMethod" FROM subscriptions WHERE id = $1`, [sub.id]);
    expect(rows[0].paymentMethod).toBeNull();
    const other = await liveCard(ws, sub.customerId, '4242424242424242');
    expect((await sim.expireToken(other.token))[0].status).toBe(200);
    expect((await ws.client.get(`/v1/payment-methods/${other.id}`)).json.data.status).toBe('expired');
  });

  it('a token callback the provider does not confirm moves nothing; the status lookup decides the move', async () => {
    const ws = await liveWorkspace();
    const { sub, pm } = await subscribe(ws, '4242424242424242');
    const statusOf = async (id: string) => (await ws.client.get(`/v1/payment-methods/${id}`)).json.data.status;
    const lookups = () =>
      sim.requests.filter((r) => r.method === 'GET' && r.path === `/v2/payment_methods/${pm.token}`);
    // Carries the account's real callback token, but the method is still ACTIVE at the provider.
    for (const claimed of ['INACTIVE', 'EXPIRED'] as const) {
      const [d] = await sim.claimTokenState(pm.token, claimed);
      expect(d.status).toBe(200);
      expect(JSON.parse(d.body).data.outcome).toBe('not_confirmed');
      expect(await statusOf(pm.id)).toBe('active');
    }
    expect(lookups()).toHaveLength(2);
    const { rows } = await db().system.query(`SELECT "paymentMethod" FROM subscriptions WHERE id = $1`, [sub.id]);
    expect(rows[0].paymentMethod).toBe(pm.id);
    // The provider expired it; a callback claiming a revocation moves it by the provider's word (expired).
    await sim.expireToken(pm.token, { deliver: false });
    const [d] = await sim.claimTokenState(pm.token, 'INACTIVE');
    expect(JSON.parse(d.body).data.outcome).toBe('applied');
    expect(await statusOf(pm.id)).toBe('expired');
  });
});
