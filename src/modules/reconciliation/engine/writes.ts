/**
 * What a run writes, set-wise, in the transaction of the chunk that decided it (docs/reconciliation.md, Runs):
 * matches, exceptions with their history and events, auto-resolutions, row and batch updates. Statuses come
 * from the state tables; the ledger and the outbox have their own writers.
 */
import { clock } from '../../../core/clock.ts';
import { sql, toJson, type Sql } from '../../../core/db/sql.ts';
import { newId } from '../../../core/ids.ts';
import { eventRow, insertEvents, type EventRow } from '../../../core/outbox.ts';
import { nextState } from '../../../core/state-machine.ts';
import type { ReconException } from '../../../generated/prisma/client.ts';
import { exceptionSnapshot } from '../fields.ts';
import type { ExceptionCategory, ExceptionObjectType, MatchRule } from '../rules/categories.ts';
import { reconExceptionMachine } from '../states.ts';
import type { RunContext } from './context.ts';

export interface NewMatch {
  id: string;
  kind: 'provider' | 'bank';
  rule: MatchRule;
  rowIds: string[];
  objects: { type: ExceptionObjectType; id: string }[];
  batchIds: string[];
  currency: string;
  difference: bigint;
  transferFee: bigint | null;
  ledgerTxId: string | null;
}

export interface NewException {
  id: string;
  category: ExceptionCategory;
  adapter: string | null;
  currency: string | null;
  rowIds: string[];
  objectType: ExceptionObjectType | null;
  objectId: string | null;
  batchId: string | null;
  expectedAmount: bigint | null;
  actualAmount: bigint | null;
  difference: bigint | null;
  details: Record<string, unknown>;
}

export const newMatchId = () => newId('reconciliationMatch');
export const newExceptionId = () => newId('reconciliationException');

/** The matches in one INSERT over parallel arrays (unnest reads them far faster than a JSON record set). */
export async function insertMatches(tx: Sql, c: RunContext, matches: NewMatch[]) {
  if (!matches.length) return;
  if (matches.every((m) => m.rowIds.length === 1 && m.objects.length <= 1 && m.batchIds.length <= 1))
    await insertSingleMatches(tx, c, matches);
  else await insertManyMatches(tx, c, matches);
  c.stats.matches += matches.length;
}

/** Matches of one row, one object and one batch at most (every provider match): scalar arrays only. */
async function insertSingleMatches(tx: Sql, c: RunContext, matches: NewMatch[]) {
  const col = <T>(f: (m: NewMatch) => T) => matches.map(f);
  await tx.query(
    sql`INSERT INTO recon_matches (id, "workspaceId", mode, kind, rule, "matchedBy", "rowIds", objects, "objectIds",
        "batchIds", currency, difference, "transferFee", "ledgerTxId", "runId", "createdAt")
      SELECT m.id, ${c.scope.workspaceId}, ${c.scope.mode}, m.kind, m.rule, ${'auto'}, ARRAY[m."rowId"],
        CASE WHEN m."objectId" IS NULL THEN '[]'::jsonb
          ELSE jsonb_build_array(jsonb_build_object('type', m."objectType", 'id', m."objectId")) END,
        CASE WHEN m."objectId" IS NULL THEN '{}'::text[] ELSE ARRAY[m."objectId"] END,
        CASE WHEN m."batchId" IS NULL THEN '{}'::text[] ELSE ARRAY[m."batchId"] END,
        m.currency, m.difference, m."transferFee", m."ledgerTxId", ${c.run.id}, ${clock.now()}
      FROM unnest(${col((m) => m.id)}::text[], ${col((m) => m.kind)}::text[], ${col((m) => m.rule)}::text[],
          ${col((m) => m.rowIds[0])}::text[], ${col((m) => m.objects[0]?.type ?? null)}::text[],
          ${col((m) => m.objects[0]?.id ?? null)}::text[], ${col((m) => m.batchIds[0] ?? null)}::text[],
          ${col((m) => m.currency)}::text[], ${col((m) => m.difference.toString())}::bigint[],
          ${col((m) => m.transferFee?.toString() ?? null)}::bigint[], ${col((m) => m.ledgerTxId)}::text[])
        AS m(id, kind, rule, "rowId", "objectType", "objectId", "batchId", currency, difference, "transferFee",
          "ledgerTxId")`,
  );
}

async function insertManyMatches(tx: Sql, c: RunContext, matches: NewMatch[]) {
  const col = <T>(f: (m: NewMatch) => T) => matches.map(f);
  // Array columns travel as one JSON array of arrays each, expanded per row.
  const json = (f: (m: NewMatch) => unknown) => toJson(matches.map(f));
  await tx.query(
    sql`INSERT INTO recon_matches (id, "workspaceId", mode, kind, rule, "matchedBy", "rowIds", objects, "objectIds",
        "batchIds", currency, difference, "transferFee", "ledgerTxId", "runId", "createdAt")
      SELECT m.id, ${c.scope.workspaceId}, ${c.scope.mode}, m.kind, m.rule, ${'auto'},
        ARRAY(SELECT jsonb_array_elements_text(r.a->(m.n::int - 1)->0)),
        r.a->(m.n::int - 1)->1,
        ARRAY(SELECT jsonb_array_elements_text(r.a->(m.n::int - 1)->2)),
        ARRAY(SELECT jsonb_array_elements_text(r.a->(m.n::int - 1)->3)),
        m.currency, m.difference, m."transferFee", m."ledgerTxId", ${c.run.id}, ${clock.now()}
      FROM unnest(${col((m) => m.id)}::text[], ${col((m) => m.kind)}::text[], ${col((m) => m.rule)}::text[],
          ${col((m) => m.currency)}::text[], ${col((m) => m.difference.toString())}::bigint[],
          ${col((m) => m.transferFee?.toString() ?? null)}::bigint[], ${col((m) => m.ledgerTxId)}::text[])
        WITH ORDINALITY AS m(id, kind, rule, currency, difference, "transferFee", "ledgerTxId", n),
        (SELECT ${json((m) => [m.rowIds, m.objects, m.objects.map((o) => o.id), m.batchIds])}::jsonb AS a) r`,
  );
}

/**
 * Opens exceptions (an open one of a category that exists once per object is kept, the new one dropped), each
 * with its `opened` history entry and its `reconciliation_exception.created` event. Returns the ids opened.
 */
export async function openExceptions(tx: Sql, c: RunContext, list: NewException[], events: EventRow[]) {
  if (!list.length) return new Set<string>();
  const now = clock.now();
  const status = nextState(reconExceptionMachine, null, 'open');
  const rows = list.map((e) => ({
    ...e,
    workspaceId: c.scope.workspaceId,
    mode: c.scope.mode,
    status: status.to,
    importId: c.run.importId,
    runId: c.run.id,
    openedAt: now,
    createdAt: now,
    updatedAt: now,
  }));
  const inserted = await tx.query<ReconException>(
    sql`INSERT INTO recon_exceptions (id, "workspaceId", mode, category, status, adapter, currency, "rowIds",
        "objectType", "objectId", "batchId", "expectedAmount", "actualAmount", difference, details, "importId",
        "runId", "openedAt", "createdAt", "updatedAt")
      SELECT id, "workspaceId", mode, category, status, adapter, currency, "rowIds", "objectType", "objectId",
        "batchId", "expectedAmount", "actualAmount", difference, details, "importId", "runId", "openedAt",
        "createdAt", "updatedAt"
      FROM jsonb_populate_recordset(NULL::recon_exceptions, ${toJson(rows)}::jsonb)
      ON CONFLICT DO NOTHING RETURNING *`,
  );
  const history = await appendHistory(tx, c, inserted, 'opened', now);
  for (const e of inserted)
    for (const type of status.events) events.push(exceptionEvent(c, type, e, history.get(e.id) ?? []));
  c.stats.exceptionsOpened += inserted.length;
  return new Set(inserted.map((e) => e.id));
}

/** Resolves open exceptions a run settled by itself (`auto_resolved`, actor the run), with history and events. */
export async function autoResolve(tx: Sql, c: RunContext, ids: string[], events: EventRow[]) {
  if (!ids.length) return [];
  const now = clock.now();
  const open = reconExceptionMachine.moves.open.to;
  const move = nextState(reconExceptionMachine, open, 'auto_resolve');
  const actor = { type: 'system', id: c.run.id };
  const resolved = await tx.query<ReconException>(
    sql`UPDATE recon_exceptions SET status = ${move.to}, resolution = ${'auto_resolved'}, "resolvedAt" = ${now},
        "resolvedBy" = ${toJson(actor)}::jsonb, "updatedAt" = ${now}
      WHERE "workspaceId" = ${c.scope.workspaceId} AND mode = ${c.scope.mode} AND id = ANY(${ids}::text[])
        AND status = ${open}
      RETURNING *`,
  );
  await appendHistory(tx, c, resolved, 'auto_resolved', now);
  const history = await readHistory(
    tx,
    c,
    resolved.map((e) => e.id),
  );
  for (const e of resolved)
    for (const type of move.events) events.push(exceptionEvent(c, type, e, history.get(e.id) ?? []));
  c.stats.exceptionsAutoResolved += resolved.length;
  return resolved;
}

type History = { at: Date; action: string; actor: unknown; note: string | null; requestId: string | null };

async function appendHistory(tx: Sql, c: RunContext, list: ReconException[], action: string, at: Date) {
  const actor = { type: 'system', id: c.run.id };
  const entries = list.map((e) => ({
    id: newId('reconciliationExceptionHistory'),
    workspaceId: c.scope.workspaceId,
    mode: c.scope.mode,
    exceptionId: e.id,
    at,
    action,
    actor,
    note: null,
    requestId: null,
  }));
  if (entries.length)
    await tx.query(
      sql`INSERT INTO recon_exception_history (id, "workspaceId", mode, "exceptionId", at, action, actor, note,
          "requestId")
        SELECT id, "workspaceId", mode, "exceptionId", at, action, actor, note, "requestId"
        FROM jsonb_populate_recordset(NULL::recon_exception_history, ${toJson(entries)}::jsonb)`,
    );
  return new Map<string, History[]>(entries.map((h) => [h.exceptionId, [h]]));
}

async function readHistory(tx: Sql, c: RunContext, ids: string[]) {
  const rows = await tx.query<History & { exceptionId: string }>(
    sql`SELECT "exceptionId", at, action, actor, note, "requestId" FROM recon_exception_history
      WHERE "workspaceId" = ${c.scope.workspaceId} AND mode = ${c.scope.mode} AND "exceptionId" = ANY(${ids}::text[])
      ORDER BY at, id`,
  );
  const out = new Map<string, History[]>();
  for (const h of rows) out.set(h.exceptionId, [...(out.get(h.exceptionId) ?? []), h]);
  return out;
}

const exceptionEvent = (c: RunContext, type: string, e: ReconException, history: History[]) =>
  eventRow(c.scope, type, exceptionSnapshot({ ...e, accountId: c.accountId, history }), {
    source: 'reconciliation',
  });

/** Writes the chunk's events (the outbox) in its transaction. */
export const writeEvents = (tx: Sql, events: EventRow[]) => insertEvents(tx, events);

export interface RowUpdate {
  id: string;
  status: string;
  matchId: string | null;
  objectType: string | null;
  objectId: string | null;
  matchedBy: string | null;
  ledgerTxId: string | null;
  /** An exception opened on it (appended to `exceptionIds`). */
  exceptionId: string | null;
}

/** The rows' new statuses and links in one statement; the claim index refuses an object claimed twice. */
export async function updateRows(tx: Sql, c: RunContext, updates: RowUpdate[]) {
  if (!updates.length) return;
  const col = (f: (u: RowUpdate) => string | null) => updates.map(f);
  await tx.query(
    sql`UPDATE recon_rows r SET status = u.status, "matchId" = coalesce(u."matchId", r."matchId"),
        "objectType" = coalesce(u."objectType", r."objectType"), "objectId" = coalesce(u."objectId", r."objectId"),
        "matchedBy" = coalesce(u."matchedBy", r."matchedBy"), "ledgerTxId" = coalesce(u."ledgerTxId", r."ledgerTxId"),
        "exceptionIds" = CASE WHEN u."exceptionId" IS NULL THEN r."exceptionIds"
          ELSE array_append(r."exceptionIds", u."exceptionId") END,
        "updatedAt" = ${clock.now()}
      FROM unnest(${col((u) => u.id)}::text[], ${col((u) => u.status)}::text[], ${col((u) => u.matchId)}::text[],
          ${col((u) => u.objectType)}::text[], ${col((u) => u.objectId)}::text[], ${col((u) => u.matchedBy)}::text[],
          ${col((u) => u.ledgerTxId)}::text[], ${col((u) => u.exceptionId)}::text[])
        AS u(id, status, "matchId", "objectType", "objectId", "matchedBy", "ledgerTxId", "exceptionId")
      WHERE r."workspaceId" = ${c.scope.workspaceId} AND r.mode = ${c.scope.mode} AND r.id = u.id`,
  );
}
