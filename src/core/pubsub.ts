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
    client.on('error', (e) => {
      logger.warn({ err: e.message }, 'event bus connection lost; reconnecting');
      if (!this.stopped) setTimeout(() => this.start(url).catch(() => {}), 500).unref();
    });
    await client.connect();
    await client.query('LISTEN svc_events');
    this.client = client;
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
