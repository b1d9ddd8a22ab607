// The workspace lifecycle over real HTTP (spec Workspace, DECISIONS §7; docs/decisions.md "Workspace
// lifecycle"): activation, archive with its side effects, the 24-hour webhook grace, restore within
// 90 days and the purge after it. Time moves with the injected clock or by backdating `archivedAt`.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, db, untilPublished, useServer, type Workspace } from '../../helpers/server.ts';
import { mintKey } from '../../helpers/keys.ts';
import { insertEvent } from '../../helpers/events.ts';
import { startReceiver, until } from '../../helpers/receiver.ts';
import { planBody, postPlan } from '../../helpers/plans.ts';
import { clock } from '../../../src/core/clock.ts';
import { newId } from '../../../src/core/ids.ts';
import { signingKeyOf } from '../../../src/core/auth/signing.ts';
import { seal } from '../../../src/core/sealed.ts';
import { randomHex } from '../../../src/core/crypto.ts';
import { purgeArchivedWorkspaces } from '../../../src/modules/workspaces/purge.ts';
import { restoreWorkspaceFromCli } from '../../../src/modules/workspaces/service.ts';
import { RETENTION_MS, WEBHOOK_GRACE_MS } from '../../../src/core/retention.ts';
import { childEnv, svc } from '../../helpers/cli.ts';

const server = useServer({ background: 'worker' });
afterEach(() => clock.reset());

type Res = { status: number; json: any; text?: string };
function expectError(res: Res, status: number, code: string, field?: string) {
  expect({ status: res.status, code: res.json?.error?.code, field: res.json?.error?.field }).toEqual({
    status,
    code,
    field: field ?? res.json?.error?.field,
  });
  expect(res.json.data).toBeNull();
}
const key = () => ({ 'idempotency-key': randomUUID() });
const DAY = 86_400_000;

/** A key acting for a new member of `role` (members are another module's: the row is written directly). */
async function memberKey(workspaceId: string, role: 'admin' | 'member' | 'read_only', mode: 'test' | 'live' = 'test') {
  const memberId = newId('member');
  await db().system.query(
    `INSERT INTO members (id, "workspaceId", email, role, status, "joinedAt") VALUES ($1, $2, $3, $4, 'joined', now())`,
    [memberId, workspaceId, `${role}-${randomHex(3)}@example.com`, role],
  );
  const secret = `sk_${mode}_${randomHex(24)}`;
  const keyId = `pk_${mode}_${randomHex(6)}`;
  const id = newId('apiKey');
  await db().system.query(
    `INSERT INTO api_keys (id, "workspaceId", mode, "keyId", name, role, scopes, "signingKey", "memberId", "createdAt")
     VALUES ($1, $2, $3, $4, $5, 'full_access', '{}', $6, $7, now())`,
    [
      id,
      workspaceId,
      mode,
      keyId,
      role,
      Buffer.from(seal('api_keys', { id, workspaceId }, signingKeyOf(secret))),
      memberId,
    ],
  );
  return createClient({ baseUrl: server.url, keyId, secret });
}

const manualAdapter = (client: Workspace['client']) =>
  client.put(
    '/v1/adapters/manual',
    { bankAccounts: [{ bankName: 'BCA', accountNumber: '1234567890', accountHolder: 'PT Kopi' }] },
    key(),
  );
const eventsOf = async (client: Workspace['client'], type: string) =>
  (await client.get(`/v1/events?type=${type}`)).json.data as any[];

/**
 * A partner (bootstrapped live, with a test key too) and one merchant it provisioned, with clients
 * on behalf of the merchant in both modes.
 */
async function partnerAndMerchant() {
  const partner = await server.workspace({ name: 'Partner', platformAdmin: true, environment: 'live' });
  const partnerTest = await mintKey(partner.workspaceId, 'test');
  const created = await partner.client.post(
    '/v1/workspaces',
    { name: 'Toko Kopi', businessEmail: 'owner@toko.example' },
    key(),
  );
  expect(created.status, created.text).toBe(201);
  const m = created.json.data;
  const onBehalf = (k: { keyId: string; secret: string }) =>
    createClient({ baseUrl: server.url, keyId: k.keyId, secret: k.secret, onBehalfOf: m.accountId });
  return {
    partner,
    partnerTestClient: createClient({ baseUrl: server.url, keyId: partnerTest.keyId, secret: partnerTest.secret }),
    m,
    live: onBehalf(partner),
    test: onBehalf(partnerTest),
  };
}

describe('POST /v1/workspaces/:id/activate (DECISIONS §7)', () => {
  it('owner only, needs businessEmail and an active adapter, then sets mode live; live keys work only from then', async () => {
    const ws = await server.workspace({ name: 'Activate Me' });
    const live = createClient({ baseUrl: server.url, ...(await mintKey(ws.workspaceId, 'live')) });
    // mintKey activates behind the API (as a live bootstrap does): back to the new workspace's state.
    await db().system.query(`UPDATE workspaces SET mode = 'test' WHERE id = $1`, [ws.workspaceId]);
    expectError(await live.get('/v1/api-keys'), 403, 'live_mode_inactive');

    const admin = await memberKey(ws.workspaceId, 'admin');
    expectError(await admin.post(`/v1/workspaces/${ws.workspaceId}/activate`, {}), 403, 'owner_required');
    const activate = () => ws.client.post(`/v1/workspaces/${ws.workspaceId}/activate`, {});
    // The body is empty: any field is refused, naming it.
    expectError(
      await ws.client.post(`/v1/workspaces/${ws.workspaceId}/activate`, { mode: 'live' }),
      400,
      'validation_error',
      'mode',
    );
    expectError(await activate(), 422, 'activation_incomplete', 'businessEmail');
    expect((await ws.client.patch(`/v1/workspaces/${ws.workspaceId}`, { businessEmail: 'a@b.example' })).status).toBe(
      200,
    );
    // The managed test sandbox is not an adapter of the merchant's own.
    expectError(await activate(), 422, 'activation_incomplete', 'adapters');
    expect((await manualAdapter(ws.client)).status).toBe(200);
    // Another workspace's id is not found, even for its owner's key.
    const other = await server.workspace();
    expectError(await other.client.post(`/v1/workspaces/${ws.workspaceId}/activate`, {}), 404, 'not_found');

    const res = await activate();
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toMatchObject({ id: ws.workspaceId, mode: 'live', businessEmail: 'a@b.example' });
    const [updated] = await eventsOf(ws.client, 'workspace.updated');
    expect(updated.data.previousAttributes).toEqual({ mode: 'test' });
    expect(updated.data.object.mode).toBe('live');
    // Again: unchanged, no second event.
    expect((await activate()).json.data.mode).toBe('live');
    expect(
      (await eventsOf(ws.client, 'workspace.updated')).filter((e) => e.data.previousAttributes?.mode),
    ).toHaveLength(1);
    // Activation drops the workspace's live keys from the key cache: they work at once.
    expect((await live.get(`/v1/workspaces/${ws.workspaceId}`)).json.data.mode).toBe('live');
    // The owner's test key mints the first live keys only while the workspace has no active live key.
    const mintLive = () => ws.client.post('/v1/api-keys', { name: 'first live', environment: 'live' });
    expectError(await mintLive(), 403, 'insufficient_scope');
    // Without the live key minted behind the API above, it is a workspace with no live key yet.
    await db().system.query(`UPDATE api_keys SET "revokedAt" = now() WHERE "workspaceId" = $1 AND mode = 'live'`, [
      ws.workspaceId,
    ]);
    const minted = await mintLive();
    expect(minted.status, minted.text).toBe(201);
    const fresh = createClient({ baseUrl: server.url, keyId: minted.json.data.keyId, secret: minted.json.data.key });
    expect((await fresh.get('/v1/api-keys')).status).toBe(200);
    // Now there is one: a second live key comes from a live key, not from the test key.
    expectError(await mintLive(), 403, 'insufficient_scope');
    expect((await fresh.post('/v1/api-keys', { name: 'second live' })).status).toBe(201);
    // A member's test key cannot either (no key administration).
    const member = await memberKey(ws.workspaceId, 'member');
    expectError(await member.post('/v1/api-keys', { name: 'x', environment: 'live' }), 403, 'insufficient_scope');
  });

  it('is a GraphQL mutation with the same rules', async () => {
    const ws = await server.workspace();
    const gql = await ws.client.graphql(`mutation { activateWorkspace(id: "${ws.workspaceId}") { id mode } }`);
    expect(gql.json.errors![0].extensions).toEqual({ code: 'activation_incomplete', field: 'businessEmail' });
    await ws.client.patch(`/v1/workspaces/${ws.workspaceId}`, { businessEmail: 'g@b.example' });
    await manualAdapter(ws.client);
    const ok = await ws.client.graphql(`mutation { activateWorkspace(id: "${ws.workspaceId}") { id mode } }`);
    expect(ok.json.data.activateWorkspace).toEqual({ id: ws.workspaceId, mode: 'live' });
  });
});

describe('DELETE /v1/workspaces/:id (archive)', () => {
  it('is owner only: 403 owner_required for an admin, 404 for another workspace', async () => {
    const ws = await server.workspace();
    const admin = await memberKey(ws.workspaceId, 'admin');
    expectError(await admin.delete(`/v1/workspaces/${ws.workspaceId}`), 403, 'owner_required');
    const gql = await admin.graphql(`mutation { archiveWorkspace(id: "${ws.workspaceId}") { id } }`);
    expect(gql.json.errors![0].extensions.code).toBe('owner_required');
    const other = await server.workspace();
    expectError(await other.client.delete(`/v1/workspaces/${ws.workspaceId}`), 404, 'not_found');
    expect((await ws.client.get(`/v1/workspaces/${ws.workspaceId}`)).json.data.archivedAt).toBeNull();
  });

  it('409 has_open_balance while the live ledger holds money or a payout is in flight; 204 once settled, with every side effect', async () => {
    const { partner, m, live, test } = await partnerAndMerchant();
    // Not activated yet: the partner's live key cannot act on the merchant.
    expectError(await live.get(`/v1/workspaces/${m.id}`), 403, 'live_mode_inactive');
    expect((await manualAdapter(test)).status).toBe(200);
    expect((await test.post(`/v1/workspaces/${m.id}/activate`, {})).json.data.mode).toBe('live');

    // A live payment through the manual adapter: the merchant now holds 50,000 IDR.
    expect((await manualAdapter(live)).status).toBe(200);
    const s = await live.post(
      '/v1/checkout-sessions',
      {
        amount: 50000,
        currency: 'IDR',
        methods: ['va'],
        successUrl: 'https://shop.example/ok',
        cancelUrl: 'https://shop.example/no',
      },
      key(),
    );
    expect(s.status, s.text).toBe(201);
    const token = s.json.data.hostedUrl.split('/c/')[1];
    const page = (path: string, body: unknown) =>
      fetch(`${server.url}/c/${token}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await page('/attempt', { method: 'va' })).status).toBe(200);
    expect((await page('/attempt/declare-paid', {})).status).toBe(200);
    expect((await live.post(`/v1/checkout-sessions/${s.json.data.id}/confirm`, {})).status).toBe(200);

    // A test-mode subscription, to be cancelled at period end.
    const plan = (await postPlan({ client: test } as Workspace, planBody())).json.data;
    const cus = (await test.post('/v1/customers', { name: 'Budi' })).json.data.id;
    const sub = await test.post(
      '/v1/subscriptions',
      { customerId: cus, priceId: plan.prices[0].id, paymentMethod: 'pm_test_success' },
      key(),
    );
    expect(sub.status, sub.text).toBe(201);

    const archive = () => live.delete(`/v1/workspaces/${m.id}`);
    const open = await archive();
    expectError(open, 409, 'has_open_balance');
    expect(open.json.error.message).toContain('50000 IDR held at adapters');

    // A payout locks the money: still open until it is paid.
    expect(
      (
        await live.patch('/v1/payouts/bank-account', {
          bankCode: 'BCA',
          bankName: 'Bank Central Asia',
          bankAccountNumber: '1234567890',
          bankAccountHolder: 'PT Kopi',
        })
      ).status,
    ).toBe(200);
    const po = (await live.post('/v1/payouts', { amount: 50000, currency: 'IDR' }, key())).json.data;
    expect((await live.post(`/v1/payouts/${po.id}/mark-in-transit`, {})).status).toBe(200);
    expect((await archive()).json.error.message).toContain('payout(s) in flight');
    expect((await live.post(`/v1/payouts/${po.id}/mark-paid`, {})).json.data.status).toBe('paid');

    // An open live checkout session: canceled by the archive (live mode off at once).
    const openSession = await live.post(
      '/v1/checkout-sessions',
      {
        amount: 1000,
        currency: 'IDR',
        methods: ['va'],
        successUrl: 'https://s.example/ok',
        cancelUrl: 'https://s.example/no',
      },
      key(),
    );
    expect(openSession.json.data.status).toBe('open');

    // The merchant's own keys, to see them revoked.
    const own = createClient({ baseUrl: server.url, ...(await mintKey(m.id, 'test')) });
    expect((await own.get('/v1/api-keys')).status).toBe(200);

    const done = await archive();
    expect(done.status, done.text).toBe(204);
    // API keys revoked at once, and the partner can no longer act on it.
    expectError(await own.get('/v1/api-keys'), 401, 'invalid_key');
    expectError(await live.get(`/v1/workspaces/${m.id}`), 404, 'not_found');
    const { rows: keys } = await db().system.query(`SELECT "revokedAt" FROM api_keys WHERE "workspaceId" = $1`, [m.id]);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((k) => k.revokedAt)).toBe(true);
    const { rows: sessions } = await db().system.query(`SELECT status FROM checkout_sessions WHERE id = $1`, [
      openSession.json.data.id,
    ]);
    expect(sessions[0].status).toBe('canceled');
    // Live mode off; listed under the partner with archived=true only.
    const listed = (await partner.client.get('/v1/workspaces?archived=true')).json.data;
    expect(listed.map((w: any) => [w.id, w.mode, !!w.archivedAt])).toEqual([[m.id, 'test', true]]);
    expect((await partner.client.get('/v1/workspaces')).json.data).toEqual([]);
    // Subscriptions cancel at period end (subscription.updated), not at once.
    const { rows: subs } = await db().system.query(
      `SELECT status, "cancelAtPeriodEnd" FROM subscriptions WHERE "workspaceId" = $1`,
      [m.id],
    );
    expect(subs).toEqual([{ status: 'active', cancelAtPeriodEnd: true }]);
    // workspace.archived, in the merchant's archive (the partner reads it with workspaceId).
    const evts = (await partner.client.get(`/v1/events?workspaceId=${m.id}&type=workspace.archived`)).json.data;
    expect(evts).toHaveLength(1);
    expect(evts[0].data.object).toMatchObject({ id: m.id, mode: 'test' });
    expect(evts[0].data.previousAttributes).toEqual({ archivedAt: null, mode: 'live' });
  });
});

describe('archive and activation at once', () => {
  it('concurrent archives give one workspace.archived; a concurrent activation is before it or refused', async () => {
    const ws = await server.workspace({ name: 'Racy' });
    await ws.client.patch(`/v1/workspaces/${ws.workspaceId}`, { businessEmail: 'r@x.example' });
    await manualAdapter(ws.client);
    const calls = await Promise.all([
      ws.client.post(`/v1/workspaces/${ws.workspaceId}/activate`, {}),
      ...Array.from({ length: 8 }, () => ws.client.delete(`/v1/workspaces/${ws.workspaceId}`)),
    ]);
    // Requests admitted before the first archive committed find it archived (204 again, or 409 for
    // activation); later ones carry a revoked key (401).
    expect([200, 409, 401]).toContain(calls[0].status);
    for (const c of calls.slice(1)) expect([204, 401]).toContain(c.status);
    const { rows } = await db().system.query(
      `SELECT type, count(*)::int AS n FROM events WHERE "workspaceId" = $1 AND type = 'workspace.archived' GROUP BY type`,
      [ws.workspaceId],
    );
    expect(rows).toEqual([{ type: 'workspace.archived', n: 1 }]);
    const { rows: w } = await db().system.query(`SELECT mode, "archivedAt" FROM workspaces WHERE id = $1`, [
      ws.workspaceId,
    ]);
    expect(w[0]).toMatchObject({ mode: 'test', archivedAt: expect.any(Date) });
  });
});

describe('after archive: webhooks, restore, purge', () => {
  /** A partner and a merchant with a webhook endpoint each, then the merchant archived. */
  async function archivedWithEndpoints() {
    const partner = await server.workspace({ platformAdmin: true });
    const rx = await startReceiver();
    await untilPublished();
    const pep = (await partner.client.post('/v1/webhook-endpoints', { url: rx.url })).json.data;
    const m = (await partner.client.post('/v1/workspaces', { name: 'Merchant' })).json.data;
    const onBehalf = createClient({
      baseUrl: server.url,
      keyId: partner.keyId,
      secret: partner.secret,
      onBehalfOf: m.accountId,
    });
    const mep = (await onBehalf.post('/v1/webhook-endpoints', { url: rx.url })).json.data;
    expect(mep.id).toMatch(/^whep_/);
    expect((await onBehalf.delete(`/v1/workspaces/${m.id}`)).status).toBe(204);
    return { partner, m, rx, pep, mep, close: () => rx.close() };
  }
  const deliveriesOf = async (eventId: string) =>
    (
      await db().system.query(`SELECT "endpointId" FROM webhook_deliveries WHERE "eventId" = $1 ORDER BY 1`, [eventId])
    ).rows.map((r) => r.endpointId);

  it('webhooks keep flowing for 24 hours after archive, then stop (merchant and partner endpoints)', async () => {
    const { partner, m, rx, pep, mep, close } = await archivedWithEndpoints();
    try {
      const archived = (await partner.client.get(`/v1/events?workspaceId=${m.id}&type=workspace.archived`)).json
        .data[0];
      await until(
        () => rx.received.filter((r) => r.headers['x-svc-event-id'] === archived.id).length === 2,
        'workspace.archived at both endpoints',
      );
      // Within the grace: a later event of the merchant still reaches both.
      clock.advance(WEBHOOK_GRACE_MS - 60_000);
      const inGrace = await insertEvent(m.id, { type: 'subscription.updated', at: clock.now().getTime() });
      await untilPublished();
      expect(await deliveriesOf(inGrace)).toEqual([mep.id, pep.id].sort());
      // After it: nothing of the merchant is delivered anywhere; the partner's own events still are.
      clock.advance(120_000);
      const after = await insertEvent(m.id, { type: 'subscription.cancelled', at: clock.now().getTime() });
      const partnerOwn = await insertEvent(partner.workspaceId, { type: 'sentinel.tick', at: clock.now().getTime() });
      await until(() => rx.received.some((r) => r.headers['x-svc-event-id'] === partnerOwn), 'the partner sentinel');
      expect(await deliveriesOf(after)).toEqual([]);
      expect(rx.received.some((r) => r.headers['x-svc-event-id'] === after)).toBe(false);
    } finally {
      await close();
    }
  });

  it('a delivery still pending when the grace ends is not sent', async () => {
    const { m, rx, mep, close } = await archivedWithEndpoints();
    try {
      // A pending retry of the merchant's endpoint, due only after the grace.
      const evt = await insertEvent(m.id, { type: 'subscription.updated', at: Date.now() });
      await untilPublished();
      await until(() => rx.received.some((r) => r.headers['x-svc-event-id'] === evt), 'the first attempt');
      await until(
        async () =>
          (
            await db().system.query(
              `SELECT status FROM webhook_deliveries WHERE "eventId" = $1 AND "endpointId" = $2`,
              [evt, mep.id],
            )
          ).rows[0]?.status === 'succeeded',
        'the first attempt recorded',
      );
      const n = rx.received.length;
      await db().system.query(
        `UPDATE webhook_deliveries SET status = 'pending', "enqueuedAt" = NULL, "attemptedAt" = now(),
           "nextRetryAt" = $2 WHERE "eventId" = $1 AND "endpointId" = $3`,
        [evt, new Date(Date.now() + WEBHOOK_GRACE_MS + 60_000), mep.id],
      );
      clock.advance(WEBHOOK_GRACE_MS + 120_000);
      await db().system.query(`SELECT pg_notify('svc_events', '')`);
      await until(
        async () =>
          (
            await db().system.query(
              `SELECT status FROM webhook_deliveries WHERE "eventId" = $1 AND "endpointId" = $2`,
              [evt, mep.id],
            )
          ).rows[0].status === 'failed',
        'the stopped delivery ends failed',
      );
      expect(rx.received.length).toBe(n);
    } finally {
      await close();
    }
  });

  it('the partner restores within 90 days (workspace.restored); after the window it is 410', async () => {
    const { partner, m, close } = await archivedWithEndpoints();
    await close();
    const other = await server.workspace({ platformAdmin: true });
    expectError(await other.client.post(`/v1/workspaces/${m.id}/restore`, {}), 404, 'not_found');
    const onBehalfOther = createClient({
      baseUrl: server.url,
      keyId: partner.keyId,
      secret: partner.secret,
      onBehalfOf: m.accountId,
    });
    expectError(await onBehalfOther.post(`/v1/workspaces/${m.id}/restore`, {}), 404, 'not_found');

    await db().system.query(`UPDATE workspaces SET "archivedAt" = now() - interval '89 days' WHERE id = $1`, [m.id]);
    const restored = await partner.client.post(`/v1/workspaces/${m.id}/restore`, {});
    expect(restored.status, restored.text).toBe(200);
    expect(restored.json.data).toMatchObject({ id: m.id, archivedAt: null, mode: 'test' });
    const evts = (await partner.client.get(`/v1/events?workspaceId=${m.id}&type=workspace.restored`)).json.data;
    expect(evts).toHaveLength(1);
    expect(evts[0].data.object.archivedAt).toBeNull();
    expectError(await partner.client.post(`/v1/workspaces/${m.id}/restore`, {}), 409, 'conflict');
    // Acting on it works again; its old keys stay revoked.
    expect((await onBehalfOther.get(`/v1/workspaces/${m.id}`)).status).toBe(200);

    expect((await onBehalfOther.delete(`/v1/workspaces/${m.id}`)).status).toBe(204);
    await db().system.query(`UPDATE workspaces SET "archivedAt" = now() - interval '91 days' WHERE id = $1`, [m.id]);
    expectError(await partner.client.post(`/v1/workspaces/${m.id}/restore`, {}), 410, 'gone');
  });

  it('a merchant without a partner restores with `svc restore-workspace` and gets a new owner key', async () => {
    const ws = await server.workspace({ name: 'Direct Shop' });
    expect((await ws.client.delete(`/v1/workspaces/${ws.workspaceId}`)).status).toBe(204);
    expect((await ws.client.get('/v1/api-keys')).status).toBe(401);
    const r = await svc(['restore-workspace', ws.workspaceId, '--json'], childEnv(server.dbUrl));
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ workspaceId: ws.workspaceId, apiKey: { environment: 'test', role: 'full_access' } });
    const client = createClient({ baseUrl: server.url, keyId: out.apiKey.keyId, secret: out.apiKey.key });
    const got = await client.get(`/v1/workspaces/${ws.workspaceId}`);
    expect(got.json.data).toMatchObject({ archivedAt: null, mode: 'test' });
    expect((await eventsOf(client, 'workspace.restored')).map((e) => e.metadata.requestId)).toEqual(['cli']);
    // Not archived any more: a second restore fails cleanly.
    const again = await svc(['restore-workspace', ws.workspaceId], childEnv(server.dbUrl));
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('not archived');
  });

  it('the restore window on the injected clock: open until 90 days after the archive, closed after', async () => {
    const a = await server.workspace({ name: 'Window A' });
    const b = await server.workspace({ name: 'Window B' });
    // A merchant key cannot restore (platform-admin only), not even its own workspace.
    expectError(await b.client.post(`/v1/workspaces/${b.workspaceId}/restore`, {}), 403, 'insufficient_scope');
    for (const w of [a, b]) expect((await w.client.delete(`/v1/workspaces/${w.workspaceId}`)).status).toBe(204);
    // Signed requests use the real time, so the clock moves around the restore itself (the CLI's path).
    clock.advance(RETENTION_MS - 60_000);
    expect((await restoreWorkspaceFromCli(a.workspaceId)).workspaceId).toBe(a.workspaceId);
    clock.advance(120_000);
    await expect(restoreWorkspaceFromCli(b.workspaceId)).rejects.toMatchObject({ canonical: 'gone' });
    clock.reset();
    const { rows } = await db().system.query(
      `SELECT id, "archivedAt" FROM workspaces WHERE id = ANY($1) ORDER BY name`,
      [[a.workspaceId, b.workspaceId]],
    );
    expect(rows.map((r) => [r.id, r.archivedAt === null])).toEqual([
      [a.workspaceId, true],
      [b.workspaceId, false],
    ]);
  });

  it('the purge job deletes every row of a workspace archived more than 90 days ago, and nothing of others', async () => {
    const { partner, m, close } = await archivedWithEndpoints();
    await close();
    const keep = await server.workspace({ name: 'Kept' });
    await keep.client.post('/v1/customers', { name: 'stays' });
    const tables = (
      await db().system.query<{ t: string }>(
        `SELECT table_name AS t FROM information_schema.columns WHERE table_schema = current_schema()
           AND column_name = 'workspaceId' ORDER BY 1`,
      )
    ).rows.map((r) => r.t);
    const rowsOf = async (id: string) => {
      const out: Record<string, number> = {};
      for (const t of tables) {
        const { rows } = await db().system.query(`SELECT count(*)::int AS n FROM "${t}" WHERE "workspaceId" = $1`, [
          id,
        ]);
        if (rows[0].n) out[t] = rows[0].n;
      }
      return out;
    };
    const before = await rowsOf(m.id);
    expect(Object.keys(before)).toEqual(expect.arrayContaining(['events', 'members', 'webhook_endpoints']));
    const keptBefore = await rowsOf(keep.workspaceId);

    // Day 89: nothing yet.
    clock.advance(RETENTION_MS - DAY);
    expect(await purgeArchivedWorkspaces(clock.now())).not.toContain(m.id);
    clock.advance(2 * DAY);
    expect(await purgeArchivedWorkspaces(clock.now())).toContain(m.id);
    clock.reset();
    expect(await rowsOf(m.id)).toEqual({});
    expect(await rowsOf(keep.workspaceId)).toEqual(keptBefore);
    const { rows } = await db().system.query(`SELECT "purgedAt", slug FROM workspaces WHERE id = $1`, [m.id]);
    expect(rows[0].purgedAt).not.toBeNull();
    expectError(await partner.client.post(`/v1/workspaces/${m.id}/restore`, {}), 410, 'gone');
    // Purged once: the next run passes it by.
    clock.advance(RETENTION_MS + 3 * DAY);
    expect(await purgeArchivedWorkspaces(clock.now())).not.toContain(m.id);
  });

  it('money recorded after the archive (a late provider callback) keeps the workspace from the purge', async () => {
    const ws = await server.workspace({ name: 'Late Money' });
    expect((await ws.client.delete(`/v1/workspaces/${ws.workspaceId}`)).status).toBe(204);
    // A capture confirmed after the archive, as the callback path would post it (written as rows).
    const txId = newId('checkoutSession');
    // One statement: the ledger refuses an unbalanced transaction at commit.
    await db().system.query(
      `INSERT INTO ledger_entries (id, "workspaceId", mode, "txId", code, direction, amount, currency, "sourceType", "sourceId", "postedAt")
       VALUES ($1, $3, 'live', $4, 'settlement:provider_a', 'debit', 5000, 'IDR', 'checkout_session', $4, now()),
              ($2, $3, 'live', $4, 'payments', 'credit', 5000, 'IDR', 'checkout_session', $4, now())`,
      [newId('ledgerEntry'), newId('ledgerEntry'), ws.workspaceId, txId],
    );
    clock.advance(RETENTION_MS + DAY);
    expect(await purgeArchivedWorkspaces(clock.now())).not.toContain(ws.workspaceId);
    clock.reset();
    const { rows } = await db().system.query(
      `SELECT "purgedAt", (SELECT count(*)::int FROM events WHERE "workspaceId" = $1) AS events FROM workspaces WHERE id = $1`,
      [ws.workspaceId],
    );
    expect(rows[0].purgedAt).toBeNull();
    expect(rows[0].events).toBeGreaterThan(0);
  });

  it('a workspace with every kind of row (invoices, subscriptions, payments, ledger) purges whole', async () => {
    const ws = await server.workspace({ name: 'Busy' });
    const plan = (await postPlan(ws, planBody())).json.data;
    const cus = (await ws.client.post('/v1/customers', { name: 'Budi' })).json.data.id;
    const sub = await ws.client.post(
      '/v1/subscriptions',
      { customerId: cus, priceId: plan.prices[0].id, paymentMethod: 'pm_test_success' },
      key(),
    );
    expect(sub.status, sub.text).toBe(201);
    expect((await ws.client.delete(`/v1/workspaces/${ws.workspaceId}`)).status).toBe(204);
    const { rows: inv } = await db().system.query(`SELECT status FROM invoices WHERE "workspaceId" = $1`, [
      ws.workspaceId,
    ]);
    expect(inv.map((i) => i.status)).toContain('paid');
    clock.advance(RETENTION_MS + DAY);
    expect(await purgeArchivedWorkspaces(clock.now())).toContain(ws.workspaceId);
    clock.reset();
    for (const t of ['invoices', 'invoice_lines', 'subscriptions', 'payments', 'ledger_entries', 'events', 'plans']) {
      const { rows } = await db().system.query(`SELECT count(*)::int AS n FROM "${t}" WHERE "workspaceId" = $1`, [
        ws.workspaceId,
      ]);
      expect(rows[0].n, t).toBe(0);
    }
  });
});
