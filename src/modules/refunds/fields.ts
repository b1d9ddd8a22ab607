import type { FieldSpec } from '../../graphql/fields.ts';
import type { Refund } from '../../generated/prisma/client.ts';
import { refundMachine } from './states.ts';

/** A refund row with its workspace's `acc_` id (spec `accountId`, `arn`). */
export type RefundRow = Refund & { accountId: string };

/** spec Refund: the wire shape for GraphQL, REST and event snapshots. */
export const refundFields: FieldSpec<RefundRow> = {
  id: { kind: 'id' },
  arn: { kind: 'string', from: (r) => `arn:svc:${r.accountId}:refund:${r.id}` },
  accountId: { kind: 'string' },
  chargeId: { kind: 'string', from: (r) => r.paymentId },
  invoiceId: { kind: 'string', nullable: true },
  amount: { kind: 'money' },
  currency: { kind: 'string' },
  reason: { kind: 'string', nullable: true },
  status: { kind: 'string', states: refundMachine },
  failureCode: { kind: 'string', nullable: true },
  failureMessage: { kind: 'string', nullable: true },
  metadata: { kind: 'metadata', nullable: true },
  createdAt: { kind: 'date' },
  updatedAt: { kind: 'date' },
};
