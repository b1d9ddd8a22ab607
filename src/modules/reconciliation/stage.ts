/**
 * Staging a file (docs/reconciliation.md, Import pipeline): the body streams through the parser into a temporary
 * table by COPY, with backpressure, hashing every chunk on the way. Memory holds one chunk, one line and the rows
 * of one chunk, whatever the file's size.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { DomainError } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import type { FileParser, ProviderRowInput, RowInput } from './formats/types.ts';

/** Dropped at COMMIT or ROLLBACK: nothing of a refused file outlives its transaction. */
export const STAGE_TABLE = `CREATE TEMPORARY TABLE recon_stage (
  id text NOT NULL, line integer NOT NULL, "transactionId" text, type text NOT NULL, reference text,
  "providerReference" text, "settlementId" text, method text, description text, "occurredAt" timestamptz(3),
  "settledAt" timestamptz(3), "valueDate" date, currency text NOT NULL, amount bigint NOT NULL,
  fee bigint NOT NULL, "feeVat" bigint NOT NULL, "withholdingTax" bigint NOT NULL, net bigint NOT NULL,
  "balanceAfter" bigint, "rowKey" text NOT NULL) ON COMMIT DROP`;

const STAGE_COLUMNS =
  'id, line, "transactionId", type, reference, "providerReference", "settlementId", method, description, ' +
  '"occurredAt", "settledAt", "valueDate", currency, amount, fee, "feeVat", "withholdingTax", net, "balanceAfter", ' +
  '"rowKey"';

/** COPY's text format: backslash, tab, newline and carriage return escaped; null is `\N`. */
const cell = (v: string | number | null): string => {
  if (v === null) return '\\N';
  if (typeof v === 'number') return String(v);
  return /[\\\t\n\r]/.test(v)
    ? v.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r')
    : v;
};

const isProvider = (r: RowInput): r is ProviderRowInput => 'transactionId' in r;

/** One staged row as a COPY line; its id is minted here (a duplicate's is never stored). */
function copyLine(r: RowInput): string {
  const id = newId('reconciliationRow');
  const values = isProvider(r)
    ? [
        id,
        r.line,
        r.transactionId,
        r.type,
        r.reference,
        r.providerReference,
        r.settlementId,
        r.method,
        r.description,
        r.occurredAt.toISOString(),
        r.settledAt ? r.settledAt.toISOString() : null,
        null,
        r.currency,
        r.amount,
        r.fee,
        r.feeVat,
        r.withholdingTax,
        r.net,
        r.balanceAfter,
        // Provider row key: the transaction id, then the content hash (fixed length, so the key splits one way).
        // Ids first keep a provider's mostly ascending ids together in the index.
        `${r.transactionId}:${r.contentHash}`,
      ]
    : [
        id,
        r.line,
        r.lineId,
        r.direction,
        r.reference,
        null,
        null,
        null,
        r.description,
        null,
        null,
        r.valueDate,
        r.currency,
        r.amount,
        0,
        0,
        0,
        r.direction === 'credit' ? r.amount : -r.amount,
        r.balanceAfter,
        r.rowKey,
      ];
  return `${values.map(cell).join('\t')}\n`;
}

const copyText = (rows: RowInput[]) => rows.map(copyLine).join('');

export interface Staged {
  rows: number;
  sizeBytes: number;
  skipped: number;
}

/**
 * Streams `body` through `parser` into `recon_stage` on `client` (inside the caller's transaction). The body's
 * SHA-256 must equal `sha256`, else 401 `invalid_signature`: the signature covered the declared hash only.
 */
export async function stageFile(client: pg.ClientBase, body: Readable, parser: FileParser, sha256: string) {
  const hash = createHash('sha256');
  const out: Staged = { rows: 0, sizeBytes: 0, skipped: 0 };
  // A refused file is still read to its end: a body that is not the signed one answers 401, not its first bad line.
  let failure: unknown = null;
  const parse = (step: () => RowInput[]): RowInput[] => {
    if (failure !== null) return [];
    try {
      return step();
    } catch (e) {
      failure = e;
      return [];
    }
  };
  async function* lines() {
    for await (const chunk of body) {
      const bytes = chunk as Buffer;
      hash.update(bytes);
      out.sizeBytes += bytes.length;
      const rows = parse(() => parser.write(bytes));
      out.rows += rows.length;
      if (rows.length) yield copyText(rows);
    }
    const rest = parse(() => parser.end());
    out.rows += rest.length;
    out.skipped = parser.skipped;
    if (hash.digest('hex') !== sha256) throw mismatch();
    if (failure !== null) throw failure;
    if (rest.length) yield copyText(rest);
  }
  await client.query(STAGE_TABLE);
  const copy = client.query(copyFrom(`COPY recon_stage (${STAGE_COLUMNS}) FROM STDIN`));
  await pipeline(Readable.from(lines(), { objectMode: false }), copy);
  return out;
}

/** Reads a body to its end, hashing it: a repeated upload's bytes are checked, never parsed or stored. */
export async function hashBody(body: Readable, sha256: string): Promise<void> {
  const hash = createHash('sha256');
  for await (const chunk of body) hash.update(chunk as Buffer);
  if (hash.digest('hex') !== sha256) throw mismatch();
}

const mismatch = () =>
  new DomainError('invalid_signature', 'The body does not match X-Svc-Content-Sha256', { resource: 'reconciliation' });
