// Each exception category raised by a run from a small file, over HTTP with the in-process worker; another
// workspace's objects are never matched; the claim index refuses an object claimed twice.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { sandboxPayment } from '../../helpers/payments.ts';
import { db, useServer, type Workspace } from '../../helpers/server.ts';
import { bankFile, listAll, manualRun, providerFile, uploadAndRun } from './run-helpers.ts';

const server = useServer({ background: 'worker' });
const ADAPTER = 'provider_a_platform';
const day = (offset = 0) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const query = `/v1/reconciliation/imports?source=provider_report&adapter=${ADAPTER}`;

describe('exceptions a run opens', () => {
  let ws: Workspace;
  const pays: Record<string, string> = {};
  let foreign: string;
  let run: any;
  let exceptions: any[];

  beforeAll(async () => {
    ws = await server.workspace();
    const other = await server.workspace({ name: 'Other' });
    for (const k of ['amount', 'fee', 'currency', 'duplicate', 'missing'])
      pays[k] = (await sandboxPayment(server, ws, { amount: 100000, method: 'card' })).id;
    foreign = (await sandboxPayment(server, other, { amount: 100000, method: 'card' })).id;
    const rules = [{ adapter: ADAPTER, method: null, currency: 'IDR', percent: 1, fixed: 0 }];
    const patched = await ws.client.patch('/v1/reconciliation/settings', { feeRules: rules });
    expect(patched.status, patched.text).toBe(200);
    const at = new Date().toISOString();
    const line = (id: string, ref: string, amount: number, fee: number, currency = 'IDR', settlement = 'S-2') =>
      `${id},payment,${ref},,${at},${currency},${amount},${fee},0,0,${amount - fee},${settlement},${day()},card,`;
    const file = providerFile([
      line('t1', pays.amount, 90000, 900),
      line('t2', pays.fee, 100000, 1500),
      line('t3', pays.currency, 100000, 1000, 'USD'),
      line('t4', pays.duplicate, 100000, 1000, 'IDR', 'L-1').replace(`,${day()},`, `,${day(-10)},`),
      line('t5', pays.duplicate, 100000, 1000),
      line('t6', foreign, 100000, 1000),
      line('t7', 'ORDER-77', 100000, 1000),
      `t8,adjustment,,,${at},IDR,-2500,0,0,0,-2500,S-2,${day()},,`,
    ]);
    run = (await uploadAndRun(server, ws, query, file)).run;
    exceptions = await listAll(ws, `/v1/reconciliation/exceptions?runId=${run.id}`);
  });

  const find = (category: string, objectId?: string) =>
    exceptions.filter((e) => e.category === category && (objectId === undefined || e.objectId === objectId));

  it('amount_mismatch, fee_mismatch and currency_mismatch name the object and its row', () => {
    expect(find('amount_mismatch', pays.amount)[0]).toMatchObject({
      expectedAmount: 100000,
      actualAmount: 90000,
      difference: -10000,
      status: 'open',
      objectType: 'payment',
    });
    expect(find('fee_mismatch', pays.fee)[0]).toMatchObject({
      expectedAmount: 1000,
      actualAmount: 1500,
      difference: 500,
      details: { component: 'fee', source: 'fee_rule' },
    });
    expect(find('currency_mismatch', pays.currency)[0]).toMatchObject({
      difference: null,
      details: { expectedCurrency: 'IDR', actualCurrency: 'USD' },
    });
    for (const e of exceptions) {
      expect(e.history.map((h: any) => h.action)).toEqual(['opened']);
      expect(e.history[0].actor).toEqual({ type: 'system', id: run.id });
    }
  });

  it('the second row claiming one object is a duplicate; an object nobody reported is missing at the provider', () => {
    const dup = find('duplicate');
    expect(dup).toHaveLength(1);
    expect(dup[0].details.reason).toBe('same_object');
    expect(find('missing_at_provider', pays.missing)[0]).toMatchObject({
      objectType: 'payment',
      expectedAmount: 100000,
      difference: -100000,
      rowIds: [],
    });
    expect(find('missing_at_provider', pays.duplicate)).toHaveLength(0);
  });

  it("another workspace's payment and an order number are missing in the ledger, never matched", () => {
    const missing = find('missing_in_ledger');
    expect(missing.map((e) => e.details.reason).sort()).toEqual([
      'adjustment',
      'unknown_reference',
      'unknown_reference',
    ]);
    expect(exceptions.some((e) => e.objectId === foreign)).toBe(false);
    expect(run.stats).toMatchObject({ rowsMatched: 1, rowsException: 7 });
  });

  it('a late batch and an unknown bank credit', async () => {
    const bank = await uploadAndRun(
      server,
      ws,
      '/v1/reconciliation/imports?source=bank_statement&bankAccountNumber=1234567890',
      bankFile([`b9,${day()},credit,5,IDR,MYSTERY,,`, `b10,${day()},debit,700,IDR,BANK FEE,,`]),
    );
    const opened = await listAll(ws, `/v1/reconciliation/exceptions?runId=${bank.run.id}`);
    expect(opened.map((e) => [e.category, e.actualAmount, e.difference])).toEqual([['unknown_bank_credit', 5, 5]]);
    // The batch settled 10 days ago was late already for the report's own run (lateness needs no statement).
    const [late] = find('late_settlement');
    expect(late).toMatchObject({ objectType: 'settlement_batch', rowIds: [], details: { lateSince: day(-7) } });
    expect((await ws.client.get(`/v1/reconciliation/batches/${late.objectId}`)).json.data.status).toBe('exception');
    expect(bank.run.stats).toMatchObject({ rowsIgnored: 1, exceptionsOpened: 1 });
    const events = await listAll(ws, '/v1/events?type=reconciliation_exception.created');
    expect(events.length).toBeGreaterThanOrEqual(exceptions.length + 1);
  });

  it('a later credit resolves the late batch, a later row the missing object (auto_resolved, with events)', async () => {
    const [late] = find('late_settlement');
    const bank = await uploadAndRun(
      server,
      ws,
      '/v1/reconciliation/imports?source=bank_statement&bankAccountNumber=1234567890',
      bankFile([`b11,${day()},credit,99000,IDR,TRANSFER L-1,,`]),
    );
    expect(bank.run.stats).toMatchObject({ batchesMatched: 1, exceptionsAutoResolved: 1 });
    const resolved = (await ws.client.get(`/v1/reconciliation/exceptions/${late.id}`)).json.data;
    expect(resolved).toMatchObject({ status: 'resolved', resolution: 'auto_resolved' });
    expect(resolved.history.map((h: any) => h.action)).toEqual(['opened', 'auto_resolved']);
    expect((await ws.client.get(`/v1/reconciliation/batches/${late.objectId}`)).json.data.status).toBe('matched');
    const [missing] = find('missing_at_provider', pays.missing);
    const at = new Date().toISOString();
    const later = await uploadAndRun(
      server,
      ws,
      query,
      providerFile([`t9,payment,${pays.missing},,${at},IDR,100000,1000,0,0,99000,S-3,${day()},card,`]),
    );
    expect(later.run.stats).toMatchObject({ rowsMatched: 1, exceptionsAutoResolved: 1 });
    expect((await ws.client.get(`/v1/reconciliation/exceptions/${missing.id}`)).json.data.resolution).toBe(
      'auto_resolved',
    );
    const events = await listAll(ws, '/v1/events?type=reconciliation_exception.resolved');
    expect(events.map((e) => e.data.object.id).sort()).toEqual([late.id, missing.id].sort());
  });

  it('the database refuses a second row claiming one object', async () => {
    const rows = await listAll(ws, '/v1/reconciliation/rows?source=provider_report');
    const matched = rows.find((r) => r.status === 'matched');
    const other = rows.find((r) => r.id !== matched.id && r.type === 'payment' && r.objectId === null);
    await expect(
      db().system.query(
        `UPDATE recon_rows SET "objectType" = 'payment', "objectId" = $1 WHERE "workspaceId" = $2 AND id = $3`,
        [matched.objectId, ws.workspaceId, other.id],
      ),
    ).rejects.toMatchObject({ code: '23505' });
  });

  it('GraphQL edges: an exception to its payment and rows, a payment to the rows naming it', async () => {
    const query = `query($id: ID!, $category: String) {
      reconciliationExceptions(first: 5, category: $category) {
        edges { node { id objectId payment { id amount } rows { id status match { id } } batch { id } } }
      }
      payment(id: $id) { id reconciliationRows(first: 5) { edges { node { id status exceptions { category } } } } }
    }`;
    const res = await ws.client.post('/graphql', {
      query,
      variables: { id: pays.amount, category: 'amount_mismatch' },
    });
    expect(res.json.errors, res.text).toBeUndefined();
    const [edge] = res.json.data.reconciliationExceptions.edges;
    expect(edge.node.payment).toEqual({ id: pays.amount, amount: 100000 });
    expect(edge.node.rows[0]).toMatchObject({ status: 'exception', match: null });
    const rows = res.json.data.payment.reconciliationRows.edges.map((e: any) => e.node);
    expect(rows).toEqual([
      { id: edge.node.rows[0].id, status: 'exception', exceptions: [{ category: 'amount_mismatch' }] },
    ]);
  });

  it('a manual run over an adapter and a window finds what no row names there', async () => {
    const unreported = (await sandboxPayment(server, ws, { amount: 100000, method: 'card' })).id;
    const run = await manualRun(ws, { adapter: ADAPTER, from: day(), to: day(1) });
    expect(run).toMatchObject({ status: 'completed', trigger: 'manual', adapter: ADAPTER });
    const opened = await listAll(ws, `/v1/reconciliation/exceptions?runId=${run.id}`);
    expect(opened.map((e) => [e.category, e.objectId])).toEqual([['missing_at_provider', unreported]]);
  });

  it('runs need an Idempotency-Key and a known adapter', async () => {
    const none = await ws.client.post('/v1/reconciliation/runs', {});
    expect(none.status).toBe(400);
    const bad = await ws.client.post(
      '/v1/reconciliation/runs',
      { adapter: 'nope' },
      { 'idempotency-key': randomUUID() },
    );
    expect([bad.status, bad.json.error.field]).toEqual([400, 'adapter']);
  });
});
