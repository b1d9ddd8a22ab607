/**
 * The test clock state machine (DECISIONS §3; docs/decisions.md, Test clocks). An advance that runs
 * before the answer goes ready -> ready (`advance_now`); a large one goes to advancing and a pg-boss
 * job finishes it.
 */
import { defineMachine, type StatusOf } from '../../core/state-machine.ts';

export const testClockMachine = defineMachine({
  noun: 'test clock',
  resource: 'test_clock',
  stored: [{ table: 'test_clocks', column: 'status' }],
  statuses: ['ready', 'advancing', 'internal_failure'],
  conflict: 'conflict',
  moves: {
    create: { from: [null], to: 'ready', events: ['test_clock.created'] },
    /** A small advance: every due item processed in the request, then the new frozenTime. */
    advance_now: { from: ['ready', 'internal_failure'], to: 'ready', events: ['test_clock.ready'], label: 'advance' },
    /** A large advance: answered `advancing`, finished by the `test-clock-advance` job. */
    advance: { from: ['ready', 'internal_failure'], to: 'advancing', events: ['test_clock.advancing'] },
    finish: { from: ['advancing'], to: 'ready', events: ['test_clock.ready'] },
    /** The job gave up; the clock keeps the time it reached and may be advanced again. */
    fail: { from: ['advancing'], to: 'internal_failure', events: ['test_clock.internal_failure'] },
  },
});

export type TestClockStatus = StatusOf<typeof testClockMachine>;
