/**
 * The invoice's moves inside a caller's transaction, on either SQL path (`AnyTx`: Prisma or the
 * `pg` hot path), so the service, the sweep, checkout completion (the hosted invoice page) and the
 * subscriptions share them: write drafts, lock, finalize (number), settle (paid: payment, receipt,
 * ledger, events). The one home of invoice rows: each takes a batch; a single call is a batch of one.
 * Drafting and finalizing are here; locks and moves in moves.ts, settling in settle.ts (re-exported:
 * the invoice's moves have this one entry).
 */
import { insertRows, sql as q, sqlOf, type AnyTx } from '../../core/db/sql.ts';
import { clock } from '../../core/clock.ts';
import { bumpCounterSql, counterNames, invoicePrefix, numberSql } from '../../core/counters.ts';
import { insertEvents, type EventRow } from '../../core/outbox.ts';
import { nextState } from '../../core/state-machine.ts';
import type { RowScope } from '../../core/resource.ts';
import type { Invoice, InvoiceLine } from '../../generated/prisma/client.ts';
import { newId } from '../../core/ids.ts';
import type { InvoiceRow } from './fields.ts';
import { invoiceMachine, type InvoiceStatus } from './states.ts';
import { applyBalances } from '../customer-balances/invoices.ts';
import { endConsumedDiscounts } from '../discounts/service.ts';
import { FLAT_DISCOUNT_NAME, type InvoiceDiscount } from '../discounts/fields.ts';
import { invoiceEvents, type MoveOptions } from './moves.ts';
import { settleInvoices } from './settle.ts';

export {
  invoiceEvents,
  invoiceSnapshot,
  linesOf,
  lockInvoice,
  lockInvoices,
  moveInvoice,
  moveInvoices,
  type MoveOptions,
} from './moves.ts';
export {
  invoicePayments,
  OFFLINE_CASH,
  settleInvoice,
  settleInvoices,
  type InvoicePaying,
  type SettleItem,
  type SettleOptions,
  type Settled,
} from './settle.ts';

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
