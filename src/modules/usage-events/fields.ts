import type { FieldSpec } from '../../graphql/fields.ts';
import type { UsageEvent } from '../../generated/prisma/client.ts';
import { usageEventMachine } from './states.ts';

/** The stored usage event: the REST object and the GraphQL type (docs/guides/usage-events.md). */
export const usageEventFields: FieldSpec<UsageEvent> = {
  id: { kind: 'string' },
  eventName: { kind: 'string' },
  customerId: { kind: 'string' },
  externalCustomerId: { kind: 'string', nullable: true },
  timestamp: { kind: 'date' },
  receivedAt: { kind: 'date' },
  properties: { kind: 'json' },
  meterIds: { kind: 'strings', from: (r) => r.meterIds ?? [] },
  status: { kind: 'string', states: usageEventMachine },
  voidedAt: { kind: 'date', nullable: true },
};
