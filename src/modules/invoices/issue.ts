/**
 * The invoice's moves inside a caller's transaction, on either SQL path (`AnyTx`: Prisma or the
 * `pg` hot path), so the service, the sweep and checkout completion (the hosted invoice page)
 * share them: lock, finalize (number), settle (paid: payment, receipt, ledger, events).
 */
import { insertRows, sql as q, sqlOf, updateRow, type AnyTx } from '../../core/db/sql.ts';
import { clock } from '../../core/clock.ts';
import { counterNames, invoicePrefix, nextCounterSql, numberSql } from '../../core/counters.ts';
import { eventRow, eventsCte, type EventRow } from '../../core/outbox.ts';
import { toWire } from '../../core/wire.ts';
import { nextState } from '../../core/state-machine.ts';
import type { RowScope } from '../../core/resource.ts';
import type { Invoice, InvoiceLine, Payment } from '../../generated/prisma/client.ts';
import { newId } from '../../core/ids.ts';
import { ledgerRows, type LedgerLeg } from '../../core/ledger.ts';
import { issueReceiptCte, prepareInvoiceReceipt, receiptContext } from '../receipts/issue.ts';
import { paymentMachine } from '../payments/states.ts';
import { invoiceFields, invoiceLineFields, type InvoiceRow } from './fields.ts';
import { invoiceMachine, type InvoiceStatus, type InvoiceTrigger } from './states.ts';
import { onSubscriptionInvoicePaid } from '../subscriptions/moves.ts';

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

/** Writes an invoice's events in the caller's transaction (subscription invoices: the created event). */
export async function insertInvoiceEvents(
  tx: AnyTx,
  scope: RowScope,
  r: InvoiceRow,
  types: readonly string[],
  o: MoveOptions,
) {
  const events = invoiceEvents(scope, r, types, o);
  if (events.length) await sqlOf(tx).query(q`WITH ${eventsCte(events)} SELECT count(*) FROM inserted_events`);
}

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
  const [row] = await sqlOf(tx).query<Invoice>(
    q`SELECT * FROM invoices WHERE id = ${id} AND "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
      FOR UPDATE`,
  );
  if (!row) return null;
  const lines = await linesOf(tx, scope, [id]);
  return { ...row, accountId: scope.accountId, lines: lines.get(id) ?? [] } as InvoiceRow;
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
  const next = nextState(invoiceMachine, inv.status as InvoiceStatus, trigger);
  const now = data.updatedAt ?? o.at ?? clock.now();
  const row = await updateRow<Invoice>(
    sqlOf(tx),
    'invoices',
    { id: inv.id, workspaceId: scope.workspaceId, mode: scope.mode },
    { ...data, status: next.to, updatedAt: now },
  );
  const out: InvoiceRow = { ...row, accountId: inv.accountId, lines: inv.lines };
  const events = [...invoiceEvents(scope, out, next.events, o), ...extraEvents];
  if (events.length) await sqlOf(tx).query(q`WITH ${eventsCte(events)} SELECT count(*) FROM inserted_events`);
  return out;
}

/**
 * Draft -> open (spec: `issuedAt` set; finalized event), numbered from the workspace's gapless
 * `invoice` counter (docs/decisions.md, Invoices): the counter row stays locked until commit, so
 * concurrent finalizes of one workspace and mode queue and a rollback gives the number back. The
 * bump is the first write of the statement that opens the invoice, and only the events follow it
 * (sent with COMMIT when `o.last`), so the lock is held for as few round trips as possible. A zero
 * total is paid at once (no payment, receipt or ledger entry). The caller holds the invoice's lock.
 */
export async function finalizeLocked(
  tx: AnyTx,
  scope: RowScope,
  inv: InvoiceRow,
  o: MoveOptions & { last?: boolean },
  trigger: 'finalize' | 'create_open' = 'finalize',
): Promise<InvoiceRow> {
  // Checked before the counter is bumped, so a refused move burns no number. An invoice created
  // open was written as a draft (lines may only be inserted into drafts, by trigger) and opens here.
  const next = nextState(invoiceMachine, trigger === 'create_open' ? null : (inv.status as InvoiceStatus), trigger);
  const now = o.at ?? clock.now();
  const sql = sqlOf(tx);
  const [row] = await sql.query<Invoice>(
    q`WITH n AS (${nextCounterSql(scope.workspaceId, scope.mode, counterNames.invoice)})
      UPDATE invoices SET status = ${next.to}, number = ${numberSql(invoicePrefix(now), q`n.value`)},
        "issuedAt" = ${now}::timestamptz, "updatedAt" = ${now}::timestamptz
      FROM n WHERE id = ${inv.id} AND "workspaceId" = ${scope.workspaceId} AND mode = ${scope.mode}
      RETURNING invoices.*`,
  );
  let out: InvoiceRow = { ...row, accountId: inv.accountId, lines: inv.lines };
  const zero = out.total === 0n;
  const events = q`WITH ${eventsCte(invoiceEvents(scope, out, next.events, o))} SELECT count(*) FROM inserted_events`;
  await (o.last && !zero ? sql.last(events) : sql.query(events));
  if (zero) out = (await settleInvoice(tx, scope, out, { ...o, zeroTotal: true })).invoice;
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
export async function settleInvoice(
  tx: AnyTx,
  scope: RowScope,
  inv: InvoiceRow,
  how: SettleOptions,
): Promise<{ invoice: InvoiceRow; paymentId: string | null; receiptNumber: string | null }> {
  nextState(invoiceMachine, inv.status as InvoiceStatus, 'pay');
  const sql = sqlOf(tx);
  const now = how.at ?? clock.now();
  // A paid invoice has no further collection attempt (dunning: subscriptions/dunning.ts).
  const data = { amountPaid: inv.total, amountDue: 0n, paidAt: now, updatedAt: now, nextAttemptAt: null };
  // The one place a paid invoice activates its subscription (incomplete or past_due -> active).
  const activate = async () => {
    if (inv.subscriptionId) await onSubscriptionInvoicePaid(tx, scope, inv.subscriptionId, { ...how, at: now });
  };
  if (how.zeroTotal || inv.total === 0n) {
    const invoice = await moveInvoice(tx, scope, inv, 'pay', data, how);
    await activate();
    return { invoice, paymentId: null, receiptNumber: null };
  }
  let payment = how.payment ?? null;
  if (!payment) {
    const row = offlinePayment(scope, inv, now);
    await sql.query(q`${insertRows('payments', [row])}`);
    payment = row;
  }
  const context = await receiptContext(sql, scope, null, inv.customerId);
  const receipt = prepareInvoiceReceipt(scope, context, inv, payment, now);
  const revenue = 'revenue:invoices';
  const legs: LedgerLeg[] = [
    {
      code: how.payment ? `settlement:${how.payment.adapter ?? 'manual'}` : OFFLINE_CASH,
      direction: 'debit',
      amount: inv.total,
      memo: `invoice ${inv.number ?? inv.id}`,
    },
    { code: revenue, direction: 'credit', amount: inv.total },
  ];
  if (inv.tax > 0n && inv.tax <= inv.total)
    legs.push(
      { code: revenue, direction: 'debit', amount: inv.tax, memo: 'tax on the invoice' },
      { code: 'tax:ppn', direction: 'credit', amount: inv.tax },
    );
  const ledger = ledgerRows(scope, {
    txId: how.txId ?? `inv:${inv.id}`,
    currency: inv.currency,
    sourceType: 'invoice',
    sourceId: inv.id,
    postedAt: now,
    legs,
  });
  const [issued] = await sql.query<{ number: string }>(
    q`WITH new_entries AS (${insertRows('ledger_entries', ledger)} RETURNING 1),
      written AS (SELECT count(*) FROM new_entries),
      ${issueReceiptCte(receipt, 'written')}
      SELECT number FROM issued_receipt`,
  );
  const invoice = await moveInvoice(tx, scope, inv, 'pay', data, how);
  await activate();
  return { invoice, paymentId: payment.id, receiptNumber: issued?.number ?? null };
}

/** docs/ledger.md: money paid straight to the merchant; not a `settlement:*` code, so never payout-eligible. */
export const OFFLINE_CASH = 'cash:offline';

/** spec Payment: one per paid invoice; a bookkeeping pay records money that never passed an adapter. */
function offlinePayment(scope: RowScope, inv: InvoiceRow, now: Date): Payment {
  return {
    id: newId('payment'),
    workspaceId: scope.workspaceId,
    mode: scope.mode,
    status: nextState(paymentMachine, null, 'capture').to,
    amount: inv.total,
    amountRefunded: 0n,
    currency: inv.currency,
    method: 'offline',
    adapter: null,
    customerId: inv.customerId,
    checkoutSessionId: null,
    invoiceId: inv.id,
    providerReference: null,
    fee: null,
    failureCode: null,
    failureMessage: null,
    metadata: null,
    capturedAt: now,
    createdAt: now,
    updatedAt: now,
  };
}
