import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { sql as q, tenantTx } from '../../core/db/sql.ts';
import { errorsFor } from '../../core/errors.ts';
import { isId } from '../../core/ids.ts';
import { nextEventId } from '../../core/outbox.ts';
import { clock } from '../../core/clock.ts';
import type { ReplayEventsInput } from './schema.ts';

const err = errorsFor('event');

/** spec Limits: event replay takes 1 to 10,000 ids per call. */
export const maxReplayIds = 10_000;

export interface EventReplay {
  count: number;
  /** The new events' ids, in the order of the request's `eventIds`. */
  eventIds: string[];
}

/** 400 `validation_error` on `eventIds`: missing, empty, over the limit, malformed or repeated. */
export function checkEventIds(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0)
    throw err.validation('eventIds', 'eventIds must be a non-empty array of event ids');
  if (value.length > maxReplayIds)
    throw err.validation('eventIds', `eventIds may hold at most ${maxReplayIds} ids (got ${value.length})`);
  const seen = new Set<string>();
  for (const [i, id] of value.entries()) {
    if (!isId('event', id)) throw err.validation('eventIds', `eventIds[${i}] is not an event id`);
    if (seen.has(id)) throw err.validation('eventIds', `eventIds[${i}] repeats ${id}`);
    seen.add(id);
  }
  return value as string[];
}

/**
 * One statement writes every replay: the (original, new) id pairs arrive as two arrays, and each
 * new row copies its original's type, object, `sequence` (docs/decisions.md, Events: a replay
 * re-sends an old state, so it keeps the old sequence), data and occurredAt, with a fresh
 * createdAt and the replay markers merged into the original metadata.
 * - Originals are found by primary key, one lookup per id (the LIMIT keeps the lateral subquery
 *   from being flattened into a hash join over the whole workspace's events), once.
 * - All or nothing inside the statement: nothing is inserted unless every id was found in the
 *   caller's workspace and mode (ids are distinct, so a full count means all of them).
 * - Rows go in request order, so `position` (the relay's order) follows the request.
 */
const replay = (
  originals: string[],
  replays: string[],
  at: Date,
  requestId: string,
  scope: { workspaceId: string; mode: string },
) => q`
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

/**
 * spec POST /v1/events/replay (201): re-emits events as new events with new ids, all or nothing.
 * Only the key's own mode is replayable: a test key may read live events but never re-emit them
 * (a 404, as for an unknown id). Inserting the rows is all it takes: the outbox relay publishes
 * them like any other event.
 */
export async function replayEvents(ctx: Context, input: ReplayEventsInput): Promise<EventReplay> {
  const auth = authorize(ctx, 'svc:event:write');
  const originals = checkEventIds(input.eventIds);
  const eventIds = originals.map(() => nextEventId());
  const count = await tenantTx(tenant(auth), async (sql) => {
    const [row] = await sql.query<{ count: number }>(replay(originals, eventIds, clock.now(), ctx.requestId, auth));
    // Something was not found, so nothing was written (a partial count, never expected, rolls back too).
    if (row.count !== originals.length) throw err.notFound('event');
    return row.count;
  });
  return { count, eventIds };
}
