import { beforeAll, describe, expect, it } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { useServer, db, type Workspace } from '../../helpers/server.ts';
import { useSimulators } from '../../helpers/simulators.ts';
import { ProviderASim } from '../../simulators/provider_a.ts';
import { ProviderBSim } from '../../simulators/provider_b.ts';
import { ProviderCSim } from '../../simulators/provider_c.ts';
import { clock } from '../../../src/core/clock.ts';
import { expireDueSessions } from '../../../src/modules/checkout-sessions/expiry.ts';
import { hostedToken } from '../../helpers/payments.ts';
import { reconcileStaleAttempts } from '../../../src/modules/checkout-sessions/sweep.ts';
import { SWEEP_GRACE_MS } from '../../../src/modules/refunds/sweep.ts';

const attemptsOf = async (sessionId: string) =>
  (
    await db().system.query(
      `SELECT number, status, "providerReference" FROM checkout_attempts WHERE "checkoutSessionId" = $1 ORDER BY number`,
      [sessionId],
    )
  ).rows;

/** From outside, while the provider serves a call: can the session be locked at once, and is any backend idle inside a transaction? */
async function duringProviderCall(sessionId: string) {
  const c = await db().system.connect();
  try {
    await c.query('BEGIN');
    const locked = (await c.query(`SELECT id FROM checkout_sessions WHERE id = $1 FOR UPDATE NOWAIT`, [sessionId]))
      .rowCount;
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
    return { locked, attempts: (await attemptsOf(sessionId)).map((a) => a.status), idle };
  } finally {
    await c.query('ROLLBACK');
    c.release();
  }
}

const server = useServer();
const rand = (n: number) => randomBytes(n).toString('hex').slice(0, n);
const key = () => ({ 'idempotency-key': randomUUID() });
const session = (ws: Workspace, methods: string[]) =>
  ws.client.post(
    '/v1/checkout-sessions',
    {
      amount: 150000,
      currency: 'IDR',
      methods,
      successUrl: 'https://shop.example/thanks',
      cancelUrl: 'https://shop.example/cart',
    },
    key(),
  );
const attempt = async (id: string, method: string) => {
  const res = await fetch(`${server.url}/c/${await hostedToken(id)}/attempt`, {
    method: 'POST',
    // An English browser (docs/decisions.md, Customer language): the page's script sends its language.
    headers: { 'content-type': 'application/json', 'accept-language': 'en' },
    body: JSON.stringify({ method }),
  });
  return { status: res.status, json: (await res.json()) as any };
};
async function counts(sessionId: string) {
  const { rows } = await db().system.query(
    `SELECT (SELECT count(*) FROM payments WHERE "checkoutSessionId" = $1)::int AS payments,
            (SELECT count(*) FROM receipts WHERE "sourceId" = $1)::int AS receipts,
            (SELECT count(*) FROM events WHERE "objectId" = $1 AND type = 'svc.checkout_session.completed.v1')::int AS events,
            (SELECT coalesce(sum(CASE direction WHEN 'debit' THEN amount ELSE -amount END), 0)::int FROM ledger_entries WHERE "txId" = $1) AS imbalance`,
    [sessionId],
  );
  return rows[0];
}

const simulators = useSimulators(server);

describe('provider_a (simulator): QRIS paid by a tokened callback', () => {
  const creds = { secretKey: `xnd_development_${rand(20)}`, callbackToken: rand(24) };
  const sim = simulators.track(new ProviderASim(creds));
  beforeAll(async () => {
    await sim.start();
    process.env.PROVIDER_A_BASE_URL = sim.url;
    sim.callbackUrl = `${server.url}/v1/callbacks/provider_a`;
  });

  it('attempt shows the provider QR; the callback (with duplicates) completes once; a forged one is 401', async () => {
    const ws = await server.workspace();
    expect((await ws.client.put('/v1/adapters/provider_a', creds, key())).status).toBe(200);
    const s = (await session(ws, ['qris'])).json.data;
    const a = await attempt(s.id, 'qris');
    expect(a.status, JSON.stringify(a.json)).toBe(200);
    expect(a.json.data.qrSvg).toContain('<svg');
    const pending = (await ws.client.get(`/v1/checkout-sessions/${s.id}`)).json.data;
    expect(pending).toMatchObject({ status: 'pending', adapter: 'provider_a' });
    const ref = (await db().system.query(`SELECT "providerReference" FROM checkout_sessions WHERE id = $1`, [s.id]))
      .rows[0].providerReference;

    const forged = await sim.pay(ref, { forge: true });
    expect(forged.map((d) => d.status)).toEqual([401]);
    expect((await ws.client.get(`/v1/checkout-sessions/${s.id}`)).json.data.status).toBe('pending');

    const deliveries = await sim.pay(ref, { duplicates: 3 });
    expect(deliveries.map((d) => d.status)).toEqual([200, 200, 200, 200]);
    const done = (await ws.client.get(`/v1/checkout-sessions/${s.id}`)).json.data;
    expect(done.status).toBe('completed');
    expect((await ws.client.get(`/v1/payments/${done.paymentId}`)).json.data).toMatchObject({
      adapter: 'provider_a',
      method: 'qris',
      amount: 150000,
    });
    expect(await counts(s.id)).toEqual({ payments: 1, receipts: 1, events: 1, imbalance: 0 });
  });
  it('two phases: while the provider creates the charge no transaction is open and the session is not locked', async () => {
    const ws = await server.workspace();
    await ws.client.put('/v1/adapters/provider_a', creds, key());
    const s = (await session(ws, ['qris'])).json.data;
    const seen: unknown[] = [];
    sim.during = async (r) => {
      if (r.method === 'POST' && r.path === '/qr_codes') seen.push(await duringProviderCall(s.id));
    };
    let a;
    try {
      a = await attempt(s.id, 'qris');
    } finally {
      sim.during = undefined;
    }
    expect(a.status, JSON.stringify(a.json)).toBe(200);
    expect(seen).toEqual([{ locked: 1, attempts: ['creating'], idle: 0 }]);
    expect((await attemptsOf(s.id)).map((x) => x.status)).toEqual(['open']);
  });

  it('a crash between the phases: the sweep fails the unanswered attempt and the session can be paid again', async () => {
    const ws = await server.workspace();
    await ws.client.put('/v1/adapters/provider_a', creds, key());
    const s = (await session(ws, ['qris'])).json.data;
    // Phase 1 committed (the attempt `creating`, the session pending on it), then the process died.
    await db().system.query(
      `WITH a AS (INSERT INTO checkout_attempts (id, "workspaceId", mode, "checkoutSessionId", number, adapter, method, status, amount, currency, "idempotencyKey")
         SELECT 'catt_' || substr(id, 4), "workspaceId", mode, id, 1, 'provider_a', 'qris', 'creating', amount, currency, id || ':1' FROM checkout_sessions WHERE id = $1)
       UPDATE checkout_sessions SET status = 'pending', "attemptCount" = 1, adapter = 'provider_a', "attemptMethod" = 'qris' WHERE id = $1`,
      [s.id],
    );
    expect(await reconcileStaleAttempts()).toBe(0); // within the grace period: maybe still in flight
    clock.advance(SWEEP_GRACE_MS + 1000);
    try {
      expect(await reconcileStaleAttempts()).toBe(1);
    } finally {
      clock.reset();
    }
    expect((await attemptsOf(s.id)).map((x) => x.status)).toEqual(['failed']);
    expect((await ws.client.get(`/v1/checkout-sessions/${s.id}`)).json.data).toMatchObject({ status: 'open' });
    const again = await attempt(s.id, 'qris');
    expect(again.status, JSON.stringify(again.json)).toBe(200);
    expect((await attemptsOf(s.id)).map((x) => x.status)).toEqual(['failed', 'open']);
  });

  it('a payment after the session expired is answered 200, completes nothing, and is recorded as owed back (paid_unapplied)', async () => {
    const ws = await server.workspace();
    await ws.client.put('/v1/adapters/provider_a', creds, key());
    const s = (
      await ws.client.post(
        '/v1/checkout-sessions',
        {
          amount: 99000,
          currency: 'IDR',
          methods: ['qris'],
          expiresInSec: 300,
          successUrl: 'https://shop.example/t',
          cancelUrl: 'https://shop.example/c',
        },
        key(),
      )
    ).json.data;
    await attempt(s.id, 'qris');
    const ref = (await db().system.query(`SELECT "providerReference" FROM checkout_sessions WHERE id = $1`, [s.id]))
      .rows[0].providerReference;
    clock.advance(301_000);
    try {
      await expireDueSessions();
    } finally {
      clock.reset();
    }
    const late = await sim.pay(ref);
    expect(late.map((d) => d.status)).toEqual([200]);
    expect(JSON.parse(late[0].body).data.outcome).toBe('unapplied');
    expect((await ws.client.get(`/v1/checkout-sessions/${s.id}`)).json.data.status).toBe('expired');
    expect(await counts(s.id)).toEqual({ payments: 0, receipts: 0, events: 0, imbalance: 0 });
    const [a] = (
      await db().system.query(`SELECT id, status FROM checkout_attempts WHERE "checkoutSessionId" = $1`, [s.id])
    ).rows;
    expect(a.status).toBe('paid_unapplied');
    const legs = (
      await db().system.query(
        `SELECT code, direction, amount::int FROM ledger_entries WHERE "txId" = $1 ORDER BY direction DESC`,
        [a.id],
      )
    ).rows;
    expect(legs).toEqual([
      { code: 'unapplied:provider_a', direction: 'debit', amount: 99000 },
      { code: 'refund_due', direction: 'credit', amount: 99000 },
    ]);
  });

  it('a provider refusing the attempt is 422 gateway_error and marks the adapter errored (adapter.error)', async () => {
    const ws = await server.workspace();
    await ws.client.put('/v1/adapters/provider_a', { ...creds, secretKey: `xnd_development_${rand(20)}` }, key());
    const s = (await session(ws, ['qris'])).json.data;
    const a = await attempt(s.id, 'qris');
    expect(a.status).toBe(422);
    expect(a.json.error.code).toBe('gateway_error');
    expect((await ws.client.get('/v1/adapters')).json.data.provider_a).toMatchObject({
      status: 'error',
      lastErrorCode: 'invalid_credentials',
    });
    const types = (await ws.client.get('/v1/events?type=adapter.error')).json.data.map((e: any) => e.type);
    expect(types).toEqual(['adapter.error']);
    expect((await ws.client.get(`/v1/checkout-sessions/${s.id}`)).json.data.status).toBe('open');
  });
});

describe('provider_b (simulator): VA paid by a signed notification', () => {
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

  it('attempt shows the VA number; the signed notification completes; forged and repeated ones change nothing', async () => {
    const ws = await server.workspace();
    expect((await ws.client.put('/v1/adapters/provider_b', creds, key())).status).toBe(200);
    const s = (await session(ws, ['va'])).json.data;
    const a = await attempt(s.id, 'va');
    expect(a.status, JSON.stringify(a.json)).toBe(200);
    expect(a.json.data.code).toMatch(/^\d{6,}$/);
    const orderId = (await db().system.query(`SELECT "providerReference" FROM checkout_sessions WHERE id = $1`, [s.id]))
      .rows[0].providerReference;

    expect((await sim.pay(orderId, { forge: true })).map((d) => d.status)).toEqual([401]);
    expect((await ws.client.get(`/v1/checkout-sessions/${s.id}`)).json.data.status).toBe('pending');
    const deliveries = await sim.pay(orderId, { duplicates: 2 });
    expect(deliveries.every((d) => d.status === 200)).toBe(true);
    expect((await ws.client.get(`/v1/checkout-sessions/${s.id}`)).json.data).toMatchObject({
      status: 'completed',
      adapter: 'provider_b',
    });
    expect(await counts(s.id)).toEqual({ payments: 1, receipts: 1, events: 1, imbalance: 0 });
  });

  it('superseded attempts: the old VA is voided but still matched; paid anyway it completes the session; the new one paid after is recorded as owed back', async () => {
    const ws = await server.workspace();
    await ws.client.put('/v1/adapters/provider_b', creds, key());
    const s = (await session(ws, ['va'])).json.data;
    expect((await attempt(s.id, 'va')).status).toBe(200);
    const [first] = await attemptsOf(s.id);
    expect((await attempt(s.id, 'va')).status).toBe(200);
    const [old, current] = await attemptsOf(s.id);
    expect(old).toMatchObject({ number: 1, status: 'voided', providerReference: first.providerReference });
    expect(current).toMatchObject({ number: 2, status: 'open' });
    expect(current.providerReference).not.toBe(old.providerReference);
    expect(sim.expired.has(old.providerReference)).toBe(true);

    // The customer's transfer to the old VA was already under way: it is matched and completes the session.
    const paidOld = await sim.pay(old.providerReference);
    expect(paidOld.map((d) => [d.status, JSON.parse(d.body).data?.outcome])).toEqual([[200, 'completed']]);
    const done = (await ws.client.get(`/v1/checkout-sessions/${s.id}`)).json.data;
    expect(done.status).toBe('completed');
    expect((await ws.client.get(`/v1/payments/${done.paymentId}`)).json.data).toMatchObject({
      amount: 150000,
      adapter: 'provider_b',
    });
    expect((await attemptsOf(s.id)).map((x) => x.status)).toEqual(['paid', 'voided']);
    expect(sim.expired.has(current.providerReference)).toBe(true);

    // And then pays the new one too: never lost, recorded as money owed back to the customer.
    const paidNew = await sim.pay(current.providerReference);
    expect(paidNew.map((d) => [d.status, JSON.parse(d.body).data?.outcome])).toEqual([[200, 'unapplied']]);
    expect((await attemptsOf(s.id)).map((x) => x.status)).toEqual(['paid', 'paid_unapplied']);
    expect(await counts(s.id)).toEqual({ payments: 1, receipts: 1, events: 1, imbalance: 0 });
    const unapplied = (
      await db().system.query(
        `SELECT e.code, e.direction, e.amount::int FROM ledger_entries e JOIN checkout_attempts a ON a.id = e."txId" WHERE a."checkoutSessionId" = $1 ORDER BY e.direction DESC`,
        [s.id],
      )
    ).rows;
    expect(unapplied).toEqual([
      { code: 'unapplied:provider_b', direction: 'debit', amount: 150000 },
      { code: 'refund_due', direction: 'credit', amount: 150000 },
    ]);
  });

  it('cancel voids the live attempt at the provider', async () => {
    const ws = await server.workspace();
    await ws.client.put('/v1/adapters/provider_b', creds, key());
    const s = (await session(ws, ['va'])).json.data;
    expect((await attempt(s.id, 'va')).status).toBe(200);
    expect((await ws.client.post(`/v1/checkout-sessions/${s.id}/cancel`, {}, key())).status).toBe(200);
    const [a] = await attemptsOf(s.id);
    expect(a.status).toBe('voided');
    expect(sim.expired.has(a.providerReference)).toBe(true);
  });

  it('an unsigned callback for an unknown order is 401', async () => {
    const res = await fetch(`${server.url}/v1/callbacks/provider_b`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ order_id: 'nope', status_code: '200', gross_amount: '1.00', signature_key: 'x' }),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error.code).toBe('invalid_signature');
  });
});

describe('provider_c (simulator): approved order, captured after verification', () => {
  const creds = { clientId: `AZ${rand(16)}`, secret: `EL${rand(16)}`, webhookId: `WH${rand(8).toUpperCase()}` };
  const sim = simulators.track(new ProviderCSim(creds));
  beforeAll(async () => {
    await sim.start();
    process.env.PROVIDER_C_BASE_URL = sim.url;
    process.env.PROVIDER_C_WEBHOOK_ID = creds.webhookId;
    sim.webhookUrl = `${server.url}/v1/callbacks/provider_c`;
  });

  it('redirects to the approval page; the verified webhook leads to capture and completion; a tampered one is 401', async () => {
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
    const s = (
      await ws.client.post(
        '/v1/checkout-sessions',
        {
          amount: 1234,
          currency: 'USD',
          methods: ['provider_c'],
          successUrl: 'https://shop.example/thanks',
          cancelUrl: 'https://shop.example/cart',
        },
        key(),
      )
    ).json.data;
    // Customers read the method's display name, never the adapter's internal word.
    const html = await (
      await fetch(`${server.url}/c/${await hostedToken(s.id)}`, { headers: { 'accept-language': 'en' } })
    ).text();
    expect(html).toContain('International wallet');
    expect(html).not.toMatch(/"(label|hint)":"[^"]*provider_c/);
    const a = await attempt(s.id, 'provider_c');
    expect(a.status, JSON.stringify(a.json)).toBe(200);
    expect(a.json.data.redirectUrl).toMatch(/^http/);
    expect(a.json.data.title).toBe('Continue to International wallet');
    const orderId = (await db().system.query(`SELECT "providerReference" FROM checkout_sessions WHERE id = $1`, [s.id]))
      .rows[0].providerReference;
    expect((await sim.pay(orderId, { forge: true })).map((d) => d.status)).toEqual([401]);
    expect((await ws.client.get(`/v1/checkout-sessions/${s.id}`)).json.data.status).toBe('pending');
    const deliveries = await sim.pay(orderId, { duplicates: 1 });
    expect(
      deliveries.every((d) => d.status === 200),
      JSON.stringify(deliveries),
    ).toBe(true);
    await sim.flush();
    expect((await ws.client.get(`/v1/checkout-sessions/${s.id}`)).json.data).toMatchObject({
      status: 'completed',
      adapter: 'provider_c',
    });
    expect(await counts(s.id)).toEqual({ payments: 1, receipts: 1, events: 1, imbalance: 0 });
    const receipt = (await ws.client.get(`/v1/checkout-sessions/${s.id}/receipt`, key())).json.data;
    const receiptHtml = (await ws.client.get(`/v1/receipts/${receipt.receiptId}/receipt.html`, key())).text;
    // A document without a browser is in the workspace's language (a rupiah workspace: Indonesian).
    expect(receiptHtml).toContain('Dompet internasional');
    expect(receiptHtml).not.toContain('provider_c');
  });
  it('lock and check before any capture: an order approved after the session was canceled is never captured', async () => {
    const ws = await server.workspace();
    await ws.client.put(
      '/v1/adapters/provider_c',
      { clientId: creds.clientId, secret: creds.secret, mode: 'sandbox' },
      key(),
    );
    const s = (
      await ws.client.post(
        '/v1/checkout-sessions',
        {
          amount: 1234,
          currency: 'USD',
          methods: ['provider_c'],
          successUrl: 'https://shop.example/thanks',
          cancelUrl: 'https://shop.example/cart',
        },
        key(),
      )
    ).json.data;
    expect((await attempt(s.id, 'provider_c')).status).toBe(200);
    const [a] = await attemptsOf(s.id);
    expect((await ws.client.post(`/v1/checkout-sessions/${s.id}/cancel`, {}, key())).status).toBe(200);
    const deliveries = await sim.pay(a.providerReference);
    await sim.flush();
    expect(deliveries.map((d) => d.status)).toEqual([200]);
    expect(sim.orders.get(a.providerReference).status).toBe('APPROVED'); // approved by the buyer, never captured
    expect((await ws.client.get(`/v1/checkout-sessions/${s.id}`)).json.data.status).toBe('canceled');
    expect(await counts(s.id)).toEqual({ payments: 0, receipts: 0, events: 0, imbalance: 0 });
  });
  it('a cancel racing the capture is refused once the capture is claimed: money captured always completes the session', async () => {
    const ws = await server.workspace();
    await ws.client.put(
      '/v1/adapters/provider_c',
      { clientId: creds.clientId, secret: creds.secret, mode: 'sandbox' },
      key(),
    );
    const s = (
      await ws.client.post(
        '/v1/checkout-sessions',
        {
          amount: 1234,
          currency: 'USD',
          methods: ['provider_c'],
          successUrl: 'https://shop.example/thanks',
          cancelUrl: 'https://shop.example/cart',
        },
        key(),
      )
    ).json.data;
    expect((await attempt(s.id, 'provider_c')).status).toBe(200);
    const [a] = await attemptsOf(s.id);
    const cancels: number[] = [];
    sim.during = async (r) => {
      if (r.method === 'POST' && r.path.endsWith('/capture'))
        cancels.push((await ws.client.post(`/v1/checkout-sessions/${s.id}/cancel`, {}, key())).status);
    };
    try {
      await sim.pay(a.providerReference);
      await sim.flush();
    } finally {
      sim.during = undefined;
    }
    expect(cancels).toEqual([409]);
    expect((await ws.client.get(`/v1/checkout-sessions/${s.id}`)).json.data.status).toBe('completed');
    expect((await attemptsOf(s.id)).map((x) => x.status)).toEqual(['paid']);
    expect(await counts(s.id)).toEqual({ payments: 1, receipts: 1, events: 1, imbalance: 0 });
  });
});
