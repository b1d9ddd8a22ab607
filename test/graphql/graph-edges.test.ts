// The graph's edges: batched, so a document costs a constant number of statements
// whatever its rows; and tenant-bound, so no edge from a record of workspace A (in either mode)
// reaches B's records or A's other mode, even where a column points there.
import { beforeAll, describe, expect, it } from 'vitest';
import { countStatements } from '../../src/core/db/statements.ts';
import { useServer, createClient, db, type Workspace } from '../helpers/server.ts';
import { mintKey } from '../helpers/keys.ts';
import { seedGraph } from '../helpers/graph-seed.ts';

countStatements(true);
const server = useServer({ background: 'none' });

type Mode = 'test' | 'live';
let A: Workspace;
let B: Workspace;
const clients = {} as Record<`${'A' | 'B'}${Mode}`, Workspace['client']>;

async function gql(client: Workspace['client'], query: string, variables?: Record<string, unknown>) {
  const res = await client.graphql(query, variables);
  expect(res.status, res.text).toBe(200);
  expect(res.json.errors, res.text).toBeUndefined();
  return { data: res.json.data, statements: Number(res.headers.get('x-svc-statements')) };
}

beforeAll(async () => {
  A = await server.workspace({ name: 'A', environment: 'test' });
  B = await server.workspace({ name: 'B', environment: 'test' });
  for (const [name, ws] of [
    ['A', A],
    ['B', B],
  ] as const) {
    clients[`${name}test`] = ws.client;
    const live = await mintKey(ws.workspaceId, 'live');
    clients[`${name}live`] = createClient({ baseUrl: server.url, keyId: live.keyId, secret: live.secret });
    for (const mode of ['test', 'live'] as const)
      await seedGraph(db().system, {
        workspaceId: ws.workspaceId,
        mode,
        tag: `${name.toLowerCase()}${mode}`,
        customers: 6,
        paymentsPerCustomer: 10,
        refundEvery: 2,
        ledger: true,
      });
  }
});

const PAYMENTS = `query ($n: Int!) {
  payments(first: $n) { edges { node {
    id amount
    customer { id email }
    refunds { edges { node { id amount payment { id } } } }
    receipt { receiptId number payment { id } }
    checkoutSession { id status customer { id } }
    ledgerEntries { id amount }
  } } }
}`;

describe('no N+1: statements per request do not grow with rows', () => {
  it('50 payments with customer, refunds, receipt, session and entries cost what 5 do', async () => {
    await gql(A.client, PAYMENTS, { n: 1 }); // the key's first use reads it (then cached 2 s)
    const five = await gql(A.client, PAYMENTS, { n: 5 });
    const fifty = await gql(A.client, PAYMENTS, { n: 50 });
    const rows = fifty.data.payments.edges.map((e: { node: any }) => e.node);
    expect(rows).toHaveLength(50);
    expect(rows.filter((p: any) => p.refunds.edges.length === 1)).toHaveLength(25);
    expect(rows.every((p: any) => p.customer && p.receipt?.payment.id === p.id && p.ledgerEntries.length === 2)).toBe(
      true,
    );
    expect(fifty.statements).toBe(five.statements);
    // The key comes from its 2 s cache. The list: a Prisma transaction (BEGIN, scope, SELECT, COMMIT).
    // Then one statement per edge of the document: customer, refunds, receipt, checkoutSession,
    // ledgerEntries, and below them refunds.payment, receipt.payment, checkoutSession.customer.
    expect(fifty.statements).toBe(4 + 5 + 3);
  });

  it('a customer page: the customer, its last 20 payments with refunds and receipt, its sessions', async () => {
    const doc = `query ($id: ID!) { customer(id: $id) { id name
      payments(first: 20) { edges { node { id refunds { edges { node { id } } } receipt { receiptId } } } }
      checkoutSessions(first: 20) { edges { node { id status } } }
      receipts { edges { node { id } } } } }`;
    const r = await gql(A.client, doc, { id: 'cus_atest_1' });
    expect(r.data.customer.payments.edges).toHaveLength(10);
    expect(r.data.customer.checkoutSessions.edges).toHaveLength(10);
    expect(r.data.customer.receipts.edges).toHaveLength(10);
    // customer (one statement on the raw path), its payments, sessions and receipts, then refunds and receipt
    expect(r.statements).toBe(1 + 3 + 2);
  });

  it('a list of customers, each with its payments: one statement for every customer page', async () => {
    const doc = `query ($n: Int!) { customers(first: $n) { edges { node { id
      payments(first: 3) { edges { node { id customer { id } } } } } } } }`;
    const two = await gql(A.client, doc, { n: 2 });
    const six = await gql(A.client, doc, { n: 6 });
    expect(six.data.customers.edges).toHaveLength(6);
    for (const { node } of six.data.customers.edges) {
      expect(node.payments.edges).toHaveLength(3);
      for (const p of node.payments.edges) expect(p.node.customer.id).toBe(node.id);
    }
    expect(six.statements).toBe(two.statements);
  });

  it('a list of customers with their balances and saved methods: one statement per edge, whatever the rows', async () => {
    const doc = `query ($n: Int!) { customers(first: $n) { edges { node { id
      balance { customerId balances { currency amount } }
      paymentMethods(first: 3) { edges { node { id } } } } } } }`;
    const customers = (await gql(A.client, doc, { n: 6 })).data.customers.edges.map(
      (e: { node: { id: string } }) => e.node.id,
    );
    // Credit on two of them, in two currencies for one.
    const credit = (cus: string, amount: number, currency: string) =>
      A.client.post(
        `/v1/customers/${cus}/balance-transactions`,
        { amount, currency },
        { 'idempotency-key': `${cus}-${currency}` },
      );
    expect((await credit(customers[0], 5000, 'IDR')).status).toBe(201);
    expect((await credit(customers[0], 700, 'USD')).status).toBe(201);
    expect((await credit(customers[3], 9000, 'IDR')).status).toBe(201);
    const two = await gql(A.client, doc, { n: 2 });
    const six = await gql(A.client, doc, { n: 6 });
    expect(six.statements).toBe(two.statements);
    const byId = new Map(
      six.data.customers.edges.map((e: { node: { id: string; balance: unknown } }) => [e.node.id, e.node.balance]),
    );
    expect(byId.get(customers[0])).toEqual({
      customerId: customers[0],
      balances: [
        { currency: 'IDR', amount: 5000 },
        { currency: 'USD', amount: 700 },
      ],
    });
    expect(byId.get(customers[3])).toEqual({ customerId: customers[3], balances: [{ currency: 'IDR', amount: 9000 }] });
    expect(byId.get(customers[1])).toEqual({ customerId: customers[1], balances: [] });
  });
});

/**
 * Rows of A (in mode M) whose columns point at B's rows of M and at A's rows of the other mode,
 * written with foreign keys off (`session_replication_role = replica`): the database would refuse
 * them, so only the edges' own tenant filter and RLS stand between them and the answer.
 */
async function hostileGraph(mode: Mode) {
  const other: Mode = mode === 'test' ? 'live' : 'test';
  const own = `xa${mode}`;
  const foreign = [`xb${mode}`, `xa${other}`];
  const c = await db().system.connect();
  try {
    await c.query(`SET session_replication_role = replica`);
    // Foreign rows are taken from a donor customer per pass (3 for test, 4 for live), so one pass
    // never rewires the rows the other asserts on.
    const d = mode === 'test' ? 3 : 4;
    for (const [k, F] of foreign.entries()) {
      const n = k + 1; // A's customer n is aimed at the k-th foreign tenant
      const run = (text: string, ...values: string[]) => c.query(text, values);
      await run(
        `UPDATE payments SET "customerId" = $1, "checkoutSessionId" = $2 WHERE id = $3`,
        `cus_${F}_${d}`,
        `cs_${F}_${d}_1`,
        `pay_${own}_${n}_1`,
      );
      await run(`UPDATE refunds SET "paymentId" = $1 WHERE id = $2`, `pay_${own}_${n}_2`, `rf_${F}_${d}_2`);
      await run(`UPDATE refunds SET "paymentId" = $1 WHERE id = $2`, `pay_${F}_${d}_1`, `rf_${own}_${n}_4`);
      await run(
        `UPDATE checkout_sessions SET "paymentId" = $1, "customerId" = $2 WHERE id = $3`,
        `pay_${F}_${d}_1`,
        `cus_${F}_${d}`,
        `cs_${own}_${n}_2`,
      );
      await run(`DELETE FROM receipts WHERE id = $1`, `rcpt_${own}_${n}_2`);
      await run(`UPDATE receipts SET "sourceId" = $1 WHERE id = $2`, `cs_${own}_${n}_2`, `rcpt_${F}_${d}_2`);
      await run(`UPDATE receipts SET "paymentId" = $1 WHERE id = $2`, `pay_${F}_${d}_1`, `rcpt_${own}_${n}_3`);
      for (const [table, kind] of [
        ['payments', 'pay'],
        ['checkout_sessions', 'cs'],
        ['receipts', 'rcpt'],
      ])
        await run(`UPDATE ${table} SET "customerId" = $1 WHERE id = $2`, `cus_${own}_${n}`, `${kind}_${F}_${d}_3`);
      await run(
        `UPDATE ledger_entries SET "sourceId" = $1 WHERE "sourceId" = $2`,
        `cs_${own}_${n}_4`,
        `cs_${F}_${d}_4`,
      );
    }
  } finally {
    await c.query(`RESET session_replication_role`);
    c.release();
  }
}

/** Every `id`-like string of an answer (ids, receiptId, sourceId): what it let the caller see. */
function idsIn(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) idsIn(v, out);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      if (typeof v === 'string' && /^(id|receiptId|sourceId)$/.test(k)) out.push(v);
      else idsIn(v, out);
    }
  return out;
}

const CUSTOMER_GRAPH = `query ($a: ID!, $b: ID!, $p1: ID!, $p2: ID!) {
  c1: customer(id: $a) { ...graph }
  c2: customer(id: $b) { ...graph }
  p1: payment(id: $p1) { ...payment }
  p2: payment(id: $p2) { ...payment }
}
fragment payment on Payment {
  id
  customer { id }
  checkoutSession { id payment { id } customer { id } receipt { receiptId } }
  refunds { edges { node { id payment { id } } } }
  receipt { receiptId payment { id } }
  ledgerEntries { id sourceId }
}
fragment graph on Customer {
  id
  payments { edges { node { ...payment } } }
  checkoutSessions { edges { node { id payment { id } customer { id } receipt { receiptId } } } }
  receipts { edges { node { id payment { id } } } }
}`;

describe('tenant isolation: no edge from A reaches B or A in the other mode', () => {
  beforeAll(async () => {
    for (const [name, ws] of [
      ['a', A],
      ['b', B],
    ] as const)
      for (const mode of ['test', 'live'] as const)
        await seedGraph(db().system, {
          workspaceId: ws.workspaceId,
          mode,
          tag: `x${name}${mode}`,
          customers: 4,
          paymentsPerCustomer: 4,
          refundEvery: 2,
          ledger: true,
        });
    await hostileGraph('test');
    await hostileGraph('live');
  });

  for (const mode of ['test', 'live'] as const) {
    it(`customers, payments, sessions, refunds, receipts, ledger entries (${mode})`, async () => {
      const own = `xa${mode}`;
      const { data } = await gql(clients[`A${mode}`], CUSTOMER_GRAPH, {
        a: `cus_${own}_1`,
        b: `cus_${own}_2`,
        p1: `pay_${own}_1_1`,
        p2: `pay_${own}_2_1`,
      });
      const ids = idsIn(data);
      expect(ids.length).toBeGreaterThan(60);
      for (const id of ids) expect(id).toMatch(new RegExp(`^[a-z]+_${own}_`));
      for (const [c, p1] of [
        [data.c1, data.p1],
        [data.c2, data.p2],
      ]) {
        const n = c.id.slice(-1);
        const pay = (i: number) => c.payments.edges.find((e: any) => e.node.id === `pay_${own}_${n}_${i}`).node;
        // pointed at the other tenant: nothing there
        expect(p1).toMatchObject({ customer: null, checkoutSession: null, receipt: null, ledgerEntries: [] });
        expect(pay(2).refunds.edges.map((e: any) => e.node.id)).toEqual([`rf_${own}_${n}_2`]);
        expect(pay(3).receipt).toMatchObject({ payment: null });
        expect(pay(4).refunds.edges).toEqual([]);
        expect(pay(4).ledgerEntries).toHaveLength(2);
        expect(pay(2).checkoutSession).toEqual({
          id: `cs_${own}_${n}_2`,
          payment: null,
          customer: null,
          receipt: null,
        });
        // its own rows, and not the foreign ones aimed at it
        expect(c.payments.edges).toHaveLength(3);
        expect(c.checkoutSessions.edges).toHaveLength(3);
        expect(c.receipts.edges).toHaveLength(3);
      }
      // every other edge still resolves on rows that point home
      expect(data.c1.payments.edges.find((e: any) => e.node.id === `pay_${own}_1_4`).node.customer).toEqual({
        id: `cus_${own}_1`,
      });
    });
  }
});

/** Webhook endpoints, deliveries, events and payouts of one tenant (tag `<kind>_<tag>_<n>`), by SQL. */
async function seedOps(workspaceId: string, mode: Mode, tag: string) {
  const q = (text: string, ...values: unknown[]) => db().system.query(text, values);
  await q(
    `INSERT INTO webhook_endpoints (id, "workspaceId", mode, url, events, status, secret, "createdAt", "updatedAt")
     VALUES ($1, $2, $3, 'https://hooks.example/in', '{*}', 'active', '\\x00', now(), now())`,
    `whep_${tag}_1`,
    workspaceId,
    mode,
  );
  for (const n of [1, 2])
    await q(
      `INSERT INTO events (id, "workspaceId", mode, type, "objectId", sequence, "occurredAt", data, metadata)
       VALUES ($1, $2, $3, 'payment.succeeded', $4, 1, now(), '{}', '{}')`,
      `evt_${tag}_${n}`,
      workspaceId,
      mode,
      `pay_${tag}_1_${n}`,
    );
  // deliveries 3 and 4, payouts 2 and 3: donors, aimed at another tenant by the test and the live pass
  for (const n of [1, 2, 3, 4])
    await q(
      `INSERT INTO webhook_deliveries (id, "workspaceId", mode, "endpointId", "eventId", "eventType", status, "createdAt")
       VALUES ($1, $2, $3, $4, $5, 'payment.succeeded', 'succeeded', now())`,
      `whdel_${tag}_${n}`,
      workspaceId,
      mode,
      `whep_${tag}_1`,
      `evt_${tag}_${Math.min(n, 2)}`,
    );
  for (const n of [1, 2, 3]) {
    await q(
      `INSERT INTO payouts (id, "workspaceId", mode, amount, currency, status, method, "bankName", "bankAccountNumber",
       "bankAccountHolder", trigger, "createdAt", "updatedAt")
     VALUES ($1, $2, $3, 500, 'IDR', 'pending', 'manual', 'Bank', '123', 'Holder', 'api', now(), now())`,
      `po_${tag}_${n}`,
      workspaceId,
      mode,
    );
    await q(
      `INSERT INTO ledger_entries (id, "workspaceId", mode, "txId", code, direction, amount, currency, "sourceType",
       "sourceId", "postedAt")
     SELECT $1 || '_' || d, $2, $3, $1, CASE d WHEN 'debit' THEN 'payout' ELSE 'payments' END, d, 500, 'IDR',
       'payout', $4, now()
     FROM unnest('{debit,credit}'::text[]) d`,
      `le_${tag}_po${n}`,
      workspaceId,
      mode,
      `po_${tag}_${n}`,
    );
  }
}

const OPS_GRAPH = `{
  me { mode workspaceId apiKey { id } workspace { id
    apiKeys { edges { node { id environment } } }
    webhookEndpoints { edges { node { id } } }
    adapters { __typename } } }
  webhookEndpoints(first: 5) { edges { node { id deliveries { edges { node { id
    event { id object { __typename ... on Payment { id } } }
    endpoint { id } } } } } } }
  events(first: 30) { edges { node { id mode object { __typename ... on Payment { id } } } } }
  payouts { edges { node { id ledgerEntries { id sourceId } } } }
}`;

describe('tenant isolation: webhooks, events, payouts, the workspace and the viewer', () => {
  beforeAll(async () => {
    for (const [name, ws] of [
      ['a', A],
      ['b', B],
    ] as const)
      for (const mode of ['test', 'live'] as const) await seedOps(ws.workspaceId, mode, `x${name}${mode}`);
    const c = await db().system.connect();
    try {
      await c.query(`SET session_replication_role = replica`);
      for (const mode of ['test', 'live'] as const) {
        const own = `xa${mode}`;
        const d = mode === 'test' ? 0 : 1;
        for (const F of [`xb${mode}`, `xa${mode === 'test' ? 'live' : 'test'}`]) {
          // foreign deliveries, entries aimed at A's endpoint and payout
          const delivery = `whdel_${F}_${3 + d}`;
          await c.query(`UPDATE webhook_deliveries SET "endpointId" = $1 WHERE id = $2`, [`whep_${own}_1`, delivery]);
          await c.query(`UPDATE ledger_entries SET "sourceId" = $1 WHERE "sourceId" = $2`, [
            `po_${own}_1`,
            `po_${F}_${2 + d}`,
          ]);
        }
        // A's own delivery and event aimed at B's event and payment
        await c.query(`UPDATE webhook_deliveries SET "eventId" = $1 WHERE id = $2`, [
          `evt_xb${mode}_1`,
          `whdel_${own}_2`,
        ]);
        await c.query(`UPDATE events SET "objectId" = $1 WHERE id = $2`, [`pay_xb${mode}_1_1`, `evt_${own}_2`]);
      }
    } finally {
      await c.query(`RESET session_replication_role`);
      c.release();
    }
  });

  for (const mode of ['test', 'live'] as const) {
    it(`every edge stays in A's ${mode} mode`, async () => {
      const own = `xa${mode}`;
      const { data } = await gql(clients[`A${mode}`], OPS_GRAPH);
      expect(data.me).toMatchObject({ mode, workspaceId: A.workspaceId, workspace: { id: A.workspaceId } });
      expect(data.me.apiKey.id).toMatch(/^akey_/);
      // API key administration sees both environments' keys (spec), of A only
      const keys = await gql(clients[`A${mode}`], `{ apiKeys { edges { node { id } } } }`);
      expect(data.me.workspace.apiKeys.edges.map((e: any) => e.node.id).sort()).toEqual(
        keys.data.apiKeys.edges.map((e: any) => e.node.id).sort(),
      );
      expect(data.me.workspace.apiKeys.edges).toHaveLength(2);
      expect(data.me.workspace.webhookEndpoints.edges).toEqual([{ node: { id: `whep_${own}_1` } }]);
      const [endpoint] = data.webhookEndpoints.edges.map((e: any) => e.node);
      expect(endpoint.deliveries.edges.map((e: any) => e.node)).toEqual(
        expect.arrayContaining([
          {
            id: `whdel_${own}_1`,
            event: { id: `evt_${own}_1`, object: { __typename: 'Payment', id: `pay_${own}_1_1` } },
            endpoint: { id: `whep_${own}_1` },
          },
          { id: `whdel_${own}_2`, event: null, endpoint: { id: `whep_${own}_1` } },
        ]),
      );
      expect(endpoint.deliveries.edges).toHaveLength(3); // 4 seeded, one lent to the other mode's pass
      const events = data.events.edges.map((e: any) => e.node);
      expect(events.find((e: any) => e.id === `evt_${own}_1`).object).toEqual({
        __typename: 'Payment',
        id: `pay_${own}_1_1`,
      });
      expect(events.find((e: any) => e.id === `evt_${own}_2`).object).toBeNull();
      // a test key reads live events too (spec); their objects are not reachable from test mode
      for (const e of events) if (e.mode !== mode) expect(e.object).toBeNull();
      const payout = data.payouts.edges.find((e: any) => e.node.id === `po_${own}_1`).node;
      expect(payout.ledgerEntries.map((e: any) => e.id).sort()).toEqual([
        `le_${own}_po1_credit`,
        `le_${own}_po1_debit`,
      ]);
      for (const id of idsIn(data)) expect(id).not.toMatch(/_xb|_b(test|live)_/);
    });
  }

  it("a partner's list of merchants does not read their lists through the partner's scope", async () => {
    const partner = await server.workspace({ name: 'P', platformAdmin: true });
    const merchant = await partner.client.post('/v1/workspaces', { name: 'M' });
    expect(merchant.status, merchant.text).toBe(201);
    const { data } = await gql(
      partner.client,
      `{ workspaces { edges { node { id apiKeys { edges { node { id } } } adapters { __typename }
         members { edges { node { id } } } } } } }`,
    );
    const nodes = data.workspaces.edges.map((e: any) => e.node);
    expect(nodes.map((n: any) => n.id)).toContain(merchant.json.data.id);
    for (const n of nodes)
      if (n.id !== partner.workspaceId) expect(n).toMatchObject({ apiKeys: null, adapters: null, members: null });
  });
});

describe('document cost over HTTP', () => {
  it('a document over the maximum is refused before it runs, with its cost', async () => {
    const doc = `{ customers(first: 100) { edges { node { id payments(first: 100) { edges { node { id } } } } } } }`;
    await gql(A.client, '{ me { mode } }'); // the key is cached: what follows reads nothing to authenticate
    const res = await A.client.graphql(doc);
    expect(res.status, res.text).toBe(400);
    expect(res.json.errors?.[0].extensions).toEqual({
      code: 'validation_error',
      field: 'query',
      cost: 10_100,
      maxCost: 10_000,
    });
    expect(res.headers.get('x-svc-statements')).toBe('0');
    // the same document within the maximum runs
    const ok = await gql(
      A.client,
      doc.replace(
        'first: 100) { edges { node { id payments(first: 100',
        'first: 10) { edges { node { id payments(first: 100',
      ),
    );
    expect(ok.data.customers.edges.length).toBeGreaterThan(0);
  });
});

describe('connection edges are the REST lists, bound to their parent', () => {
  it('Customer.payments pages like GET /v1/payments?customerId=, filters included; a cursor stays with its customer', async () => {
    const rest = await A.client.get('/v1/payments?customerId=cus_atest_2&limit=4');
    expect(rest.status, rest.text).toBe(200);
    const doc = `query ($id: ID!, $after: String, $status: String) { customer(id: $id) {
      payments(first: 4, after: $after, status: $status) { pageInfo { hasNextPage endCursor } edges { node { id status } } } } }`;
    const page1 = (await gql(A.client, doc, { id: 'cus_atest_2' })).data.customer.payments;
    expect(page1.edges.map((e: any) => e.node.id)).toEqual(rest.json.data.map((p: any) => p.id));
    expect(page1.pageInfo.hasNextPage).toBe(true);
    const page2 = (await gql(A.client, doc, { id: 'cus_atest_2', after: page1.pageInfo.endCursor })).data.customer
      .payments;
    expect(page2.edges.map((e: any) => e.node.id)).toEqual(
      [5, 6, 7, 8].map((n) => `pay_atest_2_${n}`), // newest first: n = 1 is the newest
    );
    const refunded = (await gql(A.client, doc, { id: 'cus_atest_2', status: 'partially_refunded' })).data.customer
      .payments;
    expect(refunded.edges.map((e: any) => e.node.status)).toEqual(Array(4).fill('partially_refunded'));
    // the cursor of customer 2 on customer 3's payments: refused, as a cursor under other filters is
    const other = await A.client.graphql(doc, { id: 'cus_atest_3', after: page1.pageInfo.endCursor });
    expect(other.json.errors?.[0].extensions.code, other.text).toBe('invalid_cursor');
    // bad arguments answer as the REST list does
    const bad = await A.client.graphql('{ payment(id: "pay_atest_1_2") { refunds(status: "nope") { limit } } }');
    const restBad = await A.client.get('/v1/refunds?status=nope');
    expect(restBad.status).toBe(400);
    expect(bad.json.errors?.[0].extensions).toEqual({ code: restBad.json.error.code, field: 'status' });
  });
});
