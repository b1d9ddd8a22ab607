/**
 * Renewal at the cycle boundary (docs/billing.md, Renewals; docs/decisions.md, Renewals and dunning). Due-ness
 * lives in rows: a subscription is due when its `currentPeriodEnd` has passed, an invoice when its
 * `nextAttemptAt` has. `processDue` claims batches of one workspace and mode with
 * `FOR UPDATE SKIP LOCKED`, so any number of workers (and a test clock's advance) share the work
 * without running a row twice; the unique cycle key (`invoices_cycle_key`) makes a renewal of the
 * same period a second time fail rather than bill twice. One transaction per batch: the cycle
 * invoices (created and finalized, numbered by one counter bump), their lines and events, the
 * advanced periods, and the charges of methods charged in process with the settlement of the paid
 * invoices (dunning.ts attemptLocked; docs/decisions.md, Renewal bursts). Other charges run after it.
 */
import { db, type Mode } from '../../core/db/client.ts';
import { scopeOf, sql as q, tenantTx, toJson, type Sql } from '../../core/db/sql.ts';
import { insertEvents, type EventRow } from '../../core/outbox.ts';
import { nextState } from '../../core/state-machine.ts';
import type { RowScope } from '../../core/resource.ts';
import type { Subscription } from '../../generated/prisma/client.ts';
import { finalizeInvoices } from '../invoices/issue.ts';
import { subscriptionEvents } from './moves.ts';
import { cycleMeta, writeCycleDrafts, type CycleBill } from './invoice.ts';
import { nextPeriods, type NextPeriod } from './next-period.ts';
import { periodOf, type Interval } from '../../core/periods.ts';
import {
  periodEndDue,
  subscriptionCancelOnly,
  subscriptionMachine,
  subscriptionPastDue,
  subscriptionTrialing,
  type SubscriptionStatus,
} from './states.ts';
import { attemptDueInvoices, attemptLocked, onClock, sendPendingCharges } from '../collection/dunning.ts';
import { expireIncomplete } from './expiry.ts';
import { analyzeGrown } from '../../core/db/analyze.ts';
import { claimFilter, Sweep, type Claim } from '../../core/sweep.ts';

/** The tables a renewal writes rows to: analyzed as a burst grows them (core/db/analyze.ts). */
export const RENEWAL_TABLES = [
  'subscriptions',
  'invoices',
  'invoice_lines',
  'payments',
  'receipts',
  'ledger_entries',
  'events',
] as const;

/** Subscriptions renewed per transaction: one counter bump and a handful of statements each. */
export const RENEWAL_BATCH = 100;

export interface DueOptions {
  /** One workspace and mode, or null for every tenant (the real-time tick). */
  scope: RowScope | null;
  /** Business time: "now" for everything processed (a test clock passes its instants in order). */
  at: Date;
  /** The test clock whose subscriptions and invoices to process; null: those on the real clock. */
  testClockId: string | null;
  /** Stop after about this many renewals plus attempts (the caller calls again while `more`). */
  limit?: number;
}

export interface DueResult {
  renewed: number;
  canceled: number;
  attempted: number;
  /** True when the limit stopped the work before everything due at `at` was done. */
  more: boolean;
}

// Paused rows are due only to be canceled (`cancelAtPeriodEnd`, a workspace archive's too).
const renewable = periodEndDue(q`s`);

/**
 * Processes everything due at business time `at` for the given subscriptions (the real clock's or
 * one test clock's): renewals, trial ends and period-end cancels first (repeated while a
 * subscription is several periods behind), incomplete expiries, then the charges and dunning
 * retries that fell due. Past-due moves of invoices without a stored method are the invoice sweep's
 * (invoices/sweep.ts; a test clock runs it at its own instants).
 * Safe to run from several workers at once. The test clock's advance (H) calls it once per due
 * instant, in order; the billing tick calls it with the real time.
 */
export async function processDue(o: DueOptions): Promise<DueResult> {
  const limit = o.limit ?? Number.POSITIVE_INFINITY;
  const out: DueResult = { renewed: 0, canceled: 0, attempted: 0, more: false };
  // Round robin, one batch per tenant per round, until none has anything due (a subscription several
  // periods behind stays due after its batch and is renewed again in the next round).
  let tenants = o.scope ? [o.scope] : await dueTenants(o.at);
  // A throw for one tenant or one subscription is its own (src/core/sweep.ts): quarantined, the rest go on.
  const sweeps = await Sweep.start(['renewal', 'incomplete_expiry', 'invoice_attempt'], o.scope);
  const sending = oneAhead();
  while (tenants.length) {
    const busy: RowScope[] = [];
    for (const scope of tenants) {
      if (out.renewed + out.canceled >= limit) {
        await sending.done();
        return { ...out, more: true };
      }
      const batch = Math.min(RENEWAL_BATCH, limit - out.renewed);
      const { results, claimed, stuck } = await sweeps.renewal.batch(scope, (only, report) =>
        tenantTx(scopeOf(scope), (sql) =>
          renewBatch(sql, scope, o.at, o.testClockId, only ? 1 : batch, { sweep: sweeps.renewal, only, report }),
        ),
      );
      for (const n of results) {
        out.renewed += n.renewed;
        out.canceled += n.canceled;
        out.attempted += n.attempted;
        // The first charges of provider-held methods, written pending by the batch: sent now it
        // committed, while the next batch is renewed (one batch's charges at a time).
        const tenant = n.tenant;
        if (tenant && n.remote.length)
          await sending.next(() => sendPendingCharges(tenant, n.remote, sweeps.invoice_attempt));
      }
      // A row that failed is quarantined and no longer claimed, so the tenant's next batch moves on.
      if (claimed > 0 && !stuck) busy.push(scope);
      // A burst is a bulk load: statistics follow it, between batches (docs/decisions.md, Statistics after bulk writes).
      if (claimed > 0) await analyzeGrown(RENEWAL_TABLES, claimed);
    }
    tenants = busy;
  }
  await sending.done();
  // Unpaid first invoices that fell due: the incomplete subscription expires (expiry.ts).
  const room = limit - out.renewed - out.canceled;
  out.canceled += await expireIncomplete({
    ...o,
    limit: Number.isFinite(room) ? Math.max(1, room) : undefined,
    sweep: sweeps.incomplete_expiry,
  });
  const left = limit - out.renewed - out.canceled;
  const attempts = await attemptDueInvoices({ ...o, limit: left, sweep: sweeps.invoice_attempt });
  out.attempted += attempts.attempted;
  out.more = attempts.more;
  return out;
}

/**
 * Work run one step behind its caller: `next` waits for the previous work, then starts this one
 * without waiting for it (a batch's provider calls overlap the next batch's transaction); `done`
 * waits for the last. A failure is kept and thrown by the next `next` or `done`, never left unhandled.
 */
function oneAhead() {
  let last: Promise<unknown> = Promise.resolve(null);
  const done = async () => {
    const failed = await last;
    last = Promise.resolve(null);
    if (failed) throw failed;
  };
  return {
    done,
    async next(work: () => Promise<unknown>) {
      await done();
      last = work().then(
        () => null,
        (e: unknown) => e ?? new Error('the renewal was rejected'),
      );
    },
  };
}

/** Workspaces and modes with subscriptions due on the real clock (the partial renewal index), owner pool. */
async function dueTenants(at: Date): Promise<RowScope[]> {
  const { rows } = await db().system.query<{ workspaceId: string; mode: Mode }>(
    `SELECT DISTINCT s."workspaceId", s.mode FROM subscriptions s
     WHERE ${renewable.text} AND s."currentPeriodEnd" <= $1 AND s."testClockId" IS NULL`,
    [at],
  );
  return rows;
}

interface DueRow extends Subscription {
  accountId: string;
}

interface Plan extends CycleBill {
  sub: DueRow;
  /** The price, plan and quantity the renewal moves to (next-period.ts). */
  bills: NextPeriod;
  trigger: 'renew' | 'renew_past_due' | 'end_trial' | 'cancel_at_period_end';
  next: Partial<Subscription>;
  invoice: { periodStart: Date; periodEnd: Date; quantity: number | null; usage: boolean } | null;
}

/**
 * One batch of one workspace and mode, in one transaction (the caller's): claim due subscriptions (skipping rows
 * another worker holds), decide each one's move, write the cycle invoices (draft, lines, then all
 * finalized by one counter bump) and the advanced subscriptions with their events.
 */
async function renewBatch(
  sql: Sql,
  scope: RowScope,
  at: Date,
  testClockId: string | null,
  batch: number,
  claim: Claim,
) {
  const subs = await sql.query<DueRow>(
    q`SELECT s.*, w."accountId" FROM subscriptions s
      JOIN workspaces w ON w.id = s."workspaceId"
      WHERE s."workspaceId" = ${scope.workspaceId} AND s.mode = ${scope.mode} AND ${renewable}
        AND s."currentPeriodEnd" <= ${at}::timestamptz AND ${onClock(q`s."testClockId"`, testClockId)}
        AND ${claimFilter(claim, q`s`)}
      ORDER BY s."currentPeriodEnd", s.id LIMIT ${batch} FOR UPDATE OF s SKIP LOCKED`,
  );
  claim.report(subs.map((s) => s.id));
  if (!subs.length) return { claimed: 0, renewed: 0, canceled: 0, attempted: 0, tenant: null, remote: [] };
  const next = await nextPeriods(sql, scope, subs);
  const plans = subs.map((s) => planRenewal(s, next.get(s.id)!));
  // The counter's lock is held from the finalize to the commit, so what needs no number comes first:
  // the drafts (with their created events) and the advanced subscriptions (with theirs).
  const drafts = await writeCycleDrafts(sql, scope, at, plans);
  const events: EventRow[] = [];
  const draftOf = new Map(drafts.map((d) => [d.subscriptionId, d]));
  const updates = plans.map((p) => {
    const inv = draftOf.get(p.sub.id);
    const next = { ...p.next, ...(inv ? { latestInvoiceId: inv.id } : {}), updatedAt: at };
    return { id: p.sub.id, ...next };
  });
  const rows = await sql.query<Subscription>(
    q`UPDATE subscriptions s SET status = r.status, "planId" = r."planId", "priceId" = r."priceId", quantity = r.quantity,
        "pendingPriceId" = r."pendingPriceId", "pendingQuantity" = r."pendingQuantity",
        "periodIndex" = r."periodIndex", "currentPeriodStart" = r."currentPeriodStart",
        "currentPeriodEnd" = r."currentPeriodEnd", "canceledAt" = r."canceledAt",
        "latestInvoiceId" = coalesce(r."latestInvoiceId", s."latestInvoiceId"), "updatedAt" = r."updatedAt"
      FROM jsonb_populate_recordset(NULL::subscriptions, ${toJson(updates.map((u, i) => fullRow(plans[i].sub, u)))}::jsonb) r
      WHERE s."workspaceId" = ${scope.workspaceId} AND s.mode = ${scope.mode} AND s.id = r.id
      RETURNING s.*`,
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const p of plans) {
    const row = byId.get(p.sub.id);
    const types = nextState(subscriptionMachine, p.sub.status as SubscriptionStatus, p.trigger).events;
    if (row) events.push(...subscriptionEvents(scope, p.sub, row, types, { source: 'billing', at }));
  }
  await insertEvents(sql, events);
  // The drafts finalized together (docs/billing.md, Invoice numbering) from one bump of the invoice
  // counter, held until commit so numbers stay gapless; a zero total paid at once (docs/decisions.md, Invoices).
  const accountId = subs[0].accountId;
  const opened = await finalizeInvoices(sql, scope, drafts, {
    accountId,
    source: 'billing',
    at,
    meta: cycleMeta(at),
  });
  // The first collection attempts, in this transaction when the method is charged in process;
  // a provider-held method's written pending, sent after the commit (dunning.ts attemptLocked).
  const due = opened.filter((i) => i.nextAttemptAt !== null && i.nextAttemptAt <= at);
  const tenant = { ...scope, accountId: subs[0].accountId };
  const { attempted, remote } = due.length
    ? await attemptLocked(sql, tenant, due, at, { subscriptions: rows })
    : { attempted: 0, remote: [] };
  const canceled = plans.filter((p) => p.trigger === 'cancel_at_period_end').length;
  return { claimed: subs.length, renewed: subs.length - canceled, canceled, attempted, tenant, remote };
}

/** The subscription columns of a claimed row, for `jsonb_populate_recordset` (columns not sent read as null). */
const fullRow = (s: DueRow, u: Partial<Subscription>) => {
  const row: Record<string, unknown> = { latestInvoiceId: null, ...u };
  for (const k of subscriptionColumns) if (!(k in row)) row[k] = s[k];
  return row;
};
const subscriptionColumns = [
  'id',
  'workspaceId',
  'mode',
  'status',
  'customerId',
  'planId',
  'priceId',
  'currency',
  'quantity',
  'paymentMethod',
  'anchorAt',
  'periodIndex',
  'currentPeriodStart',
  'currentPeriodEnd',
  'trialEnd',
  'cancelAtPeriodEnd',
  'canceledAt',
  'pausedAt',
  'pendingPriceId',
  'pendingQuantity',
  'testClockId',
  'metadata',
  'createdAt',
] as const satisfies readonly (keyof Subscription)[];

/**
 * What one due subscription becomes (docs/billing.md, Renewals): a period-end cancel (a usage price still
 * bills its closed period in arrears), a trial end (the first paid period starts at `trialEnd`,
 * docs/billing.md, Trials), or a renewal (licensed prices bill the new period in advance, usage the closed
 * one in arrears). Periods come from the anchor (periods.ts), one period per call: a subscription
 * several periods behind stays due and is renewed again by the next batch.
 */
function planRenewal(s: DueRow, bills: NextPeriod): Plan {
  const cadence = { interval: bills.plan.interval as Interval, intervalCount: bills.plan.intervalCount };
  const usage = bills.price.model === 'usage';
  const closed = { periodStart: s.currentPeriodStart, periodEnd: s.currentPeriodEnd };
  if (s.cancelAtPeriodEnd) {
    // Nothing is billed for a trial, nor while paused (no invoices while paused).
    const bill =
      usage && s.status !== subscriptionTrialing && !(subscriptionCancelOnly as readonly string[]).includes(s.status);
    return {
      sub: s,
      bills,
      trigger: 'cancel_at_period_end',
      next: {
        status: nextState(subscriptionMachine, s.status as SubscriptionStatus, 'cancel_at_period_end').to,
        canceledAt: s.currentPeriodEnd,
      },
      invoice: bill ? { ...closed, quantity: null, usage: true } : null,
    };
  }
  const k = s.periodIndex + 1;
  const period = periodOf(s.anchorAt, cadence, k);
  const trigger =
    s.status === subscriptionTrialing ? 'end_trial' : s.status === subscriptionPastDue ? 'renew_past_due' : 'renew';
  const quantity = bills.quantity;
  const next: Partial<Subscription> = {
    status: nextState(subscriptionMachine, s.status as SubscriptionStatus, trigger).to,
    periodIndex: k,
    currentPeriodStart: period.start,
    currentPeriodEnd: period.end,
    planId: bills.planId,
    priceId: bills.priceId,
    quantity,
    pendingPriceId: null,
    pendingQuantity: null,
  };
  // A trial's usage is not billed; a usage price's first invoice comes at the end of its first period.
  const invoice = usage
    ? trigger === 'end_trial'
      ? null
      : { ...closed, quantity: null, usage: true }
    : { periodStart: period.start, periodEnd: period.end, quantity, usage: false };
  return { sub: s, bills, trigger, next, invoice };
}
