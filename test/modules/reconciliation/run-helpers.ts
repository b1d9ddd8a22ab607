// Runs driven over HTTP with the in-process worker: upload, then poll the run until it ends.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { until } from '../../helpers/receiver.ts';
import type { TestServer, Workspace } from '../../helpers/server.ts';
import { db } from '../../helpers/server.ts';
import { upload } from './upload-helpers.ts';

const PROVIDER_HEADER =
  'transaction_id,type,reference,provider_reference,occurred_at,currency,amount,fee,fee_vat,withholding_tax,net,settlement_id,settled_at,method,description';

export const providerFile = (lines: string[]) => `${PROVIDER_HEADER}\n${lines.join('\n')}\n`;
export const bankFile = (lines: string[]) =>
  `line_id,value_date,direction,amount,currency,description,reference,balance_after\n${lines.join('\n')}\n`;

/** The run once it ended (completed or failed). */
export async function untilRunEnds(ws: Workspace, runId: string) {
  let run: any;
  await until(
    async () => {
      run = (await ws.client.get(`/v1/reconciliation/runs/${runId}`)).json.data;
      return run.status === 'completed' || run.status === 'failed';
    },
    `run ${runId} ended`,
    60_000,
  );
  return run;
}

/** Uploads a file (201) and waits for the run it queued; returns the import and the run. */
export async function uploadAndRun(server: TestServer, ws: Workspace, query: string, body: string) {
  const res = await upload(server, ws, query, body);
  expect(res.status, res.text).toBe(201);
  const run = await untilRunEnds(ws, res.json.data.runId);
  expect(run.status, JSON.stringify(run)).toBe('completed');
  return { import: res.json.data, run };
}

/** A manual run over HTTP, waited for. */
export async function manualRun(ws: Workspace, body: Record<string, unknown> = {}) {
  const res = await ws.client.post('/v1/reconciliation/runs', body, { 'idempotency-key': randomUUID() });
  expect(res.status, res.text).toBe(201);
  return untilRunEnds(ws, res.json.data.id);
}

export const listAll = async (ws: Workspace, path: string) =>
  (await ws.client.get(`${path}${path.includes('?') ? '&' : '?'}limit=100`)).json.data as any[];

/** Every ledger entry of a workspace under `txId`, as `code:direction:amount` sorted. */
export async function entriesOf(workspaceId: string, txId: string) {
  const { rows } = await db().system.query(
    `SELECT code, direction, amount FROM ledger_entries WHERE "workspaceId" = $1 AND "txId" = $2 ORDER BY code, direction`,
    [workspaceId, txId],
  );
  return rows.map((r) => `${r.code}:${r.direction}:${r.amount}`);
}

/** The balance (debits - credits) of an account code. */
export async function balanceOf(workspaceId: string, code: string) {
  const { rows } = await db().system.query(
    `SELECT coalesce(sum(CASE direction WHEN 'debit' THEN amount ELSE -amount END), 0)::bigint AS b
     FROM ledger_entries WHERE "workspaceId" = $1 AND code = $2`,
    [workspaceId, code],
  );
  return Number(rows[0].b);
}

/** Counts of what runs write, to show a second run changes nothing. */
export async function counts(workspaceId: string) {
  const q = async (t: string) =>
    Number(
      (await db().system.query(`SELECT count(*) FROM ${t} WHERE "workspaceId" = $1`, [workspaceId])).rows[0].count,
    );
  return {
    matches: await q('recon_matches'),
    exceptions: await q('recon_exceptions'),
    history: await q('recon_exception_history'),
    entries: await q('ledger_entries'),
    events: await q('events'),
  };
}
