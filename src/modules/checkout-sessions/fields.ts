import type { FieldSpec } from '../../graphql/fields.ts';
import type { CheckoutSession } from '../../generated/prisma/client.ts';
import { hostedLink } from '../../core/hosted-link.ts';
import { checkoutSessionMachine } from './states.ts';

/** spec Checkout session: the wire shape, for GraphQL, REST and event snapshots alike. */
/** A session row with its workspace's `acc_` id (spec `accountId`, `arn`). */
export type SessionRow = CheckoutSession & { accountId: string };

export const checkoutSessionFields: FieldSpec<SessionRow> = {
  id: { kind: 'id' },
  arn: { kind: 'string', from: (r) => `arn:svc:${r.accountId}:checkout-session:${r.id}` },
  accountId: { kind: 'string' },
  customerId: { kind: 'string', nullable: true },
  mode: { kind: 'string' },
  status: { kind: 'string', states: checkoutSessionMachine },
  amount: { kind: 'money' },
  currency: { kind: 'string' },
  methods: { kind: 'strings' },
  adapter: { kind: 'string', nullable: true },
  lineItems: { kind: 'json' },
  successUrl: { kind: 'string' },
  cancelUrl: { kind: 'string' },
  hostedUrl: { kind: 'string', from: (r) => hostedUrlOf(r) },
  expiresAt: { kind: 'date' },
  completedAt: { kind: 'date', nullable: true },
  paymentId: { kind: 'string', nullable: true },
  savePaymentMethod: { kind: 'string' },
  savedPaymentMethodId: { kind: 'string', nullable: true },
  metadata: { kind: 'metadata', nullable: true },
  createdAt: { kind: 'date' },
  updatedAt: { kind: 'date' },
};

/** `{hosted_base}/c/<id>_<secret>`: the secret, not the id, is the page's capability. */
export const hostedUrlOf = (r: Pick<CheckoutSession, 'id' | 'hostedSecret'>) => hostedLink('c', r.id, r.hostedSecret);
