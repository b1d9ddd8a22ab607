import type { FieldSpec } from '../../graphql/fields.ts';
import type { UsageRecord } from '../../generated/prisma/client.ts';

/** DECISIONS §3 usage record (docs/billing.md, Usage): the REST object and the GraphQL type (no events per record). */
export const usageRecordFields: FieldSpec<UsageRecord> = {
  id: { kind: 'id' },
  subscriptionId: { kind: 'string' },
  quantity: { kind: 'int' },
  timestamp: { kind: 'date' },
  createdAt: { kind: 'date' },
};
