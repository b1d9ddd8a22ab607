// The worked example of docs/reconciliation.md end to end: a payment and a refund, the provider's report, the
// bank credit; the run's postings, the matches, the batch, and a second run that changes nothing.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sandboxPayment } from '../../helpers/payments.ts';
import { useServer } from '../../helpers/server.ts';
import {
  balanceOf,
  bankFile,
  counts,
  entriesOf,
  listAll,
  manualRun,
  providerFile,
  uploadAndRun,
} from './run-helpers.ts';

const server = useServer({ background: 'worker' });
const ADAPTER = 'provider_a_platform';
const today = () => new Date().toISOString().slice(0, 10);

describe('the worked example', () => {
  it('posts the fees per run and batch, matches the bank credit, and leaves the settlement account at 0', async () => {
    const ws = await server.workspace();
    const pay = await sandboxPayment(server, ws, { amount: 200000, method: 'card' });
    const rf = await ws.client.post(
      '/v1/refunds',
      { chargeId: pay.id, amount: 50000 },
      { 'idempotency-key': randomUUID() },
    );
    expect(rf.status, rf.text).toBe(201);
    const at = new Date().toISOString();
    const report = providerFile([
      `txn_1,payment,${pay.id},,${at},IDR,200000,4500,495,0,195005,S-1,${today()},card,`,
      `txn_2,refund,${rf.json.data.id},,${at},IDR,-50000,0,0,0,-50000,S-1,${today()},,`,
    ]);
    const query = `/v1/reconciliation/imports?source=provider_report&adapter=${ADAPTER}`;
    const first = await uploadAndRun(server, ws, query, report);
    const run = first.run;
    expect(run.progress).toEqual({ phase: 'done', rowsTotal: 2, rowsProcessed: 2, percent: 100 });
    expect(run.stats).toMatchObject({ rowsMatched: 2, rowsException: 0, matches: 2, exceptionsOpened: 0 });
    expect(run.ledgerCheck.status).toBe('ok');
    const [batch] = await listAll(ws, '/v1/reconciliation/batches');
    expect(await entriesOf(ws.workspaceId, `${run.id}:${batch.id}`)).toEqual([
      `gateway:${ADAPTER}:debit:4500`,
      `settlement:${ADAPTER}:credit:4995`,
      'tax_credit:ppn:debit:495',
    ]);
    const rows = await listAll(ws, `/v1/reconciliation/rows?importId=${first.import.id}`);
    expect(rows.map((r) => [r.status, r.objectId, r.ledgerTxId]).sort()).toEqual(
      [
        ['matched', pay.id, `${run.id}:${batch.id}`],
        ['matched', rf.json.data.id, null],
      ].sort(),
    );
    const matches = await listAll(ws, `/v1/reconciliation/matches?runId=${run.id}`);
    expect(matches.map((m) => m.rule).sort()).toEqual(['reference', 'reference']);

    const statement = bankFile([`b1,${today()},credit,142105,IDR,XENDIT S-1,,`]);
    const bank = await uploadAndRun(
      server,
      ws,
      '/v1/reconciliation/imports?source=bank_statement&bankAccountNumber=1234567890',
      statement,
    );
    expect(bank.run.stats).toMatchObject({ batchesMatched: 1, rowsMatched: 1 });
    const matched = (await ws.client.get(`/v1/reconciliation/batches/${batch.id}`)).json.data;
    expect(matched).toMatchObject({ status: 'matched', bankAmount: 142105, transferFee: 2900 });
    expect(await entriesOf(ws.workspaceId, matched.matchId)).toEqual([
      `gateway:${ADAPTER}:debit:2900`,
      'payout:debit:142105',
      `settlement:${ADAPTER}:credit:145005`,
    ]);
    expect(await balanceOf(ws.workspaceId, `settlement:${ADAPTER}`)).toBe(0);
    const pnl = (await ws.client.get(`/v1/reports/pnl?from=${today()}&to=${today()}&currency=IDR`)).json.data;
    expect(pnl).toMatchObject({ revenue: [{ code: 'payments', amount: 200000 }], refunds: 50000, fees: 7400 });

    const before = await counts(ws.workspaceId);
    const again = await manualRun(ws);
    expect(again.status).toBe('completed');
    const after = await counts(ws.workspaceId);
    // The second run writes its own completed event, nothing else.
    expect({ ...after, events: after.events - 1 }).toEqual(before);
  });
});
