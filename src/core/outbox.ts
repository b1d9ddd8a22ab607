import { sql, sqlOf, toJson, type AnyTx, type Fragment } from './db/sql.ts';
import { newId } from './ids.ts';
import { clock } from './clock.ts';
import type { RowScope } from './resource.ts';

export interface EmitOptions {
  requestId?: string;
  source?: string;
  metadata?: Record<string, unknown>;
  previousAttributes?: Record<string, unknown>;
  occurredAt?: Date;
  /** `data.id` for objects without an id of their own (adapters are keyed by kind). */
  objectId?: string;
}

const BASE32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
let lastEventId = '';

/**
 * An event id that sorts after the previous one this process minted. The events list orders by
 * `occurredAt`, then id, and events written together (created, finalized, paid of one invoice)
 * share a millisecond, where newId's random part alone would list them in random order. Event ids
 * are not capabilities (reading one needs the workspace's key), so counting up within a
 * millisecond gives nothing away.
 */
export function nextEventId(): string {
  const id = newId('event');
  if (id > lastEventId) return (lastEventId = id);
  const chars = lastEventId.split('');
  for (let i = chars.length - 1; i > chars.indexOf('_'); i--) {
    const v = BASE32.indexOf(chars[i]);
    if (v < 31) {
      chars[i] = BASE32[v + 1];
      break;
    }
    chars[i] = '0';
  }
  return (lastEventId = chars.join(''));
}

/** The event row as the outbox stores it, without its per-object `sequence` (the insert assigns it). */
export function eventRow(
  scope: RowScope,
  type: string,
  object: Record<string, unknown> & { id?: unknown },
  opts: EmitOptions = {},
) {
  const objectId =
    opts.objectId ??
    (typeof object.id === 'string' ? object.id : typeof object.aggregateId === 'string' ? object.aggregateId : null);
  const data =
    object.aggregateId !== undefined && object.id === undefined && !opts.objectId
      ? object
      : { id: objectId, object, ...(opts.previousAttributes ? { previousAttributes: opts.previousAttributes } : {}) };
  const now = clock.now();
  return {
    id: nextEventId(),
    workspaceId: scope.workspaceId,
    mode: scope.mode,
    type,
    objectId,
    occurredAt: opts.occurredAt ?? now,
    createdAt: now,
    data,
    metadata: { source: opts.source ?? 'api', requestId: opts.requestId ?? null, ...opts.metadata },
  };
}

export type EventRow = ReturnType<typeof eventRow>;

/**
 * Common table expressions that insert event rows (bound as one JSON parameter) in order, each with the
 * next `sequence` of its object: `object_sequences` is bumped once per object (its row lock orders
 * concurrent writers to one object), and events of one object in one batch take consecutive values.
 * Objectless events get 1. For a larger statement's WITH list, or alone via `insertEvents`. This file is the
 * one writer of `events` (a meta-test pins every insert of the table here).
 */
export const eventsCte = (rows: EventRow[]): Fragment => sql`
  event_rows AS (SELECT * FROM jsonb_populate_recordset(NULL::events, ${toJson(rows)}::jsonb) WITH ORDINALITY AS e),
  event_sequences AS (
    INSERT INTO object_sequences ("workspaceId", mode, "objectId", value)
    SELECT "workspaceId", mode, "objectId", count(*) FROM event_rows WHERE "objectId" IS NOT NULL GROUP BY 1, 2, 3
    ON CONFLICT ("workspaceId", mode, "objectId") DO UPDATE SET value = object_sequences.value + EXCLUDED.value
    RETURNING "objectId", value),
  inserted_events AS (
    INSERT INTO events (id, "workspaceId", mode, type, "objectId", sequence, "occurredAt", "createdAt", data, metadata)
    SELECT e.id, e."workspaceId", e.mode, e.type, e."objectId",
      COALESCE(q.value - count(*) OVER (PARTITION BY e."objectId")
        + row_number() OVER (PARTITION BY e."objectId" ORDER BY e.ordinality), 1),
      e."occurredAt", e."createdAt", e.data, e.metadata
    FROM event_rows e LEFT JOIN event_sequences q USING ("objectId")
    ORDER BY e.ordinality
    RETURNING id, sequence)`;

/**
 * Writes event rows (a batch, in order; none: no statement) in the caller's transaction, on either SQL
 * path. `last`: the transaction's last statement (`Sql.last`), sent even with no rows so that COMMIT
 * travels with it.
 */
export async function insertEvents(tx: AnyTx, rows: EventRow[], o: { last?: boolean } = {}): Promise<void> {
  if (rows.length || o.last) await writeEvents(tx, rows, sql`count(*)`, o.last);
}

const writeEvents = <R>(tx: AnyTx, rows: EventRow[], select: Fragment, last = false) => {
  const s = sqlOf(tx);
  return s[last ? 'last' : 'query']<R>(sql`WITH ${eventsCte(rows)} SELECT ${select} FROM inserted_events`);
};

/**
 * Writes an event in the caller's transaction (the outbox): it is published only if the state
 * change commits. `sequence` counts per object, so receivers can drop stale deliveries.
 */
export async function emit(
  tx: AnyTx,
  scope: RowScope,
  type: string,
  object: Record<string, unknown> & { id?: unknown },
  opts: EmitOptions = {},
) {
  const row = eventRow(scope, type, object, opts);
  const [{ sequence }] = await writeEvents<{ sequence: number }>(tx, [row], sql`sequence`);
  return { ...row, sequence };
}

/**
 * Copies of existing events as new events (POST /v1/events/replay), one statement, all or nothing:
 * - the (original, new) id pairs arrive as two arrays; each new row copies its original's type, object,
 *   `sequence` (docs/decisions.md, Events: a replay re-sends an old state, so it keeps the old sequence),
 *   data and occurredAt, with a fresh createdAt and the replay markers merged into the original metadata.
 * - Originals are found by primary key, one lookup per id (the LIMIT keeps the lateral subquery
 *   from being flattened into a hash join over the whole workspace's events), once.
 * - nothing is inserted unless every id was found in the caller's workspace and mode (ids are
 *   distinct, so a full count means all of them).
 * - Rows go in request order, so `position` (the relay's order) follows the request.
 * Selects `count`, the rows written.
 */
export const replayEventsStatement = (
  originals: string[],
  replays: string[],
  at: Date,
  requestId: string,
  scope: { workspaceId: string; mode: string },
) => sql`
  WITH wanted AS (
    SELECT w.original, w.replay, w.ord
    FROM unnest(${originals}::text[], ${replays}::text[]) WITH ORDINALITY AS w(original, replay, ord)),
  found AS MATERIALIZED (
    SELECT w.replay, w.ord, e.id, e."workspaceId", e.mode, e.type, e."objectId", e.sequence, e."occurredAt", e.data,
      e.metadata
    FROM wanted w CROSS JOIN LATERAL (
      SELECT * FROM events e
      WHERE e.id = w.original AND e."workspaceId" = ${scope.workspaceId} AND e.mode = ${scope.mode} LIMIT 1) e),
  inserted AS (
    INSERT INTO events (id, "workspaceId", mode, type, "objectId", sequence, "occurredAt", "createdAt", data, metadata)
    SELECT f.replay, f."workspaceId", f.mode, f.type, f."objectId", f.sequence, f."occurredAt", ${at}::timestamptz,
      f.data,
      (CASE WHEN jsonb_typeof(f.metadata) = 'object' THEN f.metadata ELSE '{}'::jsonb END)
        || jsonb_build_object('replayOf', f.id, 'source', 'replay', 'requestId', ${requestId}::text)
    FROM found f
    WHERE (SELECT count(*) FROM found) = cardinality(${originals}::text[])
    ORDER BY f.ord
    RETURNING 1)
  SELECT count(*)::int AS count FROM inserted`;
