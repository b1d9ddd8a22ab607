import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { tenantTx } from '../../core/db/sql.ts';
import { errorsFor } from '../../core/errors.ts';
import { isId } from '../../core/ids.ts';
import { nextEventId, replayEventsStatement } from '../../core/outbox.ts';
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
    const [row] = await sql.query<{ count: number }>(
      replayEventsStatement(originals, eventIds, clock.now(), ctx.requestId, auth),
    );
    // Something was not found, so nothing was written (a partial count, never expected, rolls back too).
    if (row.count !== originals.length) throw err.notFound('event');
    return row.count;
  });
  return { count, eventIds };
}
