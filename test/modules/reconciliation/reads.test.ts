// Reads of imports, rows, batches and runs (filters, paging, GraphQL), and settings (docs/reconciliation.md,
// Import pipeline).
import { beforeAll, describe, expect, it } from 'vitest';
import { db, useServer, type Workspace } from '../../helpers/server.ts';
import { bankCsv, providerCsv, providerQuery, upload, type Res } from './upload-helpers.ts';

const server = useServer();

function expectError(res: Res, status: number, code: string, field?: string) {
  expect(
    { status: res.status, code: res.json?.error?.code, ...(field ? { field: res.json?.error?.field } : {}) },
    res.text,
  ).toEqual({ status, code, ...(field ? { field } : {}) });
}

describe('reads and filters', () => {
  let ws: Workspace;
  let provider: { id: string; runId: string };
  let bank: { id: string; runId: string };
  beforeAll(async () => {
    ws = await server.workspace();
    provider = (await upload(server, ws, providerQuery(), providerCsv('f', 1500))).json.data;
    const statement = bankCsv(['B1,2026-11-22,credit,500,USD,x,,', 'B2,2026-11-22,debit,100,IDR,y,,']);
    bank = (
      await upload(server, ws, '/v1/reconciliation/imports?source=bank_statement&bankAccountNumber=ACC12345', statement)
    ).json.data;
  });

  it('imports: newest first, filtered by source, adapter, origin and status', async () => {
    const all = (await ws.client.get('/v1/reconciliation/imports')).json.data;
    expect(all.map((i: { id: string }) => i.id)).toEqual([bank.id, provider.id]);
    const asc = (await ws.client.get('/v1/reconciliation/imports?order=asc')).json.data;
    expect(asc.map((i: { id: string }) => i.id)).toEqual([provider.id, bank.id]);
    const only = (await ws.client.get('/v1/reconciliation/imports?source=bank_statement&status=imported')).json.data;
    expect(only.map((i: { id: string }) => i.id)).toEqual([bank.id]);
    expect((await ws.client.get('/v1/reconciliation/imports?adapter=provider_a&origin=upload')).json.data).toHaveLength(
      1,
    );
    expect((await ws.client.get('/v1/reconciliation/imports?origin=pull')).json.data).toEqual([]);
    expectError(await ws.client.get('/v1/reconciliation/imports?status=done'), 400, 'validation_error', 'status');
    expectError(await ws.client.get('/v1/reconciliation/imports?source=file'), 400, 'validation_error', 'source');
    expectError(await ws.client.get('/v1/reconciliation/imports?order=up'), 400, 'validation_error', 'order');
  });

  it('rows: keyset pages of 20 by default, 1-100, every filter', async () => {
    const first = await ws.client.get(`/v1/reconciliation/rows?importId=${provider.id}`);
    expect(first.json.data).toHaveLength(20);
    expect(first.json.meta.page).toMatchObject({ limit: 20, hasMore: true });
    const seen = new Set<string>();
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Res = await ws.client.get(
        `/v1/reconciliation/rows?importId=${provider.id}&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
      );
      for (const r of page.json.data) seen.add(r.id);
      cursor = page.json.meta.page.nextCursor;
      pages++;
    } while (cursor);
    expect([seen.size, pages]).toEqual([1500, 15]);
    expectError(await ws.client.get('/v1/reconciliation/rows?limit=101'), 400, 'invalid_limit');
    expectError(await ws.client.get('/v1/reconciliation/rows?limit=0'), 400, 'invalid_limit');
    const one = (await ws.client.get('/v1/reconciliation/rows?transactionId=txn_f_7')).json.data;
    expect(one).toHaveLength(1);
    expect(one[0]).toMatchObject({ line: 9, reference: 'pay_7', status: 'pending', type: 'payment', amount: 100000 });
    const byReference = await ws.client.get('/v1/reconciliation/rows?reference=pay_7&status=pending&type=payment');
    expect(byReference.json.data.map((r: { id: string }) => r.id)).toEqual([one[0].id]);
    expect((await ws.client.get(`/v1/reconciliation/rows?batchId=${one[0].batchId}&limit=100`)).json.data).toHaveLength(
      100,
    );
    const credits = (await ws.client.get('/v1/reconciliation/rows?source=bank_statement&type=credit')).json.data;
    expect(credits).toEqual([
      expect.objectContaining({ transactionId: 'B1', valueDate: '2026-11-22', net: 500, fee: 0, adapter: null }),
    ]);
    expect((await ws.client.get('/v1/reconciliation/rows?objectId=pay_x')).json.data).toEqual([]);
    expectError(await ws.client.get('/v1/reconciliation/rows?type=card'), 400, 'validation_error', 'type');
    expect((await ws.client.get(`/v1/reconciliation/rows/${one[0].id}`)).json.data).toEqual(one[0]);
  });

  it('batches: one per adapter, currency and settlement id, with their sums', async () => {
    const batches = (await ws.client.get('/v1/reconciliation/batches')).json.data;
    const pairs = batches.map((b: { settlementId: string; rowCount: number }) => [b.settlementId, b.rowCount]);
    expect(pairs.sort()).toEqual([
      ['SET-f-0', 1000],
      ['SET-f-1', 500],
    ]);
    const one = (await ws.client.get('/v1/reconciliation/batches?settlementId=SET-f-1&currency=IDR&status=open')).json
      .data;
    expect(one).toHaveLength(1);
    expect(one[0]).toMatchObject({ net: 500 * 99300, fee: 500 * 700, expectedAt: '2026-11-21T17:00:00.000Z' });
    expectError(await ws.client.get('/v1/reconciliation/batches?currency=idr'), 400, 'validation_error', 'currency');
  });

  it('runs: one queued per import, filtered by status and import', async () => {
    const runs = (await ws.client.get('/v1/reconciliation/runs')).json.data;
    expect(runs.map((r: { id: string }) => r.id)).toEqual([bank.runId, provider.runId]);
    const one = (await ws.client.get(`/v1/reconciliation/runs?importId=${bank.id}&status=queued`)).json.data;
    expect(one.map((r: { id: string }) => r.id)).toEqual([bank.runId]);
    expect((await ws.client.get('/v1/reconciliation/runs?status=completed')).json.data).toEqual([]);
  });

  it('GraphQL: the same objects, with their edges', async () => {
    const res = await ws.client.graphql(
      `query($id: ID!, $importId: String) {
        reconciliationImport(id: $id) { id rowCount run { id status import { id } } rows(first: 3, order: "asc") {
          edges { node { line } } pageInfo { hasNextPage } } }
        reconciliationImports(first: 1, source: "provider_report") { edges { node { id } } }
        reconciliationRows(first: 1, importId: $importId) { edges { node { line import { id } batch { settlementId } } } }
        settlementBatches(first: 5) { edges { node { settlementId expectedBankAmount rows(first: 2) { edges { node { batchId } } } } } }
        reconciliationRuns(first: 5, status: "queued") { edges { node { id progress } } } }`,
      { id: provider.id, importId: provider.id },
    );
    expect(res.json.errors, res.text).toBeUndefined();
    const d = res.json.data;
    expect(d.reconciliationImport).toMatchObject({
      id: provider.id,
      rowCount: 1500,
      run: { id: provider.runId, status: 'queued', import: { id: provider.id } },
      rows: { pageInfo: { hasNextPage: true } },
    });
    expect(d.reconciliationImport.rows.edges).toHaveLength(3);
    for (const b of d.settlementBatches.edges) expect(b.node.rows.edges).toHaveLength(2);
    expect(d.reconciliationImports.edges[0].node.id).toBe(provider.id);
    expect(d.reconciliationRows.edges[0].node.import.id).toBe(provider.id);
    expect(d.settlementBatches.edges).toHaveLength(2);
    expect(d.reconciliationRuns.edges).toHaveLength(2);
  });
});

describe('settings', () => {
  it('defaults until the first PATCH, which replaces each named field; audited', async () => {
    const ws = await server.workspace();
    const defaults = (await ws.client.get('/v1/reconciliation/settings')).json.data;
    expect(defaults).toEqual({
      accountId: ws.accountId,
      mode: 'test',
      dateToleranceDays: 3,
      lateSettlementDays: 3,
      amountTolerance: {},
      feeTolerance: {},
      transferFeeTolerance: { IDR: 6500 },
      feeRules: [],
      updatedAt: null,
    });
    const rule = { adapter: 'provider_a', method: 'qris', currency: 'IDR', percent: 0.7, fixed: 0 };
    const res = await ws.client.patch('/v1/reconciliation/settings', {
      dateToleranceDays: 5,
      amountTolerance: { IDR: 100 },
      feeRules: [rule, { adapter: 'provider_a', currency: 'USD', percent: 2.9, fixed: 30 }],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toMatchObject({
      dateToleranceDays: 5,
      lateSettlementDays: 3,
      amountTolerance: { IDR: 100 },
      transferFeeTolerance: { IDR: 6500 },
      feeRules: [rule, { adapter: 'provider_a', method: null, currency: 'USD', percent: 2.9, fixed: 30 }],
    });
    expect(res.json.data.updatedAt).not.toBeNull();
    const again = await ws.client.patch('/v1/reconciliation/settings', { transferFeeTolerance: {} });
    expect(again.json.data).toMatchObject({ dateToleranceDays: 5, transferFeeTolerance: {} });
    expect((await ws.client.get('/v1/reconciliation/settings')).json.data).toEqual(again.json.data);
    const gql = await ws.client.graphql('{ reconciliationSettings { dateToleranceDays transferFeeTolerance } }');
    expect(gql.json.data.reconciliationSettings).toEqual({ dateToleranceDays: 5, transferFeeTolerance: {} });
    const { rows } = await db().system.query(
      `SELECT count(*)::int AS n FROM audit_log WHERE "workspaceId" = $1 AND action = 'reconciliation_settings.updated'`,
      [ws.workspaceId],
    );
    expect(rows[0].n).toBe(2);
  });

  it('validation names the field; unknown currencies are UNSUPPORTED_CURRENCY', async () => {
    const ws = await server.workspace();
    const patch = (body: unknown) => ws.client.patch('/v1/reconciliation/settings', body);
    const rule = { adapter: 'provider_a', method: null, currency: 'IDR', percent: 1, fixed: 0 };
    const cases: [unknown, string, string][] = [
      [{ dateToleranceDays: 32 }, 'validation_error', 'dateToleranceDays'],
      [{ dateToleranceDays: -1 }, 'validation_error', 'dateToleranceDays'],
      [{ dateToleranceDays: 1.5 }, 'validation_error', 'dateToleranceDays'],
      [{ lateSettlementDays: 61 }, 'validation_error', 'lateSettlementDays'],
      [{ amountTolerance: [] }, 'validation_error', 'amountTolerance'],
      [{ feeTolerance: { IDR: -1 } }, 'validation_error', 'feeTolerance'],
      [{ amountTolerance: { XYZ: 1 } }, 'UNSUPPORTED_CURRENCY', 'amountTolerance'],
      [{ feeRules: [{ ...rule, currency: 'XYZ' }] }, 'UNSUPPORTED_CURRENCY', 'feeRules'],
      [{ feeRules: [rule, rule] }, 'validation_error', 'feeRules'],
      [{ feeRules: [{ ...rule, percent: 1.23456 }] }, 'validation_error', 'feeRules'],
      [{ feeRules: [{ ...rule, percent: 101 }] }, 'validation_error', 'feeRules'],
      [{ feeRules: [{ ...rule, fixed: 0.5 }] }, 'validation_error', 'feeRules'],
      [{ feeRules: [{ ...rule, method: 'cash' }] }, 'validation_error', 'feeRules'],
      [{ feeRules: [{ ...rule, adapter: 'stripe' }] }, 'validation_error', 'feeRules'],
      [{ feeRules: [{ ...rule, colour: 'red' }] }, 'validation_error', 'feeRules'],
      [{ feeRules: Array.from({ length: 51 }, (_, i) => ({ ...rule, fixed: i })) }, 'validation_error', 'feeRules'],
      [{ colour: 'red' }, 'validation_error', 'colour'],
    ];
    for (const [body, code, field] of cases) expectError(await patch(body), 400, code, field);
    expect((await ws.client.get('/v1/reconciliation/settings')).json.data.updatedAt).toBeNull();
  });
});
