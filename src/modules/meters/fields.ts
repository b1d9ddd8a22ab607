import type { FieldSpec } from '../../graphql/fields.ts';
import type { Meter } from '../../generated/prisma/client.ts';
import { toWire } from '../../core/wire.ts';
import { meterMachine } from './states.ts';

/** A meter row as services return it: with its workspace's `acc_` id (`accountId`, `arn`). */
export type MeterRow = Meter & { accountId: string };

/** The meter: the REST object, the GraphQL type and the event snapshot (docs/guides/meters.md). */
export const meterFields: FieldSpec<Meter> = {
  id: { kind: 'id' },
  // Plan style: `/` before the id.
  arn: { kind: 'string', from: (r) => `arn:svc:${(r as MeterRow).accountId}:meter/${r.id}` },
  accountId: { kind: 'string', from: (r) => (r as MeterRow).accountId },
  key: { kind: 'string' },
  name: { kind: 'string' },
  description: { kind: 'string', nullable: true },
  eventName: { kind: 'string' },
  aggregation: { kind: 'string' },
  valueProperty: { kind: 'string', nullable: true },
  filters: { kind: 'json' },
  groupBy: { kind: 'strings', from: (r) => r.groupBy ?? [] },
  unit: { kind: 'string', nullable: true },
  status: { kind: 'string', states: meterMachine },
  archivedAt: { kind: 'date', nullable: true },
  metadata: { kind: 'metadata', nullable: true },
  createdAt: { kind: 'date' },
  updatedAt: { kind: 'date' },
};

export const meterSnapshot = (m: MeterRow) => toWire(m, meterFields);
