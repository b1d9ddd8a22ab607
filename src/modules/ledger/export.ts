/**
 * GET /v1/reports/ledger.csv (spec Ledger and reports): every entry of the period, oldest first.
 * PostgreSQL writes the CSV itself (`COPY (SELECT ...) TO STDOUT WITH (FORMAT csv)`, RFC 4180
 * quoting) inside one read-only tenant transaction, and the bytes are piped to the socket with
 * backpressure (pg-copy-streams): no row objects, one snapshot, constant memory at any size.
 * Not an operation: CSV is not JSON (docs/architecture.md).
 */
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { to as copyTo } from 'pg-copy-streams';
import { inlineParams } from '../../core/db/client.ts';
import { readerTransaction } from '../../core/db/reader.ts';
import { checkCurrency } from '../../core/validation.ts';
import { parsePeriod, type Period } from './period.ts';
import type { RowScope } from '../../core/resource.ts';

export const csvColumns = [
  'postedAt',
  'txId',
  'code',
  'direction',
  'amount',
  'currency',
  'sourceType',
  'sourceId',
  'memo',
] as const;

// A memo starting like a formula is defused for spreadsheet users.
const COPY = `COPY (
  SELECT to_char("postedAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "postedAt", "txId", code, direction,
         amount, currency,
         "sourceType", "sourceId", CASE WHEN memo ~ '^[=+@\t\r-]' THEN chr(39) || memo ELSE memo END AS memo
    FROM ledger_entries
   WHERE "workspaceId" = $1 AND mode = $2 AND "postedAt" >= $3 AND "postedAt" < $4
     AND ($5::text IS NULL OR currency = $5)
   ORDER BY "postedAt", id
) TO STDOUT WITH (FORMAT csv, HEADER)`;

/**
 * COPY ends records with LF; RFC 4180 (and the spreadsheet users this is for) want CRLF. Line
 * breaks inside quoted fields are data and stay as they are, so the quote state carries across
 * chunks. The scan jumps with native `indexOf` from quote to line break and copies whole records:
 * a byte-by-byte loop here halved the export's throughput and, slower than PostgreSQL sends,
 * left more chunks waiting for collection (docs/performance.md, Ledger CSV export).
 */
export function crlf(): Transform {
  let quoted = false;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      const breaks: number[] = [];
      let i = 0;
      let nextQuote = -2; // not looked up yet
      while (i < chunk.length) {
        if (nextQuote !== -1 && nextQuote < i) nextQuote = chunk.indexOf(0x22, i);
        if (quoted) {
          // Inside quotes only a quote matters (`""` closes and reopens).
          if (nextQuote === -1) break;
          quoted = false;
          i = nextQuote + 1;
          continue;
        }
        const lf = chunk.indexOf(0x0a, i);
        if (nextQuote !== -1 && (lf === -1 || nextQuote < lf)) {
          quoted = true;
          i = nextQuote + 1;
        } else if (lf !== -1) {
          breaks.push(lf);
          i = lf + 1;
        } else break;
      }
      if (breaks.length === 0) return done(null, chunk);
      const out = Buffer.allocUnsafe(chunk.length + breaks.length);
      let from = 0;
      let o = 0;
      for (const lf of breaks) {
        o += chunk.copy(out, o, from, lf);
        out[o++] = 0x0d;
        from = lf; // the LF itself starts the next copy
      }
      chunk.copy(out, o, from);
      done(null, out);
    },
  });
}

/** The period's CSV as a byte stream; the tenant transaction ends with the stream (COMMIT, or ROLLBACK on error). */
export async function ledgerCsv(scope: RowScope, p: Period, currency: string | null): Promise<Readable> {
  // A replica within SVC_READ_MAX_LAG_MS when one is configured, else the writer (src/core/db/reader.ts).
  const client = await readerTransaction(
    { workspaceId: scope.workspaceId, modes: [scope.mode] },
    'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
  );
  const out = crlf();
  const copy = client.query(copyTo(inlineParams(COPY, [scope.workspaceId, scope.mode, p.from, p.until, currency])));
  pipeline(copy, out).then(
    () =>
      client.query('COMMIT').then(
        () => client.release(),
        (e: Error) => client.release(e),
      ),
    // A client that went away mid-copy (or a failed query) leaves the connection mid-protocol: discard it.
    (e: Error) => client.release(e),
  );
  return out;
}

/**
 * The download as the edge serves it (src/server/edge-route.ts): the query read and checked, the
 * period's CSV stream and its file name.
 */
export async function ledgerCsvDownload(auth: RowScope, q: (name: string) => string | undefined) {
  const period = parsePeriod(q('from'), q('to'), 'ledger');
  const raw = q('currency');
  const currency = raw === undefined ? null : checkCurrency(raw, 'currency', 'ledger');
  const name = (v: string | undefined) => String(v).replace(/[^0-9A-Za-z:._-]/g, '');
  return {
    filename: `ledger-${name(q('from'))}-to-${name(q('to'))}.csv`,
    stream: await ledgerCsv({ workspaceId: auth.workspaceId, mode: auth.mode }, period, currency),
  };
}
