import type { FieldSpec } from '../../graphql/fields.ts';
import type { Customer } from '../../generated/prisma/client.ts';

/** spec Customer: the REST object, the GraphQL type and the event snapshot. */
export const customerFields: FieldSpec<Customer> = {
  id: { kind: 'id' },
  name: { kind: 'string', nullable: true },
  email: { kind: 'string', nullable: true },
  phone: { kind: 'string', nullable: true },
  // The merchant's own reference; usage events may name the customer by it (docs/guides/usage-events.md).
  externalId: { kind: 'string', nullable: true },
  metadata: { kind: 'metadata', nullable: true },
  // The clock a test customer lives on (immutable; docs/billing.md, Test clocks)
  testClockId: { kind: 'string', nullable: true },
  // The pm_ charged when a subscription names none (docs/guides/payment-methods.md, Which method pays)
  defaultPaymentMethodId: { kind: 'string', nullable: true },
  createdAt: { kind: 'date' },
  updatedAt: { kind: 'date' },
};
