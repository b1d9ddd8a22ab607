import { db } from '../src/core/db/client.ts';
import { eventBus } from '../src/core/pubsub.ts';
import { logger } from '../src/core/logger.ts';

/**
 * Queue: none (a loop in the worker). Marks committed events published in commit order and is
 * where webhook deliveries are enqueued. Woken by each commit's NOTIFY, with a 1 s poll as a
 * backstop so nothing waits on a lost notification; SKIP LOCKED lets several workers share it.
 */
export async function relayBatch(onEvent?: (rows: RelayedEvent[]) => Promise<void>): Promise<number> {
  const client = await db().system.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<RelayedEvent>(
      `UPDATE events SET "publishedAt" = now() WHERE position IN (
         SELECT position FROM events WHERE "publishedAt" IS NULL ORDER BY position LIMIT 500 FOR UPDATE SKIP LOCKED)
       RETURNING id, "workspaceId", mode, type, position`,
    );
    if (onEvent && rows.length) await onEvent(rows);
    await client.query('COMMIT');
    return rows.length;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    client.release();
  }
}

export interface RelayedEvent {
  id: string;
  workspaceId: string;
  mode: string;
  type: string;
  position: string;
}

export function startRelay(onEvent?: (rows: RelayedEvent[]) => Promise<void>) {
  let running = false;
  let again = false;
  let stopped = false;
  const tick = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        while (!stopped && (await relayBatch(onEvent)) === 500);
      } while (again && !stopped);
    } catch (e) {
      logger.warn({ err: (e as Error).message }, 'outbox relay pass failed');
    } finally {
      running = false;
    }
  };
  const unsubscribe = eventBus.subscribe(() => void tick());
  const timer = setInterval(tick, 1000);
  void tick();
  return () => {
    stopped = true;
    unsubscribe();
    clearInterval(timer);
  };
}
