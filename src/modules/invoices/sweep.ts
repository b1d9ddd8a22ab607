import { db, inTenant, type Mode } from '../../core/db/client.ts';
import { clock } from '../../core/clock.ts';
import { sql } from '../../core/db/sql-template.ts';
import { sqlIn } from '../../core/state-machine.ts';
import { lockInvoice, moveInvoice } from './issue.ts';
import { invoiceSweepable } from './states.ts';

const due = sqlIn(sql`i.status`, invoiceSweepable).text;

/**
 * The past-due sweep (spec States: Invoice, "`dueAt` passes (automatic; cannot be set explicitly)"):
 * every open invoice past `dueAt` becomes `past_due`, one transaction each, under the row lock with
 * the status re-checked, so it is safe beside a pay or a second worker. No event: the spec names
 * none (docs/decisions.md, Invoices). Returns how many it moved. The real clock's invoices by default; a
 * test clock's advance passes its time and id (invoices on a clock live on its time, BILLING §5).
 */
export async function markPastDueInvoices(
  limit = 500,
  o: { at?: Date; testClockId?: string | null; scope?: { workspaceId: string; mode: Mode } | null } = {},
): Promise<number> {
  const now = o.at ?? clock.now();
  const { rows } = await db().system.query<{ id: string; workspaceId: string; mode: Mode; accountId: string }>(
    `SELECT i.id, i."workspaceId", i.mode, w."accountId"
     FROM invoices i JOIN workspaces w ON w.id = i."workspaceId"
     WHERE ${due} AND i."dueAt" <= $1 AND i."testClockId" IS NOT DISTINCT FROM $3
       AND ($4::text IS NULL OR (i."workspaceId" = $4 AND i.mode = $5))
     ORDER BY i."dueAt" LIMIT $2`,
    [now, limit, o.testClockId ?? null, o.scope?.workspaceId ?? null, o.scope?.mode ?? null],
  );
  let moved = 0;
  for (const r of rows) {
    const scope = { workspaceId: r.workspaceId, mode: r.mode, modes: [r.mode] };
    moved += await inTenant(scope, async (tx) => {
      const inv = await lockInvoice(tx, { ...scope, accountId: r.accountId }, r.id);
      if (!inv || !(invoiceSweepable as readonly string[]).includes(inv.status) || !inv.dueAt || inv.dueAt > now)
        return 0;
      await moveInvoice(
        tx,
        scope,
        inv,
        'mark_past_due',
        { pastDueAt: now, updatedAt: now },
        {
          accountId: r.accountId,
          source: 'sweep',
        },
      );
      return 1;
    });
  }
  return moved;
}
