/**
 * The reconciliation state machines (docs/reconciliation.md, Import pipeline): imports, runs, rows and
 * settlement batches. Every change goes through `nextState` (src/core/state-machine.ts); the import pipeline
 * makes the creating moves, the matching engine the others.
 */
import { defineMachine, type StatusOf } from '../../core/state-machine.ts';

export const importMachine = defineMachine({
  noun: 'reconciliation import',
  resource: 'reconciliation',
  stored: [{ table: 'recon_imports', column: 'status' }],
  statuses: ['pending', 'imported', 'failed'],
  conflict: 'conflict',
  moves: {
    /** An upload: the file's rows staged and a run queued in the same transaction. */
    upload: { from: [null], to: 'imported', events: ['reconciliation_import.created'] },
    /** A pull waits for the provider's report. */
    request: { from: [null], to: 'pending' },
    /** The pulled report is staged. */
    receive: { from: ['pending'], to: 'imported', events: ['reconciliation_import.created'] },
    /** The provider failed or refused the report. */
    fail: { from: ['pending'], to: 'failed', events: ['reconciliation_import.failed'] },
  },
});

export const runMachine = defineMachine({
  noun: 'reconciliation run',
  resource: 'reconciliation',
  stored: [{ table: 'recon_runs', column: 'status' }],
  statuses: ['queued', 'running', 'completed', 'failed'],
  conflict: 'conflict',
  moves: {
    queue: { from: [null], to: 'queued' },
    start: { from: ['queued'], to: 'running' },
    complete: { from: ['running'], to: 'completed', events: ['reconciliation_run.completed'] },
    fail: { from: ['queued', 'running'], to: 'failed', events: ['reconciliation_run.failed'] },
  },
});

export const rowMachine = defineMachine({
  noun: 'reconciliation row',
  resource: 'reconciliation',
  stored: [{ table: 'recon_rows', column: 'status' }],
  statuses: ['pending', 'matched', 'exception', 'resolved', 'ignored'],
  conflict: 'conflict',
  moves: {
    stage: { from: [null], to: 'pending' },
    match: { from: ['pending', 'exception'], to: 'matched' },
    /** An open exception names the row. */
    raise: { from: ['pending', 'matched'], to: 'exception' },
    /** Its exception was accepted or written off. */
    resolve: { from: ['exception'], to: 'resolved' },
    /** Bank debits. */
    ignore: { from: ['pending'], to: 'ignored' },
  },
});

export const batchMachine = defineMachine({
  noun: 'settlement batch',
  resource: 'reconciliation',
  stored: [{ table: 'recon_batches', column: 'status' }],
  statuses: ['open', 'matched', 'exception', 'resolved'],
  conflict: 'conflict',
  moves: {
    open: { from: [null], to: 'open' },
    match: { from: ['open', 'exception'], to: 'matched', events: ['settlement_batch.matched'] },
    raise: { from: ['open', 'matched'], to: 'exception' },
    resolve: { from: ['exception'], to: 'resolved' },
  },
});

export type ImportStatus = StatusOf<typeof importMachine>;
export type RunStatus = StatusOf<typeof runMachine>;
export type RowStatus = StatusOf<typeof rowMachine>;
export type BatchStatus = StatusOf<typeof batchMachine>;

/** docs/reconciliation.md, Exceptions: `resolved` is terminal (a wrong write-off is corrected by another posting). */
export const reconExceptionMachine = defineMachine({
  noun: 'reconciliation exception',
  resource: 'reconciliation',
  stored: [{ table: 'recon_exceptions', column: 'status' }],
  statuses: ['open', 'resolved'],
  conflict: 'conflict',
  moves: {
    open: { from: [null], to: 'open', events: ['reconciliation_exception.created'] },
    accept: { from: ['open'], to: 'resolved', events: ['reconciliation_exception.resolved'] },
    write_off: { from: ['open'], to: 'resolved', events: ['reconciliation_exception.resolved'] },
    link: { from: ['open'], to: 'resolved', events: ['reconciliation_exception.resolved'] },
    /** A run found the counterpart: a late capture, a late batch credit, a row claiming the object. */
    auto_resolve: { from: ['open'], to: 'resolved', events: ['reconciliation_exception.resolved'] },
  },
});

export type ReconExceptionStatus = StatusOf<typeof reconExceptionMachine>;
