// POST /v1/reconciliation/imports over real HTTP (docs/reconciliation.md, Import pipeline): new files, the same
// bytes again, concurrent identical uploads, every refusal in its order, and all-or-nothing.
import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { until } from '../../helpers/receiver.ts';
import { config } from '../../../src/core/config.ts';
import { db, useServer, type Workspace } from '../../helpers/server.ts';
import { streamingUploads, MAX_STREAMING_UPLOADS } from '../../../src/server/uploads.ts';
import { Svc } from '../../../src/client/svc.ts';
import { bankCsv, providerCsv, providerLine, providerQuery, sha256, upload, type Res } from './upload-helpers.ts';

const server = useServer();

function expectError(res: Res, status: number, code: string, field?: string) {
  expect(
    { status: res.status, code: res.json?.error?.code, ...(field ? { field: res.json?.error?.field } : {}) },
    res.text,
  ).toEqual({ status, code, ...(field ? { field } : {}) });
}

/** What a workspace holds: imports, rows, batches, runs and events. */
async function counts(ws: Workspace) {
  const q = async (table: string) =>
    Number(
      (await db().system.query(`SELECT count(*) FROM ${table} WHERE "workspaceId" = $1`, [ws.workspaceId])).rows[0]
        .count,
    );
  return {
    imports: await q('recon_imports'),
    rows: await q('recon_rows'),
    batches: await q('recon_batches'),
    runs: await q('recon_runs'),
    events: await q('events'),
  };
}

describe('a new file', () => {
  it('201: the import with its counts, every row staged, batches summed, a run queued, one event', async () => {
    const ws = await server.workspace();
    const before = await counts(ws);
    const csv =
      providerCsv('n', 3) +
      `${providerLine('n', 3, 5000).replace(',payment,', ',refund,').replace(',5000,35,0,0,4965,', ',-5000,0,0,0,-5000,')}\n`;
    const res = await upload(server, ws, providerQuery('provider_a', '&filename=nov.csv'), csv);
    expect(res.status, res.text).toBe(201);
    const imp = res.json.data;
    expect(imp).toMatchObject({
      source: 'provider_report',
      origin: 'upload',
      adapter: 'provider_a',
      format: 'generic',
      filename: 'nov.csv',
      sha256: sha256(csv),
      sizeBytes: Buffer.byteLength(csv),
      status: 'imported',
      rowCount: 4,
      rowsNew: 4,
      rowsDuplicate: 0,
      rowsSkipped: 0,
      currencies: ['IDR'],
      totals: [{ currency: 'IDR', rows: 4, net: 3 * 99300 - 5000 }],
      periodStart: '2026-11-20T00:00:00.000Z',
      periodEnd: '2026-11-21T00:00:00.000Z',
      mode: 'test',
      accountId: ws.accountId,
    });
    expect(imp.id).toMatch(/^rimp_/);
    expect(imp.arn).toBe(`arn:svc:${ws.accountId}:reconciliation-import:${imp.id}`);
    const run = (await ws.client.get(`/v1/reconciliation/runs/${imp.runId}`)).json.data;
    expect(run).toMatchObject({ status: 'queued', trigger: 'import', importId: imp.id, adapter: 'provider_a' });
    expect(run.progress).toEqual({ phase: 'queued', rowsTotal: 4, rowsProcessed: 0, percent: 0 });
    const batch = (await ws.client.get('/v1/reconciliation/batches?settlementId=SET-n-0')).json.data[0];
    expect(batch).toMatchObject({
      rowCount: 4,
      amount: 295000,
      fee: 2100,
      net: 3 * 99300 - 5000,
      payoutFees: 0,
      expectedBankAmount: 3 * 99300 - 5000,
      status: 'open',
      importIds: [imp.id],
    });
    expect(await counts(ws)).toEqual({
      ...before,
      imports: 1,
      rows: 4,
      batches: 1,
      runs: 1,
      events: before.events + 1,
    });
    const events = (await ws.client.get(`/v1/events?objectId=${imp.id}`)).json.data;
    expect(events.map((e: { type: string }) => e.type)).toEqual(['reconciliation_import.created']);
    expect(events[0].data.object).toEqual(imp);
    const audited = await db().system.query(
      `SELECT "targetId" FROM audit_log WHERE "workspaceId" = $1 AND action = 'reconciliation_import.created'`,
      [ws.workspaceId],
    );
    expect(audited.rows).toEqual([{ targetId: imp.id }]);
  });

  it('the same bytes again: 200 with the original import unchanged, nothing new', async () => {
    const ws = await server.workspace();
    const csv = providerCsv('s', 5);
    const first = await upload(server, ws, providerQuery(), csv);
    expect(first.status).toBe(201);
    const before = await counts(ws);
    const again = await upload(server, ws, providerQuery(), csv);
    expect(again.status, again.text).toBe(200);
    expect(again.json.data).toEqual(first.json.data);
    expect(await counts(ws)).toEqual(before);
    // Signed as those bytes, sent as others: still 401, still nothing.
    expectError(await upload(server, ws, providerQuery(), `${csv} `, { sha: sha256(csv) }), 401, 'invalid_signature');
    expect(await counts(ws)).toEqual(before);
    // Another adapter is another account: the same bytes are a new import there.
    expect((await upload(server, ws, providerQuery('provider_c'), csv)).status).toBe(201);
  });

  it('concurrent identical uploads: exactly one 201, the others 200 with the same import', async () => {
    const ws = await server.workspace();
    const csv = providerCsv('c', 2000);
    const all = await Promise.all([1, 2, 3].map(() => upload(server, ws, providerQuery(), csv)));
    expect(all.map((r) => r.status).sort()).toEqual([200, 200, 201]);
    expect(new Set(all.map((r) => r.json.data.id)).size).toBe(1);
    expect(await counts(ws)).toMatchObject({ imports: 1, rows: 2000, runs: 1 });
  });

  it('an overlapping file stages only its new rows; a restated row is staged again', async () => {
    const ws = await server.workspace();
    const query = '/v1/reconciliation/imports?source=bank_statement&bankAccountNumber=0123456789';
    const a = bankCsv(['L1,2026-11-22,credit,99300,IDR,SET-x-0,,', 'L2,2026-11-22,debit,6500,IDR,fee,,']);
    const b = bankCsv(['L2,2026-11-22,debit,6500,IDR,fee,,', 'L3,2026-11-23,credit,1000,IDR,other,,']);
    expect((await upload(server, ws, query, a)).json.data).toMatchObject({ rowsNew: 2, rowsDuplicate: 0 });
    const second = (await upload(server, ws, query, b)).json.data;
    expect(second).toMatchObject({ rowsNew: 1, rowsDuplicate: 1, rowCount: 2, adapter: null });
    expect(second.totals).toEqual([{ currency: 'IDR', rows: 2, net: -5500 }]);
    const rows = (await ws.client.get(`/v1/reconciliation/rows?importId=${second.id}`)).json.data;
    expect(
      rows.map((r: { transactionId: string; type: string; net: number }) => [r.transactionId, r.type, r.net]),
    ).toEqual([['L3', 'credit', 1000]]);
    const provider = providerCsv('r', 2);
    await upload(server, ws, providerQuery(), provider);
    const restated = await upload(server, ws, providerQuery(), provider.replace('order 1', 'order 1 corrected'));
    expect(restated.json.data).toMatchObject({ rowsNew: 1, rowsDuplicate: 1 });
  });
});

describe('refusals, in the order of the contract, before a byte of the body is read', () => {
  it('missing or malformed X-Svc-Content-Sha256 is 400 before the signature', async () => {
    const ws = await server.workspace();
    const bad = { ...ws, secret: 'not-the-secret' };
    expectError(
      await upload(server, bad, providerQuery(), 'x', { sha: null }),
      400,
      'validation_error',
      'X-Svc-Content-Sha256',
    );
    expectError(
      await upload(server, bad, providerQuery(), 'x', { sha: 'ABC' }),
      400,
      'validation_error',
      'X-Svc-Content-Sha256',
    );
    expectError(
      await upload(server, bad, providerQuery(), 'x', { contentType: 'application/json' }),
      401,
      'invalid_signature',
    );
  });

  it('scope (403) before rate (429) before content type (415) before parameters (400)', async () => {
    const ws = await server.workspace();
    const ro = (await ws.client.post('/v1/api-keys', { name: 'ro', role: 'read_only' })).json.data;
    const reader = { ...ws, keyId: ro.keyId, secret: ro.key };
    expectError(
      await upload(server, reader, '/v1/reconciliation/imports', 'x', { contentType: 'a/b' }),
      403,
      'insufficient_scope',
    );
    // Wrong type and no parameters: 415 while tokens last, then 429 once the heavy class is spent (no refill here).
    const saved = config.rateLimits.mutating_heavy;
    config.rateLimits.mutating_heavy = { perSec: 0.001, burst: 3 };
    try {
      const wrong = () => upload(server, ws, '/v1/reconciliation/imports', 'x', { contentType: 'application/json' });
      for (let i = 0; i < 3; i++) expectError(await wrong(), 415, 'unsupported_media_type');
      expectError(await wrong(), 429, 'RATE_LIMITED');
    } finally {
      config.rateLimits.mutating_heavy = saved;
    }
    const other = await server.workspace();
    expectError(await upload(server, other, '/v1/reconciliation/imports', 'x'), 400, 'validation_error', 'source');
  });

  it('each parameter is checked, naming it', async () => {
    const ws = await server.workspace();
    const base = '/v1/reconciliation/imports?source=';
    const cases: [string, string][] = [
      [`${base}nope`, 'source'],
      [`${base}provider_report`, 'adapter'],
      [`${base}provider_report&adapter=provider_z`, 'adapter'],
      [`${base}provider_report&adapter=provider_a&bankAccountNumber=12345`, 'bankAccountNumber'],
      [`${base}bank_statement`, 'bankAccountNumber'],
      [`${base}bank_statement&bankAccountNumber=12-34`, 'bankAccountNumber'],
      [`${base}bank_statement&bankAccountNumber=12345&adapter=provider_a`, 'adapter'],
      [`${base}provider_report&adapter=provider_a&format=mt940`, 'format'],
      // A format whose columns were never recorded from a real export (the parser's own option check).
      [`${base}provider_report&adapter=provider_b&format=provider_b`, 'format'],
      [`${base}provider_report&adapter=provider_a&colour=red`, 'colour'],
      [`${base}provider_report&adapter=provider_a&periodStart=2026-11-01`, 'periodEnd'],
      [`${base}provider_report&adapter=provider_a&periodEnd=2026-11-01`, 'periodStart'],
      [`${base}provider_report&adapter=provider_a&periodStart=2026-11-02&periodEnd=2026-11-01`, 'periodEnd'],
      [`${base}provider_report&adapter=provider_a&periodStart=2025-01-01&periodEnd=2026-11-01`, 'periodEnd'],
      [`${base}provider_report&adapter=provider_a&periodStart=yesterday&periodEnd=2026-11-01`, 'periodStart'],
    ];
    for (const [target, field] of cases)
      expectError(await upload(server, ws, target, 'x'), 400, 'validation_error', field);
    expect(await counts(ws)).toMatchObject({ imports: 0 });
  });

  it(`at most ${MAX_STREAMING_UPLOADS} uploads stream at once: the next is 429 with Retry-After: 1`, async () => {
    const ws = await server.workspace();
    const bodies = Array.from({ length: MAX_STREAMING_UPLOADS }, () => new PassThrough());
    const files = bodies.map((_, k) => providerCsv(`slot${k}`, 3));
    const pending = bodies.map((body, k) => upload(server, ws, providerQuery(), body, { sha: sha256(files[k]) }));
    // Each stream has sent its first bytes: the uploads are admitted and hold their slots.
    for (const [k, b] of bodies.entries()) b.write(files[k].slice(0, 10));
    await until(() => streamingUploads() === MAX_STREAMING_UPLOADS, 'every slot taken');
    const refused = await upload(server, ws, providerQuery(), providerCsv('late', 1));
    expectError(refused, 429, 'RATE_LIMITED');
    expect(refused.headers.get('retry-after')).toBe('1');
    for (const [k, b] of bodies.entries()) b.end(files[k].slice(10));
    expect((await Promise.all(pending)).map((r) => r.status)).toEqual([201, 201, 201, 201]);
    expect(streamingUploads()).toBe(0);
  });
});

describe('all or nothing', () => {
  it('a body that is not the declared one: 401 invalid_signature, nothing left', async () => {
    const ws = await server.workspace();
    const before = await counts(ws);
    const res = await upload(server, ws, providerQuery(), providerCsv('h', 50), { sha: sha256('something else') });
    expectError(res, 401, 'invalid_signature');
    expect(await counts(ws)).toEqual(before);
  });

  it('a bad row refuses the file whole with its line and column', async () => {
    const ws = await server.workspace();
    const before = await counts(ws);
    const csv = `${providerCsv('b', 5).trimEnd()}\ntxn_b_9,payment,,,2026-11-20T10:00:00Z,IDR,12.5,,,,,,,,\n`;
    const res = await upload(server, ws, providerQuery(), csv);
    expectError(res, 400, 'invalid_row', 'amount');
    expect(res.json.error.line).toBe(7);
    expectError(await upload(server, ws, providerQuery(), 'transaction_id,colour\n'), 400, 'invalid_header');
    expectError(await upload(server, ws, providerQuery(), ''), 400, 'invalid_file', 'file');
    expect(await counts(ws)).toEqual(before);
  });

  it('a client that disconnects mid-file leaves nothing', async () => {
    const ws = await server.workspace();
    const before = await counts(ws);
    const csv = providerCsv('d', 100);
    const body = new PassThrough();
    const sent = upload(server, ws, providerQuery(), body, { sha: sha256(csv) }).catch((e) => e);
    body.write(csv.slice(0, 2000));
    await until(() => streamingUploads() === 1, 'the upload streaming');
    body.destroy(new Error('client gone'));
    await sent;
    await until(() => streamingUploads() === 0, 'the upload ended');
    expect(await counts(ws)).toEqual(before);
  });

  it('Idempotency-Key: replays the answer; the same key with other bytes is 409', async () => {
    const ws = await server.workspace();
    const key = { 'idempotency-key': randomUUID() };
    const first = await upload(server, ws, providerQuery(), providerCsv('i', 2), { headers: key });
    expect(first.status).toBe(201);
    const replay = await upload(server, ws, providerQuery(), providerCsv('i', 2), { headers: key });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.json.data.id).toBe(first.json.data.id);
    expectError(
      await upload(server, ws, providerQuery(), providerCsv('j', 2), { headers: key }),
      409,
      'idempotency_conflict',
    );
  });
});

describe('the typed client', () => {
  it('uploads a file as given, its hash declared', async () => {
    const ws = await server.workspace();
    const svc = new Svc({ baseUrl: server.url, keyId: ws.keyId, secret: ws.secret });
    const csv = providerCsv('svc', 3);
    const query = { source: 'provider_report', adapter: 'provider_a' };
    const imp = await svc.api.uploadReconciliationImport({ query, body: csv });
    expect(imp).toMatchObject({ rowsNew: 3, sha256: sha256(csv), status: 'imported' });
    expect((await svc.api.uploadReconciliationImport({ query, body: Buffer.from(csv) })).id).toBe(imp.id);
  });
});

describe('tenancy', () => {
  it("another workspace's ids answer 404; lists show only the caller's", async () => {
    const a = await server.workspace();
    const b = await server.workspace();
    const imp = (await upload(server, a, providerQuery(), providerCsv('t', 2))).json.data;
    const row = (await a.client.get(`/v1/reconciliation/rows?importId=${imp.id}`)).json.data[0];
    const batch = (await a.client.get('/v1/reconciliation/batches')).json.data[0];
    for (const path of [
      `/v1/reconciliation/imports/${imp.id}`,
      `/v1/reconciliation/rows/${row.id}`,
      `/v1/reconciliation/batches/${batch.id}`,
      `/v1/reconciliation/runs/${imp.runId}`,
    ]) {
      expect((await a.client.get(path)).status, path).toBe(200);
      expectError(await b.client.get(path), 404, 'not_found');
    }
    expect((await b.client.get('/v1/reconciliation/imports')).json.data).toEqual([]);
    expect((await b.client.get('/v1/reconciliation/rows')).json.data).toEqual([]);
  });
});
