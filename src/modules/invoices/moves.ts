// The invoice's lock and status moves, and its snapshot in events: what drafting, finalizing and
// settling (issue.ts, settle.ts) and the other modules build on. The caller's transaction, either SQL path.
import { scopedRows, sql as q, sqlOf, updateRows, type AnyTx } from '../../core/db/sql.ts';
import { clock } from '../../core/clock.ts';
import { eventRow, insertEvents, type EventRow } from '../../core/outbox.ts';
import { toWire } from '../../core/wire.ts';
import { canMove, nextState } from '../../core/state-machine.ts';
import type { RowScope } from '../../core/resource.ts';
import type { Invoice, InvoiceLine } from '../../generated/prisma/client.ts';
import { failWaitingCharges } from '../payments/close.ts';
import { invoiceFields, invoiceLineFields, type InvoiceRow } from './fields.ts';
import { invoiceDraft, invoiceMachine, invoiceVoid, type InvoiceStatus, type InvoiceTrigger } from './states.ts';
import { invoicesClosed } from './hooks.ts';
import { returnBalances } from '../customer-balances/invoices.ts';
import { removeInvoiceDiscounts } from '../discounts/service.ts';

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
