/**
 * The provider phase (docs/reconciliation.md, Runs): provider rows import by import, in chunks of at most
 * CHUNK_ROWS, one transaction each: the chunk's lookups, `decideProviderRow` for each row in line order, then
 * the matches, exceptions, row updates, fee postings and events the chunk decided, written together.
 */
import { sql, type Sql } from '../../../core/db/sql.ts';
import type { EventRow } from '../../../core/outbox.ts';
import { nextState } from '../../../core/state-machine.ts';
import {
  decideProviderRow,
  type LedgerObject,
  type MatchSettings,
  type ProviderDecision,
  type ProviderRow,
} from '../rules/provider-match.ts';
import type { ProviderRowType } from '../formats/types.ts';
import { reconExceptionMachine, rowMachine } from '../states.ts';
import { inRunTx, type RunContext } from './context.ts';
import { FeePostings } from './fee-postings.ts';
import { lookUpChunk } from './lookups.ts';
import { importsToEvaluate, nextChunk, type pendingStatus, type StagedRow } from './rows.ts';
import { recordProgress } from './progress.ts';
import {
  autoResolve,
  insertMatches,
  newExceptionId,
  newMatchId,
  openExceptions,
  updateRows,
  writeEvents,
  type NewException,
  type NewMatch,
  type RowUpdate,
} from './writes.ts';

export const PROVIDER_SOURCE = 'provider_report';
/** The open exceptions of a provider row a later run resolves by itself (a late capture). */
const RESOLVABLE = ['missing_in_ledger'];
const openStatus = reconExceptionMachine.moves.open.to;

export async function runProviderPhase(c: RunContext) {
  const imports = await inRunTx(c, (tx) => importsToEvaluate(tx, c.scope, PROVIDER_SOURCE, c.run.adapter));
  for (const imp of imports) {
    let after = 0;
    for (;;) {
      const done = await inRunTx(c, async (tx) => {
        const chunk = await nextChunk(tx, c.scope, imp.importId, after, RESOLVABLE, openStatus);
        if (chunk.lastLine === null) return true;
        after = chunk.lastLine;
        if (chunk.rows.length) await decideChunk(tx, c, imp.adapter ?? '', chunk.rows);
        await recordProgress(tx, c, 'provider', chunk.rows.length);
        return false;
      });
      if (done) break;
    }
  }
}

interface ChunkOut {
  matches: NewMatch[];
  exceptions: NewException[];
  updates: RowUpdate[];
  resolve: string[];
  fees: FeePostings;
}

async function decideChunk(tx: Sql, c: RunContext, adapter: string, rows: StagedRow[]) {
  const restated = await restatements(tx, c, adapter, rows);
  const lookups = await lookUpChunk(tx, c.scope, adapter, rows, c.settings.dateToleranceDays);
  const s: MatchSettings = { ...c.settings };
  const out: ChunkOut = { matches: [], exceptions: [], updates: [], resolve: [], fees: new FeePostings(c) };
  for (const row of rows) {
    const input = asProviderRow(row, adapter, restated.get(row.id) ?? null);
    const decision = decideProviderRow(input, lookups.found(row), s);
    c.evaluated.add(row.id);
    record(c, row, decision, lookups.objects, out);
  }
  const events: EventRow[] = [];
  await insertMatches(tx, c, out.matches);
  const postings = await out.fees.post(tx);
  for (const u of out.updates) u.ledgerTxId = postings.get(u.id) ?? null;
  const opened = await openExceptions(tx, c, out.exceptions, events);
  for (const u of out.updates) if (u.exceptionId && !opened.has(u.exceptionId)) u.exceptionId = null;
  await updateRows(tx, c, out.updates);
  await autoResolve(tx, c, out.resolve, events);
  await writeEvents(tx, events);
}

function asProviderRow(row: StagedRow, adapter: string, restatedOf: string | null): ProviderRow {
  return {
    id: row.id,
    type: row.type as ProviderRowType,
    adapter,
    currency: row.currency,
    amount: Number(row.amount),
    fee: Number(row.fee),
    feeVat: Number(row.feeVat),
    net: Number(row.net),
    reference: row.reference,
    providerReference: row.providerReference,
    occurredAt: row.occurredAt ?? new Date(0),
    settlementId: row.settlementId,
    restatedOf,
  };
}

/** One row's decision into the chunk's writes; an object it claims is claimed for the rows after it. */
function record(c: RunContext, row: StagedRow, d: ProviderDecision, objects: Map<string, LedgerObject>, out: ChunkOut) {
  const claimed = d.decision === 'match' ? d.object : d.exception.object;
  const claims =
    d.decision === 'match' || ['amount_mismatch', 'fee_mismatch', 'currency_mismatch'].includes(d.exception.category);
  if (d.decision === 'raise' && row.openExceptionId) return; // still unexplained: its exception stays as it is
  if (claimed && claims) {
    const o = objects.get(claimed.id);
    if (o) o.claimedBy = row.id;
  }
  const object = claimed && claims ? claimed : null;
  if (d.decision === 'match') {
    const matchId = newMatchId();
    const posts = out.fees.add(row, object ? (objects.get(object.id) ?? null) : null);
    out.fees.tolerance(matchId, row, d.difference);
    out.matches.push({
      id: matchId,
      kind: 'provider',
      rule: d.rule,
      rowIds: [row.id],
      objects: object
        ? [object]
        : d.rule === 'batch_transfer' && row.batchId
          ? [{ type: 'settlement_batch', id: row.batchId }]
          : [],
      batchIds: row.batchId ? [row.batchId] : [],
      currency: row.currency,
      difference: d.difference,
      transferFee: null,
      ledgerTxId: d.difference !== 0n ? matchId : posts,
    });
    out.updates.push({
      id: row.id,
      status: nextState(rowMachine, row.status as typeof pendingStatus, 'match').to,
      matchId,
      objectType: object?.type ?? null,
      objectId: object?.id ?? null,
      matchedBy: 'auto',
      ledgerTxId: null,
      exceptionId: null,
    });
    if (row.openExceptionId) out.resolve.push(row.openExceptionId);
    c.stats.rowsMatched++;
    c.stats.rowsAutoMatched++;
    return;
  }
  const e = d.exception;
  // Rows that claim their object report fees as posted (settled: a mismatch's fees are the provider's).
  if (object) out.fees.add(row, objects.get(object.id) ?? null);
  const id = newExceptionId();
  out.exceptions.push({
    id,
    category: e.category,
    adapter: row.adapter,
    currency: row.currency,
    rowIds: [row.id],
    objectType: e.object?.type ?? null,
    objectId: e.object?.id ?? null,
    batchId: row.batchId,
    expectedAmount: e.expectedAmount,
    actualAmount: e.actualAmount,
    difference: e.difference,
    details: e.details,
  });
  out.updates.push({
    id: row.id,
    status: nextState(rowMachine, row.status as typeof pendingStatus, 'raise').to,
    matchId: null,
    objectType: object?.type ?? null,
    objectId: object?.id ?? null,
    matchedBy: null,
    ledgerTxId: null,
    exceptionId: id,
  });
  c.stats.rowsException++;
}

/** The earlier row each restating row repeats: same adapter and transaction id, other content. */
async function restatements(tx: Sql, c: RunContext, adapter: string, rows: StagedRow[]) {
  const ids = [...new Set(rows.flatMap((r) => (r.transactionId ? [r.transactionId] : [])))];
  const firsts = await tx.query<{ transactionId: string; id: string }>(
    sql`SELECT DISTINCT ON (o."transactionId") o."transactionId", o.id FROM recon_rows o
      WHERE o."workspaceId" = ${c.scope.workspaceId} AND o.mode = ${c.scope.mode} AND o.source = ${PROVIDER_SOURCE}
        AND o."sourceAccount" = ${adapter} AND o."transactionId" = ANY(${ids}::text[])
      ORDER BY o."transactionId", o."createdAt", o."importId", o.line`,
  );
  const first = new Map(firsts.map((f) => [f.transactionId, f.id]));
  const out = new Map<string, string>();
  for (const r of rows) {
    const f = r.transactionId ? first.get(r.transactionId) : undefined;
    if (f && f !== r.id) out.set(r.id, f);
  }
  return out;
}
