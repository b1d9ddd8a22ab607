/**
 * Collection attempts and dunning retries (docs/billing.md, Dunning; docs/decisions.md, Renewals and
 * dunning). An invoice is due for an attempt when `nextAttemptAt` has passed (the renewal sets it to
 * the issue time; a failure sets it to the next retry). Attempts are claimed under `FOR UPDATE SKIP
 * LOCKED`, so two workers never attempt one invoice at once: a method charged in process is charged
 * and settled in the claiming transaction; a provider-held method's charge is written `pending` there,
 * with `nextAttemptAt` a lease ahead, sent after the commit and reconciled a hundred per transaction
 * (`sendPendingCharges`), so a worker killed mid-attempt leaves it to be attempted again after the lease
 * (collect.ts refuses a paid invoice and resumes a charge already in flight with the same idempotency
 * key, so that is never a second charge).
 * After the attempt, under the invoice lock with its status re-read: paid elsewhere -> nothing more;
 * failed -> the policy snapshotted at the first failure gives the next retry (offsets from the first
 * failure) or, after the last, its `finalAction` on this invoice and its own subscription only.
 */
import { providerOperations, runProviderBatch } from '../../providers/operation.ts';
import { db, inTenant, type Mode } from '../../core/db/client.ts';
import { prismaSql, scopeOf, sql as q, tenantTx, type Fragment, type Sql } from '../../core/db/sql.ts';
import { sqlIn } from '../../core/state-machine.ts';
import type { RowScope } from '../../core/resource.ts';
import { claimFilter, Sweep, type Claim } from '../../core/sweep.ts';
import type { InvoiceRow } from '../invoices/fields.ts';
import type { Invoice } from '../../generated/prisma/client.ts';
import { closeUnpaidInvoice } from '../invoices/close.ts';
import { linesOf, lockInvoice } from '../invoices/issue.ts';
import { invoiceIssuedUnpaid, invoicePaid, type InvoiceClose } from '../invoices/states.ts';
import { paymentFailed } from '../payments/states.ts';
import { chargeStoredMethod, type ChargeResult, type CollectOutcome } from './charge.ts';
import { chargeLocked } from './collect.ts';
import { dunningExhausted, lockBilled, type Billed } from './hooks.ts';
import type { PendingCharge } from './pending.ts';
import { reconcileMany } from './reconcile.ts';

const DAY = 86_400_000;
/** How long a claimed attempt is held before another worker may take it over (a crashed worker). */
export const ATTEMPT_LEASE_MS = 5 * 60_000;
/** Attempts claimed per transaction, and provider answers reconciled per transaction. */
export const ATTEMPT_BATCH = 100;

/** The policy as it was at the first failure: a later change applies to the next one (docs/billing.md, Dunning). */
export interface DunningSnapshot {
  policyId: string | null;
  retryScheduleDays: number[];
  finalAction: InvoiceClose | null;
  firstFailureAt: string;
  /** Failed attempts since the first failure, that one included. */
  failures: number;
}

/**
 * The clock filter, spelled `IS NULL` for the real clock so the planner can use the partial renewal
 * index (`subscriptions_renewal_due_idx ... WHERE "testClockId" IS NULL`); a bound `IS NOT DISTINCT
 * FROM $n` would not match its predicate.
 */
export const onClock = (column: Fragment, testClockId: string | null): Fragment =>
  testClockId === null ? q`${column} IS NULL` : q`${column} = ${testClockId}::text`;

const attemptable = sqlIn(q`i.status`, invoiceIssuedUnpaid);

export interface Tenant extends RowScope {
  accountId: string;
}

/** Tenants with attempts due on the real clock, or the one given (its account looked up). */
async function attemptTenants(scope: RowScope | null, at: Date): Promise<Tenant[]> {
  if (scope) {
    const { rows } = await db().system.query<{ accountId: string }>(
      'SELECT "accountId" FROM workspaces WHERE id = $1',
      [scope.workspaceId],
    );
    return rows.length ? [{ ...scope, accountId: rows[0].accountId }] : [];
  }
  const { rows } = await db().system.query<{ workspaceId: string; mode: Mode; accountId: string }>(
    `SELECT DISTINCT i."workspaceId", i.mode, w."accountId" FROM invoices i JOIN workspaces w ON w.id = i."workspaceId"
     WHERE i."nextAttemptAt" IS NOT NULL AND i."nextAttemptAt" <= $1 AND i."testClockId" IS NULL AND ${attemptable.text}`,
    [at],
  );
  return rows;
}

/** Claims and runs the attempts due at `at` (the real clock's or one test clock's invoices). */
export async function attemptDueInvoices(o: {
  scope: RowScope | null;
  at: Date;
  testClockId: string | null;
  limit?: number;
  /** The run's isolation (src/core/sweep.ts); one is started when not given. */
  sweep?: Sweep;
}): Promise<{ attempted: number; more: boolean }> {
  const limit = o.limit ?? Number.POSITIVE_INFINITY;
  const sweep = o.sweep ?? (await Sweep.one('invoice_attempt', o.scope));
  let attempted = 0;
  // Round robin, one batch per tenant per round: a workspace with a large burst does not starve the others.
  let tenants = await attemptTenants(o.scope, o.at);
  while (tenants.length) {
    const busy: Tenant[] = [];
    for (const t of tenants) {
      if (attempted >= limit) return { attempted, more: true };
      const batch = Math.min(ATTEMPT_BATCH, limit - attempted);
      // A failing invoice (or tenant) is quarantined, the batch re-run without it (src/core/sweep.ts).
      const { results, claimed, stuck } = await sweep.batch(t, (only, report) =>
        tenantTx(scopeOf(t), (sql) =>
          attemptBatch(sql, t, o.at, o.testClockId, only ? 1 : batch, { sweep, only, report }),
        ),
      );
      await sendPendingCharges(
        t,
        results.flatMap((r) => r.remote),
        sweep,
      );
      attempted += results.reduce((n, r) => n + r.claimed, 0);
      if (claimed === batch && !stuck) busy.push(t);
    }
    tenants = busy;
  }
  return { attempted, more: false };
}

/**
 * One transaction (the caller's): up to `batch` due attempts of one tenant claimed with `FOR UPDATE SKIP LOCKED`,
 * those charged in process charged and settled at once, a provider's method's charge written pending
 * (`attemptLocked`: `remote`, sent after the commit); a charge already in flight gets its
 * `nextAttemptAt` a lease ahead and, when a crashed worker left it pending past its lease, is sent
 * again with them (collect.ts `chargeLocked`, `staleBefore`).
 */
async function attemptBatch(sql: Sql, t: Tenant, at: Date, testClockId: string | null, batch: number, claim: Claim) {
  const claimed = await sql.query<Invoice>(
    q`SELECT i.* FROM invoices i WHERE i."workspaceId" = ${t.workspaceId} AND i.mode = ${t.mode}
        AND i."nextAttemptAt" <= ${at}::timestamptz AND ${attemptable} AND ${onClock(q`i."testClockId"`, testClockId)}
        AND ${claimFilter(claim, q`i`)}
      ORDER BY i."nextAttemptAt", i.id LIMIT ${batch} FOR UPDATE SKIP LOCKED`,
  );
  claim.report(claimed.map((i) => i.id));
  if (!claimed.length) return { claimed: 0, remote: [] };
  const lines = await linesOf(
    sql,
    t,
    claimed.map((i) => i.id),
  );
  const invoices = claimed.map((i): InvoiceRow => ({ ...i, accountId: t.accountId, lines: lines.get(i.id) ?? [] }));
  // A crashed worker's charge, once its lease expired, is asked again with the batch's (a younger
  // one is left to its worker: attempted again after the lease).
  const { twoPhase, remote } = await attemptLocked(sql, t, invoices, at, {
    staleBefore: new Date(at.getTime() - ATTEMPT_LEASE_MS),
  });
  if (twoPhase.length)
    await sql.query(
      q`UPDATE invoices SET "nextAttemptAt" = ${attemptLease(at)}::timestamptz WHERE "workspaceId" = ${t.workspaceId}
        AND mode = ${t.mode} AND id = ANY (${twoPhase}::text[])`,
    );
  return { claimed: claimed.length, remote };
}

/** When a claimed attempt may be claimed again: after a crashed worker's lease. */
const attemptLease = (at: Date) => new Date(at.getTime() + ATTEMPT_LEASE_MS);

/**
 * Attempts of locked invoices in the caller's transaction (a batch of due attempts, or a renewal
 * batch's new invoices): their subscriptions locked, those charged in process charged and settled
 * (collect.ts `chargeLocked`), then the dunning step of each one not paid. Provider-held methods'
 * charges are written pending and returned (`remote`) for `sendPendingCharges` after the commit;
 * charges already in flight are returned untouched (`twoPhase`), those a crashed worker left pending
 * since `staleBefore` resumed among `remote`. `subscriptions`: a renewal batch's new invoices' (fresh:
 * no charge in flight), as the batch locked and updated them.
 */
export async function attemptLocked(
  sql: Sql,
  t: Tenant,
  invoices: InvoiceRow[],
  at: Date,
  o: { subscriptions?: Billed[]; staleBefore?: Date } = {},
) {
  const fresh = !!o.subscriptions;
  const subs =
    o.subscriptions ??
    (await lockBilled(
      sql,
      t,
      invoices.flatMap((i) => (i.subscriptionId ? [i.subscriptionId] : [])),
    ));
  const { outcomes, twoPhase, remote } = await chargeLocked(sql, t, invoices, new Map(subs.map((s) => [s.id, s])), at, {
    source: 'billing',
    fresh,
    attemptLease: attemptLease(at),
    staleBefore: o.staleBefore,
  });
  for (const outcome of outcomes)
    if (outcome.outcome !== invoicePaid && outcome.invoice) await afterAttempt(sql, t, outcome.invoice.id, outcome, at);
  return { attempted: outcomes.length + remote.length, twoPhase, remote };
}

/**
 * The call and the reconcile of charges a batch wrote `pending` (`attemptLocked`), after its commit
 * ("write pending, call, reconcile": docs/guides/payment-methods.md, Off-session charges): sent with
 * no transaction open to the provider clients the batch read (offsession.ts `providersIn`), bounded per adapter, then reconciled ATTEMPT_BATCH per
 * transaction at the business time each charge carries with the dunning step of each invoice not paid, so a burst costs a few transactions per
 * hundred charges. A call that throws leaves its payment pending (the pending sweep asks again after
 * its lease); a reconcile batch that throws is run again one answer at a time, and only an answer that
 * fails alone is quarantined (src/core/sweep.ts `groups`).
 */
export async function sendPendingCharges(t: Tenant, pending: PendingCharge[], sweep: Sweep) {
  if (!pending.length) return 0;
  const rowOf = (c: PendingCharge) => ({ ...t, id: c.payment.invoiceId! });
  return runProviderBatch({
    name: providerOperations.offSessionCharge,
    pending,
    call: (charge) =>
      sweep.row(rowOf(charge), () =>
        chargeStoredMethod(charge.charger.value, charge.payment, charge.charger.saved, {
          scope: t,
          payer: charge.payer,
          providers: charge.providers,
          resume: charge.resume,
        }),
      ),
    answer: async (answered) => {
      const answers = answered.map((a) => ({ ...rowOf(a.pending), charge: a.pending, result: a.answer }));
      await sweep.groups(answers, ATTEMPT_BATCH, (group) => reconcileAnswers(t, group));
      return answers.length;
    },
  });
}

type Answer = { charge: PendingCharge; result: ChargeResult };

/** One transaction: the answers reconciled, then the dunning step of each invoice they did not pay. */
function reconcileAnswers(t: Tenant, answers: Answer[]): Promise<number> {
  // One batch's charges: they share its business time.
  const at = answers[0].charge.at;
  return inTenant({ workspaceId: t.workspaceId, modes: [t.mode] }, async (tx) => {
    const sql = prismaSql(tx);
    const outcomes = await reconcileMany(
      sql,
      t,
      answers.map((a) => ({ paymentId: a.charge.payment.id, result: a.result })),
      at,
      { source: 'billing', tx },
    );
    for (const outcome of outcomes)
      if (outcome.outcome !== invoicePaid && outcome.outcome !== 'skipped' && outcome.invoice)
        await afterAttempt(sql, t, outcome.invoice.id, outcome, at);
    return outcomes.length;
  });
}

/**
 * The dunning step after an attempt, under the invoice lock with its status re-read (a hosted-page
 * payment may have landed meanwhile: then no retry and no final action).
 */
export async function afterAttempt(sql: Sql, t: Tenant, invoiceId: string, outcome: CollectOutcome, at: Date) {
  const inv = await lockInvoice(sql, t, invoiceId);
  if (!inv) return;
  const clear = () => setAttempt(sql, t, inv.id, null, inv.dunningSnapshot as DunningSnapshot | null);
  if (!(invoiceIssuedUnpaid as readonly string[]).includes(inv.status) || outcome.outcome === invoicePaid)
    return clear();
  if (outcome.outcome === 'skipped') {
    // A charge still in flight keeps the lease (attempted again after it); anything else stops retries.
    return outcome.reason === 'charge_in_flight' ? undefined : clear();
  }
  // Waiting for the customer (requires_action) or the provider (pending): no retry while it waits;
  // its outcome runs this step again (waiting.ts), a pending one's lease is the pending sweep's.
  if (outcome.outcome !== paymentFailed || !('failureCode' in outcome)) return clear();
  if (outcome.failureCode === 'invoice_not_payable') return clear();
  const snap = (inv.dunningSnapshot as DunningSnapshot | null) ?? (await snapshotPolicy(sql, t, inv, at));
  const s: DunningSnapshot = { ...snap, failures: snap.failures + 1 };
  const retry = s.failures - 1;
  if (retry < s.retryScheduleDays.length) {
    const next = new Date(new Date(s.firstFailureAt).getTime() + s.retryScheduleDays[retry] * DAY);
    return setAttempt(sql, t, inv.id, next, s);
  }
  await setAttempt(sql, t, inv.id, null, s);
  if (s.finalAction) await applyFinalAction(sql, t, inv, s.finalAction, at);
}

async function setAttempt(sql: Sql, t: RowScope, id: string, next: Date | null, snap: DunningSnapshot | null) {
  await sql.query(
    q`UPDATE invoices SET "nextAttemptAt" = ${next}::timestamptz, "dunningSnapshot" = ${snap ? JSON.stringify(snap) : null}::jsonb
      WHERE id = ${id} AND "workspaceId" = ${t.workspaceId} AND mode = ${t.mode}`,
  );
}

/** The plan's policy now, frozen onto the invoice at its first failure; no policy: no retries. */
async function snapshotPolicy(sql: Sql, t: RowScope, inv: InvoiceRow, at: Date): Promise<DunningSnapshot> {
  const [p] = await sql.query<{ id: string; retryScheduleDays: number[]; finalAction: InvoiceClose }>(
    q`SELECT d.id, d."retryScheduleDays", d."finalAction" FROM subscriptions s
      JOIN plans pl ON pl."workspaceId" = s."workspaceId" AND pl.mode = s.mode AND pl.id = s."planId"
      JOIN dunning_policies d ON d."workspaceId" = pl."workspaceId" AND d.mode = pl.mode AND d.id = pl."dunningPolicyId"
      WHERE s."workspaceId" = ${t.workspaceId} AND s.mode = ${t.mode} AND s.id = ${inv.subscriptionId}`,
  );
  return {
    policyId: p?.id ?? null,
    retryScheduleDays: p?.retryScheduleDays ?? [],
    finalAction: p?.finalAction ?? null,
    firstFailureAt: at.toISOString(),
    failures: 0,
  };
}

/**
 * The policy's last word (DECISIONS §3 dunning policy): the invoice becomes `void` or
 * `uncollectible`, and the subscription it bills (never the customer's others) is canceled.
 */
async function applyFinalAction(sql: Sql, t: Tenant, inv: InvoiceRow, action: InvoiceClose, at: Date) {
  const o = { accountId: t.accountId, source: 'dunning', at };
  if (!(await closeUnpaidInvoice(sql, t, inv, action, at, o))) return;
  if (!inv.subscriptionId) return;
  await dunningExhausted.run(sql, t, inv.subscriptionId, o);
}
