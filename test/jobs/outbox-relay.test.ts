// The outbox relay (jobs/outbox-relay.ts): one publisher at a time across workers, and a relay that
// finds another at work holds nothing while it waits for its turn.
import { describe, expect, it } from 'vitest';
import { db, untilPublished, useServer } from '../helpers/server.ts';
import { PUBLISH_LOCK, relayBatch, startRelay } from '../../jobs/outbox-relay.ts';

const server = useServer({ background: 'none' });

const unpublished = async () =>
  (await db().system.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE "publishedAt" IS NULL')).rows[0]
    .n;

/** Backends of this database waiting on a lock (the relay's advisory lock included). */
const lockWaiters = async () =>
  (
    await db().system.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    )
  ).rows[0].n;

describe('outbox relay', () => {
  it('while another worker publishes, a relay neither waits on the lock nor keeps a connection; it publishes once the lock is free', async () => {
    const ws = await server.workspace();
    expect((await ws.client.post('/v1/customers', { name: 'Sari' })).status).toBe(201);
    expect(await unpublished()).toBeGreaterThan(0);

    // Another worker's publishing transaction, holding the lock.
    const other = await db().system.connect();
    await other.query('BEGIN');
    await other.query('SELECT pg_advisory_xact_lock($1)', [PUBLISH_LOCK]);
    const stop = startRelay();
    try {
      const t0 = performance.now();
      expect(await relayBatch()).toBeNull();
      expect(performance.now() - t0).toBeLessThan(1000);
      // The running relay tries again every 50 ms: never a backend queued on the lock, nothing published.
      for (let i = 0; i < 5; i++) {
        await new Promise((r) => setTimeout(r, 60));
        expect(await lockWaiters()).toBe(0);
      }
      expect(await unpublished()).toBeGreaterThan(0);
      expect(db().system.totalCount - db().system.idleCount).toBeLessThanOrEqual(2);

      await other.query('COMMIT');
      await untilPublished(5000);
      expect(await unpublished()).toBe(0);
    } finally {
      await other.query('ROLLBACK').catch(() => {});
      other.release();
      await stop();
    }
  });
});
