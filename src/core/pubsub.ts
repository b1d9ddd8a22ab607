import pg from 'pg';
import { tenantQuery, type Mode } from './db/client.ts';
import { sql } from './db/sql-template.ts';
import { warnUnavailable } from './db/unavailable.ts';
import { config } from './config.ts';
import type { Event } from '../generated/prisma/client.ts';

/**
 * What the bus hears. `inserted`: some transaction committed events (wakes the relay).
 * `published`: the relay published a workspace's events up to `position` (wakes subscribers).
 * `resync`: the LISTEN connection was lost and is back; notifications in between are gone, so
 * everyone re-reads from where they are.
 */
export type EventNotice =
  | { kind: 'inserted' }
  | { kind: 'published'; position: bigint; workspaceId: string; mode: string }
  | { kind: 'usage'; workspaceId: string }
  | { kind: 'resync' };
type Listener = (notice: EventNotice) => void;

/**
 * PostgreSQL announces commits with pg_notify, so every server instance hears every commit,
 * whichever instance wrote it. Payloads are capped at 8000 bytes and never replayed: they carry
 * only ids and positions, and listeners read the rows themselves.
 */
export class EventBus {
  private client?: pg.Client;
  private listeners = new Set<Listener>();
  private stopped = false;

  private tell(notice: EventNotice) {
    for (const l of this.listeners) l(notice);
  }

  async start(url: string, reconnecting = false) {
    if (this.client && !this.stopped) return;
    this.stopped = false;
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: config.dbAcquireTimeoutMs });
    client.on('notification', (msg) => {
      if (msg.channel === 'svc_events') return this.tell({ kind: 'inserted' });
      if (msg.channel === 'svc_usage') return this.tell({ kind: 'usage', workspaceId: msg.payload ?? '' });
      const [workspaceId, mode, position] = (msg.payload ?? '').split(':');
      if (position) this.tell({ kind: 'published', position: BigInt(position), workspaceId, mode });
    });
    // The connection is gone (server restart, failover, terminated backend): drop it and listen
    // again on a new one, retrying until it works. Keeping the dead client here would make
    // start() a no-op, and this instance would never hear another commit.
    let listening = false; // failures before LISTEN are start()'s to report
    const lost = (e?: Error) => {
      if (!listening || this.client !== client) return;
      this.client = undefined;
      client.end().catch(() => {});
      if (this.stopped) return;
      warnUnavailable('event bus', e ?? new Error('Connection terminated'));
      this.reconnect(url);
    };
    client.on('error', lost);
    client.on('end', () => lost());
    this.client = client;
    try {
      await client.connect();
      await client.query('LISTEN svc_events');
      await client.query('LISTEN svc_published');
      // Accepted usage events wake the fold (docs/usage.md, Fold).
      await client.query('LISTEN svc_usage');
      listening = true;
      this.attempts = 0;
      if (reconnecting) this.tell({ kind: 'resync' });
    } catch (e) {
      if (this.client === client) this.client = undefined;
      client.end().catch(() => {});
      throw e;
    }
  }

  /** Consecutive failed reconnects: the delay doubles from 0.25 s up to 4 s while the database is away. */
  private attempts = 0;

  private reconnect(url: string) {
    const delay = Math.min(4000, 250 * 2 ** this.attempts++);
    setTimeout(() => {
      if (!this.stopped && !this.client)
        this.start(url, true).catch((e) => {
          warnUnavailable('event bus', e);
          this.reconnect(url);
        });
    }, delay).unref();
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async stop() {
    this.stopped = true;
    this.listeners.clear();
    await this.client?.end().catch(() => {});
    this.client = undefined;
  }
}

export const eventBus = new EventBus();

/** Reads published events after a published position for one workspace and its visible modes, in commit order. */
/** An event row as node-postgres reads it: its bigint positions come back as text. */
export type PublishedEventRow = Omit<Event, 'position' | 'publishedPosition'> & {
  position: string;
  publishedPosition: string;
};

export function eventsAfter(workspaceId: string, modes: readonly Mode[], after: bigint, limit = 500) {
  return tenantQuery<PublishedEventRow>(
    { workspaceId, modes },
    sql`SELECT * FROM events
      WHERE "workspaceId" = ${workspaceId} AND mode = ANY(${modes}) AND "publishedPosition" > ${after.toString()}
      ORDER BY "publishedPosition" LIMIT ${limit}`,
  );
}
