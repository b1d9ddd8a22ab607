import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { inTenant } from '../../core/db/client.ts';
import { DomainError, errorsFor } from '../../core/errors.ts';
import { emit } from '../../core/outbox.ts';
import { checkLength } from '../../core/validation.ts';
import type { Event } from '../../generated/prisma/client.ts';
import type { TriggerEventInput } from './schema.ts';

const err = errorsFor('event');

/**
 * Nesting depth allowed in `data` (objects and arrays): far deeper nesting is refused before PostgreSQL's jsonb parser,
 * whose stack it would exhaust.
 */
export const maxDataDepth = 32;

/** How deeply objects and arrays nest in a JSON value (iterative: any input depth is safe). */
function depthOf(value: unknown): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (!v || typeof v !== 'object') continue;
    if (d + 1 > max) max = d + 1;
    if (max > maxDataDepth) return max;
    for (const child of Object.values(v)) stack.push([child, d + 1]);
  }
  return max;
}

/**
 * spec POST /v1/events/trigger (201): a synthetic event, test mode only. `type` is free text
 * (not checked against the catalog); `data` is stored as `{...data, aggregateId}`, and
 * `aggregateId` is the event's object, so `sequence` counts per aggregate. `aggregateId` is
 * always present in `data` (null when not given). `data.id` is refused: `emit()` would take it as
 * the object id and wrap `data` as `{id, object}` (docs/decisions.md, Events).
 */
export async function triggerEvent(ctx: Context, input: TriggerEventInput): Promise<Event> {
  const auth = authorize(ctx, 'svc:event:trigger');
  if (auth.mode !== 'test')
    throw new DomainError('forbidden_in_live_mode', 'Synthetic events are available in test mode only', {
      resource: 'event',
    });
  if (typeof input.type !== 'string') throw err.validation('type', 'type is required');
  const type = checkLength(input.type, 'type', 1, 100, 'event');
  const aggregateId = input.aggregateId ?? null;
  if (aggregateId !== null) checkLength(aggregateId, 'aggregateId', 1, 255, 'event');
  const data = input.data ?? {};
  if (typeof data !== 'object' || Array.isArray(data)) throw err.validation('data', 'data must be a JSON object');
  if (depthOf(data) > maxDataDepth) throw err.validation('data', `data may nest at most ${maxDataDepth} levels`);
  if ('id' in data) throw err.validation('data', 'data.id is reserved: a synthetic event is keyed by aggregateId');
  const scope = tenant(auth);
  return inTenant(scope, async (tx) => {
    const row = await emit(
      tx,
      scope,
      type,
      { ...(data as Record<string, unknown>), aggregateId },
      { requestId: ctx.requestId, source: 'trigger' },
    );
    // Read back: the response is the stored event, exactly as GET /v1/events/:id returns it.
    return tx.event.findUniqueOrThrow({ where: { id: row.id } });
  });
}
