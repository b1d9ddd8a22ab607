import type { FieldSpec } from '../../graphql/fields.ts';
import type { TestClock } from '../../generated/prisma/client.ts';
import { testClockMachine } from './states.ts';

/** DECISIONS §3 test clock: the REST object, the GraphQL type and the event snapshot. */
export const testClockFields: FieldSpec<TestClock> = {
  id: { kind: 'id' },
  name: { kind: 'string', nullable: true },
  frozenTime: { kind: 'date' },
  status: { kind: 'string', states: testClockMachine },
  createdAt: { kind: 'date' },
  updatedAt: { kind: 'date' },
};
