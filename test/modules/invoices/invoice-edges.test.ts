// Invoice's edges (docs/architecture.md, "Edges"): batched like every edge, so a page of invoices with
// customer, payments, receipt and lines costs the same statements for 2 invoices as for 6; and bound
// to the caller's tenant, so an invoice of A never reaches B's customer.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { countStatements } from '../../../src/core/db/statements.ts';
import { db, useServer, type Workspace } from '../../helpers/server.ts';

countStatements(true);
const server = useServer({ background: 'none' });

let A: Workspace;
let B: Workspace;

async function paidInvoices(ws: Workspace, n: number) {
  const customerId = (await ws.client.post('/v1/customers', { name: 'Sari', email: 'sari@example.com' })).json.data.id;
  for (let i = 0; i < n; i++) {
    const inv = await ws.client.post('/v1/invoices', {
      customerId,
      currency: 'IDR',
      status: 'open',
      lines: [{ description: `Month ${i}`, quantity: 1, unitAmount: 10000 + i }],
    });
    expect(inv.status, inv.text).toBe(201);
    const pay = await ws.client.post(`/v1/invoices/${inv.json.data.id}/pay`, {}, { 'idempotency-key': randomUUID() });
    expect(pay.status, pay.text).toBe(201);
  }
  return customerId as string;
}

const INVOICES = `query ($n: Int!) { invoices(first: $n) { edges { node {
  id number lines { id amount }
  customer { id email }
  payments { id amount invoiceId receipt { receiptId } }
  receipt { receiptId number }
} } } }`;

async function gql(ws: Workspace, n: number) {
  const res = await ws.client.graphql(INVOICES, { n });
  expect(res.json.errors, res.text).toBeUndefined();
  return {
    nodes: res.json.data.invoices.edges.map((e: any) => e.node),
    statements: Number(res.headers.get('x-svc-statements')),
  };
}

beforeAll(async () => {
  A = await server.workspace({ name: 'A' });
  B = await server.workspace({ name: 'B' });
  await paidInvoices(A, 6);
});

describe('Invoice edges', () => {
  it('a page of invoices with customer, payments (and their receipt), receipt and lines: 2 cost what 6 do', async () => {
    await gql(A, 1); // the key's first use reads it (then cached)
    const two = await gql(A, 2);
    const six = await gql(A, 6);
    expect(six.nodes).toHaveLength(6);
    for (const inv of six.nodes) {
      expect(inv.lines).toHaveLength(1);
      expect(inv.customer.email).toBe('sari@example.com');
      expect(inv.payments).toHaveLength(1);
      expect(inv.payments[0].invoiceId).toBe(inv.id);
      expect(inv.receipt?.receiptId).toBeTruthy();
      // A paid invoice's payment shows the invoice's one receipt.
      expect(inv.payments[0].receipt.receiptId).toBe(inv.receipt.receiptId);
    }
    expect(six.statements).toBe(two.statements);
    expect(six.statements).toBeGreaterThan(0);
  });

  it("an invoice of A pointed at B's customer shows no customer", async () => {
    const bCustomer = (await B.client.post('/v1/customers', { name: 'Other' })).json.data.id;
    const { nodes } = await gql(A, 1);
    // Point A's invoice at B's customer as the owner (bypassing the composite foreign key).
    await db().system.query('ALTER TABLE invoices DISABLE TRIGGER ALL');
    try {
      await db().system.query('UPDATE invoices SET "customerId" = $1 WHERE id = $2', [bCustomer, nodes[0].id]);
      const after = await gql(A, 1);
      expect(after.nodes[0].id).toBe(nodes[0].id);
      expect(after.nodes[0].customer).toBeNull();
    } finally {
      await db().system.query('ALTER TABLE invoices ENABLE TRIGGER ALL');
    }
  });
});
