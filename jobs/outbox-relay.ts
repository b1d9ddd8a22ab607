import type pg from 'pg';
import { db } from '../src/core/db/client.ts';
import { eventBus } from '../src/core/pubsub.ts';
import { logger } from '../src/core/logger.ts';
import { isDatabaseUnavailable, warnUnavailable } from '../src/core/db/unavailable.ts';

export interface RelayedEvent {
  id: string;
  workspaceId: string;
  mode: string;
  type: string;
  publishedPosition: string;
}

/** What else must happen in each publishing transaction (webhook fan-out), even one that published nothing: all of it commits, or none. */
export type OnPublish = (client: pg.PoolClient, rows: RelayedEvent[]) => Promise<void>;

const BATCH = 500;
/** One publisher at a time, across every worker: positions are then handed out in commit order. */
export const PUBLISH_LOCK = 0x5f_6f75_7462; // "_outb"
/** A relay that found another publisher at work tries again this much later, holding nothing meanwhile. */
const BUSY_RETRY_MS = 50;

/**
 * Publishes a batch of committed events: each gets the next `publishedPosition` (commit order,
 * gapless, because publishers are serialised by the lock and hold it to their commit), and each
 * workspace and mode with news gets one `svc_published` notification carrying only its highest
 * position. Subscribers read rows after their position, so a lost or merged notification loses
 * nothing. Within a batch, events keep insert order, so one object's events keep their sequence
 * order (a later write to an object waits on the earlier one's `object_sequences` row lock).
 */
const PUBLISH = `
  WITH batch AS (
    SELECT position, row_number() OVER (ORDER BY position) AS n
    FROM (SELECT position FROM events WHERE "publishedAt" IS NULL ORDER BY position LIMIT ${BATCH}) b),
  base AS (SELECT COALESCE(max("publishedPosition"), 0) AS p FROM events),
  published AS (
    UPDATE events e SET "publishedAt" = now(), "publishedPosition" = base.p + batch.n
    FROM batch, base WHERE e.position = batch.position
    RETURNING e.id, e."workspaceId", e.mode, e.type, e."publishedPosition"),
  notified AS (
    SELECT pg_notify('svc_published', "workspaceId" || ':' || mode || ':' || top)
    FROM (SELECT "workspaceId", mode, max("publishedPosition") AS top FROM published GROUP BY 1, 2) g)
  SELECT p.* FROM published p, (SELECT count(*) FROM notified) _ ORDER BY p."publishedPosition"`;

/**
 * Publishes one batch; null when another worker is publishing. The lock is tried, never waited for: a
 * relay queued behind another held a pooled connection and an open transaction for the whole of the
 * other's batch (a third of the sampled backends of a renewal burst waited there).
 */
export async function relayBatch(onPublish?: OnPublish): Promise<number | null> {
  const client = await db().system.connect();
  try {
    await client.query('BEGIN');
    const [lock] = (await client.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS ok', [PUBLISH_LOCK]))
      .rows;
    if (!lock.ok) {
      await client.query('ROLLBACK');
      return null;
    }
    const { rows } = await client.query<RelayedEvent>(PUBLISH);
    if (onPublish) await onPublish(client, rows);
    await client.query('COMMIT');
    return rows.length;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    client.release();
  }
}

/**
 * Queue: none (a loop in the worker). Woken by each commit's `svc_events` notification, with a
 * 1 s poll as a backstop so nothing waits on a lost notification.
 */
export function startRelay(onPublish?: OnPublish) {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  // While the database is away, passes back off (0.25 s doubling to 4 s) instead of failing every tick.
  let failures = 0;
  let notBefore = 0;
  const tick = async () => {
    if (running) {
      again = true;
      return;
    }
    if (Date.now() < notBefore) return;
    running = pass();
    await running;
  };
  let retry: NodeJS.Timeout | undefined;
  const pass = async () => {
    try {
      let published: number | null;
      do {
        again = false;
        do published = await relayBatch(onPublish);
        while (!stopped && published === BATCH);
      } while (again && !stopped && published !== null);
      // The other publisher may have read before our events committed: look again shortly.
      if (published === null && !stopped)
        retry ??= setTimeout(() => {
          retry = undefined;
          void tick();
        }, BUSY_RETRY_MS);
      failures = 0;
    } catch (e) {
      notBefore = Date.now() + Math.min(4000, 250 * 2 ** failures++);
      if (isDatabaseUnavailable(e)) warnUnavailable('outbox relay', e);
      else logger.warn({ err: (e as Error).message }, 'outbox relay pass failed');
    } finally {
      running = undefined;
    }
  };
  const unsubscribe = eventBus.subscribe((n) => {
    if (n.kind === 'inserted' || n.kind === 'resync') void tick();
  });
  const timer = setInterval(tick, 1000);
  void tick();
  /** Stops polling and resolves once a pass in flight has finished (before the pools close). */
  return async () => {
    stopped = true;
    unsubscribe();
    clearInterval(timer);
    clearTimeout(retry);
    await running;
  };
}
