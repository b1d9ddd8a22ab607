import type { FieldSpec } from '../../graphql/fields.ts';
import type { CustomerBalanceTransaction } from '../../generated/prisma/client.ts';

/** docs/credit-notes.md, Customer balance: the wire shape of a balance transaction (REST, GraphQL, events). */
export const balanceTransactionFields: FieldSpec<CustomerBalanceTransaction> = {
  id: { kind: 'id' },
  customerId: { kind: 'string' },
  currency: { kind: 'string' },
  amount: { kind: 'money' },
  endingBalance: { kind: 'money' },
  type: { kind: 'string' },
  creditNoteId: { kind: 'string', nullable: true },
  invoiceId: { kind: 'string', nullable: true },
  description: { kind: 'string', nullable: true },
  metadata: { kind: 'metadata', nullable: true },
  ledgerTxId: { kind: 'string' },
  createdAt: { kind: 'date' },
};

export const balanceTransactionTypes = [
  'adjustment',
  'credit_note',
  'credit_note_void',
  'applied_to_invoice',
  'unapplied_from_invoice',
] as const;
export type BalanceTransactionType = (typeof balanceTransactionTypes)[number];
