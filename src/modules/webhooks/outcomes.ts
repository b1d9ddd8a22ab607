import type pg from 'pg';
import { db, type Mode } from '../../core/db/client.ts';
import { clientSql, toJson } from '../../core/db/sql.ts';
import { emit } from '../../core/outbox.ts';
import { toWire } from '../../core/wire.ts';
import { endpointFields, type EndpointRow } from './fields.ts';
import { canMove, nextState, sqlIn } from '../../core/state-machine.ts';
import { sql } from '../../core/db/sql-template.ts';
import {
  afterAttempt,
  attemptable,
  BREAKER_THRESHOLD,
  endpointActive,
  webhookDeliveryMachine,
  webhookEndpointMachine,
  type EndpointStatus,
} from './states.ts';

/** One finished attempt (or a delivery ended without one: `counted` false). */
export interface Outcome {
  id: string;
  n: number;
  manual: boolean;
  endpointId: string;
  eventId: string;
  ok: boolean;
  statusCode: number | null;
  durationMs: number | null;
  preview: string | null;
  attemptedAt: Date;
  /** performance.now() when it ended: the order of outcomes for the breaker's count. */
  finishedAt: number;
  /** Whether the attempt counts for the endpoint's failure streak and last delivery. */
  counted: boolean;
  /** No retry follows (the workspace's webhooks have stopped: spec Workspace archive). */
  final?: boolean;
}

/**
 * Moves each delivery by its outcome; a row another run already moved past attempt `n` is left
 * alone. A delivery that will retry gives up its job (`enqueuedAt` NULL) and waits for the relay
 * to enqueue it at `nextRetryAt`.
 */
const APPLY = `
  WITH o AS (SELECT * FROM jsonb_to_recordset($1::jsonb)
    AS o(id text, n int, status text, "statusCode" int, "durationMs" int,
    "responseBodyPreview" text, "attemptedAt" timestamptz, "nextRetryAt" timestamptz))
  UPDATE webhook_deliveries d SET status = o.status, "statusCode" = o."statusCode",
    "durationMs" = o."durationMs", "retryCount" = o.n,
    "attemptedAt" = o."attemptedAt", "nextRetryAt" = o."nextRetryAt", "responseBodyPreview" = o."responseBodyPreview",
    "enqueuedAt" = CASE WHEN o."nextRetryAt" IS NULL THEN d."enqueuedAt" END
  FROM o WHERE d.id = o.id AND ${sqlIn(sql`d.status`, attemptable).text}
    AND (d."attemptedAt" IS NULL OR d."retryCount" < o.n)
  RETURNING d.id`;

/**
 * Records a batch of outcomes in one transaction: the delivery rows, the endpoints' failure streaks
 * and last delivery, and `webhook_endpoint.disabled` for each endpoint whose breaker trips. A crash
 * before COMMIT leaves the jobs to run again; after it, they find their attempt recorded.
 */
export async function recordOutcomes(outcomes: Outcome[]): Promise<void> {
  if (!outcomes.length) return;
  const moves = outcomes.map((o) => {
    const next = afterAttempt(o.n, o.ok, o.manual || !!o.final);
    const nextRetryAt = next.retryInMs === null ? null : new Date(o.attemptedAt.getTime() + next.retryInMs);
    return {
      id: o.id,
      n: o.n,
      status: webhookDeliveryMachine.moves[next.trigger].to,
      statusCode: o.statusCode,
      durationMs: o.durationMs,
      responseBodyPreview: o.preview,
      attemptedAt: o.attemptedAt,
      nextRetryAt,
    };
  });
  const client = await db().system.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query<{ id: string }>(APPLY, [toJson(moves)]);
    const applied = new Set(rows.map((r) => r.id));
    await updateEndpoints(
      client,
      outcomes.filter((o) => applied.has(o.id) && o.counted),
    );
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    client.release();
  }
}

/**
 * Failure streaks: a success in the batch resets the streak to the failures that finished after
 * it; otherwise the batch's failures add to it. Rows are locked in id order, so concurrent batches
 * cannot deadlock, and the trip is decided against the locked row: it happens once. NO KEY UPDATE,
 * not UPDATE: the relay's delivery inserts hold KEY SHARE on their endpoints (the foreign key), and
 * the two must not wait on each other.
 */
async function updateEndpoints(client: pg.PoolClient, outcomes: Outcome[]) {
  if (!outcomes.length) return;
  const byEndpoint = new Map<string, Outcome[]>();
  for (const o of outcomes.toSorted((a, b) => a.finishedAt - b.finishedAt))
    byEndpoint.set(o.endpointId, [...(byEndpoint.get(o.endpointId) ?? []), o]);
  const { rows: current } = await client.query<{ id: string; status: EndpointStatus; consecutiveFailures: number }>(
    `SELECT id, status, "consecutiveFailures" FROM webhook_endpoints WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE`,
    [[...byEndpoint.keys()]],
  );
  const updates = current.map((ep) => {
    const list = byEndpoint.get(ep.id)!;
    const lastOk = list.findLastIndex((o) => o.ok);
    const failures = list.slice(lastOk + 1).length;
    const streak = lastOk >= 0 ? failures : ep.consecutiveFailures + failures;
    const tripped =
      streak >= BREAKER_THRESHOLD && canMove(webhookEndpointMachine, ep.status, 'trip')
        ? nextState(webhookEndpointMachine, ep.status, 'trip')
        : null;
    const last = list.reduce((a, b) => (b.attemptedAt >= a.attemptedAt ? b : a));
    return {
      id: ep.id,
      streak,
      status: tripped?.to ?? ep.status,
      tripped: tripped !== null,
      lastEventId: last.eventId,
      lastAttemptedAt: last.attemptedAt,
      lastStatusCode: last.statusCode,
      lastDurationMs: last.durationMs,
    };
  });
  const { rows } = await client.query<EndpointRow & { tripped: boolean }>(
    `WITH u AS (SELECT * FROM jsonb_to_recordset($1::jsonb)
       AS u(id text, streak int, status text, tripped boolean, "lastEventId" text,
       "lastAttemptedAt" timestamptz, "lastStatusCode" int, "lastDurationMs" int))
     UPDATE webhook_endpoints ep SET "consecutiveFailures" = u.streak, status = u.status,
       "updatedAt" = CASE WHEN u.tripped THEN now() ELSE ep."updatedAt" END,
       "lastEventId" = CASE WHEN ep."lastAttemptedAt" > u."lastAttemptedAt"
         THEN ep."lastEventId" ELSE u."lastEventId" END,
       "lastStatusCode" = CASE WHEN ep."lastAttemptedAt" > u."lastAttemptedAt"
         THEN ep."lastStatusCode" ELSE u."lastStatusCode" END,
       "lastDurationMs" = CASE WHEN ep."lastAttemptedAt" > u."lastAttemptedAt"
         THEN ep."lastDurationMs" ELSE u."lastDurationMs" END,
       "lastAttemptedAt" = GREATEST(ep."lastAttemptedAt", u."lastAttemptedAt")
     FROM u WHERE ep.id = u.id RETURNING ep.*, u.tripped`,
    [toJson(updates)],
  );
  // The trip move's events (states.ts), for each endpoint it tripped.
  for (const ep of rows.filter((r) => r.tripped))
    for (const type of nextState(webhookEndpointMachine, endpointActive, 'trip').events)
      await emit(
        clientSql(client),
        { workspaceId: ep.workspaceId, mode: ep.mode as Mode },
        type,
        toWire(ep, endpointFields),
        { source: 'webhooks', objectId: ep.id },
      );
}
