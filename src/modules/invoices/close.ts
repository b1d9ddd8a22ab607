/**
 * Closing an unpaid invoice by a billing rule (dunning's final action, an incomplete subscription's
 * expiry or cancel): voided, except that an invoice an issued credit note points at is never voided
 * (docs/credit-notes.md, Void) and becomes `uncollectible` instead. One home, so no path forgets
 * the note. A merchant's explicit void (`voidInvoice`) answers 409 instead.
 */
import type { AnyTx } from '../../core/db/sql.ts';
import type { RowScope } from '../../core/resource.ts';
import { canMove } from '../../core/state-machine.ts';
import { isVoidHeld } from './hooks.ts';
import type { InvoiceRow } from './fields.ts';
import { moveInvoice, type MoveOptions } from './issue.ts';
import { invoiceMachine, invoiceVoid, type InvoiceClose, type InvoiceStatus, type InvoiceTrigger } from './states.ts';

/** Voids `inv` (or writes it off when `action` says so, or a note holds it); null when it cannot move. */
export async function closeUnpaidInvoice(
  tx: AnyTx,
  scope: RowScope,
  inv: InvoiceRow,
  action: InvoiceClose,
  at: Date,
  o: MoveOptions,
): Promise<InvoiceRow | null> {
  const voiding = action === invoiceVoid && !(await isVoidHeld(tx, scope, inv.id));
  const trigger: InvoiceTrigger = voiding ? 'void' : 'mark_uncollectible';
  if (!canMove(invoiceMachine, inv.status as InvoiceStatus, trigger)) return null;
  const data = voiding ? { voidedAt: at, updatedAt: at } : { uncollectibleAt: at, updatedAt: at };
  return moveInvoice(tx, scope, inv, trigger, data, o);
}
