/**
 * From the staged file to the tables, set-wise (docs/reconciliation.md, Import pipeline): the settlement batches
 * its rows name, the rows whose key is new (one INSERT ... SELECT, duplicates skipped by the unique key), the
 * batches' sums from the new rows, the import's counts and totals, and the run it queues.
 */
import type { Auth } from '../../core/auth/authenticate.ts';
import { clock } from '../../core/clock.ts';
import { sql, type Sql } from '../../core/db/sql.ts';
import { newId } from '../../core/ids.ts';
import { nextState } from '../../core/state-machine.ts';
import type { ReconImport } from '../../generated/prisma/client.ts';
import type { Staged } from './stage.ts';
import { batchMachine, importMachine, rowMachine, runMachine } from './states.ts';
import type { UploadParams } from './upload-params.ts';

export interface StagedFile {
  auth: Auth;
  params: UploadParams;
  importId: string;
  staged: Staged;
}

export async function writeStaged(tx: Sql, f: StagedFile): Promise<ReconImport> {
  // A temporary table has no statistics until analysed: the join and the conflict check plan on real counts.
  await tx.query(sql`ANALYZE recon_stage`);
  if (f.params.adapter) await openBatches(tx, f, f.params.adapter);
  const rowsNew = await insertRows(tx, f);
  const summary = await summarize(tx);
  const runId = newId('reconciliationRun');
  const now = clock.now();
  const period = {
    start: f.params.periodStart ?? summary.start,
    end: f.params.periodEnd ?? summary.end,
  };
  await tx.query(
    sql`INSERT INTO recon_runs (id, "workspaceId", mode, trigger, "importId", adapter, "periodStart", "periodEnd",
        status, "rowsTotal", "createdAt", "updatedAt")
      VALUES (${runId}, ${f.auth.workspaceId}, ${f.auth.mode}, ${'import'}, ${f.importId}, ${f.params.adapter},
        ${period.start}, ${period.end}, ${nextState(runMachine, null, 'queue').to}, ${rowsNew}, ${now}, ${now})`,
  );
  const [row] = await tx.query<ReconImport>(
    sql`UPDATE recon_imports SET "rowsNew" = ${rowsNew}, "rowsDuplicate" = ${f.staged.rows - rowsNew},
        "rowsSkipped" = ${f.staged.skipped}, "sizeBytes" = ${f.staged.sizeBytes}, currencies = ${summary.currencies},
        totals = ${JSON.stringify(summary.totals)}::jsonb, "periodStart" = ${period.start},
        "periodEnd" = ${period.end}, "runId" = ${runId}, "updatedAt" = ${now}
      WHERE "workspaceId" = ${f.auth.workspaceId} AND mode = ${f.auth.mode} AND id = ${f.importId}
        AND status = ${nextState(importMachine, null, 'upload').to}
      RETURNING *`,
  );
  return row;
}

/** A batch for every (currency, settlement id) the file names that has none yet: ids minted here. */
async function openBatches(tx: Sql, f: StagedFile, adapter: string) {
  const keys = await tx.query<{ currency: string; settlementId: string }>(
    sql`SELECT DISTINCT currency, "settlementId" FROM recon_stage WHERE "settlementId" IS NOT NULL`,
  );
  if (!keys.length) return;
  const now = clock.now();
  await tx.query(
    sql`INSERT INTO recon_batches (id, "workspaceId", mode, adapter, currency, "settlementId", status,
        "createdAt", "updatedAt")
      SELECT k.id, ${f.auth.workspaceId}, ${f.auth.mode}, ${adapter}, k.currency, k."settlementId",
        ${nextState(batchMachine, null, 'open').to}, ${now}, ${now}
      FROM unnest(${keys.map(() => newId('settlementBatch'))}::text[], ${keys.map((k) => k.currency)}::text[],
        ${keys.map((k) => k.settlementId)}::text[]) AS k(id, currency, "settlementId")
      ON CONFLICT ("workspaceId", mode, adapter, currency, "settlementId") DO NOTHING`,
  );
}

/**
 * The rows whose key is new, each joined to its batch; the batches gain the new rows' sums (a repeated row
 * adds nothing). Returns how many rows were new.
 */
async function insertRows(tx: Sql, f: StagedFile): Promise<number> {
  const { auth, params: p } = f;
  const now = clock.now();
  const payout = 'payout';
  const [{ count }] = await tx.query<{ count: bigint }>(
    sql`WITH inserted AS (
        INSERT INTO recon_rows (id, "workspaceId", mode, "importId", source, adapter, "bankAccountNumber",
          "sourceAccount", "rowKey", line, "transactionId", type, reference, "providerReference", "settlementId",
          method, description, "occurredAt", "settledAt", "valueDate", currency, amount, fee, "feeVat",
          "withholdingTax", net, "balanceAfter", status, "batchId", "createdAt", "updatedAt")
        SELECT s.id, ${auth.workspaceId}, ${auth.mode}, ${f.importId}, ${p.source}, ${p.adapter},
          ${p.bankAccountNumber}, ${p.adapter ?? p.bankAccountNumber}, s."rowKey", s.line, s."transactionId", s.type,
          s.reference, s."providerReference", s."settlementId", s.method, s.description, s."occurredAt",
          s."settledAt", s."valueDate", s.currency, s.amount, s.fee, s."feeVat", s."withholdingTax", s.net,
          s."balanceAfter", ${nextState(rowMachine, null, 'stage').to}, b.id, ${now}, ${now}
        FROM recon_stage s
        LEFT JOIN recon_batches b ON b."workspaceId" = ${auth.workspaceId} AND b.mode = ${auth.mode}
          AND b.adapter = ${p.adapter} AND b.currency = s.currency AND b."settlementId" = s."settlementId"
        ON CONFLICT ("workspaceId", mode, source, "sourceAccount", "rowKey") DO NOTHING
        RETURNING "batchId", type, amount, fee, "feeVat", "withholdingTax", net, "occurredAt", "settledAt"),
      sums AS (
        SELECT "batchId", count(*)::int AS n,
          coalesce(sum(amount) FILTER (WHERE type <> ${payout}), 0) AS amount,
          sum(fee) AS fee, sum("feeVat") AS "feeVat", sum("withholdingTax") AS "withholdingTax",
          coalesce(sum(net) FILTER (WHERE type <> ${payout}), 0) AS net,
          coalesce(sum(fee + "feeVat" + "withholdingTax") FILTER (WHERE type = ${payout}), 0) AS "payoutFees",
          coalesce(max("settledAt"), max("occurredAt")) AS "expectedAt"
        FROM inserted WHERE "batchId" IS NOT NULL GROUP BY "batchId"),
      batched AS (
        UPDATE recon_batches b SET "rowCount" = b."rowCount" + s.n, amount = b.amount + s.amount,
          fee = b.fee + s.fee, "feeVat" = b."feeVat" + s."feeVat",
          "withholdingTax" = b."withholdingTax" + s."withholdingTax", net = b.net + s.net,
          "payoutFees" = b."payoutFees" + s."payoutFees",
          "expectedAt" = greatest(b."expectedAt", s."expectedAt"),
          "importIds" = array_append(b."importIds", ${f.importId}), "updatedAt" = ${now}
        FROM sums s
        WHERE b."workspaceId" = ${auth.workspaceId} AND b.mode = ${auth.mode} AND b.id = s."batchId"
        RETURNING b.id)
      SELECT (SELECT count(*) FROM inserted) AS count, (SELECT count(*) FROM batched) AS batches`,
  );
  return Number(count);
}

interface Summary {
  currencies: string[];
  totals: { currency: string; rows: number; net: number }[];
  start: Date | null;
  end: Date | null;
}

/** Over the whole file (new and repeated rows): its currencies, totals and the UTC days its rows span. */
async function summarize(tx: Sql): Promise<Summary> {
  const rows = await tx.query<{ currency: string; rows: bigint; net: bigint; first: Date; last: Date }>(
    sql`SELECT currency, count(*) AS rows, sum(net) AS net,
        min(coalesce("occurredAt", "valueDate"::timestamp AT TIME ZONE 'UTC')) AS first,
        max(coalesce("occurredAt", "valueDate"::timestamp AT TIME ZONE 'UTC')) AS last
      FROM recon_stage GROUP BY currency ORDER BY currency`,
  );
  const day = 86_400_000;
  const firsts = rows.map((r) => r.first.getTime());
  const lasts = rows.map((r) => r.last.getTime());
  return {
    currencies: rows.map((r) => r.currency),
    totals: rows.map((r) => ({ currency: r.currency, rows: Number(r.rows), net: Number(r.net) })),
    start: rows.length ? new Date(Math.floor(Math.min(...firsts) / day) * day) : null,
    end: rows.length ? new Date(Math.floor(Math.max(...lasts) / day) * day + day) : null,
  };
}
