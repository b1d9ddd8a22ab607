/**
 * The invoice's moves inside a caller's transaction, on either SQL path (`AnyTx`: Prisma or the
 * `pg` hot path), so the service, the sweep, checkout completion (the hosted invoice page) and the
 * subscriptions share them: write drafts, lock, finalize (number), settle (paid: payment, receipt,
 * ledger, events). The one home of invoice rows: each takes a batch; a single call is a batch of one.
 */
import { insertRows, scopedRows, sql as q, sqlOf, updateRows, type AnyTx } from '../../core/db/sql.ts';
import { clock } from '../../core/clock.ts';
import { bumpCounterSql, counterNames, invoicePrefix, numberSql } from '../../core/counters.ts';
import { eventRow, insertEvents, type EventRow } from '../../core/outbox.ts';
import { toWire } from '../../core/wire.ts';
import { canMove, nextState } from '../../core/state-machine.ts';
import type { RowScope } from '../../core/resource.ts';
import type { Invoice, InvoiceLine, Payment } from '../../generated/prisma/client.ts';
import { newId } from '../../core/ids.ts';
import { insertLedger, postLedgers, type LedgerLeg } from '../../core/ledger.ts';
import { issueReceiptsCte, prepareInvoiceReceipt, receiptContexts } from '../receipts/issue.ts';
import { bookkeepingPay, paymentMachine } from '../payments/states.ts';
import { failWaitingCharges } from '../payments/close.ts';
import { writePayments } from '../payments/write.ts';
import { invoiceFields, invoiceLineFields, type InvoiceRow } from './fields.ts';
import { invoiceDraft, invoiceMachine, invoiceVoid, type InvoiceStatus, type InvoiceTrigger } from './states.ts';
import { invoicesClosed, invoicesPaid } from './hooks.ts';
import { applyBalances, returnBalances } from '../customer-balances/invoices.ts';
import { endConsumedDiscounts, removeInvoiceDiscounts } from '../discounts/service.ts';
import { FLAT_DISCOUNT_NAME, type InvoiceDiscount } from '../discounts/fields.ts';

export interface MoveOptions {
  /** The workspace's `acc_` id (spec `accountId`, `arn` in the event snapshot). */
  accountId: string;
  requestId?: string;
  /** Event metadata `source` (`api`, `sweep`, `hosted`, ...). */
  source?: string;
  /** Business time (a customer's test clock); default the clock's now. */
  at?: Date;
}

/** spec Invoice: the REST object, lines included, as events carry it in `data.object`. */
export const invoiceSnapshot = (r: InvoiceRow) => ({
  ...toWire(r, invoiceFields),
  lines: r.lines.map((l) => toWire(l, invoiceLineFields)),
});

export const invoiceEvents = (scope: RowScope, r: InvoiceRow, types: readonly string[], o: MoveOptions): EventRow[] =>
  types.map((t) =>
    eventRow(scope, t, invoiceSnapshot(r), { requestId: o.requestId, source: o.source, occurredAt: o.at }),
  );

/** The lines of some invoices in one statement, in their order: list pages load every page's lines at once. */
export async function linesOf(tx: AnyTx, scope: RowScope, ids: string[]): Promise<Map<string, InvoiceLine[]>> {
  const out = new Map<string, InvoiceLine[]>(ids.map((id) => [id, []]));
  if (!ids.length) return out;
  const rows = await sqlOf(tx).query<InvoiceLine>(
    q`SELECT * FROM invoice_lines WHERE "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
      AND "invoiceId" = ANY (${ids}::text[]) ORDER BY "invoiceId", position`,
  );
  for (const l of rows) out.get(l.invoiceId)?.push(l);
  return out;
}

/**
 * The invoice row locked for the rest of the caller's transaction (every move starts here, so moves
 * of one invoice apply one at a time), with its lines; null when it is not in the scope.
 */
export async function lockInvoice(tx: AnyTx, scope: RowScope & { accountId: string }, id: string) {
  return (await lockInvoices(tx, scope, [id]))[0] ?? null;
}

/** `lockInvoice` of several, locked in id order (two batches never wait on each other in a cycle); those in the scope. */
export async function lockInvoices(tx: AnyTx, scope: RowScope & { accountId: string }, ids: string[]) {
  const rows = await scopedRows<Invoice>(tx, 'invoices', scope, ids, { lock: true });
  const lines = rows.length
    ? await linesOf(
        tx,
        scope,
        rows.map((r) => r.id),
      )
    : new Map<string, InvoiceLine[]>();
  return rows.map((r) => ({ ...r, accountId: scope.accountId, lines: lines.get(r.id) ?? [] }) as InvoiceRow);
}

/** Writes a status change and its events; the state machine decides both. The caller holds the lock. */
export async function moveInvoice(
  tx: AnyTx,
  scope: RowScope,
  inv: InvoiceRow,
  trigger: InvoiceTrigger,
  data: Partial<Invoice>,
  o: MoveOptions,
  extraEvents: EventRow[] = [],
): Promise<InvoiceRow> {
  const [out] = await moveInvoices(tx, scope, [{ inv, data }], trigger, o, extraEvents);
  return out;
}

/**
 * `moveInvoice` for several locked invoices of one scope (the same columns in each `data`): one
 * update and one events statement, whatever their number. Returns them in the order given.
 */
export async function moveInvoices(
  tx: AnyTx,
  scope: RowScope,
  items: { inv: InvoiceRow; data: Partial<Invoice> }[],
  trigger: InvoiceTrigger,
  o: MoveOptions,
  extraEvents: EventRow[] = [],
): Promise<InvoiceRow[]> {
  const moves = items.map(({ inv }) => nextState(invoiceMachine, inv.status as InvoiceStatus, trigger));
  const rows = await updateRows<Invoice>(
    sqlOf(tx),
    'invoices',
    scope,
    items.map(({ inv, data }, i) => ({
      id: inv.id,
      ...data,
      status: moves[i].to,
      updatedAt: data.updatedAt ?? o.at ?? clock.now(),
    })),
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const out = items.map(
    ({ inv }): InvoiceRow => ({ ...byId.get(inv.id)!, accountId: inv.accountId, lines: inv.lines }),
  );
  const events = [...out.flatMap((r, i) => invoiceEvents(scope, r, moves[i].events, o)), ...extraEvents];
  await insertEvents(tx, events);
  // No longer payable (paid another way, voided): their live checkout sessions close with them.
  const closing = items.filter(
    ({ inv }, i) =>
      canMove(invoiceMachine, inv.status as InvoiceStatus, 'pay') && !canMove(invoiceMachine, moves[i].to, 'pay'),
  );
  // A voided invoice gives back the credit applied to it (docs/credit-notes.md, Customer balance).
  // A voided draft's coupon discount is removed (docs/coupons.md, Invoice discounts); a finalized one's already ended.
  const voided = invoiceMachine.moves[trigger].to === invoiceVoid;
  const drafts = items.filter(({ inv }) => inv.status === invoiceDraft && (inv.discounts as unknown[]).length > 0);
  if (voided && drafts.length)
    await removeInvoiceDiscounts(
      tx,
      scope,
      drafts.map(({ inv }) => inv.id),
      o.at ?? clock.now(),
    );
  if (voided)
    await returnBalances(
      tx,
      scope,
      items.map(({ inv }) => inv),
      o.at ?? clock.now(),
      { requestId: o.requestId, source: o.source },
    );
  // A charge still waiting for the customer can no longer pay them (payments/close.ts).
  if (closing.length)
    await failWaitingCharges(
      tx,
      scope,
      closing.map(({ inv }) => inv.id),
      o,
    );
  if (closing.length)
    await invoicesClosed.run(
      tx,
      { ...scope, accountId: items[0].inv.accountId },
      closing.map(({ inv }) => inv.id),
      o,
    );
  return out;
}

/** A line of a new invoice: `amount = quantity x unitAmount` (only generated lines may be negative: a proration credit). */
export interface NewLine {
  description: string;
  quantity: number;
  unitAmount: number | bigint;
  priceId: string | null;
  metadata?: Record<string, string> | null;
}

/** A new invoice as its writer decides it: the totals are the caller's (manual input, or a subscription's pricing). */
export interface NewInvoice {
  /** Chosen by the caller when a row must name the invoice first (its coupon's discount); default a new id. */
  id?: string;
  customerId: string;
  subscriptionId: string | null;
  currency: string;
  lines: NewLine[];
  subtotal: bigint;
  discount: bigint;
  /**
   * `invoice.discounts[]` (docs/coupons.md, Invoice discounts), Σ amount = `discount`; default: the
   * flat `discount` as one entry without a coupon (none when 0).
   */
  discounts?: InvoiceDiscount[];
  tax: bigint;
  total: bigint;
  dueAt: Date | null;
  /** The first collection attempt's time (a stored method charges it); null: none planned. */
  nextAttemptAt?: Date | null;
  templateId?: string | null;
  periodStart?: Date | null;
  periodEnd?: Date | null;
  billingReason: string;
  testClockId: string | null;
  metadata: Record<string, string> | null;
  /** Finalization applies the customer's credit (default true; docs/credit-notes.md, Customer balance). */
  applyCustomerBalance?: boolean;
}

export interface DraftOptions extends MoveOptions {
  /** The created event (default true); an invoice created open emits only its finalized event. */
  created?: boolean;
  /** A new invoice whose cycle key (subscription, periodStart, billingReason) is taken is skipped: null in its slot. */
  skipExisting?: boolean;
  /** Metadata added to each event of the invoice (a test clock's instant). */
  meta?: (r: InvoiceRow) => Record<string, unknown> | undefined;
}

const withMeta = (events: EventRow[], meta: Record<string, unknown> | undefined): EventRow[] =>
  meta ? events.map((e) => ({ ...e, metadata: { ...e.metadata, ...meta } })) : events;

/**
 * The one writer of invoice rows: drafts with their lines (lines may only be inserted into drafts,
 * by trigger) and created events, in three statements whatever the batch size. Manual invoices,
 * subscription invoices and renewal batches all come here. In the order given.
 */
export async function writeDrafts(
  tx: AnyTx,
  scope: RowScope & { accountId: string },
  items: NewInvoice[],
  o: DraftOptions,
): Promise<(InvoiceRow | null)[]> {
  if (!items.length) return [];
  const sql = sqlOf(tx);
  const at = o.at ?? clock.now();
  const created = nextState(invoiceMachine, null, 'create');
  const rows = items.map(
    (i): Omit<Invoice, 'hostedSecret'> => ({
      id: i.id ?? newId('invoice'),
      workspaceId: scope.workspaceId,
      mode: scope.mode,
      customerId: i.customerId,
      subscriptionId: i.subscriptionId,
      status: created.to,
      number: null,
      currency: i.currency,
      subtotal: i.subtotal,
      discount: i.discount,
      discounts: (i.discounts ?? flatDiscounts(i.discount)) as unknown as Invoice['discounts'],
      tax: i.tax,
      total: i.total,
      amountPaid: 0n,
      amountDue: i.total,
      applyCustomerBalance: i.applyCustomerBalance ?? true,
      balanceApplied: 0n,
      creditedAmount: 0n,
      prePaymentCreditedAmount: 0n,
      prePaymentCreditedTax: 0n,
      dueAt: i.dueAt,
      issuedAt: null,
      paidAt: null,
      voidedAt: null,
      pastDueAt: null,
      uncollectibleAt: null,
      collectionAttempts: 0,
      nextAttemptAt: i.nextAttemptAt ?? null,
      dunningSnapshot: null,
      templateId: i.templateId ?? null,
      periodStart: i.periodStart ?? null,
      periodEnd: i.periodEnd ?? null,
      billingReason: i.billingReason,
      testClockId: i.testClockId,
      metadata: i.metadata,
      createdAt: at,
      updatedAt: at,
    }),
  );
  // The hosted secret is minted by the column default (src/core/hosted-link.ts).
  const written = await sql.query<Invoice>(
    q`${insertRows('invoices', rows)}${
      o.skipExisting
        ? q` ON CONFLICT ("workspaceId", mode, "subscriptionId", "periodStart", "billingReason") DO NOTHING`
        : q.empty
    } RETURNING *`,
  );
  const byId = new Map(written.map((r) => [r.id, r]));
  const out = rows.map((r, n): InvoiceRow | null => {
    const row = byId.get(r.id);
    if (!row) return null;
    const lines = invoiceLines(scope, row.id, items[n].lines, at);
    return { ...row, accountId: scope.accountId, lines };
  });
  const drafts = out.filter((d): d is InvoiceRow => d !== null);
  const lines = drafts.flatMap((d) => d.lines);
  if (lines.length) await sql.query(q`${insertRows('invoice_lines', lines)}`);
  if (o.created !== false)
    await insertEvents(
      sql,
      drafts.flatMap((d) => withMeta(invoiceEvents(scope, d, created.events, o), o.meta?.(d))),
    );
  return out;
}

/** A caller's flat discount as `invoice.discounts[]`: one entry without a coupon, none when 0. */
export const flatDiscounts = (discount: bigint): InvoiceDiscount[] =>
  discount > 0n ? [{ couponId: null, discountId: null, name: FLAT_DISCOUNT_NAME, amount: Number(discount) }] : [];

/** The line rows of an invoice, in the order given (a draft's new lines, or an edit's replacement). */
export function invoiceLines(scope: RowScope, invoiceId: string, lines: NewLine[], at: Date): InvoiceLine[] {
  return lines.map((l, position) => ({
    id: newId('invoiceLine'),
    workspaceId: scope.workspaceId,
    mode: scope.mode,
    invoiceId,
    position,
    description: l.description.slice(0, 255),
    quantity: l.quantity,
    unitAmount: BigInt(l.unitAmount),
    amount: BigInt(l.quantity) * BigInt(l.unitAmount),
    priceId: l.priceId,
    metadata: l.metadata ?? null,
    createdAt: at,
  }));
}

/**
 * Draft -> open (spec: `issuedAt` set; finalized event), numbered from the workspace's gapless
 * `invoice` counter (docs/decisions.md, Invoices): one bump of n for a batch, the counter row
 * locked until commit, so concurrent finalizes of one workspace and mode queue and a rollback gives
 * the numbers back. The bump is the first write of the statement that opens the invoices, and only
 * the events follow it (sent with COMMIT when `o.last`), so the lock is held for as few round trips
 * as possible. A zero total is paid at once (no payment, receipt or ledger entry). The caller holds
 * the invoices' locks (or wrote them in its transaction). In the order given.
 */
export async function finalizeInvoices(
  tx: AnyTx,
  scope: RowScope,
  invoices: InvoiceRow[],
  o: MoveOptions & { last?: boolean; meta?: DraftOptions['meta'] },
  trigger: 'finalize' | 'create_open' = 'finalize',
): Promise<InvoiceRow[]> {
  if (!invoices.length) return [];
  // Checked before the counter is bumped, so a refused move burns no number. An invoice created
  // open was written as a draft (lines may only be inserted into drafts, by trigger) and opens here.
  const moves = invoices.map((inv) =>
    nextState(invoiceMachine, trigger === 'create_open' ? null : (inv.status as InvoiceStatus), trigger),
  );
  const next = moves[0];
  const now = o.at ?? clock.now();
  const sql = sqlOf(tx);
  const n = invoices.length;
  // The customers' credit pays first, its rows locked before the counter (docs/credit-notes.md, Customer balance).
  await applyBalances(tx, scope, invoices, now, { requestId: o.requestId, source: o.source });
  // A once discount (or an invoice's own) ends with the first invoice it discounted (docs/coupons.md, Computation and durations).
  await endConsumedDiscounts(
    tx,
    scope,
    invoices.flatMap((i) => (i.discounts ?? []) as unknown as InvoiceDiscount[]),
    now,
  );
  const opened = await sql.query<Invoice>(
    q`WITH c AS (${bumpCounterSql(scope.workspaceId, scope.mode, counterNames.invoice, n)}),
        o AS (SELECT id, ord FROM unnest(${invoices.map((i) => i.id)}::text[]) WITH ORDINALITY AS o(id, ord))
      UPDATE invoices i SET status = ${next.to},
        number = ${numberSql(invoicePrefix(now), q`(c.value - ${n}::bigint + o.ord)`)},
        "issuedAt" = ${now}::timestamptz, "updatedAt" = ${now}::timestamptz
      FROM c, o WHERE i."workspaceId" = ${scope.workspaceId} AND i.mode = ${scope.mode} AND i.id = o.id
      RETURNING i.*`,
  );
  const byId = new Map(opened.map((r) => [r.id, r]));
  const out = invoices.map((inv): InvoiceRow => ({ ...byId.get(inv.id)!, accountId: inv.accountId, lines: inv.lines }));
  // Nothing left to pay (a zero total, or credit covering it): paid at once.
  const zero = out.filter((r) => r.amountDue === 0n);
  const events = out.flatMap((r, i) => withMeta(invoiceEvents(scope, r, moves[i].events, o), o.meta?.(r)));
  await insertEvents(sql, events, { last: o.last && !zero.length });
  if (!zero.length) return out;
  const paid = await settleInvoices(
    tx,
    scope,
    zero.map((inv) => ({ inv })),
    { ...o, zeroTotal: true },
  );
  const paidById = new Map(paid.map((p) => [p.invoice.id, p.invoice]));
  return out.map((r) => paidById.get(r.id) ?? r);
}

/** `finalizeInvoices` of one invoice. */
export async function finalizeLocked(
  tx: AnyTx,
  scope: RowScope,
  inv: InvoiceRow,
  o: MoveOptions & { last?: boolean },
  trigger: 'finalize' | 'create_open' = 'finalize',
): Promise<InvoiceRow> {
  const [out] = await finalizeInvoices(tx, scope, [inv], o, trigger);
  return out;
}

export interface SettleOptions extends MoveOptions {
  /**
   * The payment that paid the invoice, already written by the caller in this transaction (the hosted
   * invoice page's checkout completion): the receipt names it and the ledger debits its
   * `settlement:<adapter>`. Omitted: a bookkeeping pay (POST /v1/invoices/:id/pay), for which a
   * payment row is written here and the ledger debits `cash:offline`, never a `settlement:*` code.
   */
  payment?: { id: string; adapter: string | null; method: string | null; capturedAt: Date | null } | null;
  /** Ledger txId; default `inv:<id>` (a checkout completion passes its session id). */
  txId?: string;
  /** Internal: a zero total paid at finalization (no payment, receipt or ledger entry). */
  zeroTotal?: boolean;
}

/**
 * Marks a locked open, past_due or uncollectible invoice paid in the caller's transaction (spec
 * Invoice: `amountPaid` = total, `amountDue` 0, `paidAt` set, ledger credit posted, paid event,
 * receipt auto-issued): the payment (unless the caller wrote one), exactly one receipt
 * (`sourceType: invoice`, the receipts module's issuing code), the balanced ledger posting and
 * `svc.invoice.paid.v1` commit together. Refuses (409 conflict, from the state table) any other
 * status, so a second payer of one invoice loses.
 *
 * How to call it (the hosted invoice page, checkout completion):
 *   const inv = await lockInvoice(tx, { ...scope, accountId }, invoiceId);   // row lock first
 *   const { invoice, receiptNumber } = await settleInvoice(tx, scope, inv!, {
 *     accountId, requestId, source: 'hosted', payment: { id, adapter, method, capturedAt }, txId: session.id });
 * With `payment` the ledger posts D `settlement:<adapter>` / C `revenue:invoices` (plus D `revenue:invoices`
 * / C `tax:ppn` for the tax), so the caller must not post the session's own payment legs or issue a
 * session receipt. Works on both SQL paths; statements may follow it in the transaction.
 */
export async function settleInvoice(tx: AnyTx, scope: RowScope, inv: InvoiceRow, how: SettleOptions): Promise<Settled> {
  const [out] = await settleInvoices(tx, scope, [{ inv, payment: how.payment, txId: how.txId }], how);
  return out;
}

export interface Settled {
  invoice: InvoiceRow;
  paymentId: string | null;
  receiptNumber: string | null;
}

/** One invoice of a settled batch: its payment and ledger txId as `SettleOptions` has them for one. */
export interface SettleItem {
  inv: InvoiceRow;
  payment?: SettleOptions['payment'];
  txId?: string;
}

/**
 * `settleInvoice` for a batch of locked invoices of one scope (a renewal burst's charges), the same
 * rules in a fixed number of statements whatever the batch size: the subscriptions locked first
 * (before the receipt counter, which a renewal batch takes while holding its subscriptions), the
 * offline payments, the receipt contexts, the ledger entries with the receipts (one receipt counter
 * bump of n), the invoices moved to paid with their events, then the subscriptions activated.
 * Returns the items' outcomes in the order given.
 */
export async function settleInvoices(
  tx: AnyTx,
  scope: RowScope,
  items: SettleItem[],
  how: Omit<SettleOptions, 'payment' | 'txId'>,
): Promise<Settled[]> {
  if (!items.length) return [];
  for (const { inv } of items) nextState(invoiceMachine, inv.status as InvoiceStatus, 'pay');
  const sql = sqlOf(tx);
  const now = how.at ?? clock.now();
  // The one place a paid invoice activates its subscription (incomplete or past_due -> active), locked first.
  const paid = await invoicesPaid.run(
    tx,
    scope,
    items.flatMap((i) => (i.inv.subscriptionId ? [i.inv.subscriptionId] : [])),
  );
  // A zero total is paid without payment, receipt or ledger entry.
  const paying = items.filter((i) => !how.zeroTotal && i.inv.amountDue !== 0n);
  // Paid by credit (balance, pre-payment notes) with nothing to charge: only its tax still posts.
  const taxOnly = items.filter((i) => !paying.includes(i)).flatMap(({ inv }) => creditPaidTax(inv, now));
  await postLedgers(sql, scope, taxOnly);
  const payments = new Map<string, NonNullable<SettleOptions['payment']>>();
  const offline: Payment[] = [];
  for (const { inv, payment } of paying) {
    const p = payment ?? invoicePayments(scope, [{ inv, ...OFFLINE }], now)[0];
    if (!payment) offline.push(p as Payment);
    payments.set(inv.id, p);
  }
  await writePayments(sql, offline);
  const numbers = new Map<string, string>();
  if (paying.length) {
    const contexts = await receiptContexts(
      sql,
      scope,
      paying.map((i) => i.inv.customerId),
    );
    const receipts = paying.map(({ inv }) =>
      prepareInvoiceReceipt(scope, contexts.get(inv.customerId)!, inv, payments.get(inv.id)!, now),
    );
    const ledger = paying.map(({ inv, payment, txId }) => invoicePosting(inv, payment, txId, now));
    const issued = await sql.query<{ sourceId: string; number: string }>(
      q`WITH new_entries AS (${insertLedger(scope, ledger, { returning: q`1` })}),
        written AS (SELECT count(*) FROM new_entries),
        ${issueReceiptsCte(receipts, 'written')}
        SELECT "sourceId", number FROM issued_receipt`,
    );
    for (const r of issued) numbers.set(r.sourceId, r.number);
  }
  // A paid invoice has no further collection attempt (dunning: collection/dunning.ts).
  const invoices = await moveInvoices(
    tx,
    scope,
    items.map(({ inv }) => ({
      inv,
      // collectionAttempts as the caller has it: a charge made in the caller's transaction counted its attempt.
      data: {
        // What is paid: the total less balance and pre-payment credit notes (docs/credit-notes.md).
        amountPaid: inv.amountDue,
        amountDue: 0n,
        paidAt: now,
        updatedAt: now,
        nextAttemptAt: null,
        collectionAttempts: inv.collectionAttempts,
      },
    })),
    'pay',
    how,
  );
  for (const then of paid) await then({ ...how, at: now });
  return invoices.map((invoice) => ({
    invoice,
    paymentId: payments.get(invoice.id)?.id ?? null,
    receiptNumber: numbers.get(invoice.id) ?? null,
  }));
}

/**
 * The ledger posting of a paid invoice: D `settlement:<adapter>` (a payment through an adapter) or
 * `cash:offline` (a bookkeeping pay) / C `revenue:invoices`, plus D `revenue:invoices` / C `tax:ppn`.
 */
function invoicePosting(inv: InvoiceRow, payment: SettleOptions['payment'], txId: string | undefined, now: Date) {
  const revenue = 'revenue:invoices';
  // The money paid (amountDue) and the tax its pre-payment credit notes did not reverse (docs/credit-notes.md, Ledger).
  const paid = inv.amountDue;
  const tax = inv.tax - inv.prePaymentCreditedTax;
  const legs: LedgerLeg[] = [
    {
      code: payment ? `settlement:${payment.adapter ?? 'manual'}` : OFFLINE_CASH,
      direction: 'debit',
      amount: paid,
      memo: `invoice ${inv.number ?? inv.id}`,
    },
    { code: revenue, direction: 'credit', amount: paid },
  ];
  if (tax > 0n && tax <= inv.total)
    legs.push(
      { code: revenue, direction: 'debit', amount: tax, memo: 'tax on the invoice' },
      { code: 'tax:ppn', direction: 'credit', amount: tax },
    );
  return {
    txId: txId ?? `inv:${inv.id}`,
    currency: inv.currency,
    sourceType: 'invoice' as const,
    sourceId: inv.id,
    postedAt: now,
    legs,
  };
}

/**
 * An invoice paid entirely by customer credit: its revenue was credited when the balance was
 * applied, so only the tax it still carries posts (D `revenue:invoices` / C `tax:ppn`).
 */
function creditPaidTax(inv: InvoiceRow, now: Date) {
  const tax = inv.tax - inv.prePaymentCreditedTax;
  if (inv.balanceApplied === 0n || tax <= 0n) return [];
  return [
    {
      txId: `inv:${inv.id}`,
      currency: inv.currency,
      sourceType: 'invoice' as const,
      sourceId: inv.id,
      postedAt: now,
      legs: [
        { code: 'revenue:invoices', direction: 'debit' as const, amount: tax, memo: 'tax on the invoice' },
        { code: 'tax:ppn', direction: 'credit' as const, amount: tax },
      ],
    },
  ];
}

/** docs/ledger.md: money paid straight to the merchant; not a `settlement:*` code, so never payout-eligible. */
export const OFFLINE_CASH = 'cash:offline';

/** A bookkeeping pay records money that never passed an adapter. */
const OFFLINE = { trigger: 'capture', ...bookkeepingPay } as const;

/** How an invoice is paid: captured at once (a bookkeeping pay) or charged (`pending` until the provider answers). */
export interface InvoicePaying {
  inv: InvoiceRow;
  trigger: 'capture' | 'charge';
  method: string;
  adapter: string | null;
  metadata?: Record<string, string> | null;
  /** The saved method (or fixed test token) an off-session charge uses. */
  paymentMethodId?: string | null;
}

/**
 * spec Payment: the payment rows of invoices, for their amount due, the one shape of an invoice's
 * payment (bookkeeping pays here, stored-method charges in collection/collect.ts). In the order given.
 */
export function invoicePayments(scope: RowScope, items: InvoicePaying[], at: Date): Payment[] {
  return items.map(({ inv, trigger, method, adapter, metadata, paymentMethodId }) => {
    const status = nextState(paymentMachine, null, trigger).to;
    return {
      id: newId('payment'),
      workspaceId: scope.workspaceId,
      mode: scope.mode,
      status,
      amount: inv.amountDue,
      amountRefunded: 0n,
      currency: inv.currency,
      method,
      paymentMethodId: paymentMethodId ?? null,
      adapter,
      customerId: inv.customerId,
      checkoutSessionId: null,
      invoiceId: inv.id,
      providerReference: null,
      fee: null,
      failureCode: null,
      failureMessage: null,
      nextAction: null,
      leaseUntil: null,
      metadata: metadata ?? null,
      capturedAt: trigger === 'capture' ? at : null,
      createdAt: at,
      updatedAt: at,
    };
  });
}
