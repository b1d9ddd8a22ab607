// Which of our objects a provider row's `reference` names (docs/reconciliation.md, Matching rules).
import { prefixes } from '../../../core/ids.ts';
import type { ObjectKind } from './categories.ts';

export type ReferenceKind = 'payment' | 'checkout_session' | 'invoice' | 'refund' | 'payout';

export interface ParsedReference {
  kind: ReferenceKind;
  /** The id as written (trimmed). */
  id: string;
  /** The object the reference leads to: a session's and an invoice's payment, else the object itself. */
  leadsTo: ObjectKind;
}

const byPrefix: Record<string, { kind: ReferenceKind; leadsTo: ObjectKind }> = {
  [prefixes.payment]: { kind: 'payment', leadsTo: 'payment' },
  [prefixes.checkoutSession]: { kind: 'checkout_session', leadsTo: 'payment' },
  [prefixes.invoice]: { kind: 'invoice', leadsTo: 'payment' },
  [prefixes.refund]: { kind: 'refund', leadsTo: 'refund' },
  [prefixes.payout]: { kind: 'payout', leadsTo: 'payout' },
};

const idShape = /^([a-z]+)_[0-9A-Za-z]+$/;

/**
 * The object kind a reference names by its prefix (`pay_`, `cs_`, `inv_`, `rf_`, `po_`), or null when it is
 * not one of our ids (a merchant's own order number, say). The whole trimmed text must be the id.
 */
export function parseReference(reference: string | null): ParsedReference | null {
  const text = reference?.trim() ?? '';
  const m = idShape.exec(text);
  const entry = m ? byPrefix[m[1]] : undefined;
  return entry ? { ...entry, id: text } : null;
}

/** The kind of object a provider row of `type` claims; fee and adjustment rows claim none. */
export function claimedKind(type: string): ObjectKind | null {
  return type === 'payment' || type === 'refund' || type === 'payout' ? type : null;
}
