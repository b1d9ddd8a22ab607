import type { FieldSpec } from '../../graphql/fields.ts';
import type { PaymentMethod } from '../../generated/prisma/client.ts';
import { paymentMethodMachine } from './states.ts';

/** A payment method row with its workspace's `acc_` id (`accountId`, `arn`). */
export type PaymentMethodRow = PaymentMethod & { accountId: string };

/**
 * The wire shape for GraphQL, REST and event snapshots (docs/guides/payment-methods.md):
 * display fields only. `providerToken` and `providerTokenHash` are deliberately absent.
 */
export const paymentMethodFields: FieldSpec<PaymentMethodRow> = {
  id: { kind: 'id' },
  arn: { kind: 'string', from: (r) => `arn:svc:${r.accountId}:payment-method:${r.id}` },
  accountId: { kind: 'string' },
  customerId: { kind: 'string' },
  type: { kind: 'string' },
  status: { kind: 'string', states: paymentMethodMachine },
  adapter: { kind: 'string' },
  card: { kind: 'json', nullable: true },
  ewallet: { kind: 'json', nullable: true },
  directDebit: { kind: 'json', nullable: true },
  paypal: { kind: 'json', nullable: true },
  isDefault: { kind: 'bool' },
  expiresAt: { kind: 'date', nullable: true },
  consent: { kind: 'json' },
  metadata: { kind: 'metadata', nullable: true },
  detachedAt: { kind: 'date', nullable: true },
  createdAt: { kind: 'date' },
  updatedAt: { kind: 'date' },
};
