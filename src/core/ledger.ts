import { insertRows, sql, sqlOf, type AnyTx, type Fragment } from './db/sql.ts';
import { newId } from './ids.ts';
import type { RowScope } from './resource.ts';

export type LedgerSourceType =
  | 'checkout_session'
  | 'invoice'
  | 'refund'
  | 'payout'
  | 'adjustment'
  | 'dispute'
  | 'credit_note'
  | 'reconciliation';

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
 * The one writer of `ledger_entries` (a meta-test pins every insert of the table to this file).
 * Writes one balanced double-entry transaction in the caller's transaction, on either SQL path. The
 * database checks the balance again at commit (deferred constraint trigger `ledger_entries_balanced`);
 * the check in `ledgerRows` only gives the programmer a clear message before the round trip.
 */
export function postLedger(tx: AnyTx, scope: RowScope, p: LedgerPosting) {
  return postLedgers(tx, scope, [p]);
}

/** `postLedger` for a batch of postings in one statement (none: no statement). Returns the rows written. */
export async function postLedgers(tx: AnyTx, scope: RowScope, postings: LedgerPosting[]) {
  const rows = postings.flatMap((p) => ledgerRows(scope, p));
  if (rows.length) await sqlOf(tx).query(insertEntries(rows));
  return rows;
}

/**
 * The INSERT of the postings' entries (each checked to balance), for a larger statement's WITH list:
 * `returning` is appended as `RETURNING <returning>`. The postings must give at least one entry.
 */
export function insertLedger(scope: RowScope, postings: LedgerPosting[], o: { returning?: Fragment } = {}): Fragment {
  const rows = postings.flatMap((p) => ledgerRows(scope, p));
  if (!rows.length) throw new Error('insertLedger: no entries to insert');
  return o.returning ? sql`${insertEntries(rows)} RETURNING ${o.returning}` : insertEntries(rows);
}

const insertEntries = (rows: LedgerRow[]) => insertRows('ledger_entries', rows);

/** The entry rows of one posting, checked to balance (written by `postLedgers` or `insertLedger`). */
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

export type LedgerRow = ReturnType<typeof ledgerRows>[number];
