import type { FieldSpec } from '../../graphql/fields.ts';
import type { Receipt } from '../../generated/prisma/client.ts';

/** spec Receipt, full object (retrieve). */
export const receiptFields: FieldSpec<Receipt> = {
  receiptId: { kind: 'id', from: (r) => r.id },
  number: { kind: 'string' },
  sourceType: { kind: 'string' },
  sourceId: { kind: 'string' },
  status: { kind: 'string' },
  paidAt: { kind: 'date', nullable: true },
  amount: { kind: 'money' },
  currency: { kind: 'string' },
  method: { kind: 'string', nullable: true },
  methodLabel: { kind: 'string', nullable: true },
  adapter: { kind: 'string', nullable: true },
  customer: { kind: 'json', nullable: true },
  merchant: { kind: 'json' },
  lineItems: { kind: 'json' },
  subtotal: { kind: 'money' },
  taxAmount: { kind: 'money' },
  total: { kind: 'money' },
  template: { kind: 'json' },
};

/** spec Receipt, summary object (list items). */
export const receiptSummaryFields: FieldSpec<Receipt> = {
  id: { kind: 'id' },
  number: { kind: 'string' },
  sourceType: { kind: 'string' },
  sourceId: { kind: 'string' },
  customerId: { kind: 'string', nullable: true },
  amount: { kind: 'money' },
  currency: { kind: 'string' },
  method: { kind: 'string', nullable: true },
  adapter: { kind: 'string', nullable: true },
  issuedAt: { kind: 'date' },
  emailedAt: { kind: 'date', nullable: true },
  emailedTo: { kind: 'string', nullable: true },
};
