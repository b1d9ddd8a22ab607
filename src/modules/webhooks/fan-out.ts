import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { insertRows } from '../../core/db/sql.ts';
import { compile, sql } from '../../core/db/sql-template.ts';
import { newId } from '../../core/ids.ts';
import { clock } from '../../core/clock.ts';
import { enqueueAttempts } from './queue.ts';
import { nextState, sqlIn } from '../../core/state-machine.ts';
import { endpointActive, webhookDeliveryMachine } from './states.ts';
import { deliversWebhooks, webhooksStopBefore } from '../../core/retention.ts';

interface Published {
  id: string;
  workspaceId: string;
  mode: string;
  type: string;
}

/**
 * Who receives each event: the active endpoints of its workspace and mode, and of the partner the
 * workspace was provisioned under (spec: partner-level endpoints receive their merchants' events),
 * whose filter lists the type or `*`. An archived workspace's events, and an archived workspace's
 * endpoints, stop once the 24-hour grace has passed (spec Workspace).
 */
const TARGETS = `
  SELECT ev.id AS "eventId", ev.type AS "eventType", ep.id AS "endpointId", ep."workspaceId", ep.mode
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS ev(id, "workspaceId", mode, type)
  JOIN workspaces w ON w.id = ev."workspaceId" AND ${deliversWebhooks('w', '$5')}
  JOIN webhook_endpoints ep ON ep.mode = ev.mode AND ${sqlIn(sql`ep.status`, [endpointActive]).text}
    AND ep."workspaceId" IN (ev."workspaceId", w."partnerId") AND ep.events && ARRAY['*', ev.type]
  JOIN workspaces owner ON owner.id = ep."workspaceId" AND ${deliversWebhooks('owner', '$5')}`;

/**
 * The one way a delivery reaches the queue: rows without a job whose time has come (new ones, manual
 * retries, and automatic retries whose `nextRetryAt` has passed on the injected clock). `n` is the
 * attempt the job makes: the row's own for a first or manual attempt, the next one after a failure.
 */
const DUE_UNQUEUED = `
  UPDATE webhook_deliveries SET "enqueuedAt" = now() WHERE id IN (
    SELECT id FROM webhook_deliveries WHERE "enqueuedAt" IS NULL
      AND ("nextRetryAt" IS NULL OR "nextRetryAt" <= $1) LIMIT 10000)
  RETURNING id, CASE WHEN "attemptedAt" IS NULL THEN "retryCount" ELSE "retryCount" + 1 END AS n`;

/**
 * Runs in the relay's publishing transaction (every pass, even one that published nothing): writes
 * a pending delivery per event and endpoint, then enqueues every delivery that is due. All of it
 * commits with the publication, or none of it does, so a crash anywhere leaves nothing published
 * without its deliveries, and no due delivery without its job.
 */
export function webhookFanOut(boss: PgBoss) {
  return async (client: pg.PoolClient, events: Published[]) => {
    if (events.length) {
      const cols = (k: keyof Published) => events.map((e) => e[k]);
      const { rows: targets } = await client.query(TARGETS, [
        cols('id'),
        cols('workspaceId'),
        cols('mode'),
        cols('type'),
        webhooksStopBefore(clock.now()),
      ]);
      if (targets.length) {
        const rows = targets.map((t) => ({
          id: newId('webhookDelivery'),
          ...t,
          status: nextState(webhookDeliveryMachine, null, 'create').to,
        }));
        await client.query(compile(insertRows('webhook_deliveries', rows)));
      }
    }
    const { rows: due } = await client.query<{ id: string; n: number }>(DUE_UNQUEUED, [clock.now()]);
    await enqueueAttempts(
      boss,
      client,
      due.map((d) => ({ deliveryId: d.id, n: d.n })),
    );
  };
}
