import type { FieldSpec } from '../../graphql/fields.ts';
import type { SetupSession } from '../../generated/prisma/client.ts';
import { hostedLink } from '../../core/hosted-link.ts';
import { setupSessionMachine } from './states.ts';

/** A setup session row with its workspace's `acc_` id (`accountId`, `arn`). */
export type SetupSessionRow = SetupSession & { accountId: string };

/**
 * The wire shape for GraphQL, REST and event snapshots alike (docs/guides/setup-sessions.md, Fields).
 * The hosted secret travels only inside `hostedUrl`; attempts and provider references never leave.
 */
export const setupSessionFields: FieldSpec<SetupSessionRow> = {
  id: { kind: 'id' },
  arn: { kind: 'string', from: (r) => `arn:svc:${r.accountId}:setup-session:${r.id}` },
  accountId: { kind: 'string' },
  customerId: { kind: 'string' },
  mode: { kind: 'string' },
  status: { kind: 'string', states: setupSessionMachine },
  types: { kind: 'strings' },
  currency: { kind: 'string' },
  adapter: { kind: 'string', nullable: true },
  successUrl: { kind: 'string' },
  cancelUrl: { kind: 'string' },
  hostedUrl: { kind: 'string', from: (r) => setupHostedUrlOf(r) },
  setDefault: { kind: 'bool' },
  subscriptionId: { kind: 'string', nullable: true },
  paymentMethodId: { kind: 'string', nullable: true },
  lastError: { kind: 'json', nullable: true },
  expiresAt: { kind: 'date' },
  completedAt: { kind: 'date', nullable: true },
  metadata: { kind: 'metadata', nullable: true },
  createdAt: { kind: 'date' },
  updatedAt: { kind: 'date' },
};

/** `{hosted_base}/s/<id>_<secret>`: the secret, not the id, is the page's capability. */
export const setupHostedUrlOf = (r: Pick<SetupSession, 'id' | 'hostedSecret'>) => hostedLink('s', r.id, r.hostedSecret);
