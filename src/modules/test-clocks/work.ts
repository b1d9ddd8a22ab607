import { clock } from '../../core/clock.ts';
import type pg from 'pg';
import { sql } from '../../core/db/sql-template.ts';
import type { RowScope } from '../../core/resource.ts';
import { sqlIn } from '../../core/state-machine.ts';
import { markPastDueInvoices, nextPastDue } from '../invoices/sweep.ts';
import { invoiceIssuedUnpaid } from '../invoices/states.ts';
import { processDue, RENEWAL_BATCH } from '../subscriptions/renewals.ts';
import { periodEndDue } from '../subscriptions/states.ts';
import { walksStopping } from './walkers.ts';
import { expireDueMethods, nextMethodExpiry } from '../payment-methods/expiry.ts';
import { expireActions, nextActionExpiry } from '../collection/waiting.ts';

export interface ClockWork {
  name: string;
  /**
   * The earliest instant <= `upTo` at which one of the clock's items is due, or null; on the walker's
   * own connection (the one holding the clock's lock: service.ts withClockLock).
   */
  nextDue(client: pg.ClientBase, scope: RowScope, testClockId: string, upTo: Date): Promise<Date | null>;
  /** Processes every item of the clock due at or before `at`, with `at` as now; returns how many. */
  runDue(client: pg.ClientBase, scope: RowScope, testClockId: string, at: Date): Promise<number>;
}

const BATCH = 500;
/** Concurrent processDue calls per instant (each holds a pooled connection while it works). */
const LANES = 4;

const renewable = periodEndDue(sql`s`).text;
const attemptable = sqlIn(sql`i.status`, invoiceIssuedUnpaid).text;

/** A row quarantined by its sweep (src/core/sweep.ts) is not due until its retry: the walk goes past it. */
const waiting = (sweep: 'renewal' | 'invoice_attempt', t: 's' | 'i') =>
  `NOT EXISTS (SELECT 1 FROM sweep_quarantine sq WHERE sq."workspaceId" = ${t}."workspaceId" AND sq.mode = ${t}.mode
     AND sq.sweep = '${sweep}' AND sq."rowId" = ${t}.id AND sq."retryAt" > $5)`;

/** The earliest period end (renewal, trial end, period-end cancel) or charge attempt of the clock, up to `upTo`. */
async function nextSubscriptionDue(
  client: pg.ClientBase,
  scope: RowScope,
  testClockId: string,
  upTo: Date,
): Promise<Date | null> {
  const { rows } = await client.query<{ at: Date | null }>(
    `SELECT least(
       (SELECT min(s."currentPeriodEnd") FROM subscriptions s WHERE s."workspaceId" = $1 AND s.mode = $2
          AND s."testClockId" = $3 AND ${renewable} AND s."currentPeriodEnd" <= $4 AND ${waiting('renewal', 's')}),
       (SELECT min(i."nextAttemptAt") FROM invoices i WHERE i."workspaceId" = $1 AND i.mode = $2
          AND i."testClockId" = $3 AND ${attemptable} AND i."nextAttemptAt" <= $4 AND ${waiting('invoice_attempt', 'i')})) AS at`,
    [scope.workspaceId, scope.mode, testClockId, upTo, clock.now()],
  );
  return rows[0]?.at ?? null;
}

export const clockWork: ClockWork[] = [
  {
    name: 'subscriptions due',
    nextDue: nextSubscriptionDue,
    // Several lanes at once: processDue claims with SKIP LOCKED (and charges under a lease), so lanes
    // share one instant's renewals and charges without running one twice; the instant stays one.
    runDue: async (client, scope, testClockId, at) => {
      // One lane unless the instant holds more than one renewal batch: each lane's processDue costs its
      // own lookups, which is most of a small clock's instant.
      const { rowCount } = await client.query(
        `SELECT 1 FROM subscriptions s WHERE s."workspaceId" = $1 AND s.mode = $2 AND s."testClockId" = $3
           AND ${renewable} AND s."currentPeriodEnd" <= $4 LIMIT $5`,
        [scope.workspaceId, scope.mode, testClockId, at, RENEWAL_BATCH + 1],
      );
      const lanes = (rowCount ?? 0) > RENEWAL_BATCH ? LANES : 1;
      const lane = async () => {
        let total = 0;
        for (;;) {
          const r = await processDue({ scope, at, testClockId, limit: 2000 });
          total += r.renewed + r.canceled + r.attempted;
          // A shutdown stops the lanes between calls (walkers.ts); the walk resumes this instant later.
          if (!r.more || walksStopping()) return total;
        }
      };
      const done = await Promise.all(Array.from({ length: lanes }, lane));
      return done.reduce((a, b) => a + b, 0);
    },
  },
  {
    name: 'payment method expiry',
    nextDue: nextMethodExpiry,
    runDue: (_client, scope, testClockId, at) => expireDueMethods(BATCH, { scope, testClockId, at }),
  },
  {
    // Due kind `action_expiry` (docs/guides/payment-methods.md, Requires action): a requires_action charge fails at its expiry on clock time.
    name: 'action expiry',
    nextDue: nextActionExpiry,
    runDue: (_client, scope, testClockId, at) => expireActions(BATCH, { scope, testClockId, at }),
  },
  {
    name: 'invoice past due',
    nextDue: (client, scope, testClockId, upTo) => nextPastDue(scope, testClockId, upTo, client),
    runDue: (_client, scope, testClockId, at) => markPastDueInvoices(BATCH, { scope, testClockId, at }),
  },
];
