import type { FieldSpec } from '../../graphql/fields.ts';
import type { Payment } from '../../generated/prisma/client.ts';
import { paymentMachine } from './states.ts';

/** spec Payment. */
export const paymentFields: FieldSpec<Payment> = {
  id: { kind: 'id' },
  amount: { kind: 'money' },
  currency: { kind: 'string' },
  status: { kind: 'string', states: paymentMachine },
  amountRefunded: { kind: 'money' },
  method: { kind: 'string', nullable: true },
  // The saved method an off-session charge used (docs/guides/payment-methods.md, Which method pays)
  paymentMethodId: { kind: 'string', nullable: true },
  failureCode: { kind: 'string', nullable: true },
  failureMessage: { kind: 'string', nullable: true },
  // `{type: "redirect", url, expiresAt}` while the charge is `requires_action` (docs/guides/payment-methods.md, Requires action)
  nextAction: { kind: 'json', nullable: true },
  adapter: { kind: 'string', nullable: true },
  customerId: { kind: 'string', nullable: true },
  checkoutSessionId: { kind: 'string', nullable: true },
  invoiceId: { kind: 'string', nullable: true },
  capturedAt: { kind: 'date', nullable: true },
  mode: { kind: 'string' },
  metadata: { kind: 'metadata', nullable: true },
  createdAt: { kind: 'date' },
};
