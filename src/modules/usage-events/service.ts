import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { clock } from '../../core/clock.ts';
import { tenantTx } from '../../core/db/sql.ts';
import { sql } from '../../core/db/sql-template.ts';
import { errorsFor } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { pageRequest, toConnection } from '../../core/pagination.ts';
import { nextState, sqlStatus } from '../../core/state-machine.ts';
import type { UsageEvent } from '../../generated/prisma/client.ts';
import { withIngestSlot } from './admission.ts';
import { ingestEvents } from './ingest.ts';
import { usageEventList } from './list.ts';
import { batchOf, timestampMs } from './parse.ts';
import type { IngestUsageEventsInput, ListUsageEventsArgs } from './schema.ts';
import { usageEventMachine, usageEventVoided, type UsageEventStatus } from './states.ts';

const err = errorsFor('usage_event');

/**
 * POST /v1/usage-events: the batch's shape, the rest of its event tokens (the admission took one),
 * a slot of this process, then the checks and the one transaction (docs/usage.md, The request).
 */
export async function ingestUsageEvents(ctx: Context, input: IngestUsageEventsInput) {
  const auth = authorize(ctx, 'svc:usage:write');
  const events = batchOf(input as Record<string, unknown>);
  await ctx.takeTokens?.('usage_ingest', events.length - 1);
  return withIngestSlot(auth.workspaceId, () =>
    ingestEvents({ workspaceId: auth.workspaceId, mode: auth.mode }, events, clock.now()),
  );
}

/** The event located by its key row in either generation: id, then its partition by time. */
async function findEvent(scope: { workspaceId: string; mode: 'test' | 'live' }, id: string, lock: boolean) {
  return tenantTx({ workspaceId: scope.workspaceId, modes: [scope.mode] }, (q) =>
    q.query<UsageEvent>(sql`SELECT * FROM usage_events
      WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode} AND id = ${id}
      ORDER BY "ingestSeq" DESC LIMIT 1 ${lock ? sql`FOR UPDATE` : sql.empty}`),
  ).then((rows) => rows[0]);
}

export async function getUsageEvent(ctx: Context, id: string): Promise<UsageEvent> {
  const auth = authorize(ctx, 'svc:usage:read');
  const row = await findEvent(tenant(auth), id, false);
  if (!row) throw err.notFound('usage_event');
  return row;
}

/** Void keeps the row (status voided, voidedAt) and its id reserved; again: 200, unchanged. */
export async function voidUsageEvent(ctx: Context, id: string): Promise<UsageEvent> {
  const auth = authorize(ctx, 'svc:usage:write');
  const scope = tenant(auth);
  return tenantTx(scope, async (q) => {
    await q.query(
      sql`SELECT pg_advisory_xact_lock_shared(hashtextextended(${`usage:${auth.workspaceId}:${auth.mode}`}, 0))`,
    );
    const [row] = await q.query<UsageEvent>(sql`SELECT * FROM usage_events
      WHERE "workspaceId" = ${auth.workspaceId} AND mode = ${auth.mode} AND id = ${id}
      ORDER BY "ingestSeq" DESC LIMIT 1 FOR UPDATE`);
    if (!row) throw err.notFound('usage_event');
    if (row.status === usageEventVoided) return row;
    const to = nextState(usageEventMachine, row.status as UsageEventStatus, 'void').to;
    const now = clock.now();
    // The journal records the void for the fold (docs/usage.md, Journal).
    const [updated] = await q.query<UsageEvent>(sql`WITH v AS (UPDATE usage_events SET status = ${sqlStatus(to)},
        "voidedAt" = ${now}
      WHERE "workspaceId" = ${auth.workspaceId} AND mode = ${auth.mode} AND "ingestSeq" = ${row.ingestSeq}
        AND "timestamp" = ${row.timestamp} AND "receivedAt" = ${row.receivedAt} RETURNING *),
      j AS (INSERT INTO usage_ingest_batches (id, "workspaceId", mode, kind, "eventCount", "firstSeq", "lastSeq", "receivedAt")
        VALUES (${newId('usageIngestBatch')}, ${auth.workspaceId}, ${auth.mode}, 'correction', 1, ${row.ingestSeq},
          ${row.ingestSeq}, ${now}))
      SELECT * FROM v`);
    // The folders wake on it, as on an ingested batch (jobs/usage-fold.ts).
    await q.query(sql`SELECT pg_notify('svc_usage', ${auth.workspaceId})`);
    return updated;
  });
}

/** GET /v1/usage-events: newest timestamp first by default, ties in receipt order. */
export async function listUsageEvents(ctx: Context, args: ListUsageEventsArgs) {
  const auth = authorize(ctx, 'svc:usage:read');
  usageEventList.check(args);
  if (args.customerId && args.externalCustomerId)
    throw err.validation('customerId', 'give customerId or externalCustomerId, not both');
  const from = args.from ? checkBound(args.from, 'from') : null;
  const to = args.to ? checkBound(args.to, 'to') : null;
  const filters = { ...usageEventList.values(args), from: from?.toISOString() ?? null, to: to?.toISOString() ?? null };
  const page = pageRequest(args, auth.workspaceId, filters, usageEventList.limit);
  const position = sql`("timestamp", "ingestSeq")`;
  const after = page.after && { at: new Date(page.after.at), seq: page.after.id };
  const cmp = page.order === 'desc' ? sql.raw('<') : sql.raw('>');
  const dir = page.order === 'desc' ? sql.raw('DESC') : sql.raw('ASC');
  const rows = await tenantTx(tenant(auth), (q) =>
    q.query<UsageEvent>(sql`SELECT * FROM usage_events t
      WHERE "workspaceId" = ${auth.workspaceId} AND mode = ${auth.mode} ${usageEventList.where(args)}
        ${from ? sql`AND "timestamp" >= ${from}` : sql.empty} ${to ? sql`AND "timestamp" < ${to}` : sql.empty}
        ${after ? sql`AND ${position} ${cmp} (${after.at}, ${after.seq}::bigint)` : sql.empty}
      ORDER BY "timestamp" ${dir}, "ingestSeq" ${dir} LIMIT ${page.limit + 1}`),
  );
  return toConnection(rows, page, auth.workspaceId, filters, (r) => ({
    at: r.timestamp.toISOString(),
    id: String(r.ingestSeq),
  }));
}

function checkBound(value: string, field: string): Date {
  const ms = timestampMs(value);
  if (ms === null) throw err.validation(field, `${field} must be an ISO 8601 time with Z or an offset`);
  return new Date(ms);
}
