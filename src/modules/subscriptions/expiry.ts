/**
 * Incomplete expiry (docs/billing.md, Subscription states): an `incomplete` subscription whose first invoice is unpaid
 * when it falls due (1 day after issue: invoice.ts, FIRST_INVOICE_DUE_DAYS) is canceled (`expire`,
 * `subscription.cancelled`) and that invoice voided, in one transaction under both row locks, so a
 * payment arriving at the same moment either wins (the subscription is active, nothing expires) or
 * finds the invoice void (409). Called by `processDue` for the real clock and for a test clock.
 */
import { db } from '../../core/db/client.ts';
import { Sweep } from '../../core/sweep.ts';
import { scopeOf, sql as q, tenantTx } from '../../core/db/sql.ts';
import { canMove, sqlIn, statusesWhere } from '../../core/state-machine.ts';
import type { RowScope } from '../../core/resource.ts';
import { closeUnpaidInvoice } from '../invoices/close.ts';
import { lockInvoice } from '../invoices/issue.ts';
import { invoiceCloseVoid, invoiceMachine, type InvoiceStatus } from '../invoices/states.ts';
import { lockSubscription, moveSubscription } from './moves.ts';
import { subscriptionMachine, type SubscriptionStatus } from './states.ts';

const expirable = statusesWhere(subscriptionMachine, 'expire');
const voidable = statusesWhere(invoiceMachine, 'void');

interface Due {
  workspaceId: string;
  mode: 'test' | 'live';
  id: string;
  accountId: string;
}

/** Expires what is due at business time `at` (one scope, or every tenant), at most `limit`; returns how many. */
export async function expireIncomplete(o: {
  scope: RowScope | null;
  at: Date;
  testClockId: string | null;
  limit?: number;
  /** The run's isolation (src/core/sweep.ts); one is started when not given. */
  sweep?: Sweep;
}): Promise<number> {
  const sweep = o.sweep ?? (await Sweep.one('incomplete_expiry', o.scope));
  const { rows } = await db().system.query<Due>(
    `SELECT s."workspaceId", s.mode, s.id, w."accountId" FROM subscriptions s
       JOIN invoices i ON i."workspaceId" = s."workspaceId" AND i.mode = s.mode AND i.id = s."latestInvoiceId"
       JOIN workspaces w ON w.id = s."workspaceId"
     WHERE ${sqlIn(q`s.status`, expirable).text} AND ${sqlIn(q`i.status`, voidable).text} AND i."dueAt" <= $1
       AND s."testClockId" IS NOT DISTINCT FROM $2 AND ($3::text IS NULL OR (s."workspaceId" = $3 AND s.mode = $4))
       AND NOT EXISTS (SELECT 1 FROM sweep_quarantine sq WHERE sq."workspaceId" = s."workspaceId" AND sq.mode = s.mode
         AND sq.sweep = $6 AND sq."rowId" = s.id AND sq."retryAt" > $7)
     ORDER BY i."dueAt" LIMIT $5`,
    [o.at, o.testClockId, o.scope?.workspaceId ?? null, o.scope?.mode ?? null, o.limit ?? 1000, sweep.name, sweep.now],
  );
  // Each one in its own transaction: a failure is that subscription's alone (src/core/sweep.ts).
  return sweep.rows(rows, (due) => {
    const scope = { workspaceId: due.workspaceId, mode: due.mode, accountId: due.accountId };
    const opts = { source: 'billing', at: o.at, accountId: due.accountId };
    return tenantTx(scopeOf(scope), async (sql) => {
      const sub = await lockSubscription(sql, scope, due.id);
      if (!sub?.latestInvoiceId || !canMove(subscriptionMachine, sub.status as SubscriptionStatus, 'expire')) return 0;
      const inv = await lockInvoice(sql, scope, sub.latestInvoiceId);
      if (!inv || !canMove(invoiceMachine, inv.status as InvoiceStatus, 'void') || !inv.dueAt || inv.dueAt > o.at)
        return 0;
      await closeUnpaidInvoice(sql, scope, inv, invoiceCloseVoid, o.at, opts);
      await moveSubscription(sql, scope, sub, 'expire', { canceledAt: o.at }, opts);
      return 1;
    });
  });
}
