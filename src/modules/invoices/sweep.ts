import type pg from 'pg';
import { db, inTenant, tenantQuery, type Mode } from '../../core/db/client.ts';
import { clock } from '../../core/clock.ts';
import { Sweep } from '../../core/sweep.ts';
import { sql } from '../../core/db/sql-template.ts';
import { sqlIn } from '../../core/state-machine.ts';
import type { RowScope } from '../../core/resource.ts';
import { lockInvoice, moveInvoice } from './issue.ts';
import { invoiceMachine, invoiceSweepable } from './states.ts';

const due = sqlIn(sql`i.status`, invoiceSweepable).text;

/**
 * Which invoices a sweep looks at: the real clock's by default (invoices of customers on a test
 * clock live on its time: docs/billing.md, Test clocks); a test clock's advance passes its scope, id and time.
 */
export interface SweepOptions {
  at?: Date;
  testClockId?: string | null;
  scope?: RowScope | null;
}

/**
 * The past-due sweep (spec States: Invoice, "`dueAt` passes (automatic; cannot be set explicitly)"):
 * every open invoice past `dueAt` becomes `past_due`, one transaction each, under the row lock with
 * the status re-checked, so it is safe beside a pay or a second worker. No event: the spec names
 * none (docs/decisions.md, Invoices). Returns how many it moved. On real time it skips invoices of
 * customers on a test clock; a clock's share runs at the clock's time (`markPastDueOnClock`).
 */
export async function markPastDueInvoices(limit = 500, o: SweepOptions = {}): Promise<number> {
  if (o.testClockId && o.scope)
    return markPastDueOnClock({ ...o.scope, testClockId: o.testClockId, at: o.at ?? clock.now() });
  const now = o.at ?? clock.now();
  const { rows } = await db().system.query<{ id: string; workspaceId: string; mode: Mode; accountId: string }>(
    `SELECT i.id, i."workspaceId", i.mode, w."accountId"
     FROM invoices i JOIN workspaces w ON w.id = i."workspaceId"
     WHERE ${due} AND i."dueAt" <= $1 AND i."testClockId" IS NULL
       AND ($3::text IS NULL OR (i."workspaceId" = $3 AND i.mode = $4))
     ORDER BY i."dueAt" LIMIT $2`,
    [now, limit, o.scope?.workspaceId ?? null, o.scope?.mode ?? null],
  );
  // Each invoice alone: one that fails is quarantined, the others move (src/core/sweep.ts).
  const sweep = await Sweep.one('invoice_past_due', o.scope);
  return sweep.rows(rows, (r) => {
    const scope = { workspaceId: r.workspaceId, mode: r.mode, modes: [r.mode] };
    return inTenant(scope, async (tx) => {
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
  });
}

/**
 * One clock's share at its time `at`, as one compare-and-set statement (the move has no event, so
 * nothing else is written; a concurrent pay holds the row and the re-checked WHERE then skips it):
 * a clock's advance moves hundreds at one instant.
 */
async function markPastDueOnClock(o: RowScope & { testClockId: string; at: Date }): Promise<number> {
  const rows = await tenantQuery<{ id: string }>(
    { workspaceId: o.workspaceId, modes: [o.mode] },
    sql`UPDATE invoices SET status = ${invoiceMachine.moves.mark_past_due.to}, "pastDueAt" = ${o.at}::timestamptz,
          "updatedAt" = ${o.at}::timestamptz
        WHERE "workspaceId" = ${o.workspaceId} AND mode = ${o.mode} AND "testClockId" = ${o.testClockId}
          AND ${sqlIn(sql`status`, invoiceSweepable)} AND "dueAt" <= ${o.at}::timestamptz
        RETURNING id`,
  );
  return rows.length;
}

/**
 * The earliest `dueAt` among a clock's sweepable invoices up to `upTo` (the clock's next due instant);
 * `on`: the clock walker's own connection.
 */
export async function nextPastDue(
  scope: RowScope,
  testClockId: string,
  upTo: Date,
  on: Pick<pg.ClientBase, 'query'> = db().system,
): Promise<Date | null> {
  const { rows } = await on.query<{ at: Date | null }>(
    `SELECT min(i."dueAt") AS at FROM invoices i
     WHERE ${due} AND i."workspaceId" = $1 AND i.mode = $2 AND i."testClockId" = $3 AND i."dueAt" <= $4`,
    [scope.workspaceId, scope.mode, testClockId, upTo],
  );
  return rows[0]?.at ?? null;
}
