// Partners (spec Authentication: X-Svc-On-Behalf-Of; Workspaces list and create): a platform-admin
// key lists and provisions its merchants, and acts on them; never on another partner's merchant.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createClient, db, useServer, type Workspace } from '../../helpers/server.ts';
import { sandboxPayment } from '../../helpers/payments.ts';
import { planBody, postPlan } from '../../helpers/plans.ts';
import { routes } from '../../../rest-compat/routes.ts';
import { downloadRoutes } from '../../../src/server/downloads.ts';
import { signRequest } from '../../../src/core/auth/signing.ts';
import { newId, type IdKind } from '../../../src/core/ids.ts';

const server = useServer();
const key = () => ({ 'idempotency-key': randomUUID() });
const onBehalf = (p: Workspace, accountId: string) =>
  createClient({ baseUrl: server.url, keyId: p.keyId, secret: p.secret, onBehalfOf: accountId });
const ids = (res: { json: any }) => (res.json.data as { id: string }[]).map((w) => w.id);

describe('a partner lists and provisions its merchants', () => {
  it('mode and archived filters, keyset pages newest first, nothing of other partners', async () => {
    const partner = await server.workspace({ name: 'Partner', platformAdmin: true });
    const rival = await server.workspace({ name: 'Rival', platformAdmin: true });
    const made: any[] = [];
    for (const n of [1, 2, 3, 4, 5]) {
      const res = await partner.client.post(
        '/v1/workspaces',
        { name: `Merchant ${n}`, businessEmail: `m${n}@x.example` },
        key(),
      );
      expect(res.status).toBe(201);
      made.push(res.json.data);
    }
    await rival.client.post('/v1/workspaces', { name: 'Rival merchant' }, key());
    // Merchant 2 goes live, merchant 4 is archived.
    const m2 = onBehalf(partner, made[1].accountId);
    expect((await m2.put('/v1/adapters/manual', { bankAccounts: [] }, key())).status).toBe(200);
    expect((await m2.post(`/v1/workspaces/${made[1].id}/activate`, {})).json.data.mode).toBe('live');
    expect((await onBehalf(partner, made[3].accountId).delete(`/v1/workspaces/${made[3].id}`)).status).toBe(204);

    const newestFirst = [...made].reverse().map((m) => m.id);
    expect(ids(await partner.client.get('/v1/workspaces'))).toEqual(newestFirst.filter((id) => id !== made[3].id));
    expect(ids(await partner.client.get('/v1/workspaces?mode=live'))).toEqual([made[1].id]);
    expect(ids(await partner.client.get('/v1/workspaces?mode=test'))).toEqual(
      newestFirst.filter((id) => id !== made[3].id && id !== made[1].id),
    );
    expect(ids(await partner.client.get('/v1/workspaces?archived=true'))).toEqual([made[3].id]);
    expect((await partner.client.get('/v1/workspaces?mode=sandbox')).json.error).toMatchObject({
      code: 'validation_error',
      field: 'mode',
    });

    // Keyset pages of 2: every active merchant once, in order; the cursor is bound to its filters.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await partner.client.get(
        `/v1/workspaces?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(page.status).toBe(200);
      expect(page.json.data.length).toBeLessThanOrEqual(2);
      seen.push(...ids(page));
      cursor = page.json.meta.page.nextCursor;
      if (cursor) {
        const changed = await partner.client.get(
          `/v1/workspaces?limit=2&mode=live&cursor=${encodeURIComponent(cursor)}`,
        );
        expect(changed.json.error.code).toBe('invalid_cursor');
      }
    } while (cursor);
    expect(seen).toEqual(newestFirst.filter((id) => id !== made[3].id));
    // GraphQL: the same list as a connection with the same filters.
    const gql = await partner.client.graphql('query { workspaces(mode: "live") { edges { node { id mode } } } }');
    expect(gql.json.data.workspaces.edges).toEqual([{ node: { id: made[1].id, mode: 'live' } }]);
    // The rival sees only its own merchant.
    expect((await rival.client.get('/v1/workspaces')).json.data.map((w: any) => w.name)).toEqual(['Rival merchant']);
  });
});

describe('X-Svc-On-Behalf-Of a merchant of another partner', () => {
  /** A merchant of partner A with data of every kind it is easy to make. */
  async function merchantWithData() {
    const a = await server.workspace({ name: 'Partner A', platformAdmin: true });
    const m = (await a.client.post('/v1/workspaces', { name: 'Secret Merchant' }, key())).json.data;
    const client = onBehalf(a, m.accountId);
    const ws = { ...a, workspaceId: m.id, accountId: m.accountId, client } as Workspace;
    await client.post('/v1/customers', { name: 'Secret Customer', email: 'secret@customer.example' });
    await sandboxPayment(server, ws, { amount: 77777 });
    await client.post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/secret' });
    const plan = (await postPlan(ws, planBody({ name: 'Secret Plan' }))).json.data;
    const cus = (await client.post('/v1/customers', { name: 'Subscriber' })).json.data.id;
    const sub = await client.post(
      '/v1/subscriptions',
      { customerId: cus, priceId: plan.prices[0].id, paymentMethod: 'pm_test_success' },
      key(),
    );
    expect(sub.status, sub.text).toBe(201);
    return { a, m, client };
  }

  /** The merchant's own ids, by the path segment that names them (a made-up id where it has none). */
  const tables: Record<string, [IdKind, string]> = {
    'api-keys': ['apiKey', 'api_keys'],
    'checkout-sessions': ['checkoutSession', 'checkout_sessions'],
    payments: ['payment', 'payments'],
    payouts: ['payout', 'payouts'],
    invoices: ['invoice', 'invoices'],
    lines: ['invoiceLine', 'invoice_lines'],
    plans: ['plan', 'plans'],
    prices: ['price', 'prices'],
    refunds: ['refund', 'refunds'],
    receipts: ['receipt', 'receipts'],
    ledger: ['ledgerEntry', 'ledger_entries'],
    'webhook-endpoints': ['webhookEndpoint', 'webhook_endpoints'],
    deliveries: ['webhookDelivery', 'webhook_deliveries'],
    events: ['event', 'events'],
    customers: ['customer', 'customers'],
    templates: ['template', 'templates'],
    members: ['member', 'members'],
    'dunning-policies': ['dunningPolicy', 'dunning_policies'],
    subscriptions: ['subscription', 'subscriptions'],
    'test-clocks': ['testClock', 'test_clocks'],
  };
  async function pathOf(path: string, m: { id: string }) {
    const parts = path.split('/');
    const out: string[] = [];
    for (const [i, p] of parts.entries()) {
      if (!p.startsWith(':')) {
        out.push(p);
        continue;
      }
      const seg = parts[i - 1];
      if (seg === 'workspaces') {
        out.push(m.id);
        continue;
      }
      const t = tables[seg];
      const { rows } = t
        ? await db().system.query(`SELECT id FROM ${t[1]} WHERE "workspaceId" = $1 LIMIT 1`, [m.id])
        : { rows: [] };
      out.push(rows[0]?.id ?? (t ? newId(t[0]) : 'x'));
    }
    return out.join('/');
  }

  it('every route answers 404 or 403 with no data, and nothing of the merchant leaks', async () => {
    const { m, client: own } = await merchantWithData();
    const b = await server.workspace({ name: 'Partner B', platformAdmin: true });
    const secrets = [m.id, 'Secret Merchant', 'Secret Customer', 'secret@customer.example', 'Secret Plan', '77777'];

    const walked = [
      ...routes.map((r) => ({ method: r.method as string, path: r.path })),
      ...downloadRoutes.filter((r) => r.auth === 'key').map((r) => ({ method: r.method as string, path: r.url })),
    ];
    expect(walked.length).toBeGreaterThan(50);
    let positives = 0;
    for (const r of walked) {
      const target = await pathOf(r.path, m);
      const body = r.method === 'GET' || r.method === 'DELETE' ? undefined : '{}';
      const send = async (k: Workspace) => {
        const signed = signRequest({ keyId: k.keyId, secret: k.secret, method: r.method, target, body: body ?? '' });
        const res = await fetch(server.url + target, {
          method: r.method,
          headers: {
            ...signed,
            'x-svc-on-behalf-of': m.accountId,
            'idempotency-key': randomUUID(),
            ...(body ? { 'content-type': 'application/json' } : {}),
          },
          body,
        });
        return { status: res.status, text: await res.text() };
      };
      const res = await send(b);
      const what = `${r.method} ${target}: ${res.status} ${res.text.slice(0, 200)}`;
      expect([403, 404], what).toContain(res.status);
      expect(JSON.parse(res.text).data, what).toBeNull();
      for (const s of secrets) expect(res.text, what).not.toContain(s);
      // Control: the merchant's own partner reads the same GET (the path has the merchant's real ids).
      // (a redirect to the hosted base, which no server answers here, is not counted)
      if (r.method === 'GET' && (await own.get(target).catch(() => ({ status: 0 }))).status === 200) positives++;
    }
    expect(positives).toBeGreaterThan(20);
    const { rows } = await db().system.query(`SELECT count(*)::int AS n FROM workspaces WHERE "partnerId" = $1`, [
      b.workspaceId,
    ]);
    expect(rows[0].n).toBe(0);

    // GraphQL and the event socket's REST twin: the same answer.
    const gql = await onBehalf(b, m.accountId).graphql(`query { workspace(id: "${m.id}") { id name } }`);
    expect(gql.json.errors![0].extensions.code).toBe('not_found');
    expect(JSON.stringify(gql.json)).not.toContain('Secret Merchant');
  });
});
