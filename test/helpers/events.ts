import { newId } from '../../src/core/ids.ts';
import { db } from './server.ts';

/** Commits an event row directly (the outbox's row, without the API): the relay publishes it like any other. */
export async function insertEvent(
  workspaceId: string,
  e: { type: string; at: number; mode?: 'test' | 'live'; objectId?: string | null; sequence?: number },
) {
  const id = newId('event');
  const data = e.objectId ? { id: e.objectId, object: { id: e.objectId } } : {};
  await db().system.query(
    `INSERT INTO events (id, "workspaceId", mode, type, "objectId", sequence, "occurredAt", "createdAt", data, metadata)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8, $9)`,
    [
      id,
      workspaceId,
      e.mode ?? 'test',
      e.type,
      e.objectId ?? null,
      e.sequence ?? 1,
      new Date(e.at).toISOString(),
      JSON.stringify(data),
      JSON.stringify({ source: 'test' }),
    ],
  );
  return id;
}
