/**
 * After the rows (docs/reconciliation.md, Runs): `missing_at_provider` for an import run's scope, or a manual
 * run's adapter and window (captured payments and succeeded refunds of the adapter, in the scope's currencies,
 * captured inside its period, that no row names; the rule is `missingAtProvider`), and the auto-resolution of earlier ones that a row now claims.
 * An object already open is kept (the open-once index), so a second run opens nothing.
 */
import { sql, type Sql } from '../../../core/db/sql.ts';
import type { EventRow } from '../../../core/outbox.ts';
import type { ReconImport } from '../../../generated/prisma/client.ts';
import { paymentMachine } from '../../payments/states.ts';
import { refundMachine } from '../../refunds/states.ts';
import { missingAtProvider, type ExpectedObject } from '../rules/missing-at-provider.ts';
import { reconExceptionMachine } from '../states.ts';
import { inRunTx, type RunContext } from './context.ts';
import { PROVIDER_SOURCE } from './provider-phase.ts';
import { autoResolve, newExceptionId, openExceptions, writeEvents } from './writes.ts';

const capturedPayment = [
  paymentMachine.moves.capture.to,
  paymentMachine.moves.refund_full.to,
  paymentMachine.moves.refund_partial.to,
];
const succeededRefund = refundMachine.moves.provider_succeeded.to;
const MISSING = 'missing_at_provider';

export async function runMissingPhase(c: RunContext) {
  await inRunTx(c, async (tx) => {
    const events: EventRow[] = [];
    const scope = await scopeOf(tx, c);
    if (scope) {
      const unnamed = await unnamedObjects(tx, c, scope);
      const missing = missingAtProvider(unnamed, scope, new Set());
      await openExceptions(
        tx,
        c,
        missing.map((m) => ({
          id: newExceptionId(),
          category: m.category,
          adapter: scope.adapter,
          currency: unnamed.find((o) => o.id === m.object.id)?.currency ?? null,
          rowIds: [],
          objectType: m.object.type,
          objectId: m.object.id,
          batchId: null,
          expectedAmount: m.expectedAmount,
          actualAmount: m.actualAmount,
          difference: m.difference,
          details: m.details,
        })),
        events,
      );
    }
    await autoResolve(tx, c, await claimedSince(tx, c), events);
    await writeEvents(tx, events);
  });
}

interface MissingScope {
  adapter: string;
  currencies: string[];
  periodStart: Date;
  periodEnd: Date;
}

/**
 * An import run of a provider report: its adapter, currencies and period. A manual run naming an adapter and a
 * window: that window, in the currencies of the adapter's rows inside it. Any other run: none.
 */
async function scopeOf(tx: Sql, c: RunContext): Promise<MissingScope | null> {
  const { run } = c;
  if (run.importId) {
    const [imp] = await tx.query<ReconImport>(
      sql`SELECT * FROM recon_imports WHERE "workspaceId" = ${c.scope.workspaceId} AND mode = ${c.scope.mode}
        AND id = ${run.importId}`,
    );
    if (imp?.source !== PROVIDER_SOURCE || !imp.adapter || !imp.periodStart || !imp.periodEnd) return null;
    return { adapter: imp.adapter, currencies: imp.currencies, periodStart: imp.periodStart, periodEnd: imp.periodEnd };
  }
  if (!run.adapter || !run.periodStart || !run.periodEnd) return null;
  const rows = await tx.query<{ currency: string }>(
    sql`SELECT DISTINCT currency FROM recon_rows WHERE "workspaceId" = ${c.scope.workspaceId}
      AND mode = ${c.scope.mode} AND source = ${PROVIDER_SOURCE} AND "sourceAccount" = ${run.adapter}
      AND "occurredAt" >= ${run.periodStart} AND "occurredAt" < ${run.periodEnd}`,
  );
  const currencies = rows.map((r) => r.currency);
  return currencies.length
    ? { adapter: run.adapter, currencies, periodStart: run.periodStart, periodEnd: run.periodEnd }
    : null;
}

/** The scope's captured objects no row names (the claim index answers "named"). */
async function unnamedObjects(tx: Sql, c: RunContext, s: MissingScope): Promise<ExpectedObject[]> {
  const ws = c.scope;
  const rows = await tx.query<{
    kind: 'payment' | 'refund';
    id: string;
    currency: string;
    amount: bigint;
    capturedAt: Date;
  }>(
    sql`SELECT ${'payment'}::text AS kind, p.id, p.currency, p.amount, p."capturedAt" FROM payments p
        WHERE p."workspaceId" = ${ws.workspaceId} AND p.mode = ${ws.mode} AND p.adapter = ${s.adapter}
          AND p.currency = ANY(${s.currencies}::text[]) AND p."capturedAt" >= ${s.periodStart}
          AND p."capturedAt" < ${s.periodEnd} AND p.status = ANY(${capturedPayment}::text[])
          AND NOT EXISTS (SELECT 1 FROM recon_rows r WHERE r."workspaceId" = p."workspaceId" AND r.mode = p.mode
            AND r."objectType" = ${'payment'} AND r."objectId" = p.id AND r.type = ${'payment'}
            AND r."objectType" <> ${'settlement_batch'})
      UNION ALL
      SELECT ${'refund'}::text, f.id, f.currency, f.amount, coalesce(f."settledAt", f."updatedAt") FROM refunds f
        WHERE f."workspaceId" = ${ws.workspaceId} AND f.mode = ${ws.mode} AND f.adapter = ${s.adapter}
          AND f.currency = ANY(${s.currencies}::text[]) AND coalesce(f."settledAt", f."updatedAt") >= ${s.periodStart}
          AND coalesce(f."settledAt", f."updatedAt") < ${s.periodEnd} AND f.status = ${succeededRefund}
          AND NOT EXISTS (SELECT 1 FROM recon_rows r WHERE r."workspaceId" = f."workspaceId" AND r.mode = f.mode
            AND r."objectType" = ${'refund'} AND r."objectId" = f.id AND r.type = ${'refund'}
            AND r."objectType" <> ${'settlement_batch'})`,
  );
  return rows.map((o) => ({ ...o, adapter: s.adapter, amount: Number(o.amount), captured: true }));
}

/** Open missing_at_provider exceptions whose object a row claims now. */
async function claimedSince(tx: Sql, c: RunContext): Promise<string[]> {
  const rows = await tx.query<{ id: string }>(
    sql`SELECT e.id FROM recon_exceptions e
      WHERE e."workspaceId" = ${c.scope.workspaceId} AND e.mode = ${c.scope.mode} AND e.category = ${MISSING}
        AND e.status = ${reconExceptionMachine.moves.open.to}
        AND EXISTS (SELECT 1 FROM recon_rows r WHERE r."workspaceId" = e."workspaceId" AND r.mode = e.mode
          AND r."objectType" = e."objectType" AND r."objectId" = e."objectId" AND r.type = e."objectType"
          AND r."objectType" <> ${'settlement_batch'})`,
  );
  return rows.map((r) => r.id);
}
