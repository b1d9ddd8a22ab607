import { db } from '../../core/db/client.ts';
import { unseal } from '../../core/sealed.ts';
import { clock, epochSeconds } from '../../core/clock.ts';
import { logger } from '../../core/logger.ts';
import { deliveryOutcome, metricsEnabled, observeDeliveryAttempt } from '../../core/metrics.ts';
import { inSpan } from '../../core/tracing.ts';
import { deliveryHeaders, type SignatureFormat } from '../../client/webhook-signing.ts';
import { eventBody, type EventRowLike } from '../events/payload.ts';
import { postWebhook, type AttemptResult } from './http-post.ts';
import { recordOutcomes, type Outcome } from './outcomes.ts';
import { ATTEMPT_TIMEOUT_MS, type DeliveryJob } from './queue.ts';
import { sqlIn } from '../../core/state-machine.ts';
import { sql } from '../../core/db/sql-template.ts';
import { attemptable, endpointActive } from './states.ts';
import { deliversWebhooks, webhooksStopBefore } from '../../core/retention.ts';

interface Due {
  id: string;
  n: number;
  manual: boolean;
  workspaceId: string;
  mode: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  url: string;
  endpointStatus: string;
  signatureFormat: SignatureFormat;
  secret: Buffer;
  previousSecret: Buffer | null;
  previousSecretExpiresAt: Date | null;
  event: EventRowLike | null;
  /** The endpoint's or the event's workspace was archived more than 24 hours ago (spec Workspace). */
  stopped: boolean;
}

/**
 * The deliveries these jobs may attempt: still pending, and not yet past attempt `n` (a job run a
 * second time after a crash, once its attempt was recorded, finds nothing). Endpoint, secrets and
 * the event come in the same read.
 */
const DUE = `
  SELECT d.id, j.n, d.manual, d."workspaceId", d.mode, d."endpointId", d."eventId", d."eventType",
    ep.url, ep.status AS "endpointStatus", ep."signatureFormat",
    ep.secret, ep."previousSecret", ep."previousSecretExpiresAt",
    NOT (${deliversWebhooks('ow', '$3')} AND ${deliversWebhooks('dw', '$3')}) AS stopped,
    CASE WHEN e.id IS NULL THEN NULL ELSE json_build_object(
      'id', e.id, 'type', e.type, 'occurredAt', e."occurredAt", 'createdAt', e."createdAt",
      'publishedAt', e."publishedAt", 'mode', e.mode, 'workspaceId', e."workspaceId",
      'sequence', e.sequence, 'data', e.data, 'metadata', e.metadata) END AS event
  FROM unnest($1::text[], $2::int[]) AS j(id, n)
  JOIN webhook_deliveries d ON d.id = j.id
  JOIN webhook_endpoints ep ON ep.id = d."endpointId"
  JOIN workspaces ow ON ow.id = ep."workspaceId"
  LEFT JOIN events e ON e.id = d."eventId"
  LEFT JOIN workspaces dw ON dw.id = e."workspaceId"
  WHERE ${sqlIn(sql`d.status`, attemptable).text} AND (d."attemptedAt" IS NULL OR d."retryCount" < j.n)`;

/** JSON timestamps back to Dates: the body must carry exactly the ISO strings REST prints. */
const eventOf = (e: Record<string, unknown>): EventRowLike => ({
  ...(e as unknown as EventRowLike),
  occurredAt: new Date(e.occurredAt as string),
  createdAt: new Date(e.createdAt as string),
  publishedAt: e.publishedAt ? new Date(e.publishedAt as string) : null,
});

/** The secrets that sign now: the current one, and the previous one while its overlap lasts. */
function secretsOf(d: Due, now: Date): string[] {
  const row = { id: d.endpointId, workspaceId: d.workspaceId };
  const out = [unseal('webhook_endpoints', row, d.secret).toString()];
  if (d.previousSecret && d.previousSecretExpiresAt && d.previousSecretExpiresAt > now)
    out.push(unseal('webhook_endpoints', row, d.previousSecret).toString());
  return out;
}

/** The request that caused the event (its metadata), so an attempt's log line leads back to it. */
const requestIdOf = (d: Due) => (d.event?.metadata as { requestId?: string } | undefined)?.requestId ?? undefined;

/** Metrics of one attempt: outcome, and for a first automatic attempt the lag since the event's commit. */
function observe(d: Due, o: Outcome) {
  if (!metricsEnabled()) return;
  const lag = d.n === 0 && !d.manual && d.event ? o.attemptedAt.getTime() - d.event.createdAt.getTime() : null;
  observeDeliveryAttempt(
    !o.counted ? deliveryOutcome.skipped : o.ok ? deliveryOutcome.ok : deliveryOutcome.failed,
    lag,
  );
}

const attempt = (d: Due): Promise<Outcome> =>
  inSpan(
    'webhook attempt',
    { 'svc.delivery_id': d.id, 'svc.event_type': d.eventType, 'svc.attempt': d.n },
    async () => {
      const o = await attemptOnce(d);
      observe(d, o);
      return o;
    },
  );

async function attemptOnce(d: Due): Promise<Outcome> {
  const attemptedAt = clock.now();
  const base = { ...d, attemptedAt };
  // An endpoint disabled or errored since the job was queued, or an event gone: nothing is sent,
  // the delivery ends failed, and the breaker does not count it. So does one of a workspace archived
  // more than 24 hours ago (its webhooks have stopped), and that one is not retried.
  if (d.endpointStatus !== endpointActive || !d.event || d.stopped) {
    return {
      ...base,
      ok: false,
      statusCode: null,
      durationMs: null,
      preview: null,
      counted: false,
      final: d.stopped,
      finishedAt: performance.now(),
    };
  }
  const body = Buffer.from(eventBody(d.event));
  const headers = deliveryHeaders(
    d.signatureFormat,
    secretsOf(d, attemptedAt),
    { eventId: d.eventId, eventType: d.eventType, deliveryId: d.id },
    body,
    epochSeconds(attemptedAt),
  );
  const result: AttemptResult = await postWebhook(d.url, body, headers, ATTEMPT_TIMEOUT_MS);
  if (!result.ok)
    logger.info(
      {
        deliveryId: d.id,
        endpointId: d.endpointId,
        requestId: requestIdOf(d),
        statusCode: result.statusCode,
        error: result.error,
      },
      'webhook attempt failed',
    );
  return { ...base, ...result, counted: true, finishedAt: performance.now() };
}

/** One pg-boss batch: every due delivery attempted at once, then all outcomes recorded in one transaction. */
export async function deliverBatch(jobs: DeliveryJob[]): Promise<void> {
  const { rows } = await db().system.query<Due & { event: Record<string, unknown> | null }>(DUE, [
    jobs.map((j) => j.deliveryId),
    jobs.map((j) => j.n),
    webhooksStopBefore(clock.now()),
  ]);
  const outcomes = await Promise.all(rows.map((r) => attempt({ ...r, event: r.event && eventOf(r.event) })));
  await recordOutcomes(outcomes);
}
