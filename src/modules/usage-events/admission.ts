/**
 * Ingestion slots per process (docs/usage.md, Admission): at most `usageIngestConcurrency` requests
 * run at once; waiting requests queue per workspace and a freed slot goes to the next workspace in
 * turn, so one flooding workspace waits behind its own requests, not in front of others. A wait over
 * `usageAdmissionWaitMs` is a 503 with Retry-After, never an unbounded queue.
 */
import { config } from '../../core/config.ts';
import { DomainError } from '../../core/errors.ts';

interface Waiter {
  grant: () => void;
  timer: NodeJS.Timeout;
}

let running = 0;
/** Workspaces with waiters, in turn order; each with its own FIFO. */
const queues = new Map<string, Waiter[]>();

function grantNext() {
  while (running < config.usageIngestConcurrency && queues.size > 0) {
    const [workspaceId, waiters] = queues.entries().next().value as [string, Waiter[]];
    queues.delete(workspaceId);
    const w = waiters.shift()!;
    // The workspace goes to the back of the turn order if it still waits.
    if (waiters.length > 0) queues.set(workspaceId, waiters);
    clearTimeout(w.timer);
    running++;
    w.grant();
  }
}

const release = () => {
  running--;
  grantNext();
};

/** Runs `fn` in an ingestion slot of this process; 503 `service_unavailable` after the admission wait. */
export async function withIngestSlot<T>(workspaceId: string, fn: () => Promise<T>): Promise<T> {
  if (running < config.usageIngestConcurrency && queues.size === 0) running++;
  else await waitForSlot(workspaceId);
  try {
    return await fn();
  } finally {
    release();
  }
}

function waitForSlot(workspaceId: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const waiters = queues.get(workspaceId) ?? [];
    const waiter: Waiter = {
      grant: resolve,
      timer: setTimeout(() => {
        const list = queues.get(workspaceId);
        const at = list?.indexOf(waiter) ?? -1;
        if (list && at >= 0) list.splice(at, 1);
        if (list?.length === 0) queues.delete(workspaceId);
        reject(
          new DomainError('service_unavailable', 'Usage ingestion is at capacity; retry shortly', {
            resource: 'usage_event',
            headers: { 'retry-after': '1' },
          }),
        );
      }, config.usageAdmissionWaitMs),
    };
    waiters.push(waiter);
    queues.set(workspaceId, waiters);
  });
}

/** Slots in use and workspaces waiting (metrics, tests). */
export const ingestSlots = () => ({ running, waiting: queues.size });
