/**
 * GET /v1/reports/ledger.csv (spec Ledger and reports): every entry of the period, oldest first,
 * streamed in keyset batches from one snapshot; each batch is read only when the socket has taken
 * the previous one (Readable.from pulls), so memory stays constant at any size. Not an operation:
 * CSV is not JSON (docs/architecture.md).
 */
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { db, type Mode } from '../../core/db/client.ts';
import { authorize } from '../../core/context.ts';
import { DomainError } from '../../core/errors.ts';
import { enforceRate, type RateLimiter } from '../../core/rate-limit.ts';
import { authenticateRequest } from '../../server/edge.ts';
import { errorReply } from '../../server/envelope.ts';
import { parsePeriod, type Period } from './period.ts';

export const csvColumns = ['postedAt', 'txId', 'code', 'direction', 'amount', 'currency', 'sourceType', 'sourceId', 'memo'] as const;
// ~100 KB of CSV per batch: under V8's large-object size, so each chunk dies young.
const BATCH = 1000;

/** RFC 4180 quoting in SQL; a memo starting like a formula is defused for spreadsheet users. */
const q = (col: string) => `CASE WHEN ${col} ~ '[",\r\n]' THEN '"' || replace(${col}, '"', '""') || '"' ELSE ${col} END`;
const memo = `(CASE WHEN memo ~ '^[=+@\t\r-]' THEN chr(39) || memo ELSE memo END)`;
/**
 * PostgreSQL writes each CSV line: one string per row reaches JavaScript instead of nine, which
 * keeps the garbage of a batch small enough to die in the young generation.
 */
const LINE = `to_char("postedAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || ',' || ${q('"txId"')} || ',' || ${q('code')} || ',' ||
  direction || ',' || amount::text || ',' || currency || ',' || "sourceType" || ',' || ${q('"sourceId"')} || ',' || coalesce(${q(memo)}, '') || E'\r\n'`;

/**
 * The CSV text of the period, one chunk per batch. Each batch is one keyset query on the
 * (workspace, mode, postedAt, id) index, aggregated by PostgreSQL into a single string, all inside
 * one REPEATABLE READ read-only transaction (one snapshot, like a cursor). JavaScript then holds
 * one ~100 KB string per batch instead of thousands of row objects, so the garbage of a batch is
 * a handful of objects; the transaction ends when the generator does (or is abandoned).
 */
export async function* ledgerCsv(scope: { workspaceId: string; mode: Mode }, p: Period, currency: string | null): AsyncGenerator<Buffer> {
  const client = await db().app.connect();
  let ok = false;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await client.query(`SELECT set_config('app.workspace_id', $1, true), set_config('app.modes', $2, true)`, [scope.workspaceId, scope.mode]);
    yield Buffer.from(`${csvColumns.join(',')}\r\n`);
    let after: { at: Date; id: string } | null = null;
    for (;;) {
      const position: unknown[] = [after?.at ?? null, after?.id ?? null];
      const res = await client.query<{ csv: string | null; at: Date; id: string; n: number }>(
        `SELECT string_agg(line, '' ORDER BY "postedAt", id) AS csv, max("postedAt") AS at, (array_agg(id ORDER BY "postedAt" DESC, id DESC))[1] AS id, count(*)::int AS n
           FROM (SELECT ${LINE} AS line, "postedAt", id FROM ledger_entries
                  WHERE "workspaceId" = $1 AND mode = $2 AND "postedAt" >= $3 AND "postedAt" < $4 AND ($5::text IS NULL OR currency = $5)
                    AND ($6::timestamptz IS NULL OR ("postedAt" >= $6 AND ("postedAt", id) > ($6, $7)))
                  ORDER BY "postedAt", id LIMIT ${BATCH}) batch`,
        [scope.workspaceId, scope.mode, p.from, p.until, currency, ...position],
      );
      const batch = res.rows[0];
      if (!batch.n) break;
      yield Buffer.from(batch.csv!);
      if (batch.n < BATCH) break;
      after = { at: batch.at, id: batch.id };
    }
    await client.query('COMMIT');
    ok = true;
  } finally {
    if (!ok) await client.query('ROLLBACK').catch(() => {});
    client.release();
  }
}

export function mountLedgerExport(app: FastifyInstance, limiter: RateLimiter) {
  app.get<{ Querystring: Record<string, string | string[] | undefined> }>('/v1/reports/ledger.csv', async (req, reply) => {
    try {
      const auth = authorize({ requestId: req.requestId, auth: await authenticateRequest(req) }, 'svc:report:read');
      await enforceRate(limiter, auth.workspaceId, 'read');
      const q = (name: string) => {
        const v = req.query[name];
        return Array.isArray(v) ? v[v.length - 1] : v;
      };
      const period = parsePeriod(q('from'), q('to'), 'ledger');
      const currency = q('currency') ?? null;
      if (currency !== null && !/^[A-Z]{3}$/.test(currency)) throw new DomainError('validation_error', 'currency must be an uppercase ISO 4217 code', { field: 'currency', resource: 'ledger' });
      const name = (v: string | undefined) => String(v).replace(/[^0-9A-Za-z:._-]/g, '');
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="ledger-${name(q('from'))}-to-${name(q('to'))}.csv"`)
        .send(Readable.from(ledgerCsv({ workspaceId: auth.workspaceId, mode: auth.mode }, period, currency), { objectMode: false }));
    } catch (e) {
      const r = errorReply(e, req.requestId, 'ledger');
      return reply.status(r.status).headers(r.headers).type('application/json; charset=utf-8').send(r.body);
    }
  });
}
