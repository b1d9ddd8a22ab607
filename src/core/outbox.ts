import type { Tx, Mode } from './db/client.ts';
import { newId } from './ids.ts';
import { clock } from './clock.ts';

export interface EmitOptions {
  requestId?: string;
  source?: string;
  metadata?: Record<string, unknown>;
  previousAttributes?: Record<string, unknown>;
  occurredAt?: Date;
  /** `data.id` for objects without an id of their own (adapters are keyed by kind). */
  objectId?: string;
}

/**
 * Writes an event in the caller's transaction (the outbox): it is published only if the state
 * change commits. `sequence` counts per object, so receivers can drop stale deliveries.
 */
export async function emit(
  tx: Tx,
  scope: { workspaceId: string; mode: Mode },
  type: string,
  object: Record<string, unknown> & { id?: unknown },
  opts: EmitOptions = {},
) {
  const objectId = opts.objectId ?? (typeof object.id === 'string' ? object.id : typeof object.aggregateId === 'string' ? object.aggregateId : null);
  const sequence = objectId ? await nextSequence(tx, scope, objectId) : 1;
  const data = object.aggregateId !== undefined && object.id === undefined && !opts.objectId
    ? object
    : { id: objectId, object, ...(opts.previousAttributes ? { previousAttributes: opts.previousAttributes } : {}) };
  const now = clock.now();
  return tx.event.create({
    data: {
      id: newId('event'),
      workspaceId: scope.workspaceId,
      mode: scope.mode,
      type,
      objectId,
      sequence,
      occurredAt: opts.occurredAt ?? now,
      createdAt: now,
      data: data as object,
      metadata: { source: opts.source ?? 'api', requestId: opts.requestId ?? null, ...opts.metadata },
    },
  });
}

/** Row-locked counter per object: concurrent writers to one object commit in sequence order. */
async function nextSequence(tx: Tx, scope: { workspaceId: string; mode: Mode }, objectId: string): Promise<number> {
  const rows = await tx.$queryRaw<{ value: number }[]>`
    INSERT INTO object_sequences ("workspaceId", mode, "objectId", value) VALUES (${scope.workspaceId}, ${scope.mode}, ${objectId}, 1)
    ON CONFLICT ("workspaceId", mode, "objectId") DO UPDATE SET value = object_sequences.value + 1
    RETURNING value`;
  return rows[0].value;
}
