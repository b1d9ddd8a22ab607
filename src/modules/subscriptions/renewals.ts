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
import { insertRows, scopeOf, sql as q, tenantTx, toJson, type Sql } from '../../core/db/sql.ts';
import { bumpCounterSql, counterNames, invoicePrefix, numberSql } from '../../core/counters.ts';
import { eventsCte, type EventRow } from '../../core/outbox.ts';
import { newId } from '../../core/ids.ts';
import { nextState, sqlIn } from '../../core/state-machine.ts';
import type { RowScope } from '../../core/resource.ts';
import type { Invoice, InvoiceLine, Subscription } from '../../generated/prisma/client.ts';
import { computeTotals, priceQuantity, type PriceTerms, type TaxMode, type UsageAggregate } from '../plans/pricing.ts';
import { invoiceEvents, settleInvoices } from '../invoices/issue.ts';
import { invoiceMachine } from '../invoices/states.ts';
import type { InvoiceRow } from '../invoices/fields.ts';
import { usageQuantities } from '../usage-records/service.ts';
import { subscriptionEvents } from './moves.ts';
import { cycleTaxRate, UNATTENDED_DUE_DAYS } from './invoice.ts';
import { periodOf, type Interval } from './periods.ts';
import { subscriptionMachine, subscriptionRenewable, type SubscriptionStatus } from './states.ts';
import { attemptDueInvoices, attemptLocked, onClock } from './dunning.ts';
import { expireIncomplete } from './expiry.ts';
import { analyzeGrown } from '../../core/db/analyze.ts';

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
export const CYCLE_REASON = 'subscription_cycle';
const DAY = 86_400_000;

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

const renewable = sqlIn(q`s.status`, subscriptionRenewable);

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
  while (tenants.length) {
    const busy: RowScope[] = [];
    for (const scope of tenants) {
      if (out.renewed + out.canceled >= limit) return { ...out, more: true };
      const n = await renewBatch(scope, o.at, o.testClockId, Math.min(RENEWAL_BATCH, limit - out.renewed));
      out.renewed += n.renewed;
      out.canceled += n.canceled;
      out.attempted += n.attempted;
      if (n.claimed > 0) busy.push(scope);
      // A burst is a bulk load: statistics follow it, between batches (docs/decisions.md, Statistics after bulk writes).
      if (n.claimed > 0) await analyzeGrown(RENEWAL_TABLES, n.claimed);
    }
    tenants = busy;
  }
  // Unpaid first invoices that fell due: the incomplete subscription expires (expiry.ts).
  const room = limit - out.renewed - out.canceled;
  out.canceled += await expireIncomplete({ ...o, limit: Number.isFinite(room) ? Math.max(1, room) : undefined });
  const left = limit - out.renewed - out.canceled;
  const attempts = await attemptDueInvoices({ ...o, limit: left });
  out.attempted += attempts.attempted;
  out.more = attempts.more;
  return out;
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
  planName: string;
  interval: Interval;
  intervalCount: number;
  usageAggregate: UsageAggregate | null;
  dunningPolicyId: string | null;
  priceModel: PriceTerms['model'];
  priceUnitAmount: string | null;
  priceTiers: PriceTerms['tiers'];
  taxMode: TaxMode;
}

interface Plan {
  sub: DueRow;
  trigger: 'renew' | 'renew_past_due' | 'end_trial' | 'cancel_at_period_end';
  next: Partial<Subscription>;
  invoice: { periodStart: Date; periodEnd: Date; quantity: number | null; usage: boolean } | null;
}

/**
 * One batch of one workspace and mode, in one transaction: claim due subscriptions (skipping rows
 * another worker holds), decide each one's move, write the cycle invoices (draft, lines, then all
 * finalized by one counter bump) and the advanced subscriptions with their events.
 */
async function renewBatch(scope: RowScope, at: Date, testClockId: string | null, batch: number) {
  return tenantTx(scopeOf(scope), async (sql) => {
    const subs = await sql.query<DueRow>(
      q`SELECT s.*, w."accountId", pl.name AS "planName", pl.interval, pl."intervalCount", pl."usageAggregate",
          pl."dunningPolicyId", p.model AS "priceModel", p."unitAmount"::text AS "priceUnitAmount",
          p.tiers AS "priceTiers", p."taxMode"
        FROM subscriptions s
        JOIN workspaces w ON w.id = s."workspaceId"
        JOIN prices p ON p."workspaceId" = s."workspaceId" AND p.mode = s.mode
          AND p.id = coalesce(s."pendingPriceId", s."priceId")
        JOIN plans pl ON pl."workspaceId" = s."workspaceId" AND pl.mode = s.mode AND pl.id = s."planId"
        WHERE s."workspaceId" = ${scope.workspaceId} AND s.mode = ${scope.mode} AND ${renewable}
          AND s."currentPeriodEnd" <= ${at}::timestamptz AND ${onClock(q`s."testClockId"`, testClockId)}
        ORDER BY s."currentPeriodEnd", s.id LIMIT ${batch} FOR UPDATE OF s SKIP LOCKED`,
    );
    if (!subs.length) return { claimed: 0, renewed: 0, canceled: 0, attempted: 0 };
    const plans = subs.map((s) => planRenewal(s));
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
      q`UPDATE subscriptions s SET status = r.status, "priceId" = r."priceId", quantity = r.quantity,
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
    if (events.length) await sql.query(q`WITH ${eventsCte(events)} SELECT count(*) FROM inserted_events`);
    const invoices = await finalizeCycleInvoices(sql, scope, at, drafts, subs[0].accountId);
    // The first collection attempts, in this transaction when the method is charged in process
    // (dunning.ts attemptLocked); the others stay due (`nextAttemptAt`) for attemptDueInvoices.
    const due = [...invoices.values()].filter((i) => i.nextAttemptAt !== null && i.nextAttemptAt <= at);
    const tenant = { ...scope, accountId: subs[0].accountId };
    const { attempted } = due.length
      ? await attemptLocked(sql, tenant, due, at, { subscriptions: rows })
      : { attempted: 0 };
    const canceled = plans.filter((p) => p.trigger === 'cancel_at_period_end').length;
    return { claimed: subs.length, renewed: subs.length - canceled, canceled, attempted };
  });
}

/** Event metadata of work done on a test clock: which clock, at which simulated time (docs/billing.md, Test clocks). */
export const clockMeta = (testClockId: string | null, at: Date) =>
  testClockId ? { testClock: { id: testClockId, time: at.toISOString() } } : undefined;

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
function planRenewal(s: DueRow): Plan {
  const cadence = { interval: s.interval, intervalCount: s.intervalCount };
  const usage = s.priceModel === 'usage';
  const closed = { periodStart: s.currentPeriodStart, periodEnd: s.currentPeriodEnd };
  if (s.cancelAtPeriodEnd) {
    const bill = usage && s.status !== 'trialing';
    return {
      sub: s,
      trigger: 'cancel_at_period_end',
      next: { status: 'canceled', canceledAt: s.currentPeriodEnd },
      invoice: bill ? { ...closed, quantity: null, usage: true } : null,
    };
  }
  const k = s.periodIndex + 1;
  const period = periodOf(s.anchorAt, cadence, k);
  const trigger = s.status === 'trialing' ? 'end_trial' : s.status === 'past_due' ? 'renew_past_due' : 'renew';
  const quantity = s.pendingQuantity ?? s.quantity;
  const next: Partial<Subscription> = {
    status: nextState(subscriptionMachine, s.status as SubscriptionStatus, trigger).to,
    periodIndex: k,
    currentPeriodStart: period.start,
    currentPeriodEnd: period.end,
    priceId: s.pendingPriceId ?? s.priceId,
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
  return { sub: s, trigger, next, invoice };
}

/**
 * The batch's cycle invoices as drafts, with their lines and created events (in the batch's order).
 * Tax from the workspace's default invoice template (docs/billing.md, Tax). Each invoice records its first
 * collection attempt as due now (`nextAttemptAt`): charged in this transaction when the method is
 * charged in process, else by the next pass.
 */
async function writeCycleDrafts(sql: Sql, scope: RowScope, at: Date, plans: Plan[]): Promise<InvoiceRow[]> {
  const billed = plans.filter((p) => p.invoice);
  if (!billed.length) return [];
  const usage = await usageQuantities(
    sql,
    scope,
    billed
      .filter((p) => p.invoice?.usage)
      .map((p) => ({
        subscriptionId: p.sub.id,
        start: p.invoice!.periodStart,
        end: p.invoice!.periodEnd,
        aggregate: p.sub.usageAggregate ?? 'sum',
      })),
  );
  const rate = await cycleTaxRate(sql, scope);
  const invoices: Omit<Invoice, 'hostedSecret'>[] = [];
  const lines: InvoiceLine[] = [];
  for (const p of billed) {
    const s = p.sub;
    const b = p.invoice!;
    const terms: PriceTerms = {
      model: s.priceModel,
      unitAmount: s.priceUnitAmount === null ? null : Number(s.priceUnitAmount),
      tiers: s.priceTiers,
    };
    const quantity = b.usage ? (usage.get(s.id) ?? 0) : (b.quantity ?? 1);
    const priced = priceQuantity(terms, quantity);
    const totals = computeTotals({ subtotal: priced.amount, taxMode: s.taxMode, rate });
    const id = newId('invoice');
    const stored = s.paymentMethod !== null;
    invoices.push({
      id,
      workspaceId: scope.workspaceId,
      mode: scope.mode,
      customerId: s.customerId,
      subscriptionId: s.id,
      status: nextState(invoiceMachine, null, 'create').to,
      number: null,
      currency: s.currency,
      subtotal: BigInt(totals.subtotal),
      discount: 0n,
      tax: BigInt(totals.tax),
      total: BigInt(totals.total),
      amountPaid: 0n,
      amountDue: BigInt(totals.total),
      dueAt: stored ? at : new Date(at.getTime() + UNATTENDED_DUE_DAYS * DAY),
      issuedAt: null,
      paidAt: null,
      voidedAt: null,
      pastDueAt: null,
      uncollectibleAt: null,
      collectionAttempts: 0,
      nextAttemptAt: stored && totals.total > 0 ? at : null,
      dunningSnapshot: null,
      templateId: null,
      periodStart: b.periodStart,
      periodEnd: b.periodEnd,
      billingReason: CYCLE_REASON,
      testClockId: s.testClockId,
      metadata: null,
      createdAt: at,
      updatedAt: at,
    });
    const span = `${b.periodStart.toISOString().slice(0, 10)} - ${b.periodEnd.toISOString().slice(0, 10)}`;
    for (const [position, l] of priced.lines.entries())
      lines.push({
        id: newId('invoiceLine'),
        workspaceId: scope.workspaceId,
        mode: scope.mode,
        invoiceId: id,
        position,
        description: `${s.planName}${l.flatFee ? ' (flat fee)' : ''} ${span}`.slice(0, 255),
        quantity: l.quantity,
        unitAmount: BigInt(l.unitAmount),
        amount: BigInt(l.amount),
        priceId: s.priceId,
        metadata: null,
        createdAt: at,
      });
  }
  const rows = await sql.query<Invoice>(q`${insertRows('invoices', invoices)} RETURNING *`);
  await sql.query(q`${insertRows('invoice_lines', lines)}`);
  const linesOf = new Map<string, InvoiceLine[]>();
  for (const l of lines) linesOf.set(l.invoiceId, [...(linesOf.get(l.invoiceId) ?? []), l]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const accountId = plans[0].sub.accountId;
  const drafts = invoices.map((i): InvoiceRow => ({ ...byId.get(i.id)!, accountId, lines: linesOf.get(i.id) ?? [] }));
  const created = nextState(invoiceMachine, null, 'create');
  // occurredAt on business time, as the invoice's later events (paid, payment_failed): docs/decisions.md, Test clocks.
  const mo = { accountId, source: 'billing', at };
  const events = drafts.flatMap((d) =>
    invoiceEvents(scope, d, created.events, mo).map((e) => withMeta(e, clockMeta(d.testClockId, at))),
  );
  await sql.query(q`WITH ${eventsCte(events)} SELECT count(*) FROM inserted_events`);
  return drafts;
}

/**
 * The drafts finalized together (docs/billing.md, Invoice numbering) from one bump of the
 * invoice counter, which the transaction holds until commit, so numbers stay gapless; a zero total
 * (an empty usage period) paid at once, as finalize does (docs/decisions.md, Invoices). By subscription.
 */
async function finalizeCycleInvoices(sql: Sql, scope: RowScope, at: Date, drafts: InvoiceRow[], accountId: string) {
  const out = new Map<string, InvoiceRow>();
  if (!drafts.length) return out;
  const fin = nextState(invoiceMachine, 'draft', 'finalize');
  const n = drafts.length;
  const ids = drafts.map((i) => i.id);
  const opened = await sql.query<Invoice>(
    q`WITH c AS (${bumpCounterSql(scope.workspaceId, scope.mode, counterNames.invoice, n)}),
        o AS (SELECT id, ord FROM unnest(${ids}::text[]) WITH ORDINALITY AS o(id, ord))
      UPDATE invoices i SET status = ${fin.to},
        number = ${numberSql(invoicePrefix(at), q`(c.value - ${n}::bigint + o.ord)`)},
        "issuedAt" = ${at}::timestamptz, "updatedAt" = ${at}::timestamptz
      FROM c, o WHERE i."workspaceId" = ${scope.workspaceId} AND i.mode = ${scope.mode} AND i.id = o.id
      RETURNING i.*`,
  );
  const byId = new Map(opened.map((r) => [r.id, r]));
  const events: EventRow[] = [];
  const zero: InvoiceRow[] = [];
  const mo = { accountId, source: 'billing', at };
  for (const d of drafts) {
    const row: InvoiceRow = { ...byId.get(d.id)!, accountId, lines: d.lines };
    events.push(...invoiceEvents(scope, row, fin.events, mo).map((e) => withMeta(e, clockMeta(row.testClockId, at))));
    out.set(row.subscriptionId!, row);
    if (row.total === 0n) zero.push(row);
  }
  await sql.query(q`WITH ${eventsCte(events)} SELECT count(*) FROM inserted_events`);
  const paid = await settleInvoices(
    sql,
    scope,
    zero.map((inv) => ({ inv })),
    { accountId, source: 'billing', zeroTotal: true, at },
  );
  for (const p of paid) out.set(p.invoice.subscriptionId!, p.invoice);
  return out;
}

const withMeta = (e: EventRow, meta: Record<string, unknown> | undefined): EventRow =>
  meta ? { ...e, metadata: { ...e.metadata, ...meta } } : e;
