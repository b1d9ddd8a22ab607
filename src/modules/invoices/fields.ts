import type { FieldSpec } from '../../graphql/fields.ts';
import type { Invoice, InvoiceLine } from '../../generated/prisma/client.ts';
import { hostedLink } from '../../core/hosted-link.ts';
import { invoiceDraft, invoiceMachine } from './states.ts';

/** An invoice row with its workspace's `acc_` id (spec `accountId`, `arn`) and its lines in order. */
export type InvoiceRow = Invoice & { accountId: string; lines: InvoiceLine[] };

/** spec Invoice line. */
export const invoiceLineFields: FieldSpec<InvoiceLine> = {
  id: { kind: 'id' },
  description: { kind: 'string' },
  quantity: { kind: 'int' },
  unitAmount: { kind: 'money' },
  amount: { kind: 'money' },
  priceId: { kind: 'string', nullable: true },
  metadata: { kind: 'metadata', nullable: true },
};

/** spec Invoice: the wire shape for GraphQL, REST and event snapshots (lines are a field of their own there). */
export const invoiceFields: FieldSpec<InvoiceRow> = {
  id: { kind: 'id' },
  arn: { kind: 'string', from: (r) => `arn:svc:${r.accountId}:invoice:${r.id}` },
  accountId: { kind: 'string' },
  customerId: { kind: 'string' },
  subscriptionId: { kind: 'string', nullable: true },
  status: { kind: 'string', states: invoiceMachine },
  number: { kind: 'string', nullable: true },
  currency: { kind: 'string' },
  subtotal: { kind: 'money' },
  discount: { kind: 'money' },
  // docs/coupons.md, Invoice discounts: Σ amount = discount, frozen after draft.
  discounts: { kind: 'json', graphql: ['InvoiceDiscount'] },
  tax: { kind: 'money' },
  total: { kind: 'money' },
  amountPaid: { kind: 'money' },
  amountDue: { kind: 'money' },
  // docs/credit-notes.md, Invoice amounts.
  balanceApplied: { kind: 'money' },
  creditedAmount: { kind: 'money' },
  prePaymentCreditedAmount: { kind: 'money' },
  amountRemaining: { kind: 'money', from: (r) => r.total - r.creditedAmount },
  dueAt: { kind: 'date', nullable: true },
  issuedAt: { kind: 'date', nullable: true },
  paidAt: { kind: 'date', nullable: true },
  voidedAt: { kind: 'date', nullable: true },
  hostedInvoiceUrl: { kind: 'string', nullable: true, from: (r) => hostedInvoiceUrlOf(r) },
  collectionAttempts: { kind: 'int' },
  templateId: { kind: 'string', nullable: true },
  metadata: { kind: 'metadata', nullable: true },
  createdAt: { kind: 'date' },
  updatedAt: { kind: 'date' },
};

/**
 * `{hosted_base}/i/<id>_<secret>` once issued; null for drafts (spec Invoice: a bearer secret). The
 * hosted page (served elsewhere) checks the secret with `parseHostedToken('invoice', ...)`.
 */
export const hostedInvoiceUrlOf = (r: Pick<Invoice, 'id' | 'hostedSecret' | 'status'>) =>
  r.status === invoiceDraft ? null : hostedLink('i', r.id, r.hostedSecret);
