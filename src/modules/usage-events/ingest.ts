/**
 * One ingestion request (docs/usage.md, The request): formats in memory, then one transaction on
 * the ingest pool with a fixed number of statements whatever the batch size: lock and batch number,
 * customers, key claims, (live keys of the ids not claimed), and one write of events, released keys,
 * the journal row and the fold's wake-up.
 */
import { sql } from '../../core/db/sql-template.ts';
import { newId } from '../../core/ids.ts';
import type { RowScope } from '../../core/resource.ts';
import { activeMeters } from '../meters/cache.ts';
import { checkEvent, type CheckedEvent, type Rejection } from './parse.ts';
import { claimKeys, liveKeys, releaseKeys } from './keys.ts';
import { inIngestTx, type Run } from './pool.ts';
import { checkPeriodsOpen, judge, type CustomerRef, type Verdict } from './verdict.ts';
import { clientlessSql } from './sql.ts';

export interface EventResult {
  index: number;
  id: string | null;
  status: 'accepted' | 'duplicate' | 'rejected';
  code: string | null;
  field: string | null;
  message: string | null;
}
export interface IngestOutcome {
  accepted: number;
  duplicates: number;
  rejected: number;
  results: EventResult[];
}

const ok = (index: number, id: string, status: 'accepted' | 'duplicate'): EventResult => ({
  index,
  id,
  status,
  code: null,
  field: null,
  message: null,
});
const refused = (r: Rejection): EventResult => ({ ...r, status: 'rejected' });
const conflict = (index: number, id: string): EventResult =>
  refused({ index, id, code: 'idempotency_conflict', field: 'id', message: 'this id was accepted with other content' });

/** Resolves the batch's customers (ids and externalIds) in one query, with their test clocks' time. */
async function resolveCustomers(run: Run, scope: RowScope, events: CheckedEvent[]) {
  const ids = [...new Set(events.flatMap((e) => (e.customerId ? [e.customerId] : [])))];
  const external = [...new Set(events.flatMap((e) => (e.externalCustomerId ? [e.externalCustomerId] : [])))];
  const rows = await run<{ id: string; externalId: string | null; clock: Date | null }>(
    sql`SELECT c.id, c."externalId", t."frozenTime" AS clock FROM customers c
      LEFT JOIN test_clocks t ON t."workspaceId" = c."workspaceId" AND t.mode = c.mode AND t.id = c."testClockId"
        AND t."deletedAt" IS NULL
      WHERE c."workspaceId" = ${scope.workspaceId} AND c.mode = ${scope.mode}
        AND (c.id = ANY(${ids}::text[]) OR c."externalId" = ANY(${external}::text[]))`,
  );
  const byId = new Map<string, CustomerRef>();
  const byExternal = new Map<string, CustomerRef>();
  for (const r of rows) {
    const ref = { id: r.id, externalId: r.externalId, clockMs: r.clock ? r.clock.getTime() : null };
    byId.set(r.id, ref);
    if (r.externalId !== null) byExternal.set(r.externalId, ref);
  }
  return (e: CheckedEvent) => (e.customerId !== null ? byId.get(e.customerId) : byExternal.get(e.externalCustomerId!));
}

/** Checks every event and writes the accepted ones; answers one result per event, in request order. */
export async function ingestEvents(scope: RowScope, raw: unknown[], receivedAt: Date): Promise<IngestOutcome> {
  const results: EventResult[] = new Array(raw.length);
  const firsts: CheckedEvent[] = [];
  const repeats: CheckedEvent[] = [];
  const seen = new Map<string, CheckedEvent>();
  raw.forEach((r, i) => {
    const e = checkEvent(r, i);
    if (!('hash' in e)) results[i] = refused(e);
    else if (seen.has(e.id)) repeats.push(e);
    else seen.set(e.id, e), firsts.push(e);
  });
  if (firsts.length > 0) await writeBatch(scope, firsts, receivedAt, results);
  // Within one request the first occurrence decides: same content answers as it did, other content conflicts.
  for (const e of repeats) {
    const first = seen.get(e.id)!;
    const answer = results[first.index];
    if (!first.hash.equals(e.hash)) results[e.index] = conflict(e.index, e.id);
    else if (answer.status === 'rejected') results[e.index] = { ...answer, index: e.index };
    else results[e.index] = ok(e.index, e.id, 'duplicate');
  }
  const count = (s: EventResult['status']) => results.filter((r) => r.status === s).length;
  return { accepted: count('accepted'), duplicates: count('duplicate'), rejected: count('rejected'), results };
}

async function writeBatch(scope: RowScope, events: CheckedEvent[], receivedAt: Date, results: EventResult[]) {
  await inIngestTx({ workspaceId: scope.workspaceId, modes: [scope.mode] }, async (run) => {
    const lock = `usage:${scope.workspaceId}:${scope.mode}`;
    const [{ seq }] = await run<{ seq: string }>(
      sql`SELECT pg_advisory_xact_lock_shared(hashtextextended(${lock}, 0)),
        nextval(pg_get_serial_sequence('usage_ingest_batches', 'seq'))::text AS seq`,
    );
    // Event i of the request is seq x 1024 + i (docs/usage.md, Journal); the batch owns the whole range.
    const seqAt = (index: number) => (BigInt(seq) * 1024n + BigInt(index)).toString();
    const seqOf = (e: CheckedEvent) => seqAt(e.index);
    const range: [string, string] = [seqAt(0), seqAt(1023)];
    const customerOf = await resolveCustomers(run, scope, events);
    const meters = await activeMeters(clientlessSql(run), scope);
    const verdicts = new Map<number, Verdict>();
    for (const e of events) verdicts.set(e.index, judge(e, customerOf(e), meters, receivedAt.getTime()));
    const acceptedRefs = events.flatMap((e) => {
      const v = verdicts.get(e.index)!;
      return v.ok ? [{ index: e.index, customerId: v.customerId }] : [];
    });
    for (const [index, v] of checkPeriodsOpen(acceptedRefs)) verdicts.set(index, v);

    const timestamps = events.map((e) => {
      const v = verdicts.get(e.index)!;
      return new Date(v.ok ? v.timestampMs : receivedAt.getTime());
    });
    const claimed = await run<{ id: string; n: number }>(
      claimKeys(scope, receivedAt, {
        ids: events.map((e) => e.id),
        hashes: events.map((e) => e.hash),
        timestamps,
        seqs: events.map(seqOf),
      }),
    );
    const held = new Set(claimed.filter((c) => c.n === 2).map((c) => c.id));
    const notHeld = events.filter((e) => !held.has(e.id));
    const live = new Map<string, Buffer>();
    if (notHeld.length > 0) {
      const rows = await run<{ id: string; hash: Buffer }>(
        liveKeys(
          scope,
          receivedAt,
          notHeld.map((e) => e.id),
          range,
        ),
      );
      for (const r of rows) live.set(r.id, r.hash);
    }
    const release: string[] = notHeld.map((e) => e.id);
    const accepted: { e: CheckedEvent; v: Extract<Verdict, { ok: true }>; ts: Date }[] = [];
    events.forEach((e, i) => {
      const v = verdicts.get(e.index)!;
      if (!held.has(e.id)) {
        const hash = live.get(e.id);
        // Not held and no live key: a concurrent request took it and then released it; retrying is safe.
        if (!hash) results[e.index] = refused({ index: e.index, id: e.id, ...busy });
        else results[e.index] = hash.equals(e.hash) ? ok(e.index, e.id, 'duplicate') : conflict(e.index, e.id);
      } else if (!v.ok) {
        results[e.index] = refused({ index: e.index, id: e.id, code: v.code, field: v.field, message: v.message });
        release.push(e.id);
      } else {
        results[e.index] = ok(e.index, e.id, 'accepted');
        accepted.push({ e, v, ts: timestamps[i] });
      }
    });
    await run(writeStatement(scope, seq, receivedAt, accepted, release, range, seqOf));
  });
}

const busy = {
  code: 'idempotency_conflict',
  field: 'id',
  message: 'another request was handling this id at the same time; send it again',
};

/** The one write: released keys, accepted events from arrays, the journal row and the fold's wake-up. */
function writeStatement(
  scope: RowScope,
  seq: string,
  receivedAt: Date,
  accepted: { e: CheckedEvent; v: Extract<Verdict, { ok: true }>; ts: Date }[],
  release: string[],
  range: [string, string],
  seqOf: (e: CheckedEvent) => string,
) {
  const n = accepted.length;
  const first = n > 0 ? seqOf(accepted[0].e) : range[0];
  const last = n > 0 ? seqOf(accepted[n - 1].e) : range[0];
  const batchId = newId('usageIngestBatch');
  return sql`WITH ${releaseKeys(scope, release, range)},
    ev AS (INSERT INTO usage_events ("workspaceId", mode, id, "eventName", "customerId", "externalCustomerId",
        "timestamp", "receivedAt", properties, "meterIds", "ingestSeq", "batchId")
      SELECT ${scope.workspaceId}, ${scope.mode}, u.id, u.name, u.cus, u.ext, u.ts, ${receivedAt}, u.props,
        string_to_array(u.meters, ','), u.seq, ${batchId}
      FROM unnest(${accepted.map((a) => a.e.id)}::text[], ${accepted.map((a) => a.e.eventName)}::text[],
        ${accepted.map((a) => a.v.customerId)}::text[], ${accepted.map((a) => a.e.externalCustomerId)}::text[],
        ${accepted.map((a) => a.ts)}::timestamptz[], ${accepted.map((a) => JSON.stringify(a.e.properties))}::jsonb[],
        ${accepted.map((a) => a.v.meterIds.join(','))}::text[], ${accepted.map((a) => seqOf(a.e))}::bigint[])
        AS u(id, name, cus, ext, ts, props, meters, seq)),
    batch AS (INSERT INTO usage_ingest_batches (id, "workspaceId", mode, seq, kind, "eventCount", "firstSeq", "lastSeq",
        "receivedAt")
      SELECT ${batchId}, ${scope.workspaceId}, ${scope.mode}, ${seq}::bigint, 'ingest', ${n}::int, ${first}::bigint,
        ${last}::bigint, ${receivedAt} WHERE ${n}::int > 0)
    SELECT pg_notify('svc_usage', ${scope.workspaceId}) WHERE ${n}::int > 0`;
}
