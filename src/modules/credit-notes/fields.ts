import type { FieldSpec } from '../../graphql/fields.ts';
import type { CreditNote, CreditNoteLine } from '../../generated/prisma/client.ts';
import { creditNoteMachine } from './states.ts';

/** A credit note row with its workspace's `acc_` id and its lines in order. */
export type CreditNoteRow = CreditNote & { accountId: string; lines: CreditNoteLine[] };

/** A preview: the note as it would be issued, nothing written (`id`, `number` null, status `preview`). */
export type CreditNotePreview = Omit<CreditNoteRow, 'id' | 'number' | 'status'> & {
  id: string | null;
  number: string | null;
  status: string;
};

/** docs/credit-notes.md, Object: a credit note line. */
export const creditNoteLineFields: FieldSpec<CreditNoteLine> = {
  id: { kind: 'id' },
  type: { kind: 'string' },
  invoiceLineId: { kind: 'string', nullable: true },
  description: { kind: 'string' },
  quantity: { kind: 'int' },
  unitAmount: { kind: 'money' },
  amount: { kind: 'money' },
};

/** docs/credit-notes.md, Object: the wire shape for GraphQL, REST and event snapshots (lines beside). */
export const creditNoteFields: FieldSpec<CreditNotePreview> = {
  id: { kind: 'string', nullable: true },
  arn: { kind: 'string', nullable: true, from: (r) => (r.id ? `arn:svc:${r.accountId}:credit-note:${r.id}` : null) },
  accountId: { kind: 'string' },
  invoiceId: { kind: 'string' },
  customerId: { kind: 'string' },
  number: { kind: 'string', nullable: true },
  // `preview` on a preview (nothing issued) besides the machine's statuses.
  status: { kind: 'string', states: creditNoteMachine },
  reason: { kind: 'string', nullable: true },
  memo: { kind: 'string', nullable: true },
  currency: { kind: 'string' },
  subtotal: { kind: 'money' },
  discountAmount: { kind: 'money' },
  tax: { kind: 'money' },
  taxIncluded: { kind: 'money' },
  total: { kind: 'money' },
  prePaymentAmount: { kind: 'money' },
  postPaymentAmount: { kind: 'money' },
  refundAmount: { kind: 'money' },
  creditAmount: { kind: 'money' },
  outOfBandAmount: { kind: 'money' },
  refundId: { kind: 'string', nullable: true },
  refundStatus: { kind: 'string', nullable: true },
  balanceTransactionId: { kind: 'string', nullable: true },
  issuedAt: { kind: 'date' },
  voidedAt: { kind: 'date', nullable: true },
  metadata: { kind: 'metadata', nullable: true },
  createdAt: { kind: 'date' },
  updatedAt: { kind: 'date' },
};
