import { clock } from '../../core/clock.ts';
import { db, type Mode } from '../../core/db/client.ts';
import { scopedRow, tenantTx } from '../../core/db/sql.ts';
import { Sweep } from '../../core/sweep.ts';
import type { RowScope } from '../../core/resource.ts';
import type pg from 'pg';
import type { PaymentMethod } from '../../generated/prisma/client.ts';
import { moveMethod } from './service.ts';
import { chargeable } from './states.ts';
import { sqlIn } from '../../core/state-machine.ts';
import { sql } from '../../core/db/sql-template.ts';

// The sweep's rows: active methods (the partial index `payment_methods_expiry_idx` lists the same).
const expirable = sqlIn(sql`p.status`, [chargeable]).text;

/** The earliest expiry <= `upTo` of a test clock's active methods (its walk's next instant), or null. */
export async function nextMethodExpiry(
  client: pg.ClientBase,
  scope: RowScope,
  testClockId: string,
  upTo: Date,
): Promise<Date | null> {
  const { rows } = await client.query<{ at: Date | null }>(
    `SELECT min(p."expiresAt") AS at FROM payment_methods p WHERE p."workspaceId" = $1 AND p.mode = $2
       AND p."testClockId" = $3 AND ${expirable} AND p."expiresAt" <= $4
       -- a quarantined row (src/core/sweep.ts) is not due until its retry: the walk goes past it
       AND NOT EXISTS (SELECT 1 FROM sweep_quarantine sq WHERE sq."workspaceId" = p."workspaceId" AND sq.mode = p.mode
         AND sq.sweep = 'payment_method_expiry' AND sq."rowId" = p.id AND sq."retryAt" > $5)`,
    [scope.workspaceId, scope.mode, testClockId, upTo, clock.now()],
  );
  return rows[0]?.at ?? null;
}

/**
 * The card-expiry sweep (docs/guides/payment-methods.md, Expiry): every active method on the real
 * clock past `expiresAt` becomes `expired` (`payment_method.expired`, cleared as default and from
 * subscriptions), a hundred of a tenant per transaction, each re-checked under its row lock. The
 * claim reads the partial index `payment_methods_expiry_idx`. Returns how many it expired.
 */
export async function expireDueMethods(
  limit = 500,
  o: { scope: RowScope; testClockId: string; at: Date } | null = null,
): Promise<number> {
  // A test clock's walk (test-clocks/work.ts) expires its customers' methods at its own instants.
  const now = o?.at ?? clock.now();
  const { rows } = await db().system.query<{ id: string; workspaceId: string; mode: Mode; accountId: string }>(
    `SELECT p.id, p."workspaceId", p.mode, w."accountId"
     FROM payment_methods p JOIN workspaces w ON w.id = p."workspaceId"
     WHERE ${expirable} AND p."expiresAt" IS NOT NULL AND p."expiresAt" <= $1
       AND p."testClockId" IS NOT DISTINCT FROM $3::text
       AND ($4::text IS NULL OR (p."workspaceId" = $4 AND p.mode = $5))
     ORDER BY p."expiresAt", p.id LIMIT $2`,
    [now, limit, o?.testClockId ?? null, o?.scope.workspaceId ?? null, o?.scope.mode ?? null],
  );
  // A hundred of one tenant per transaction; a group that fails is run again method by method, and
  // only a method that fails alone is quarantined: the others expire on time (src/core/sweep.ts).
  const sweep = await Sweep.one('payment_method_expiry', o?.scope);
  return sweep.groups(rows, EXPIRY_BATCH, (group) => {
    const scope = { workspaceId: group[0].workspaceId, mode: group[0].mode, modes: [group[0].mode] };
    // The raw SQL path (no Prisma): a hundred moves of a few statements each.
    return tenantTx(scope, async (sql) => {
      let expired = 0;
      for (const r of group) {
        const pm = await scopedRow<PaymentMethod>(sql, 'payment_methods', scope, r.id, { lock: true });
        if (!pm || pm.status !== chargeable || !pm.expiresAt || pm.expiresAt > now) continue;
        await moveMethod(sql, scope, pm.id, 'expire', { accountId: r.accountId, source: 'sweep', at: now });
        expired++;
      }
      return expired;
    });
  });
}

/** Methods of one tenant expired per transaction. */
const EXPIRY_BATCH = 100;
