import type { Tx } from './db/client.ts';
import { newId } from './ids.ts';
import type { RowScope } from './resource.ts';

export type LedgerSourceType =
  | 'checkout_session'
  | 'invoice'
  | 'refund'
  | 'payout'
  | 'adjustment'
  | 'dispute'
  | 'credit_note';

export interface LedgerLeg {
  /** Account code: `payments`, `payout`, `revenue:pln_<id>`, `gateway:<adapter>`, `tax:ppn`, ... */
  code: string;
  direction: 'debit' | 'credit';
  /** Positive integer in minor units. */
  amount: number | bigint;
  memo?: string | null;
}

export interface LedgerPosting {
  /** The transaction group, usually the source id or a synthetic `inv:<id>`. */
  txId: string;
  currency: string;
  sourceType: LedgerSourceType;
  sourceId: string;
  postedAt: Date;
  legs: LedgerLeg[];
}

/**
 * Writes one balanced double-entry transaction in the caller's transaction. The database checks
 * the balance again at commit (deferred constraint trigger `ledger_entries_balanced`); this check
 * only gives the programmer a clear message before the round trip.
 */
export async function postLedger(tx: Tx, scope: RowScope, p: LedgerPosting) {
  const rows = ledgerRows(scope, p);
  await tx.ledgerEntry.createMany({ data: rows });
  return rows;
}

/** The entry rows of one posting, checked to balance (for a caller that writes them in a larger statement). */
export function ledgerRows(scope: RowScope, p: LedgerPosting) {
  let net = 0n;
  for (const leg of p.legs) {
    const amount = BigInt(leg.amount);
    if (amount <= 0n) throw new Error(`ledger leg ${leg.code} of ${p.txId} must have a positive amount`);
    net += leg.direction === 'debit' ? amount : -amount;
  }
  if (p.legs.length < 2 || net !== 0n)
    throw new Error(`ledger transaction ${p.txId} does not balance (debits - credits = ${net})`);
  return p.legs.map((leg) => ({
    id: newId('ledgerEntry'),
    workspaceId: scope.workspaceId,
    mode: scope.mode,
    txId: p.txId,
    code: leg.code,
    direction: leg.direction,
    amount: BigInt(leg.amount),
    currency: p.currency,
    sourceType: p.sourceType,
    sourceId: p.sourceId,
    memo: leg.memo ?? null,
    postedAt: p.postedAt,
  }));
}
