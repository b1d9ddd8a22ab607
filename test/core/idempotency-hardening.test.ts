import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { useServer, db, createClient } from '../helpers/server.ts';
import { sandboxPayment, unthrottled } from '../helpers/payments.ts';
import { routes } from '../../rest-compat/routes.ts';
import { schema } from '../../schema/index.ts';
import { clock } from '../../src/core/clock.ts';
import { config } from '../../src/core/config.ts';
import { forgetKey } from '../../src/core/auth/authenticate.ts';
import { unseal } from '../../src/core/sealed.ts';
import type { Admission } from '../../src/graphql/operation.ts';
import { clockedSender } from '../helpers/clocked.ts';

const server = useServer();
afterEach(() => clock.reset());

const idem = (key: string) => ({ 'idempotency-key': key });

/** spec Conventions, "Required on": the operations that exist here. */
const REQUIRED = [
  'createCheckoutSession',
  'cancelCheckoutSession',
  'createPayout',
  'cancelPayout',
  'createRefund',
  'payInvoice',
  'voidInvoice',
  'connectProviderAAdapter',
  'connectProviderBAdapter',
  'connectProviderCAdapter',
  'configureManualAdapter',
  'replayEvents',
  'triggerEvent',
  'createPlan',
  'updatePlan',
  'archivePlan',
  'addPrice',
  // DECISIONS §3: POST /v1/subscriptions/:id/usage, `Idempotency-Key` required.
  'createUsageRecord',
  // docs/decisions.md, Payment methods: detach, `Idempotency-Key` required.
  'detachPaymentMethod',
  // docs/credit-notes.md, Object: notes, their void and balance transactions.
  'createCreditNote',
  'voidCreditNote',
  'createCustomerBalanceTransaction',
  // docs/coupons.md, Object: as plans, create, PATCH and archive.
  'createCoupon',
  'updateCoupon',
  'archiveCoupon',
  // docs/guides/setup-sessions.md, Endpoints: create and cancel, `Idempotency-Key` required (as checkout).
  'createSetupSession',
  'cancelSetupSession',
  // docs/guides/meters.md: as plans, every write requires the key.
  'createMeter',
  'updateMeter',
  'archiveMeter',
  // docs/guides/reconciliation.md: a run is created with a required key.
  'createReconciliationRun',
].sort();

const rows = async (workspaceId: string) =>
  (
    await db().system.query(
      `SELECT key, state, "apiKeyId", scopes, body FROM idempotency_keys WHERE "workspaceId" = $1`,
      [workspaceId],
    )
  ).rows as {
    key: string;
    state: string;
    apiKeyId: string;
    scopes: string[];
    body: Buffer | null;
  }[];

/** The text of every statement this process sends to PostgreSQL while `fn` runs. */
async function recordStatements(fn: () => Promise<void>): Promise<string[]> {
  const statements: string[] = [];
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const q = args[0];
    statements.push(typeof q === 'string' ? q : String((q as { text?: string })?.text ?? ''));
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  try {
    await fn();
  } finally {
    pg.Client.prototype.query = original;
  }
  return statements;
}

const send = clockedSender(server);

// ---- item 5: one declaration, the same rule everywhere ----

describe('which operations require an Idempotency-Key: declared once', () => {
  it('the schema declares exactly the spec list', () => {
    const fields = schema.getMutationType()!.getFields();
    const declared = Object.values(fields)
      .filter((f) => (f.extensions?.admission as Admission | undefined)?.idempotencyKey === 'required')
      .map((f) => f.name)
      .sort();
    expect(declared).toEqual(REQUIRED);
  });

  it('every REST route follows it: 400 idempotency_required without the header exactly for those', async () => {
    const ws = await server.workspace();
    // One request per route: more routes than one workspace's mutating rate limit allows.
    await unthrottled(async () => {
      for (const route of routes.filter((r) => r.method !== 'GET')) {
        const path = route.path.replace(/:(\w+)/g, 'x_1');
        const res = await ws.client.request(route.method, path, route.method === 'DELETE' ? undefined : {});
        if (REQUIRED.includes(route.id)) {
          expect(res.status, `${route.id}: ${res.text}`).toBe(400);
          expect(res.json.error.code, route.id).toBe('idempotency_required');
        } else expect(res.json?.error?.code, route.id).not.toBe('idempotency_required');
      }
    });
  });

  it('POST /v1/checkout-sessions without Idempotency-Key is 400 (spec), and creates nothing', async () => {
    const ws = await server.workspace();
    const body = {
      amount: 1000,
      currency: 'IDR',
      methods: ['card'],
      successUrl: 'https://shop.example/t',
      cancelUrl: 'https://shop.example/c',
    };
    const res = await ws.client.post('/v1/checkout-sessions', body);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'idempotency_required', field: 'Idempotency-Key' });
    expect((await ws.client.get('/v1/checkout-sessions')).json.data).toEqual([]);
    expect((await ws.client.post('/v1/checkout-sessions', body, idem(randomUUID()))).status).toBe(201);
  });

  it('over GraphQL, createCheckoutSession and cancelCheckoutSession require it too (argument or header)', async () => {
    const ws = await server.workspace();
    const create =
      'mutation($k: String) { createCheckoutSession(idempotencyKey: $k, input: { amount: 1000, currency: "IDR", methods: ["card"], successUrl: "https://shop.example/t", cancelUrl: "https://shop.example/c" }) { id } }';
    const missing = await ws.client.graphql(create);
    expect(missing.status).toBe(400);
    expect(missing.json.errors![0].extensions.code).toBe('idempotency_required');
    const made = await ws.client.graphql(create, { k: randomUUID() });
    const id = made.json.data.createCheckoutSession.id;
    const cancel = await ws.client.graphql(`mutation { cancelCheckoutSession(id: "${id}") { status } }`);
    expect(cancel.json.errors![0].extensions.code).toBe('idempotency_required');
    const canceled = await ws.client.graphql(
      `mutation { cancelCheckoutSession(id: "${id}") { status } }`,
      undefined,
      idem(randomUUID()),
    );
    expect(canceled.json.data.cancelCheckoutSession.status).toBe('canceled');
  });

  it('the root field is found through inline fragments and fragment spreads: the key is claimed', async () => {
    const ws = await server.workspace();
    const events = async () =>
      Number(
        (
          await db().system.query(
            `SELECT count(*)::int AS n FROM events WHERE "workspaceId" = $1 AND type = 'hidden.trigger'`,
            [ws.workspaceId],
          )
        ).rows[0].n,
      );
    const inline = 'mutation { ... on Mutation { triggerEvent(input: { type: "hidden.trigger" }) { id } } }';
    expect((await ws.client.graphql(inline)).json.errors![0].extensions.code).toBe('idempotency_required');
    const key = randomUUID();
    const first = await ws.client.graphql(inline, undefined, idem(key));
    expect(first.json.data.triggerEvent.id).toMatch(/^evt_/);
    const again = await ws.client.graphql(inline, undefined, idem(key));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.data.triggerEvent.id).toBe(first.json.data.triggerEvent.id);
    const spread =
      'mutation { ...T } fragment T on Mutation { triggerEvent(input: { type: "hidden.trigger" }) { id } }';
    expect((await ws.client.graphql(spread)).json.errors![0].extensions.code).toBe('idempotency_required');
    expect(await events()).toBe(1);
  });

  it('a mutation document with several root fields cannot share one key', async () => {
    const ws = await server.workspace();
    const two =
      'mutation { a: createCustomer(input: { name: "a" }) { id } b: createCustomer(input: { name: "b" }) { id } }';
    const res = await ws.client.graphql(two, undefined, idem(randomUUID()));
    expect(res.status).toBe(400);
    expect(res.json.errors![0].message).toMatch(/exactly one root field/);
    // without a key (and none required) they run as before
    expect((await ws.client.graphql(two)).json.data.b.id).toMatch(/^cus_/);
    const hidden =
      'mutation { createCustomer(input: { name: "a" }) { id } ... on Mutation { triggerEvent(input: { type: "x" }, idempotencyKey: "k1") { id } } }';
    expect((await ws.client.graphql(hidden)).json.errors![0].message).toMatch(/exactly one root field/);
    const keyOnSecond =
      'mutation { a: createCustomer(input: { name: "a" }) { id } b: createCustomer(input: { name: "b" }, idempotencyKey: "k2") { id } }';
    expect((await ws.client.graphql(keyOnSecond)).json.errors![0].message).toMatch(/exactly one root field/);
  });
});

// ---- item 6: bound to the caller, re-authorized, no secrets ----

describe('a stored response belongs to the key that made it', () => {
  it("a read_only key resending another key's createApiKey is refused for its scope before the key is looked up", async () => {
    const ws = await server.workspace();
    const made = await ws.client.post('/v1/api-keys', { name: 'reader', role: 'read_only' });
    const reader = createClient({ baseUrl: server.url, keyId: made.json.data.keyId, secret: made.json.data.key });
    const key = randomUUID();
    const first = await ws.client.post('/v1/api-keys', { name: 'minted' }, idem(key));
    expect(first.status).toBe(201);
    const secret = first.json.data.key as string;
    expect(secret).toMatch(/^sk_test_/);
    // 403 whether or not the key exists: a 409 would tell the reader another key used it.
    const unused = randomUUID();
    for (const k of [key, unused]) {
      const rest = await reader.post('/v1/api-keys', { name: 'minted' }, idem(k));
      const gql = await reader.graphql(
        'mutation { createApiKey(input: { name: "minted" }) { id key } }',
        undefined,
        idem(k),
      );
      expect([rest.status, rest.json.error.code]).toEqual([403, 'insufficient_scope']);
      expect([gql.status, gql.json.errors?.[0].extensions.code]).toEqual([403, 'insufficient_scope']);
      for (const res of [rest, gql]) {
        expect(res.headers.get('idempotent-replayed')).toBeNull();
        expect(res.text).not.toContain(secret);
      }
    }
    // Nothing was claimed for the refused requests.
    expect((await rows(ws.workspaceId)).map((r) => r.key)).toEqual([key]);
    // the key that made it replays the same object, without the secret
    const replay = await ws.client.post('/v1/api-keys', { name: 'minted' }, idem(key));
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.json.data).toEqual({ ...first.json.data, key: null });
  });

  it('a replay is re-authorized: a demoted member no longer gets it', async () => {
    const ws = await server.workspace();
    const key = randomUUID();
    expect((await ws.client.post('/v1/customers', { name: 'before demotion' }, idem(key))).status).toBe(201);
    const {
      rows: [k],
    } = await db().system.query(`SELECT "memberId" FROM api_keys WHERE id = $1`, [ws.apiKeyId]);
    await db().system.query(`UPDATE members SET role = 'read_only' WHERE id = $1`, [k.memberId]);
    forgetKey(ws.keyId);
    try {
      const res = await ws.client.post('/v1/customers', { name: 'before demotion' }, idem(key));
      expect(res.status).toBe(403);
      expect(res.json.error.code).toBe('insufficient_scope');
      expect(res.headers.get('idempotent-replayed')).toBeNull();
    } finally {
      await db().system.query(`UPDATE members SET role = 'owner' WHERE id = $1`, [k.memberId]);
      forgetKey(ws.keyId);
    }
  });

  it('no secret is stored in idempotency_keys nor sent in SQL text (api keys, webhook secrets on create and rotate)', async () => {
    const ws = await server.workspace();
    const secrets: string[] = [];
    const statements = await recordStatements(async () => {
      secrets.push((await ws.client.post('/v1/api-keys', { name: 'rest' }, idem(randomUUID()))).json.data.key);
      secrets.push(
        (
          await ws.client.graphql(
            'mutation { createApiKey(input: { name: "gql" }) { key } }',
            undefined,
            idem(randomUUID()),
          )
        ).json.data.createApiKey.key,
      );
      const ep = await ws.client.post(
        '/v1/webhook-endpoints',
        { url: 'http://localhost:3000/hook' },
        idem(randomUUID()),
      );
      expect(ep.status, ep.text).toBe(201);
      secrets.push(ep.json.data.signingSecret);
      const rotated = await ws.client.post(
        `/v1/webhook-endpoints/${ep.json.data.id}/rotate-secret`,
        {},
        idem(randomUUID()),
      );
      secrets.push(rotated.json.data.signingSecret);
      const gqlRotated = await ws.client.graphql(
        `mutation { rotateWebhookEndpointSecret(id: "${ep.json.data.id}") { signingSecret } }`,
        undefined,
        idem(randomUUID()),
      );
      secrets.push(gqlRotated.json.data.rotateWebhookEndpointSecret.signingSecret);
    });
    expect(
      secrets.every((s) => /^(sk_test_|whsec_)/.test(s)),
      secrets.join(),
    ).toBe(true);
    const stored = await rows(ws.workspaceId);
    expect(stored).toHaveLength(5);
    for (const r of stored) {
      expect(r.state).toBe('done');
      expect(r.apiKeyId).toBe(ws.apiKeyId);
      // sealed at rest, bound to its row; opened, it holds the object without its secret
      expect(r.body!.subarray(0, 4).toString()).toBe('svc1');
      const body = unseal(
        'idempotency_keys',
        { workspaceId: ws.workspaceId, mode: 'test', key: r.key },
        r.body!,
      ).toString('utf8');
      expect(JSON.parse(body)).toHaveProperty('data');
      expect(body).not.toMatch(/sk_(test|live)_|whsec_/);
    }
    const leaked = statements.filter((t) =>
      secrets.some((s) => t.includes(s) || t.includes(Buffer.from(s).toString('hex'))),
    );
    expect(leaked).toEqual([]);
  });

  it("a checkout session's hosted secret is minted by PostgreSQL and never travels in SQL text (the stored replay is sealed)", async () => {
    const ws = await server.workspace();
    const key = randomUUID();
    const body = {
      amount: 1000,
      currency: 'IDR',
      methods: ['qris'],
      successUrl: 'https://shop.example/t',
      cancelUrl: 'https://shop.example/c',
    };
    let created!: Awaited<ReturnType<typeof ws.client.post<any>>>;
    const statements = await recordStatements(async () => {
      created = await ws.client.post('/v1/checkout-sessions', body, idem(key));
    });
    expect(created.status, created.text).toBe(201);
    const secret = /_([0-9a-f]{40})$/.exec(created.json.data.hostedUrl)![1];
    expect(statements.length).toBeGreaterThan(2);
    expect(statements.filter((t) => t.includes(secret) || t.includes(Buffer.from(secret).toString('hex')))).toEqual([]);
    const replayed = await ws.client.post('/v1/checkout-sessions', body, idem(key));
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.json.data.hostedUrl).toBe(created.json.data.hostedUrl);
  });
});

// ---- item 7: leases, and retryable errors are never stored ----

describe('claims end', () => {
  it('an in-flight claim left by a crash can be taken over by the same request after its lease', async () => {
    const ws = await server.workspace();
    const key = randomUUID();
    const body = { name: 'crash' };
    const first = await send(ws, 'POST', '/v1/customers', body, idem(key));
    expect(first.status).toBe(201);
    // A crash after the operation committed, before the response was stored:
    await db().system.query(
      `UPDATE idempotency_keys SET state = 'in_flight', body = NULL, "statusCode" = NULL, "leaseUntil" = $2 WHERE key = $1`,
      [key, new Date(clock.now().getTime() + config.idempotencyLeaseSec * 1000)],
    );
    const during = await send(ws, 'POST', '/v1/customers', body, idem(key));
    expect(during.status).toBe(409);
    // another request may not take it over, even after the lease
    clock.advance(config.idempotencyLeaseSec * 1000 + 1000);
    expect((await send(ws, 'POST', '/v1/customers', { name: 'other' }, idem(key))).status).toBe(409);
    const after = await send(ws, 'POST', '/v1/customers', body, idem(key));
    expect(after.status).toBe(201);
    expect(after.headers.get('idempotent-replayed')).toBeNull();
    const again = await send(ws, 'POST', '/v1/customers', body, idem(key));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(after.text);
  });

  it('a payout re-run after a takeover finds the payout its first run created', async () => {
    const ws = await server.workspace();
    await sandboxPayment(server, ws, { amount: 100000 });
    const bank = {
      bankCode: 'BCA',
      bankName: 'Bank Central Asia',
      bankAccountNumber: '1234567890',
      bankAccountHolder: 'PT Maju Jaya',
    };
    expect((await ws.client.patch('/v1/payouts/bank-account', bank)).status).toBe(200);
    const key = randomUUID();
    const body = { amount: 1000, currency: 'IDR' };
    const first = await send(ws, 'POST', '/v1/payouts', body, idem(key));
    expect(first.status, first.text).toBe(201);
    await db().system.query(
      `UPDATE idempotency_keys SET state = 'in_flight', body = NULL, "statusCode" = NULL, "leaseUntil" = $2 WHERE key = $1`,
      [key, clock.now()],
    );
    clock.advance(1000);
    const rerun = await send(ws, 'POST', '/v1/payouts', body, idem(key));
    expect(rerun.status, rerun.text).toBe(201);
    expect(rerun.headers.get('idempotent-replayed')).toBeNull();
    expect(rerun.json.data.id).toBe(first.json.data.id);
    const { rows } = await db().system.query(`SELECT count(*)::int AS n FROM payouts WHERE "workspaceId" = $1`, [
      ws.workspaceId,
    ]);
    expect(rows[0].n).toBe(1);
    // a new key is a new payout
    expect((await send(ws, 'POST', '/v1/payouts', body, idem(randomUUID()))).json.data.id).not.toBe(first.json.data.id);
  });

  it('a retryable error inside a 200 GraphQL response is not stored: the retry runs again', async () => {
    const ws = await server.workspace();
    const payment = await sandboxPayment(server, ws);
    const receipts = (await ws.client.get(`/v1/receipts?limit=1`)).json.data;
    expect(receipts.length).toBe(1);
    const key = randomUUID();
    // A mail server that refuses (nothing listens there): 502 email_failed, which a client retries with the same key.
    const previousSmtp = config.smtpUrl;
    config.smtpUrl = 'smtp://127.0.0.1:1';
    onTestFinished(() => {
      config.smtpUrl = previousSmtp;
    });
    // The owner's address: test mode mails only the customer or the workspace's own addresses.
    const { rows: owners } = await db().system.query(
      `SELECT email FROM members WHERE "workspaceId" = $1 AND role = 'owner'`,
      [ws.workspaceId],
    );
    const mutation = `mutation { emailReceipt(id: "${receipts[0].id}", to: "${owners[0].email}") { sent } }`;
    const first = await ws.client.graphql(mutation, undefined, idem(key));
    expect(first.status).toBe(200);
    expect(first.json.errors![0].extensions.code).toBe('email_failed');
    expect((await rows(ws.workspaceId)).filter((r) => r.key === key)).toEqual([]);
    const retry = await ws.client.graphql(mutation, undefined, idem(key));
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(payment.id).toMatch(/^pay_/);
  });
});
