import type { Job, PgBoss, Queue, WorkOptions } from 'pg-boss';
import type { OnPublish } from './outbox-relay.ts';

/** What a handler has besides its jobs: the worker's pg-boss, to send follow-up jobs. */
export interface JobContext {
  boss: PgBoss;
}

/**
 * One queue of the worker, declared. `jobs/table.ts` lists every entry and `jobs/worker.ts` walks it:
 * creates the queue with its policy, schedules it, starts its workers and adds its relay fan-out. A
 * job file exports its entries and never calls pg-boss's `createQueue`, `schedule` or `work` itself.
 */
export interface JobEntry<T = object> {
  queue: string;
  /** Cron (UTC): pg-boss sends one job each time it matches. None: the jobs are sent by code. */
  schedule?: string;
  /** Retries, backoff, expiry and retention of the queue's jobs (pg-boss `createQueue`). */
  policy: Omit<Queue, 'name'>;
  /** How each process takes jobs: batch size, local workers, polling. Default: one job, one worker. */
  take?: Omit<WorkOptions, 'groupConcurrency' | 'localGroupConcurrency'>;
  /**
   * One job per workspace at a time, across every worker (pg-boss `groupConcurrency: 1` over the
   * job's group, which its senders set to the workspace id): one workspace's burst queues behind
   * itself, not in front of every other workspace's.
   */
  fairPerWorkspace?: boolean;
  /**
   * The jobs the outbox relay writes into this queue in its publishing transaction: a job exists
   * exactly when its event is published, and a crash loses neither.
   */
  fromRelay?: (boss: PgBoss) => OnPublish;
  /** Runs a batch of jobs (one unless `take.batchSize` says more); a throw fails the batch for retry. */
  handler(jobs: Job<T>[], ctx: JobContext): Promise<unknown>;
}

/** An entry, typed by its job data. */
export const job = <T = object>(entry: JobEntry<T>): JobEntry<T> => entry;

/** The pg-boss `work` options of an entry. */
export const workOptions = (entry: JobEntry): WorkOptions => ({
  ...entry.take,
  ...(entry.fairPerWorkspace ? { groupConcurrency: 1 } : {}),
});
