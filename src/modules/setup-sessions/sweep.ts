/**
 * The setup attempts' part of the `pending-sweep` job (docs/guides/setup-sessions.md, Attempts): attempts
 * a crash or a lost callback left between the phases, after the grace period of every provider call
 * (SWEEP_GRACE_MS). `creating` never reached the customer: failed, the session open again. `confirming`
 * (an OTP or vault exchange claimed) and `open` provider attempts of a live session: the provider is asked
 * (`fetchSetup`), and the session completes or opens again on its answer.
 */
import { clock } from '../../core/clock.ts';
import { db, inTenant, type Mode } from '../../core/db/client.ts';
import { scopedRow } from '../../core/db/sql.ts';
import { sql } from '../../core/db/sql-template.ts';
import { sqlIn, statusesWhere } from '../../core/state-machine.ts';
import { Sweep } from '../../core/sweep.ts';
import type { SetupAttempt } from '../../generated/prisma/client.ts';
import { SANDBOX_ADAPTER } from '../payment-methods/service.ts';
import { SWEEP_GRACE_MS } from '../refunds/sweep.ts';
import { reconcileSetupAttempt } from './settle.ts';
import { setupAttemptMachine as attempts, setupSessionMachine as sessions } from './states.ts';

const stale = sqlIn(sql`a.status`, statusesWhere(attempts, 'fail')).text;
const liveSession = sqlIn(sql`s.status`, statusesWhere(sessions, 'attempt_failed')).text;

/** One pass; returns how many attempts it asked about or failed. */
export async function reconcileStaleSetupAttempts(limit = 200): Promise<number> {
  const cutoff = new Date(clock.now().getTime() - SWEEP_GRACE_MS);
  const { rows } = await db().system.query<{ id: string; workspaceId: string; mode: Mode }>(
    `SELECT a.id, a."workspaceId", a.mode FROM setup_attempts a
       JOIN setup_sessions s ON s."workspaceId" = a."workspaceId" AND s.mode = a.mode AND s.id = a."setupSessionId"
     WHERE ${stale} AND ${liveSession} AND a.adapter <> $3 AND a."updatedAt" <= $1
     ORDER BY a."updatedAt" LIMIT $2`,
    [cutoff, limit, SANDBOX_ADAPTER],
  );
  // Each attempt alone: one that throws is quarantined (src/core/sweep.ts); hosted attempts share the sweep.
  const sweep = await Sweep.one('checkout_attempt');
  return sweep.rows(rows, async (r) => {
    const scope = { workspaceId: r.workspaceId, mode: r.mode, modes: [r.mode] };
    const a = await inTenant(scope, (tx) => scopedRow<SetupAttempt>(tx, 'setup_attempts', scope, r.id));
    return a && (await reconcileSetupAttempt(scope, a)) ? 1 : 0;
  });
}
