// The graph's edges (issue 14): batched, so a document costs a constant number of statements
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
    // customer (a Prisma transaction: 4), its payments, sessions and receipts, then refunds and receipt
    expect(r.statements).toBe(4 + 3 + 2);
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
});
