import type { FieldSpec } from '../../graphql/fields.ts';
import type { DunningPolicy } from '../../generated/prisma/client.ts';

/** DECISIONS §3 dunning policy: the REST object, the GraphQL type and the event snapshot. */
export const dunningPolicyFields: FieldSpec<DunningPolicy> = {
  id: { kind: 'id' },
  retryScheduleDays: { kind: 'ints' },
  finalAction: { kind: 'string' },
  createdAt: { kind: 'date' },
  updatedAt: { kind: 'date' },
};
