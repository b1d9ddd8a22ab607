import type { FieldSpec } from '../../graphql/fields.ts';

/** A ledger entry as read by the raw-SQL list (amount already a bigint). */
export interface EntryRow {
  id: string;
  accountId: string;
  txId: string;
  code: string;
  direction: string;
  amount: bigint;
  currency: string;
  sourceType: string;
  sourceId: string;
  memo: string | null;
  postedAt: Date;
}

/** spec Ledger entry. */
export const ledgerEntryFields: FieldSpec<EntryRow> = {
  id: { kind: 'id' },
  accountId: { kind: 'string' },
  txId: { kind: 'string' },
  code: { kind: 'string' },
  direction: { kind: 'string' },
  amount: { kind: 'money' },
  currency: { kind: 'string' },
  sourceType: { kind: 'string' },
  sourceId: { kind: 'string' },
  memo: { kind: 'string', nullable: true },
  postedAt: { kind: 'date' },
};

/** spec Balance row (+ `currency`: a code's amounts are never summed across currencies). */
export interface BalanceRow {
  code: string;
  currency: string;
  debits: bigint;
  credits: bigint;
  balance: bigint;
}
