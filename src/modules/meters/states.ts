/**
 * The meter state machine (docs/guides/meters.md): a meter counts while `active`; `archive` stops it
 * counting new events for good (what it counted stays). Archiving again answers the archived meter.
 */
import { defineMachine, type StatusOf } from '../../core/state-machine.ts';

export const meterMachine = defineMachine({
  noun: 'meter',
  resource: 'meter',
  stored: [{ table: 'meters', column: 'status' }],
  statuses: ['active', 'archived'],
  conflict: 'conflict',
  message: (from) => `The meter is ${from}`,
  moves: {
    /** POST /v1/meters. */
    create: { from: [null], to: 'active' },
    /** POST /v1/meters/:id/archive. */
    archive: { from: ['active'], to: 'archived' },
  },
});

export type MeterStatus = StatusOf<typeof meterMachine>;
export const meterActive = meterMachine.moves.create.to;
export const meterArchived = meterMachine.moves.archive.to;
