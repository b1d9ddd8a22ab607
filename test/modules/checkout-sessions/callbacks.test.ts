/**
 * Routing of `POST /v1/callbacks/<provider>` before verification (src/modules/checkout-sessions/callbacks.ts):
 * only exact keys route a callback, an empty or short reference is refused before any lookup, one
 * verification call covers every workspace connected with the same credentials, and the route is
 * rate-limited per client address. Outbound calls are counted at the provider_c simulator.
 */
import { request } from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../../src/core/config.ts';
import { mintLiveKey } from '../../helpers/keys.ts';
import { createClient, db, useServer } from '../../helpers/server.ts';
import { useSimulators } from '../../helpers/simulators.ts';
import { ProviderCSim } from '../../simulators/provider_c.ts';

const server = useServer();
const simulators = useSimulators(server);
const previousBase = config.hostedBaseUrl;
const rand = (n: number) => randomBytes(n).toString('hex').slice(0, n);
const key = () => ({ 'idempotency-key': randomUUID() });
const creds = { clientId: `AZ${rand(16)}`, secret: `EL${rand(16)}`, webhookId: `WH${rand(8).toUpperCase()}` };
const sim = simulators.track(new ProviderCSim(creds));

beforeAll(async () => {
  config.hostedBaseUrl = server.url;
  await sim.start();
  process.env.PROVIDER_C_BASE_URL = sim.url;
  process.env.PROVIDER_C_WEBHOOK_ID = creds.webhookId;
  sim.webhookUrl = `${server.url}/v1/callbacks/provider_c`;
});
afterAll(() => {
  config.hostedBaseUrl = previousBase;
});

type Res = { status: number; json: any; text?: string };
function ok(res: Res, status = 200) {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  return res.json.data;
}
const tokenOf = (ss: { hostedUrl: string }) => ss.hostedUrl.slice(ss.hostedUrl.lastIndexOf('/s/') + 3);

/** A live workspace connected to the simulator with one PayPal setup waiting at the provider. */
async function waitingSetup() {
  const ws = await server.workspace();
  const live = await mintLiveKey(ws.workspaceId);
  const client = createClient({ baseUrl: server.url, keyId: live.keyId, secret: live.secret });
  const put = await client.put(
    '/v1/adapters/provider_c',
    { clientId: creds.clientId, secret: creds.secret, mode: 'live' },
    key(),
  );
  expect(put.status, put.text).toBe(200);
  const cus = ok(await client.post('/v1/customers', { name: 'Jon', email: 'jon@example.com' }), 201).id as string;
  const ss = ok(
    await client.post(
      '/v1/setup-sessions',
      { customerId: cus, currency: 'USD', successUrl: 'https://shop.example/ok', cancelUrl: 'https://shop.example/no' },
      key(),
    ),
    201,
  );
  const res = await fetch(`${server.url}/s/${tokenOf(ss)}/attempt`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'paypal' }),
  });
  const attempt = ((await res.json()) as any).data;
  expect(attempt.next.kind).toBe('redirect');
  const { rows } = await db().system.query(`SELECT "providerRef" FROM setup_attempts WHERE "setupSessionId" = $1`, [
    ss.id,
  ]);
  return { ws, client, cus, ss, redirectUrl: attempt.next.redirectUrl as string, ref: rows[0].providerRef as string };
}

/** An unsigned vault event with made-up transmission headers (what anyone can send). */
function forgedVaultEvent(resource: unknown, from?: string) {
  const body = JSON.stringify({
    id: `WH-${rand(8).toUpperCase()}`,
    event_type: 'VAULT.PAYMENT-TOKEN.CREATED',
    resource_type: 'payment_token',
    resource,
  });
  const headers = {
    'content-type': 'application/json',
    'paypal-auth-algo': 'SHA256withRSA',
    'paypal-cert-url': 'https://api.paypal.com/v1/notifications/certs/CERT-forged',
    'paypal-transmission-id': randomUUID(),
    'paypal-transmission-sig': randomBytes(64).toString('base64'),
    'paypal-transmission-time': new Date().toISOString(),
  };
  const url = new URL(`${server.url}/v1/callbacks/provider_c`);
  // A given source address (any 127.x address is this host's loopback): a second client of the server.
  return new Promise<{ status: number; retryAfter: string | null }>((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers, localAddress: from },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] ?? null }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const simCalls = (since: number) => sim.requests.slice(since);
const verifyCalls = (since: number) =>
  simCalls(since).filter((r) => r.path === '/v1/notifications/verify-webhook-signature');

describe('provider_c vault events are routed by exact keys only', () => {
  it('an unsigned event naming an empty or short customer id (or token id) makes no call and routes nowhere', async () => {
    const waiting = [await waitingSetup(), await waitingSetup(), await waitingSetup()];
    const before = sim.requests.length;
    const refs = ['', 'c', 'cus_', waiting[0].cus.slice(0, 10), waiting[0].cus.slice(0, 21)];
    for (const merchant_customer_id of refs) {
      const res = await forgedVaultEvent({ id: `${rand(8)}`, customer: { merchant_customer_id } });
      expect(res.status, `customer ${JSON.stringify(merchant_customer_id)}`).toBe(401);
    }
    for (const id of ['', 'ab', 12345678])
      expect((await forgedVaultEvent({ id, customer: { merchant_customer_id: '' } })).status).toBe(401);
    expect(simCalls(before)).toEqual([]);
    // Nothing moved: every setup still waits.
    for (const w of waiting) expect(ok(await w.client.get(`/v1/setup-sessions/${w.ss.id}`)).status).toBe('pending');
  });

  it('the exact customer reference we sent routes to that workspace only: one verification call, refused', async () => {
    const [a] = [await waitingSetup(), await waitingSetup()];
    const before = sim.requests.length;
    const res = await forgedVaultEvent({ id: rand(8), customer: { merchant_customer_id: a.cus.slice(0, 22) } });
    expect(res.status).toBe(401);
    expect(verifyCalls(before)).toHaveLength(1);
  });

  it('workspaces connected with the same credentials share one verification call', async () => {
    const a = await waitingSetup();
    const b = await waitingSetup();
    // The same provider reference in two workspaces of one provider account: both are candidates.
    await db().system.query(`UPDATE setup_attempts SET "providerRef" = $1 WHERE "setupSessionId" = $2`, [
      a.ref,
      b.ss.id,
    ]);
    const before = sim.requests.length;
    expect((await forgedVaultEvent({ id: a.ref, customer: {} })).status).toBe(401);
    expect(verifyCalls(before)).toHaveLength(1);
  });

  it("a genuine event naming only the customer still completes the setup whose exchange's answer was lost", async () => {
    const w = await waitingSetup();
    const approved = await fetch(w.redirectUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: 's0000@example.com' }).toString(),
      redirect: 'manual',
    });
    sim.offSession.dropResponseAfterCharge = true;
    sim.offSession.deliver = false;
    try {
      await fetch(approved.headers.get('location')!, { redirect: 'manual' });
    } finally {
      sim.offSession.dropResponseAfterCharge = false;
      sim.offSession.deliver = true;
    }
    expect(ok(await w.client.get(`/v1/setup-sessions/${w.ss.id}`)).status).not.toBe('completed');
    const tokenId = [...sim.paymentTokens.keys()].at(-1)!;
    expect(sim.paymentTokens.get(tokenId)!.body.customer.merchant_customer_id).toBe(w.cus.slice(0, 22));
    const before = sim.requests.length;
    const [d] = await sim.tokenCreated(tokenId);
    expect(d.status).toBe(200);
    expect(verifyCalls(before)).toHaveLength(1);
    expect(ok(await w.client.get(`/v1/setup-sessions/${w.ss.id}`)).status).toBe('completed');
  }, 60_000);
});

describe('/v1/callbacks/* is rate-limited per client address', () => {
  it('a flood from one address gets 429 with Retry-After after the burst; another address still gets through', async () => {
    const saved = { ...config.rateLimits.callback };
    config.rateLimits.callback = { perSec: 0.001, burst: 5 };
    try {
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < 8; i++) {
        const res = await forgedVaultEvent({ id: rand(8), customer: {} }, '127.0.0.1');
        statuses.push(res.status);
        retryAfter ??= res.retryAfter;
      }
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      expect((await forgedVaultEvent({ id: rand(8), customer: {} }, '127.0.0.2')).status).toBe(401);
    } finally {
      config.rateLimits.callback = saved;
    }
  });
});
