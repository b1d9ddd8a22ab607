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
 * none (docs/decisions.md, Invoices). Returns how many it moved.
 */
export async function markPastDueInvoices(limit = 500): Promise<number> {
  const now = clock.now();
  const { rows } = await db().system.query<{ id: string; workspaceId: string; mode: Mode; accountId: string }>(
    `SELECT i.id, i."workspaceId", i.mode, w."accountId"
     FROM invoices i JOIN workspaces w ON w.id = i."workspaceId"
     WHERE ${due} AND i."dueAt" <= $1 ORDER BY i."dueAt" LIMIT $2`,
    [now, limit],
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
