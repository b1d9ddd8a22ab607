// The run's ledger check (docs/reconciliation.md, Postings): per adapter and currency, the claimed rows' net must
// equal what the ledger holds for them plus the amount mismatches not yet posted.
import { toBig, type Minor } from './rounding.ts';

export interface LedgerCheckInput {
  adapter: string;
  currency: string;
  /** Sum of `net` of the claimed rows the run evaluated. */
  rowsNet: Minor;
  /** Their objects' settlement legs + the rows' fee postings + write-offs of their exceptions. */
  ledgerNet: Minor;
  /** Sum of `difference` of their open or accepted amount_mismatch exceptions. */
  unpostedDifference: Minor;
}

export interface LedgerCheck {
  status: 'ok' | 'mismatch';
  groups: { adapter: string; currency: string; rowsNet: bigint; ledgerNet: bigint; unpostedDifference: bigint }[];
}

/** `ok` iff rowsNet = ledgerNet + unpostedDifference in every group; a mismatch is an alert, never a pass. */
export function ledgerCheck(groups: readonly LedgerCheckInput[]): LedgerCheck {
  const out = groups.map((g) => ({
    adapter: g.adapter,
    currency: g.currency,
    rowsNet: toBig(g.rowsNet),
    ledgerNet: toBig(g.ledgerNet),
    unpostedDifference: toBig(g.unpostedDifference),
  }));
  const ok = out.every((g) => g.rowsNet === g.ledgerNet + g.unpostedDifference);
  return { status: ok ? 'ok' : 'mismatch', groups: out };
}
