/**
 * Checkout attempts: every provider charge a session ever made is a row of
 * `checkout_attempts`, so a callback for an old VA, QR or order still finds its session, and
 * money that arrives on an attempt that can no longer complete anything is recorded, not lost.
 *
 * Life of an attempt: `creating` (written before the provider is called, phase 1) -> `open`
 * (the provider answered, phase 3) -> `paid` (it completed the session). A newer attempt or the
 * session's completion makes the live ones `superseded`, and they are voided at the provider
 * (outside any transaction) where the provider can void: `voided`. provider_c orders are captured
 * by us, so the current `open` one alone is ever claimed for capture (`capturing`); a superseded
 * order is simply never captured. Money that arrives anyway on an attempt whose session is
 * already completed or has ended is `paid_unapplied`: held at the provider for the customer, to be
 * refunded (ledger: debit `unapplied:<adapter>`, credit `refund_due`, neither of which is the
 * merchant's balance).
 */
import { inTenant } from '../../core/db/client.ts';
import { insertRows, columns, sql as q, toJson, type Sql } from '../../core/db/sql.ts';
import { clock } from '../../core/clock.ts';
import { logger } from '../../core/logger.ts';
import { postLedger } from '../../core/ledger.ts';
import { isProviderError } from '../../providers/index.ts';
import { isOnline, providerFor } from '../adapters/providers.ts';
import { nextState, sqlIn, sqlStatus, statusesWhere } from '../../core/state-machine.ts';
import {
  checkoutAttemptMachine as attemptStates,
  checkoutSessionMachine as sessions,
  type AttemptStatus,
} from './states.ts';
import type { Adapter, CheckoutAttempt, CheckoutSession } from '../../generated/prisma/client.ts';
import type { Tx } from '../../core/db/client.ts';
import type { RowScope } from '../../core/resource.ts';

type Scope = RowScope;

/** Statuses of an attempt that may still be paid and should be voided when superseded. */
export const liveAttempt = statusesWhere(attemptStates, 'supersede');

// Status lists of the statements below, derived from the tables once (same SQL text as written by hand).
const supersede = { set: sqlStatus(attemptStates.moves.supersede.to), where: sqlIn(q`status`, liveAttempt) };
const record = {
  set: sqlStatus(attemptStates.moves.record_charge.to),
  where: sqlIn(q`status`, statusesWhere(attemptStates, 'record_charge')),
};
const sessionInFlight = sqlIn(q`s.status`, statusesWhere(sessions, 'provider_failed'));

/** An attempt that lost its place: voided at the provider after the transaction that superseded it commits. */
export interface Superseded {
  id: string;
  adapter: string;
  providerReference: string | null;
}

/**
 * Phase 1's write, one statement (with COMMIT on `pg`): the session's live attempts become
 * `superseded`, the new attempt is inserted, the session row is updated, and, when `adapterKind`
 * is given, the adapter row the provider call needs is read in the same round trip.
 */
export async function writeAttempt(
  sql: Sql,
  scope: Scope,
  sessionId: string,
  attempt: CheckoutAttempt,
  session: Record<string, unknown>,
  adapterKind: string | null,
): Promise<{ superseded: Superseded[]; adapter: Adapter | null }> {
  const cols = columns(session);
  const ws = scope.workspaceId;
  const [row] = await sql.last<{ written: bigint; superseded: Superseded[] } & Partial<Adapter>>(
    q`WITH
  superseded AS (
    UPDATE checkout_attempts SET status = ${supersede.set}, "updatedAt" = ${attempt.createdAt}::timestamptz
    WHERE "workspaceId" = ${ws} AND mode = ${scope.mode} AND "checkoutSessionId" = ${sessionId} AND ${supersede.where}
    RETURNING id, adapter, "providerReference"),
  new_attempt AS (${insertRows('checkout_attempts', [attempt])} RETURNING 1),
  updated_session AS (
    UPDATE checkout_sessions
    SET (${cols}) = (SELECT ${cols} FROM jsonb_populate_record(NULL::checkout_sessions, ${toJson(session)}::jsonb))
    WHERE id = ${sessionId} AND "workspaceId" = ${ws} AND mode = ${scope.mode} RETURNING 1)
SELECT (SELECT count(*) FROM new_attempt) + (SELECT count(*) FROM updated_session) AS written,
  (SELECT coalesce(
    jsonb_agg(jsonb_build_object('id', id, 'adapter', adapter, 'providerReference', "providerReference")), '[]'::jsonb)
    FROM superseded) AS superseded,
  a.*
FROM (SELECT 1) one
  LEFT JOIN adapters a ON a."workspaceId" = ${ws} AND a.mode = ${scope.mode} AND a.kind = ${adapterKind ?? ''}`,
  );
  if (Number(row.written) !== 2) throw new Error(`checkout session ${sessionId} not found for its attempt`);
  const { written: _w, superseded, ...adapter } = row;
  return { superseded, adapter: adapter.kind ? (adapter as Adapter) : null };
}

/**
 * A new attempt row (phase 1), `creating` for a provider call (`create`), `open` when nothing is called
 * (`create_open`).
 */
export function newAttempt(
  scope: Scope,
  s: CheckoutSession,
  fields: {
    id: string;
    adapter: string;
    method: string;
    created: 'create' | 'create_open';
    providerReference: string | null;
    attemptData: unknown;
    /** The customer asked to save the method (save.ts `attemptSaves`). */
    savePaymentMethod?: boolean;
  },
): CheckoutAttempt {
  const now = clock.now();
  const number = s.attemptCount + 1;
  return {
    id: fields.id,
    workspaceId: scope.workspaceId,
    mode: scope.mode,
    checkoutSessionId: s.id,
    number,
    adapter: fields.adapter,
    method: fields.method,
    status: nextState(attemptStates, null, fields.created).to,
    providerReference: fields.providerReference,
    providerPaymentId: null,
    amount: s.amount,
    currency: s.currency,
    attemptData: fields.attemptData as never,
    savePaymentMethod: fields.savePaymentMethod === true,
    idempotencyKey: `${s.id}:${number}`,
    voidedAt: null,
    paidAt: null,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * Phase 3 of an attempt: the provider's charge is recorded, compare-and-set. The attempt must
 * still be `creating` and the session still `pending` on it (same number); otherwise the charge
 * lost its place (a newer attempt, a cancel, the session completed) and must be voided.
 * One statement with COMMIT.
 */
export async function recordCharge(
  sql: Sql,
  scope: Scope,
  attempt: CheckoutAttempt,
  providerReference: string,
  attemptData: unknown,
): Promise<boolean> {
  const now = clock.now();
  const ws = scope.workspaceId;
  const data = toJson(attemptData);
  const [row] = await sql.last<{ attempt: number; session: number }>(
    q`WITH
  opened AS (
    UPDATE checkout_attempts SET status = ${record.set}, "providerReference" = ${providerReference},
      "attemptData" = ${data}::jsonb, "updatedAt" = ${now}::timestamptz
    WHERE id = ${attempt.id} AND "workspaceId" = ${ws} AND mode = ${scope.mode} AND ${record.where}
    RETURNING "checkoutSessionId", number),
  current_session AS (
    UPDATE checkout_sessions s SET "providerReference" = ${providerReference}, "attemptData" = ${data}::jsonb,
      "updatedAt" = ${now}::timestamptz
    FROM opened WHERE s.id = opened."checkoutSessionId" AND s."workspaceId" = ${ws} AND s.mode = ${scope.mode}
      AND s."attemptCount" = opened.number AND ${sessionInFlight}
    RETURNING 1)
SELECT (SELECT count(*) FROM opened)::int AS attempt, (SELECT count(*) FROM current_session)::int AS session`,
  );
  return row.attempt === 1 && row.session === 1;
}

/**
 * Voids superseded attempts at their providers, outside any transaction, then records `voided`
 * (compare-and-set on `superseded`). Where the provider has no void (provider_a QRIS and
 * e-wallets, provider_c orders, which we simply never capture) the attempt stays `superseded`
 * and expires at the provider; a payment that arrives on it anyway is still matched. A failed
 * void is logged and left `superseded`: matching, not voiding, is what keeps the money.
 */
export async function voidAttempts(scope: Scope, attempts: readonly Superseded[]): Promise<void> {
  const online = attempts.filter((a) => a.providerReference && isOnline(a.adapter));
  if (!online.length) return;
  const tenantScope = { ...scope, modes: [scope.mode] };
  const adapters = await inTenant(tenantScope, (tx) =>
    tx.adapter.findMany({
      where: {
        workspaceId: scope.workspaceId,
        mode: scope.mode,
        kind: { in: [...new Set(online.map((a) => a.adapter))] },
      },
    }),
  );
  const voided: string[] = [];
  for (const a of online) {
    const row = adapters.find((r) => r.kind === a.adapter);
    const provider = row ? providerFor(row) : null;
    if (!provider?.voidCharge) continue;
    try {
      if (await provider.voidCharge({ providerRef: a.providerReference! })) voided.push(a.id);
    } catch (e) {
      if (!isProviderError(e)) throw e;
      logger.warn(
        { attempt: a.id, provider: a.adapter, reason: e.message },
        'superseded attempt not voided; a payment on it is still matched',
      );
    }
  }
  if (!voided.length) return;
  const now = clock.now();
  await inTenant(tenantScope, (tx) =>
    tx.checkoutAttempt.updateMany({
      where: { id: { in: voided }, status: { in: statusesWhere(attemptStates, 'void') } },
      data: { status: attemptStates.moves.void.to, voidedAt: now, updatedAt: now },
    }),
  );
}

/**
 * Money that arrived on an attempt whose session cannot take it (already completed by another
 * attempt, expired, canceled): recorded on the attempt and in the ledger as owed back to the
 * customer, in the caller's transaction. Support refunds it at the provider.
 */
export async function recordUnapplied(
  tx: Tx,
  scope: Scope,
  attempt: CheckoutAttempt,
  paid: { amount: number; currency: string; providerPaymentId?: string | null },
  sessionStatus: string,
) {
  const now = clock.now();
  await markPaidUnapplied(tx, attempt, paid, now);
  await postLedger(tx, scope, {
    txId: attempt.id,
    currency: paid.currency,
    sourceType: 'adjustment',
    sourceId: attempt.id,
    postedAt: now,
    legs: [
      {
        code: `unapplied:${attempt.adapter}`,
        direction: 'debit',
        amount: BigInt(paid.amount),
        memo: `paid on ${attempt.id} after the session was ${sessionStatus}`,
      },
      { code: 'refund_due', direction: 'credit', amount: BigInt(paid.amount) },
    ],
  });
  logger.error(
    { attempt: attempt.id, session: attempt.checkoutSessionId, sessionStatus, amount: paid.amount },
    'payment on an attempt that cannot complete its session: recorded as unapplied, to be refunded',
  );
}

/** The attempt took money its session cannot apply: `paid_unapplied`, with the provider's payment id. */
export async function markPaidUnapplied(
  tx: Tx,
  attempt: CheckoutAttempt,
  paid: { providerPaymentId?: string | null },
  now: Date,
) {
  await tx.checkoutAttempt.update({
    where: { id: attempt.id },
    data: {
      status: nextState(attemptStates, attempt.status as AttemptStatus, 'pay_unapplied').to,
      paidAt: now,
      providerPaymentId: paid.providerPaymentId ?? null,
      updatedAt: now,
    },
  });
}

/**
 * A provider call that failed (or never answered): the attempt is `failed` and the session, if still pending on it,
 * open again (compare-and-set).
 */
export async function failAttempt(
  scope: Scope,
  a: Pick<CheckoutAttempt, 'id' | 'checkoutSessionId' | 'number'>,
  failureCode = 'gateway_error',
): Promise<boolean> {
  const now = clock.now();
  return inTenant({ ...scope, modes: [scope.mode] }, async (tx) => {
    const changed = await tx.checkoutAttempt.updateMany({
      where: { id: a.id, status: { in: statusesWhere(attemptStates, 'fail') } },
      data: { status: attemptStates.moves.fail.to, updatedAt: now },
    });
    if (!changed.count) return false;
    await tx.checkoutSession.updateMany({
      where: {
        id: a.checkoutSessionId,
        workspaceId: scope.workspaceId,
        mode: scope.mode,
        status: { in: statusesWhere(sessions, 'provider_failed') },
        attemptCount: a.number,
      },
      data: { status: sessions.moves.provider_failed.to, failureCode, updatedAt: now },
    });
    return true;
  });
}
