/**
 * The usage event state machine (docs/guides/usage-events.md): an event is `accepted` at ingestion
 * and `voided` by a correction; the row stays and its id stays reserved. Voiding again answers the
 * voided event. No platform event per usage event.
 */
import { defineMachine, type StatusOf } from '../../core/state-machine.ts';

export const usageEventMachine = defineMachine({
  noun: 'usage event',
  resource: 'usage_event',
  stored: [{ table: 'usage_events', column: 'status' }],
  statuses: ['accepted', 'voided'],
  conflict: 'conflict',
  message: (from) => `The usage event is ${from}`,
  moves: {
    /** POST /v1/usage-events. */
    accept: { from: [null], to: 'accepted' },
    /** POST /v1/usage-events/:id/void. */
    void: { from: ['accepted'], to: 'voided' },
  },
});

export type UsageEventStatus = StatusOf<typeof usageEventMachine>;
export const usageEventAccepted = usageEventMachine.moves.accept.to;
export const usageEventVoided = usageEventMachine.moves.void.to;
