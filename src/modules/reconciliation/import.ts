/**
 * An uploaded file, all or nothing (docs/reconciliation.md, Import pipeline): one transaction on the
 * reconciliation pool holds the import row, the staged rows, the batches, the queued run and the event. The
 * import row goes first: a second upload of the same bytes waits on its unique key until the first commits,
 * then answers 200 with it; a failure anywhere (a bad line, the wrong bytes, a client gone) rolls back whole.
 */
import type { Readable } from 'node:stream';
import type pg from 'pg';
import { auditIn } from '../../core/audit.ts';
import type { Auth } from '../../core/auth/authenticate.ts';
import { clock } from '../../core/clock.ts';
import { db } from '../../core/db/client.ts';
import { insideTransaction } from '../../core/db/open-transaction.ts';
import { clientSql, sql, type Sql } from '../../core/db/sql.ts';
import { DomainError } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { emit } from '../../core/outbox.ts';
import { nextState } from '../../core/state-machine.ts';
import type { ReconImport } from '../../generated/prisma/client.ts';
import { importSnapshot, type ImportRow } from './fields.ts';
import { createFileParser } from './formats/index.ts';
import { ReconFileError, type FileParser } from './formats/types.ts';
import { hashBody, stageFile, type Staged } from './stage.ts';
import { importMachine } from './states.ts';
import type { UploadParams } from './upload-params.ts';
import { writeStaged } from './write-staged.ts';

export interface Upload {
  auth: Auth;
  params: UploadParams;
  /** The declared `X-Svc-Content-Sha256`, already signed over. */
  sha256: string;
  body: Readable;
  requestId: string;
}

/** A parser error as the API answers it (lower case, `error.field`, `error.line`). */
export function asDomainError(e: unknown): unknown {
  if (!(e instanceof ReconFileError)) return e;
  return new DomainError(e.code, e.message, { field: e.field, line: e.line, resource: 'reconciliation' });
}

/** The parser of the upload's format, its options checked before a byte is read. */
export function parserFor(params: UploadParams, timezone: string): FileParser {
  try {
    return createFileParser({
      source: params.source,
      format: params.format,
      bankAccountNumber: params.bankAccountNumber ?? undefined,
      timezone,
    });
  } catch (e) {
    throw asDomainError(e);
  }
}

/** 201 with the new import, or 200 with the one these bytes already made. */
export async function importUpload(u: Upload): Promise<{ created: boolean; import: ImportRow }> {
  const client = await db().recon.connect();
  let broken: Error | undefined;
  let released = false;
  try {
    await client.query('BEGIN');
    const out = await insideTransaction(() => runImport(client, u));
    await client.query('COMMIT');
    client.release();
    released = true;
    // A repeat wrote nothing: its bytes are checked against the signed hash with the connection back in the pool.
    if (!out.created) await hashBody(u.body, u.sha256);
    return out;
  } catch (e) {
    if (released) throw e;
    // A connection left mid-COPY is not trusted again: it is closed, not pooled.
    broken = e instanceof Error ? e : new Error(String(e));
    await client.query('ROLLBACK').catch(() => {});
    throw asDomainError(e);
  } finally {
    if (!released) client.release(broken);
  }
}

async function runImport(client: pg.PoolClient, u: Upload): Promise<{ created: boolean; import: ImportRow }> {
  const tx = clientSql(client);
  const { auth } = u;
  await tx.query(scopeQuery(auth));
  const id = newId('reconciliationImport');
  const inserted = await insertImport(tx, u, id);
  if (!inserted) {
    const existing = await findDuplicate(tx, u);
    return { created: false, import: { ...existing, accountId: auth.accountId } };
  }
  const [{ timezone }] = await tx.query<{ timezone: string }>(
    sql`SELECT timezone FROM workspaces WHERE id = ${auth.workspaceId}`,
  );
  const staged: Staged = await stageFile(client, u.body, parserFor(u.params, timezone), u.sha256);
  const row = await writeStaged(tx, { auth, params: u.params, importId: id, staged });
  const wire = { ...row, accountId: auth.accountId };
  // The upload's event, and the audit entry under the same name.
  for (const type of nextState(importMachine, null, 'upload').events) {
    await emit(tx, auth, type, importSnapshot(wire), { requestId: u.requestId });
    await auditIn(tx, auth, type, id, u.requestId);
  }
  return { created: true, import: wire };
}

/** The tenant scope of this transaction only (row-level security reads it). */
const scopeQuery = (auth: Auth) =>
  sql`SELECT set_config('app.workspace_id', ${auth.workspaceId}, true), set_config('app.modes', ${auth.mode}, true)`;

/** The import row, or null when these bytes are already imported (after waiting for a concurrent first upload). */
async function insertImport(tx: Sql, u: Upload, id: string): Promise<boolean> {
  const { auth, params: p } = u;
  const now = clock.now();
  const rows = await tx.query(
    sql`INSERT INTO recon_imports (id, "workspaceId", mode, source, origin, adapter, "bankAccountNumber",
        "sourceAccount", format, filename, sha256, status, "periodStart", "periodEnd", "createdAt", "updatedAt")
      VALUES (${id}, ${auth.workspaceId}, ${auth.mode}, ${p.source}, ${'upload'}, ${p.adapter},
        ${p.bankAccountNumber}, ${p.adapter ?? p.bankAccountNumber}, ${p.format}, ${p.filename}, ${u.sha256},
        ${nextState(importMachine, null, 'upload').to}, ${p.periodStart}, ${p.periodEnd}, ${now}, ${now})
      ON CONFLICT DO NOTHING RETURNING id`,
  );
  return rows.length === 1;
}

async function findDuplicate(tx: Sql, u: Upload): Promise<ReconImport> {
  const { auth, params: p } = u;
  const [row] = await tx.query<ReconImport>(
    sql`SELECT * FROM recon_imports WHERE "workspaceId" = ${auth.workspaceId} AND mode = ${auth.mode}
      AND source = ${p.source} AND "sourceAccount" = ${p.adapter ?? p.bankAccountNumber} AND sha256 = ${u.sha256}`,
  );
  return row;
}
