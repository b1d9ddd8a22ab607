import pg from 'pg';
import { tenantQuery, type Mode } from './db/client.ts';
import { logger } from './logger.ts';

/** A committed event as announced by PostgreSQL: the row itself is read back by position. */
export interface EventNotice {
  position: bigint;
  workspaceId: string;
  mode: string;
}
type Listener = (notice: EventNotice) => void;

/**
 * Events are announced by a trigger with pg_notify at commit, so every server instance on the
 * database hears every commit, whichever instance wrote it. NOTIFY payloads are small and not
 * replayed: they carry only the position, and subscribers resume by reading rows after it.
 */
export class EventBus {
  private client?: pg.Client;
  private listeners = new Set<Listener>();
  private stopped = false;

  async start(url: string) {
    if (this.client && !this.stopped) return;
    this.stopped = false;
    const client = new pg.Client({ connectionString: url });
    client.on('notification', (msg) => {
      const [position, workspaceId, mode] = (msg.payload ?? '').split(':');
      if (!position) return;
      const notice = { position: BigInt(position), workspaceId, mode };
      for (const l of this.listeners) l(notice);
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
      logger.warn({ err: e?.message }, 'event bus connection lost; reconnecting');
      this.reconnect(url);
    };
    client.on('error', lost);
    client.on('end', () => lost());
    this.client = client;
    try {
      await client.connect();
      await client.query('LISTEN svc_events');
      listening = true;
    } catch (e) {
      if (this.client === client) this.client = undefined;
      client.end().catch(() => {});
      throw e;
    }
  }

  private reconnect(url: string) {
    setTimeout(() => {
      if (!this.stopped && !this.client) this.start(url).catch(() => this.reconnect(url));
    }, 500).unref();
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

/** Reads committed events after a position for one workspace and its visible modes. */
export function eventsAfter(workspaceId: string, modes: readonly Mode[], after: bigint, limit = 500) {
  return tenantQuery<{ position: string; type: string; objectId: string | null } & Record<string, unknown>>(
    { workspaceId, modes },
    `SELECT * FROM events WHERE "workspaceId" = $1 AND mode = ANY($2) AND position > $3 ORDER BY position LIMIT $4`,
    [workspaceId, modes, after.toString(), limit],
  );
}
