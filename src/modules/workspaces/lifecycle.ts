/**
 * The workspace lifecycle (spec Workspace, DECISIONS §7; docs/decisions.md "Workspace lifecycle"):
 * activation (test -> live), the settled-ledger rule archive needs, restore within the retention
 * window (the purge after it: purge.ts). A workspace's state is its `mode`, `archivedAt` and `purgedAt`.
 */
import type { Context } from '../../core/context.ts';
import { authorize, tenant } from '../../core/context.ts';
import { assertOwner } from '../../core/auth/scopes.ts';
import { forgetKey, forgetMerchant } from '../../core/auth/authenticate.ts';
import { inTenant, type Tx } from '../../core/db/client.ts';
import { switchScope } from '../../core/db/scope.ts';
import { DomainError, errorsFor } from '../../core/errors.ts';
import { clock } from '../../core/clock.ts';
import { emit } from '../../core/outbox.ts';
import { toWire } from '../../core/wire.ts';
import type { Workspace } from '../../generated/prisma/client.ts';
import { adapterActive } from '../adapters/states.ts';
import { locking } from '../payouts/states.ts';
import { workspaceFields } from './fields.ts';
import { retainedSince } from '../../core/retention.ts';

const err = errorsFor('workspace');
const BOTH = ['test', 'live'] as const;
const snapshot = (w: Workspace) => toWire(w, workspaceFields);

/** The workspace row under `FOR UPDATE` (the lifecycle moves serialise on it), or 404. */
export async function lockWorkspace(tx: Tx, id: string): Promise<Workspace> {
  const [row] = await tx.$queryRaw<Workspace[]>`SELECT * FROM workspaces WHERE id = ${id} FOR UPDATE`;
  if (!row) throw err.notFound('workspace');
  return row;
}

/**
 * What keeps the live ledger from being settled (docs/ledger.md): money the adapters hold for the
 * merchant (`settlement:*`, debits - credits), money owed back to payers (`refund_due`) and
 * payouts still in flight, per currency. Test mode moves no real money and is not checked.
 */
export async function openBalances(tx: Tx, workspaceId: string): Promise<string[]> {
  const rows = await tx.$queryRaw<{ currency: string; held: bigint; owed: bigint; inFlight: bigint }[]>`
    SELECT currency, sum(held)::bigint AS held, sum(owed)::bigint AS owed, sum("inFlight")::bigint AS "inFlight" FROM (
      SELECT currency,
        coalesce(sum(debits - credits) FILTER (WHERE code LIKE 'settlement:%'), 0) AS held,
        coalesce(sum(credits - debits) FILTER (WHERE code = 'refund_due'), 0) AS owed, 0 AS "inFlight"
      FROM ledger_daily WHERE "workspaceId" = ${workspaceId} AND mode = 'live' GROUP BY currency
      UNION ALL
      SELECT currency, 0, 0, count(*) FROM payouts
      WHERE "workspaceId" = ${workspaceId} AND mode = 'live' AND status = ANY(${locking}) GROUP BY currency
    ) t GROUP BY currency ORDER BY currency`;
  return rows.flatMap((r) => [
    ...(r.held !== 0n ? [`${r.held} ${r.currency} held at adapters`] : []),
    ...(r.owed !== 0n ? [`${r.owed} ${r.currency} owed back to payers`] : []),
    ...(r.inFlight !== 0n ? [`${r.inFlight} ${r.currency} payout(s) in flight`] : []),
  ]);
}

export async function assertSettled(tx: Tx, workspaceId: string) {
  const open = await openBalances(tx, workspaceId);
  if (open.length)
    throw err.of('has_open_balance', `The live ledger is not settled (${open.join('; ')}); run a payout first`);
}

/** An adapter that can take payments: a connected one, or a managed account through KYB (not the test sandbox). */
async function hasActiveAdapter(tx: Tx, workspaceId: string): Promise<boolean> {
  const rows = await tx.$queryRaw<unknown[]>`
    SELECT 1 FROM adapters WHERE "workspaceId" = ${workspaceId} AND status = ${adapterActive}
    UNION ALL SELECT 1 FROM managed_accounts
      WHERE "workspaceId" = ${workspaceId} AND status = ${adapterActive} AND "kybStatus" = 'live'
    LIMIT 1`;
  return rows.length > 0;
}

/**
 * DECISIONS §7: `POST /v1/workspaces/:id/activate` (owner; needs `businessEmail` and one active
 * adapter) sets `mode` to `live`: from then on the workspace's live keys work (src/core/auth).
 * Activating a live workspace again answers it unchanged.
 */
export async function activateWorkspace(ctx: Context, id: string, visible: (tx: Tx) => Promise<Workspace>) {
  const auth = authorize(ctx, 'svc:workspace:write');
  const ws = await inTenant(tenant(auth, BOTH), async (tx) => {
    await visible(tx);
    const ws = await lockWorkspace(tx, id);
    if (ws.archivedAt) throw err.of('conflict', 'An archived workspace cannot be activated; restore it first');
    assertOwner(auth, 'activate it');
    if (ws.mode === 'live') return ws;
    if (!ws.businessEmail)
      throw err.of('activation_incomplete', 'Set businessEmail before activating live mode', 'businessEmail');
    if (!(await hasActiveAdapter(tx, id)))
      throw err.of('activation_incomplete', 'Connect an adapter before activating live mode', 'adapters');
    const updated = await tx.workspace.update({ where: { id }, data: { mode: 'live', updatedAt: clock.now() } });
    await emit(tx, { workspaceId: id, mode: auth.mode }, 'workspace.updated', snapshot(updated), {
      requestId: ctx.requestId,
      previousAttributes: { mode: ws.mode },
    });
    const live = await tx.apiKey.findMany({
      where: { workspaceId: id, mode: 'live', revokedAt: null },
      select: { keyId: true },
    });
    return { ...updated, liveKeyIds: live.map((k) => k.keyId) };
  });
  // Its live keys work at once here (the key cache holds the workspace's mode; other instances within keyCacheMs).
  if ('liveKeyIds' in ws) ws.liveKeyIds.forEach(forgetKey);
  if (ws.partnerId) forgetMerchant(ws.partnerId, ws.accountId);
  return ws;
}

/**
 * spec Workspace: "restorable ... within that window (`workspace.restored`)". Every key of an
 * archived workspace is revoked, so over the API the partner it was provisioned under restores it
 * (a platform-admin key acting as itself); a direct merchant restores through the dashboard's path,
 * `svc restore-workspace` (src/cli). Restore clears `archivedAt` only: the workspace comes back in
 * test mode (live needs activation again), keys stay revoked, subscriptions keep `cancelAtPeriodEnd`.
 */
export async function restoreWorkspace(ctx: Context, id: string) {
  const auth = authorize(ctx, 'svc:workspace:write');
  if (!auth.isPlatformAdmin || auth.onBehalfOf)
    throw new DomainError('insufficient_scope', "Restoring needs the partner's platform-admin key, acting as itself");
  return inTenant(tenant(auth, BOTH), async (tx) => {
    const [row] = await tx.$queryRaw<
      Workspace[]
    >`SELECT * FROM workspaces WHERE id = ${id} AND "partnerId" = ${auth.workspaceId} FOR UPDATE`;
    if (!row) throw err.notFound('workspace');
    // The event belongs to the merchant (as workspace.created does): its scope from here on.
    await switchScope(tx, { workspaceId: id, modes: BOTH });
    const restored = await restoreLocked(tx, row, auth.mode, ctx.requestId);
    return restored;
  }).then((ws) => {
    forgetMerchant(auth.workspaceId, ws.accountId);
    return ws;
  });
}

/** Restore of a locked row, in its transaction (the API above and the CLI). */
export async function restoreLocked(tx: Tx, ws: Workspace, mode: 'test' | 'live', requestId?: string) {
  if (!ws.archivedAt) throw err.of('conflict', 'The workspace is not archived');
  if (ws.purgedAt || ws.archivedAt <= retainedSince(clock.now()))
    throw err.of('gone', 'The 90-day restore window has closed; the workspace data is purged');
  const restored = await tx.workspace.update({
    where: { id: ws.id },
    data: { archivedAt: null, updatedAt: clock.now() },
  });
  await emit(tx, { workspaceId: ws.id, mode }, 'workspace.restored', snapshot(restored), {
    requestId,
    previousAttributes: { archivedAt: ws.archivedAt.toISOString() },
  });
  return restored;
}
